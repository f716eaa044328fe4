"""``reflong-build export``: a build as a folder for lm-evaluation-harness and Inspect."""

from __future__ import annotations

from pathlib import Path

import click

from reflong.cli.options import choice_list, refuse_unfinished
from reflong.evaluate.export.write import HARNESSES, export_build


@click.command("export")
@click.option(
    "--build",
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    required=True,
    help="The build's folder (--out of paper, a, f, or a release's folder).",
)
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    required=True,
    help="The export folder: new, empty, or an earlier export (replaced whole).",
)
@click.option(
    "--harness",
    "harnesses",
    default=",".join(HARNESSES),
    show_default=True,
    help="Comma-separated: lm-eval (task YAMLs and groups), inspect (reflong.py).",
)
def export_command(build: Path, out: Path, harnesses: str) -> None:
    """Write a build as lm-evaluation-harness tasks and Inspect tasks, with scores equal to ours.

    \b
    OUT holds data/<config>.jsonl (one sample a line: id, input = the prompt byte for byte,
    target, metadata), utils.py (our answer parser and metrics, standard library only), the
    lm-eval YAMLs (a task per config: reflong_paper_hard_30K; groups per subset, length and
    setting, weighted by size), reflong.py for Inspect, README.md with both commands and the
    sha256 of every data file, and export.json (provenance). The same build gives the same bytes.
    Context limits: lm-eval --metadata '{"max_context": N}', Inspect -T max_context=N.
    """
    refuse_unfinished(build)
    chosen = tuple(choice_list("--harness", harnesses, HARNESSES))
    report = export_build(build, out, chosen)
    tasks = sum(len(c.samples) for c in report.configs)
    click.echo(
        f"exported {tasks} tasks in {len(report.configs)} configurations to {report.out} "
        f"({report.files} files; groups: {', '.join(report.groups) or 'none'}); see {report.out / 'README.md'}"
    )


COMMANDS = [export_command]
