"""Opening the store: one SQLite file, WAL mode, all tables created on first use.

WAL lets readers (``stats``, ``edges``, Datasette) look at the store while a stage writes; stages
keep to one writer and batch their inserts, as docs/architecture.md asks. "One writer" is enforced across
processes by ``db/lock.py``: every CLI command that writes holds ``<db>.lock`` (an OS file lock)
for its whole run, and a second writer waits (``--wait-lock``) or refuses in one line.
"""

from __future__ import annotations

import os
from pathlib import Path
from urllib.parse import quote

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


def foreign_database(path: Path) -> str | None:
    """Why the existing file at ``path`` is another program's SQLite database (tables, none of
    them ours), else None: opening it as the store would write our schema into it. Any one table
    of ours makes it a store (an older one gains the rest on open). A file SQLite cannot read at
    all is left to the open (its error says so); an empty file is a new store."""
    import sqlite3

    import reflong.db  # noqa: F401  (registers every table module on SQLModel.metadata)

    if not path.is_file() or path.stat().st_size == 0:
        return None
    try:
        con = sqlite3.connect(f"file:{quote(str(path.resolve()))}?mode=ro", uri=True)
        try:
            tables = {name for (name,) in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        finally:
            con.close()
    except sqlite3.DatabaseError:
        return None
    if not tables or tables & set(SQLModel.metadata.tables):
        return None
    shown = ", ".join(sorted(tables)[:3]) + (f" and {len(tables) - 3} more" if len(tables) > 3 else "")
    return (
        f"--db {path} is another program's SQLite database (tables {shown}), not a reflong-build store; "
        "nothing was written to it: give the store's path (or a new file for a new store)"
    )


def open_store(path: str | Path = DEFAULT_DB_PATH) -> Engine:
    """Open (and create if needed) the store at ``path`` with every table and view in place."""
    import reflong.db  # noqa: F401  (registers every table module on SQLModel.metadata)

    path = Path(path)
    if path.exists() and path.is_dir():
        raise ReflongError(f"--db {path} is a directory; give a file path such as {path / 'reflong.db'}")
    if why := foreign_database(path):
        raise ReflongError(why)
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


def _set_read_pragmas(dbapi_connection, _record) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA query_only=ON")
    cursor.execute(f"PRAGMA busy_timeout={int(BUSY_TIMEOUT_MS)}")
    cursor.close()


def open_store_to_read(path: str | Path) -> Engine:
    """Open an existing store for a command that only reads (stats, edges, refs, report, audit).

    Where the store and its folder are writable this is ``open_store`` (which also brings an older
    store's schema up to date). Where they are not (a read-only folder or mount, a store shared
    read-only), SQLite's read-only URI is used, following its docs (wal.html, "Read-Only
    Databases"; walformat.html): since 3.22.0 a WAL database without write access can be read
    when its ``-wal`` and ``-shm`` files already exist (``mode=ro``; e.g. left by a killed writer),
    and otherwise only as ``immutable=1``, which reads the database file alone without locks. That
    is complete when there is no ``-wal`` with commits in it (a finished run checkpoints and
    removes it), and safe because nobody can write into a read-only folder. A ``-wal`` holding
    commits without its ``-shm`` cannot be read faithfully, so it is refused in one line.
    """
    path = Path(path)
    if path.exists() and path.is_dir():
        raise ReflongError(f"--db {path} is a directory; give a file path such as {path / 'reflong.db'}")
    if path.is_file() and path.stat().st_size == 0:
        raise ReflongError(
            f"--db {path} is an empty file, not a store: nothing has been stored there; give the store's path"
        )
    folder = path.parent if str(path.parent) else Path(".")
    if os.access(path, os.W_OK) and os.access(folder, os.W_OK):
        return open_store(path)
    import reflong.db  # noqa: F401  (registers every table module on SQLModel.metadata)

    wal, shm = Path(f"{path}-wal"), Path(f"{path}-shm")
    if wal.exists() and shm.exists():
        flags = "mode=ro"
    elif wal.exists() and wal.stat().st_size > 0:
        raise ReflongError(
            f"cannot read the store {path}: its folder is read-only and its -wal file holds changes not yet "
            "in the database, which SQLite reads only with a -shm file it cannot create there; copy the folder "
            "somewhere writable and read the copy (or run any command on it once with write access)"
        )
    else:
        flags = "mode=ro&immutable=1"
    uri = f"sqlite:///file:{quote(str(path.resolve()))}?{flags}&uri=true"
    engine = create_engine(uri, connect_args={"check_same_thread": False})
    event.listen(engine, "connect", _set_read_pragmas)
    try:
        with engine.connect() as conn:
            conn.exec_driver_sql("SELECT count(*) FROM sqlite_master").scalar()
    except Exception as exc:
        reason = str(getattr(exc, "orig", exc)).splitlines()[0]
        raise ReflongError(f"cannot read the store {path} (read-only): {reason}") from None
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
