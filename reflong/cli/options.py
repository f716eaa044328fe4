"""Options shared by several commands, so they read and default the same everywhere."""

from __future__ import annotations

import click

from reflong.db.engine import DEFAULT_DB_PATH
from reflong.errors import ReflongError

db_option = click.option(
    "--db",
    "db_path",
    type=click.Path(dir_okay=False),
    default=str(DEFAULT_DB_PATH),
    show_default=True,
    envvar="REFLONG_DB",
    help="SQLite store (ingest, paper and synth runs create it; other commands need an existing one). "
    "Env: REFLONG_DB.",
)


def output_format(choices: tuple[str, ...], help: str):
    """``--format`` (as ``fmt``), ``table`` first and the default; each command names its others."""
    return click.option(
        "--format", "fmt", type=click.Choice(list(choices)), default=choices[0], show_default=True, help=help
    )


format_option = output_format(("table", "json"), "Human-readable table or JSON for scripts.")


def usage_error(option: str, exc: Exception) -> click.BadParameter:
    """A value a command could only judge after parsing (e.g. lengths vs the document budget),
    reported as click's usage error for ``option``: exit code 2, ``Invalid value for '--x'``."""
    return click.BadParameter(str(exc), param_hint=f"'{option}'")


def lengths_option(default: str | None, help: str, parse):
    """``--lengths``, checked by ``parse(value)`` while click reads the options (so a bad value is a
    usage error naming the option, before any work starts); the command gets the raw string and may
    parse it again with settings that come later (A/F: the document budget)."""

    def check(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
        if value is None:
            return None
        try:
            parse(value)
        except (click.BadParameter, ValueError, ReflongError) as exc:
            message = exc.message if isinstance(exc, click.BadParameter) else str(exc)
            raise click.BadParameter(message, ctx, param) from None
        return value

    return click.option("--lengths", default=default, show_default=default is not None, help=help, callback=check)


def choice_list(option: str, value: str, allowed: tuple[str, ...]) -> list[str]:
    """A comma-separated subset of ``allowed`` (in ``allowed``'s order), or a usage error."""
    items = [v.strip() for v in value.split(",") if v.strip()]
    bad = [v for v in items if v not in allowed]
    if bad or not items:
        raise usage_error(option, ValueError(f"takes a comma-separated subset of {','.join(allowed)}; got {value!r}"))
    return [v for v in allowed if v in items]


def existing_store(db_path: str):
    """Open the store for a command that needs one already filled (stats, report, audit, edges,
    refs, parse, cite, resolve): a missing file is a one-line error, not a new empty store that
    would make the next command look at nothing."""
    from pathlib import Path

    from reflong.db.engine import open_store

    if not Path(db_path).exists():
        raise ReflongError(
            f"no store at {db_path}: nothing has been ingested there; run `reflong-build ingest` "
            "(or `paper`) first, or point --db (env REFLONG_DB) at an existing store"
        )
    return open_store(db_path)


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
