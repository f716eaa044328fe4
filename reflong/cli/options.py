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

format_option = click.option(
    "--format",
    "fmt",
    type=click.Choice(["table", "json"]),
    default="table",
    show_default=True,
    help="Human-readable table or JSON for scripts.",
)
