"""``reflong-build stats``: what the store holds."""

from __future__ import annotations

import json

import click

from reflong.cli.options import db_option, format_option, reading_store, writes_existing_store
from reflong.db.stats import collect_stats


def _render_table(stats: dict) -> str:
    lines = []
    for key, value in stats.items():
        if isinstance(value, dict):
            lines.append(f"{key}:")
            for sub, subvalue in value.items():
                if isinstance(subvalue, dict):
                    inner = ", ".join(f"{k}={v}" for k, v in subvalue.items())
                    lines.append(f"  {sub}: {inner}")
                else:
                    lines.append(f"  {sub}: {subvalue}")
            if not value:
                lines.append("  (none)")
        else:
            lines.append(f"{key}: {value if value is not None else '-'}")
    return "\n".join(lines)


@click.command()
@db_option
@format_option
def stats(db_path: str, fmt: str) -> None:
    """Report what the store holds: papers by role and status, failures by reason, parses, chunks."""
    data = collect_stats(reading_store(db_path))
    click.echo(json.dumps(data, indent=2, sort_keys=True) if fmt == "json" else _render_table(data))


@click.command()
@writes_existing_store
def compact(db_path: str) -> None:
    """Give the store's free pages back to the disk (SQLite VACUUM), kill-safe.

    Rows a refresh drops free pages that SQLite reuses but never returns; `stats` shows them as
    free_bytes. Takes the writer lock, needs free disk of about the store's size, and leaves
    the old or the new store whole if killed.
    """
    from pathlib import Path

    from reflong.db.compact import compact_store

    report = compact_store(Path(db_path))
    if not report.ran:
        click.echo(f"{db_path}: {report.bytes_before / 1e6:.1f} MB, no free pages: nothing to give back")
        return
    click.echo(
        f"{db_path}: {report.bytes_before / 1e6:.1f} MB -> {report.bytes_after / 1e6:.1f} MB "
        f"({report.free_bytes_before / 1e6:.1f} MB of free pages given back)"
    )


COMMANDS = [stats, compact]
