"""Opening the store: one SQLite file, WAL mode, all tables created on first use.

WAL lets readers (``stats``, ``edges``, Datasette) look at the store while a stage writes; stages
keep to one writer and batch their inserts, as DESIGN.md asks.
"""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import event
from sqlalchemy.engine import Engine
from sqlmodel import Session, SQLModel, create_engine

from reflong.errors import ReflongError

DEFAULT_DB_PATH = Path("reflong.db")


def _set_pragmas(dbapi_connection, _record) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA busy_timeout=30000")
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
    except Exception as exc:  # sqlite3.DatabaseError for a file that is not a database
        reason = str(getattr(exc, "orig", exc)).splitlines()[0]
        raise ReflongError(f"cannot open the store {path}: {reason}; give another --db path") from None
    return engine


def session_for(engine: Engine) -> Session:
    """A session that keeps objects usable after commit (stages hand rows to the CLI)."""
    return Session(engine, expire_on_commit=False)
