"""The ``reflong-build`` command: a thin layer that wires the stages together.

Commands live one group per module (``ingest_cmd``, ``stats_cmd``, ...). This module owns the
conventions they share: the ``--db`` option, one-line errors for ``ReflongError`` (no traceback)
and exit codes (0 ok, 1 user/network error, 2 usage error, 130 interrupted, 141 quietly when the
reader of stdout went away, as in ``reflong-build edges | head``).
"""

from __future__ import annotations

import errno
import logging
import os
import sys

import click
from sqlalchemy.exc import DatabaseError, IntegrityError, OperationalError

from reflong import __version__
from reflong.common.errors import ReflongError


class _Group(click.Group):
    """A group that turns ReflongError into a one-line ``Error: ...`` and exit code 1."""

    def invoke(self, ctx: click.Context):
        try:
            result = super().invoke(ctx)
            sys.stdout.flush()  # a reader gone: EPIPE here, not as noise at interpreter exit
            return result
        except BrokenPipeError:
            # `reflong-build edges | head`: the reader stopped, nothing went wrong here. Quiet,
            # with the status a shell reports for a tool stopped by SIGPIPE (128 + 13).
            _stdout_to_devnull()
            ctx.exit(SIGPIPE_EXIT)
        except ReflongError as exc:
            raise click.ClickException(str(exc)) from None
        except (OperationalError, IntegrityError) as exc:
            raise click.ClickException(_store_error(exc)) from None
        except DatabaseError as exc:  # after its subclasses above: a damaged file, not a busy one
            from reflong.cli.options import STORE_META_KEY

            raise click.ClickException(_damaged_store(exc, ctx.meta.get(STORE_META_KEY))) from None
        except OSError as exc:
            raise click.ClickException(os_error_line(exc)) from None
        except KeyboardInterrupt:
            click.echo("interrupted: work done so far is saved; rerun the same command to resume.", err=True)
            ctx.exit(130)


SIGPIPE_EXIT = 141


