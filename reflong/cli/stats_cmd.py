"""``reflong-build stats``: what the store holds."""

from __future__ import annotations

import json

import click

from reflong.cli.options import db_option, format_option, reading_store
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


COMMANDS = [stats]
