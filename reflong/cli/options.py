"""Options shared by several commands, so they read and default the same everywhere."""

from __future__ import annotations

import click

from reflong.db.engine import DEFAULT_DB_PATH

db_option = click.option(
    "--db",
    "db_path",
    type=click.Path(dir_okay=False),
    default=str(DEFAULT_DB_PATH),
    show_default=True,
    envvar="REFLONG_DB",
    help="SQLite store (created if missing). Env: REFLONG_DB.",
)


def output_format(choices: tuple[str, ...], help: str):
    """``--format`` (as ``fmt``), ``table`` first and the default; each command names its others."""
    return click.option(
        "--format", "fmt", type=click.Choice(list(choices)), default=choices[0], show_default=True, help=help
    )


format_option = output_format(("table", "json"), "Human-readable table or JSON for scripts.")


no_baselines_option = click.option(
    "--no-baselines",
    is_flag=True,
    help="Leave the no-model baselines (random/all/none/lexical ExAcc per configuration) out of the card.",
)


def baseline_sections(seed: int, skip: bool) -> list:
    """The dataset card's baseline section (evaluate), wired into assemble's writers by the CLI."""
    if skip:
        return []
    from reflong.evaluate.baseline_run import BaselineCardSection

    return [BaselineCardSection(seed)]