def _stdout_to_devnull() -> None:
    """Point stdout's descriptor at /dev/null, so the interpreter's last flush of what is still
    buffered cannot fail again ("Exception ignored ... BrokenPipeError")."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):  # no real descriptor (a test runner's stream)
        pass


class _StderrHandler(logging.Handler):
    """Log records as lines on the *current* stderr (click's, so tests capture them too):
    ``warning: ...`` for warnings and errors, the bare message for progress and information."""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            message = record.getMessage()
            if record.levelno >= logging.WARNING or record.levelno < logging.INFO:
                message = f"{record.levelname.lower()}: {message}"
            click.echo(message, err=True)
        except Exception:  # a logging failure must never break a run
            self.handleError(record)


def configure_logging(verbose: int, quiet: bool) -> None:
    """One handler on the ``reflong`` logger, set once per invocation (idempotent: reinvoking
    ``main`` in one process, as tests do, replaces it). Default INFO: progress lines, retries
    (WARNING); ``-q``: errors only; ``-v``: debug detail as well."""
    logger = logging.getLogger("reflong")
    for handler in [h for h in logger.handlers if isinstance(h, _StderrHandler)]:
        logger.removeHandler(handler)
    logger.addHandler(_StderrHandler())
    logger.setLevel(logging.ERROR if quiet else logging.DEBUG if verbose else logging.INFO)
    logger.propagate = False


_OS_ADVICE = {
    errno.ENOSPC: "free disk space (or give another --out/--db/--cache) and rerun; work done so far is kept",
    errno.EDQUOT: "free space within your quota and rerun; work done so far is kept",
    errno.EACCES: "check its permissions or give another path",
    errno.EPERM: "check its permissions or give another path",
    errno.EROFS: "the file system is read-only; give another path",
    errno.ENOTDIR: "a file stands where a folder is needed on that path (another file is in the way); "
    "give another path",
    errno.EEXIST: "a file stands where a folder is needed (another file is in the way); give another path",
    errno.EISDIR: "a folder stands where a file is needed; give another path",
    errno.ENAMETOOLONG: "give a shorter path",
}


def os_error_line(exc: OSError) -> str:
    """One line for an operating-system error escaping a command: what failed, where, what to do.

    One mechanism for every command (disk full in ingest/parse/cite/outputs, a file where --out
    needs a folder, a read-only folder...): writers clean up their own partial files (see
    ``reflong.common.atomic_files``), the CLI says what happened.
    """
    what = exc.strerror or exc.__class__.__name__
    where = exc.filename if exc.filename is not None else ""
    if exc.filename2 is not None:
        where = f"{where} -> {exc.filename2}"
    advice = _OS_ADVICE.get(exc.errno or -1, "")
    if not exc.strerror:  # e.g. requests' ConnectionError: an OSError without errno
        what = str(exc).splitlines()[0] if str(exc) else what
    return f"{what}" + (f": {where}" if where else "") + (f"; {advice}" if advice else "")


def _damaged_store(exc: DatabaseError, path: str | None) -> str:
    """One line for a store SQLite finds damaged (``database disk image is malformed``: bytes
    overwritten, a copy cut short), naming the file and how to check or restore it; any other
    database error is a bug of ours and keeps its traceback."""
    first = str(getattr(exc, "orig", exc)).splitlines()[0]
    if "malformed" not in first and "not a database" not in first:
        raise exc
    name = path or "the store"
    return (
        f"the store {name} is damaged ({first}); check it with `sqlite3 {name} 'PRAGMA integrity_check'` "
        "and restore it from a copy, or salvage what is left "
        f"with `sqlite3 {name} .recover`"
    )


def _store_error(exc: OperationalError | IntegrityError) -> str:
    """One line for a store error that another process (not a bug of ours) can cause.

    The writer lock (reflong/db/lock.py) keeps reflong-build runs apart; these remain for other
    writers (a sqlite3 shell holding a transaction, a script) or a store on a file system
    without working locks.
    """
    first = str(getattr(exc, "orig", exc)).splitlines()[0]
    if isinstance(exc, IntegrityError):
        return (
            f"the store changed under this run ({first}): another process wrote the same rows; "
            "rerun the command (work done so far is kept)"
        )
    if "locked" in first or "busy" in first:
        return (
            f"the store is locked by another process ({first}); close other programs writing to it "
            "(a sqlite3 shell, a script) and rerun"
        )
    if "disk is full" in first or "disk I/O error" in first:
        return (
            f"the store could not be written ({first}); free disk space and rerun (work done so far is kept)"
        )
    raise exc


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(__version__, prog_name="reflong-build")
@click.option("-v", "--verbose", count=True, help="More detail on stderr (debug lines).")
@click.option("-q", "--quiet", is_flag=True, help="Only errors on stderr: no progress, no retry warnings.")
def main(verbose: int, quiet: bool) -> None:
    """Build long-context referencing benchmarks (Ref-Long style).

    \b
    Typical run, end to end:
      reflong-build paper --since 2024-03
    Stage by stage:
      reflong-build ingest --since 2024-03   fetch metadata and PDFs from arXiv
      reflong-build parse                    PDFs -> clean text and ~1K-token chunks
      reflong-build stats                    what the store holds
    Everything lives in one SQLite file (--db, default ./reflong.db); every stage resumes.
    Progress and retries go to stderr (a line every 30 s without a terminal); -q hides them.
    """
    if verbose and quiet:
        raise click.UsageError("-v and -q contradict each other; give one")
    configure_logging(verbose, quiet)


# One command group per module, in the order `--help` lists them.
COMMAND_MODULES = (
    "ingest_cmd",
    "parse_cmd",
    "cite_cmd",
    "match_cmd",  # reflong-build match (raw strings x a seed list, no store)
    "paper_cmd",
    "refresh_cmd",  # reflong-build refresh: the next window as a release
    "synthetic_cmd",  # reflong-build a / f
    "split_cmd",  # reflong-build check-disjoint (training splits)
    "demo_cmd",
    "stats_cmd",
    "audit_cmd",  # reflong-build report / audit
    "eval_cmd",  # reflong-build eval score / run / baseline
    "export_cmd",  # reflong-build export: lm-eval and Inspect tasks
    "human_cmd",  # reflong-build human: the human baseline's annotation page
)


def _register() -> None:
    import importlib

    for name in COMMAND_MODULES:
        module = importlib.import_module(f"reflong.cli.{name}")
        for command in module.COMMANDS:
            main.add_command(command)


_register()
