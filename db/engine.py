"""Opening the store: one SQLite file, WAL mode, all tables created on first use.

WAL lets readers (``stats``, ``edges``, Datasette) look at the store while a stage writes; stages
keep to one writer and batch their inserts, as docs/architecture.md asks. "One writer" is enforced across
processes by ``db/lock.py``: every CLI command that writes holds ``<db>.lock`` (an OS file lock)
for its whole run, and a second writer waits (``--wait-lock``) or refuses in one line.
"""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import event
from sqlalchemy.engine import Engine
from sqlmodel import Session, SQLModel, create_engine

from reflong.common.errors import ReflongError

DEFAULT_DB_PATH = Path("reflong.db")
# How long one statement waits for another connection's write transaction (SQLite busy_timeout).
# reflong-build runs never overlap as writers (db/lock.py); this covers readers checkpointing and
# other programs (a sqlite3 shell) holding a short transaction.
BUSY_TIMEOUT_MS = 30_000


def _set_pragmas(dbapi_connection, _record) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute(f"PRAGMA busy_timeout={int(BUSY_TIMEOUT_MS)}")
    cursor.close()


def open_store(path: str | Path = DEFAULT_DB_PATH) -> Engine:
    """Open (and create if needed) the store at ``path`` with every table and view in place."""
    import reflong.db  # noqa: F401  (registers every table module on SQLModel.metadata)

    path = Path(path)
    if path.exists() and path.is_dir():
        raise ReflongError(f"--db {path} is a directory; give a file path such as {path / 'reflong.db'}")
    path.parent.mkdir(parents=True, exist_ok=True)
    engine = create_engine(f"sqlite:///{path}", connect_args={"check_same_thread": False})
    event.listen(engine, "connect", _set_pragmas)
    try:
        SQLModel.metadata.create_all(engine)
        _add_missing_columns(engine)
    except Exception as exc:  # sqlite3.DatabaseError for a file that is not a database
        reason = str(getattr(exc, "orig", exc)).splitlines()[0]
        raise ReflongError(f"cannot open the store {path}: {reason}; give another --db path") from None
    return engine


def _add_missing_columns(engine: Engine) -> None:
    """Bring a store made by an older version up to date with additive schema changes.

    New columns are the only schema change this project makes between versions (tables are
    created by ``create_all``); SQLite can add them in place, with the model's default, so a user's
    store keeps its papers, parses and verdicts across upgrades. A non-additive change would need a
    real migration tool (Alembic) and a store version; none has been needed so far.
    """
    with engine.begin() as conn:
        for table in SQLModel.metadata.sorted_tables:
            present = {row[1] for row in conn.exec_driver_sql(f'PRAGMA table_info("{table.name}")')}
            for column in table.columns:
                if column.name in present:
                    continue
                default = (
                    column.default.arg if column.default is not None and column.default.is_scalar else None
                )
                type_sql = column.type.compile(dialect=engine.dialect)
                clause = f" DEFAULT {_sql_literal(default)}" if default is not None else ""
                conn.exec_driver_sql(
                    f'ALTER TABLE "{table.name}" ADD COLUMN "{column.name}" {type_sql}{clause}'
                )


def _sql_literal(value: object) -> str:
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, (int, float)):
        return repr(value)
    return "'" + str(value).replace("'", "''") + "'"


def session_for(engine: Engine) -> Session:
    """A session that keeps objects usable after commit (stages hand rows to the CLI)."""
    return Session(engine, expire_on_commit=False)
