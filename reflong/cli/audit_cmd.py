"""``reflong-build report`` and ``reflong-build audit``: look at a build, and fix its ground truth."""

from __future__ import annotations

from pathlib import Path

import click

from reflong.cli.options import db_option
from reflong.db.engine import open_store
from reflong.errors import ReflongError


@click.command()
@click.option(
    "--out",
    "out_dir",
    type=click.Path(file_okay=False),
    required=True,
    help="The build's outputs folder; report.html is written there (the build written to it is used).",
)
@click.option("--build", "build_id", type=int, default=None, help="Report on this build id instead.")
@click.option(
    "--compare",
    type=click.Path(file_okay=False, exists=True),
    default=None,
    help="Folder of Ref-Long *_answers.json files to compare answer-set sizes with.",
)
@db_option
def report(out_dir: str, build_id: int | None, compare: str | None, db_path: str) -> None:
    """Write one self-contained HTML page (inline SVG plots) about a build to OUT/report.html."""
    from reflong.assemble.report import collect_report, write_report

    compare_dir = Path(compare) if compare else None
    if compare_dir is not None and not any(compare_dir.glob("*_answers.json")):
        raise ReflongError(
            f"--compare {compare}: no *_answers.json files there (give a Ref-Long answers folder)"
        )
    data = collect_report(open_store(db_path), build_id, out_dir, compare_dir)
    path = write_report(data, Path(out_dir))
    click.echo(f"report on build {data.build['id']}: {path}")


COMMANDS = [report]
