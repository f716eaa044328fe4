"""Options shared by several commands, so they read and default the same everywhere."""

from __future__ import annotations

import dataclasses
import functools
import inspect
import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import click

from reflong.common.errors import ReflongError
from reflong.db.engine import DEFAULT_DB_PATH

if TYPE_CHECKING:
    from reflong.citations.thresholds import Thresholds


def default_of(settings: Callable, name: str) -> Any:
    """The default of field ``name`` of a settings dataclass (or of a keyword parameter of a
    stage function): the one place a default is written, which the option then shows and uses.

    ``tests/test_cli_defaults.py`` checks every option that maps to a setting against it."""
    if dataclasses.is_dataclass(settings):
        for f in dataclasses.fields(settings):
            if f.name == name:
                if f.default is not dataclasses.MISSING:
                    return f.default
                if f.default_factory is not dataclasses.MISSING:
                    return f.default_factory()
                break
    else:
        parameter = inspect.signature(settings).parameters.get(name)
        if parameter is not None and parameter.default is not inspect.Parameter.empty:
            return parameter.default
    raise ValueError(f"{settings.__name__} has no default for {name!r}")


def shown_whole(value: float) -> float | int:
    """A whole-number float default as ``--help`` has always shown it (``120``, not ``120.0``);
    the option's ``FloatRange`` turns it back into the same float."""
    return int(value) if float(value).is_integer() else value


#: Where a command's ``--db`` value is kept for the error handler: ``ctx.meta`` is shared by a
#: command's context and its group's, so a damaged store's one-line error can name the file.
STORE_META_KEY = "reflong.db_path"


def _remember_store(ctx: click.Context, _param: click.Parameter, value: str | None) -> str | None:
    if value is not None:
        ctx.meta[STORE_META_KEY] = value
    return value


db_option = click.option(
    "--db",
    "db_path",
    type=click.Path(dir_okay=False),
    default=str(DEFAULT_DB_PATH),
    show_default=True,
    envvar="REFLONG_DB",
    callback=_remember_store,
    help="SQLite store; ingest, paper and synth runs create it, the others read it. Env: REFLONG_DB.",
)


# Seeds are stored in the store's build rows (SQLite INTEGER: signed 64-bit) and in manifests, and
# numpy's generators take no negative seed: one range for every command, checked before any output
# is written (a larger seed used to write a full output set, then crash on the build row).
class _SeedRange(click.IntRange):
    """``IntRange(0, 2**63 - 1)`` whose ``--help`` says ``x>=0``, not the 19-digit upper bound."""

    def _describe_range(self) -> str:
        return "x>=0"

    def convert(self, value, param, ctx):
        try:
            too_big = int(value) > self.max
        except (TypeError, ValueError):
            too_big = False  # not a number: click's own message says so
        if too_big:
            self.fail(f"{value} is above the largest seed, 2**63-1 = {self.max}.", param, ctx)
        return super().convert(value, param, ctx)


SEED = _SeedRange(0, 2**63 - 1)


