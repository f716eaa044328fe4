"""The ``reflong-build`` command: a thin layer that wires the stages together.

Commands live one group per module (``ingest_cmd``, ``stats_cmd``, ...). This module owns the
conventions they share: the ``--db`` option, one-line errors for ``ReflongError`` (no traceback)
and exit codes (0 ok, 1 user/network error, 2 usage error).
"""

from __future__ import annotations

import logging
import sys

import click

from reflong import __version__
from reflong.errors import ReflongError


class _Group(click.Group):
    """A group that turns ReflongError into a one-line ``Error: ...`` and exit code 1."""

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except ReflongError as exc:
            raise click.ClickException(str(exc)) from None
        except KeyboardInterrupt:
            click.echo("interrupted: work done so far is saved; rerun the same command to resume.", err=True)
            ctx.exit(130)


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(__version__, prog_name="reflong-build")
def main() -> None:
    """Build long-context referencing benchmarks (Ref-Long style).

    \b
    Typical run, end to end:
      reflong-build paper --since 2024-03
    Stage by stage:
      reflong-build ingest --since 2024-03   fetch metadata and PDFs from arXiv
      reflong-build parse                    PDFs -> clean text and ~1K-token chunks
      reflong-build stats                    what the store holds
    Everything lives in one SQLite file (--db, default ./reflong.db); every stage resumes.
    """


# One command group per module, in the order `--help` lists them.
COMMAND_MODULES = (
    "ingest_cmd",
    "parse_cmd",
    "cite_cmd",
    "paper_cmd",
    "synthetic_cmd",  # reflong-build a / f
    "demo_cmd",
    "stats_cmd",
    "audit_cmd",  # reflong-build report / audit
)


def _log_to_stderr() -> None:
    """Warnings (retries, waits, fallbacks) and info of the ``reflong`` loggers go to stderr.

    Through ``logging`` rather than the progress bars, so they show without a TTY (CI, nohup,
    a pipe); the hardening issue adds -v/-q on top of this.
    """
    logger = logging.getLogger("reflong")
    if not logger.handlers:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("reflong-build: %(message)s"))
        logger.addHandler(handler)
        logger.setLevel(logging.WARNING)
        logger.propagate = False


def _register() -> None:
    import importlib

    for name in COMMAND_MODULES:
        module = importlib.import_module(f"reflong.cli.{name}")
        for command in module.COMMANDS:
            main.add_command(command)


_register()
_log_to_stderr()
