"""Options shared by several commands, so they read and default the same everywhere."""

from __future__ import annotations

import functools
import os
from collections.abc import Callable

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


# Seeds are stored in the store's build rows (SQLite INTEGER: signed 64-bit) and in manifests, and
# numpy's generators take no negative seed: one range for every command, checked before any output
# is written (a larger seed used to write a full output set, then crash on the build row).
SEED = click.IntRange(0, 2**63 - 1)


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


wait_lock_option = click.option(
    "--wait-lock",
    type=click.FloatRange(min=0),
    default=0,
    show_default=True,
    envvar="REFLONG_WAIT_LOCK",
    help="Seconds to wait for another run writing to the same --db (0: refuse at once). "
    "Env: REFLONG_WAIT_LOCK.",
)


def hold_store(db_path: str, wait_s: float | None = None) -> None:
    """Take the store's writer lock until the current command ends (one writer per store).

    ``wait_s`` None reads ``REFLONG_WAIT_LOCK`` (for subcommands without the option).
    """
    from reflong.db.lock import writer_lock

    ctx = click.get_current_context()
    if wait_s is None:
        try:
            wait_s = float(os.environ.get("REFLONG_WAIT_LOCK", "0") or 0)
        except ValueError:
            wait_s = 0.0
    command = " ".join(["reflong-build", *ctx.command_path.split()[1:]])  # argv[0] may be "-c"
    ctx.with_resource(writer_lock(db_path, command, wait_s))


def writes_store(func: Callable) -> Callable:
    """``--db`` and ``--wait-lock`` for a command that writes: the writer lock is held throughout.

    Put it right under ``@click.command()``, so the lock is taken before the command's body runs.
    """

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        hold_store(kwargs["db_path"], kwargs.pop("wait_lock"))
        return func(*args, **kwargs)

    return db_option(wait_lock_option(wrapper))