def check_tokenizer(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """``callback`` of every ``--tokenizer``: an unknown name, a missing or unreadable
    tokenizer.json is a usage error naming the option while click reads the options, before any
    work (``paper`` used to ingest first and fail at parse). Built-in encodings are only named
    here (loading o200k_base takes seconds, and ``--dry-run`` or ``eval run`` without
    ``--max-context`` never count); a file is read, as that is the only way to know it works."""
    from reflong.common.tokenizer import BUILTIN_ENCODINGS, get_tokenizer

    if value is None or value in BUILTIN_ENCODINGS:
        return value
    try:
        get_tokenizer(value)
    except ReflongError as exc:
        raise click.BadParameter(str(exc), ctx, param) from None
    return value


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

    return click.option(
        "--lengths", default=default, show_default=default is not None, help=help, callback=check
    )


def band_options(func: Callable) -> Callable:
    """--accept and --review, the resolver's two score bands, and --profile, its rule set, as
    `resolve` and `match` both take them (None: the resolver's own default, named in the help)."""
    from reflong.citations.thresholds import DEFAULT_PROFILE, PROFILES, Thresholds

    func = click.option(
        "--profile",
        type=click.Choice(PROFILES),
        default=DEFAULT_PROFILE,
        show_default=True,
        help="The resolver's rule set: default serves arXiv seeds; books adds the rules for books, "
        "chapters, editions and humanities footnotes (docs/parse-and-citations.md#profiles).",
    )(func)
    for name in ("review", "accept"):  # applied bottom-up, so --accept is listed first
        func = click.option(
            f"--{name}",
            type=float,
            default=None,
            help=f"Score for the {name} band (default {default_of(Thresholds, name):g}).",
        )(func)
    return func


def thresholds_from(accept: float | None, review: float | None, profile: str) -> Thresholds:
    """The resolver's settings from ``band_options``' values, or one line when review > accept."""
    from reflong.citations.thresholds import Thresholds

    defaults = Thresholds()
    t = Thresholds(
        accept=defaults.accept if accept is None else accept,
        review=defaults.review if review is None else review,
        profile=profile,
    )
    if t.review > t.accept:
        raise ReflongError(f"--review {t.review} is above --accept {t.accept}; give review <= accept")
    return t


def choice_list(option: str, value: str, allowed: tuple[str, ...]) -> list[str]:
    """A comma-separated subset of ``allowed`` (in ``allowed``'s order), or a usage error."""
    items = [v.strip() for v in value.split(",") if v.strip()]
    bad = [v for v in items if v not in allowed]
    if bad or not items:
        raise usage_error(
            option, ValueError(f"takes a comma-separated subset of {','.join(allowed)}; got {value!r}")
        )
    return [v for v in allowed if v in items]


def require_store(db_path: str) -> None:
    """A command that needs a store already filled (stats, report, audit, edges, refs, parse,
    cite, resolve) refuses a missing one in one line, before anything (not even the writer lock
    file) is created: an empty new store would make the next command look at nothing."""
    from pathlib import Path

    if not Path(db_path).exists():
        raise ReflongError(
            f"no store at {db_path}: nothing has been ingested there; run `reflong-build ingest` "
            "(or `paper`) first, or point --db (env REFLONG_DB) at an existing store"
        )


def refuse_unfinished(*paths) -> None:
    """A reader of a build's outputs (report, audit, eval) refuses, in one line, a folder whose
    build did not finish (killed or failed while writing: ``manifest.json`` says so), so that no
    score or report is made from half a build."""
    from pathlib import Path

    from reflong.assemble.manifest import unfinished_line

    for path in paths:
        if path is not None and (line := unfinished_line(Path(path))):
            raise ReflongError(line)


def existing_store(db_path: str):
    """``open_store`` for a store that must exist already (see ``require_store``)."""
    from reflong.db.engine import open_store

    require_store(db_path)
    return open_store(db_path)


def reading_store(db_path: str):
    """A store that must exist already, for a command that only reads: also in a read-only folder
    (``open_store_to_read``)."""
    from reflong.db.engine import open_store_to_read

    require_store(db_path)
    return open_store_to_read(db_path)


def writes_existing_store(func: Callable) -> Callable:
    """``writes_store`` for commands that work on what is already stored (parse, cite, resolve):
    the store must exist before the writer lock is taken."""

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        require_store(kwargs["db_path"])
        hold_store(kwargs["db_path"], kwargs.pop("wait_lock"))
        return func(*args, **kwargs)

    return db_option(wait_lock_option(wrapper))


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
    from pathlib import Path

    from reflong.db.engine import foreign_database
    from reflong.db.lock import writer_lock

    if why := foreign_database(Path(db_path)):  # before the lock file appears beside it
        raise ReflongError(why)
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
        if kwargs.get("reuse_db"):  # `paper --reuse-db` only reads what is stored: a mistyped
            require_store(kwargs["db_path"])  # --db must not become a new empty store and lock file
        hold_store(kwargs["db_path"], kwargs.pop("wait_lock"))
        return func(*args, **kwargs)

    return db_option(wait_lock_option(wrapper))
