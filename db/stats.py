"""What the store holds, as one dict: the ``stats`` command prints it, scripts read its JSON.

Each table group contributes a section function; keys are stable so scripts can rely on them.
"""

from __future__ import annotations

from collections.abc import Callable

from sqlalchemy import func
from sqlalchemy.engine import Engine
from sqlalchemy.exc import OperationalError
from sqlmodel import Session, select

from reflong.db.papers import Failure, Paper, PaperRole
from reflong.db.text import Chunk, ParsedDoc


def _paper_stats(session: Session) -> dict:
    by_status = dict(session.exec(select(Paper.status, func.count()).group_by(Paper.status)).all())
    by_role: dict[str, dict[str, int]] = {}
    for window, role, n in session.exec(
        select(PaperRole.window, PaperRole.role, func.count()).group_by(PaperRole.window, PaperRole.role)
    ).all():
        by_role.setdefault(window, {})[role] = n
    return {
        "papers": session.exec(select(func.count()).select_from(Paper)).one(),
        "papers_by_status": by_status,
        "roles_by_window": by_role,
    }


def _failure_stats(session: Session) -> dict:
    rows = session.exec(
        select(Failure.stage, Failure.reason, func.count()).group_by(Failure.stage, Failure.reason)
    ).all()
    by_stage: dict[str, dict[str, int]] = {}
    for stage, reason, n in rows:
        by_stage.setdefault(stage, {})[reason] = n
    return {"failures": by_stage}


def _text_stats(session: Session) -> dict:
    parsed = session.exec(
        select(func.count()).select_from(ParsedDoc).where(ParsedDoc.status == "parsed")
    ).one()
    failed = session.exec(
        select(func.count()).select_from(ParsedDoc).where(ParsedDoc.status == "failed")
    ).one()
    with_refs = session.exec(
        select(func.count()).select_from(ParsedDoc).where(ParsedDoc.has_references == True)  # noqa: E712
    ).one()
    n_chunks, lo, hi = session.exec(
        select(func.count(), func.min(Chunk.n_tokens), func.max(Chunk.n_tokens))
    ).one()
    return {
        "parsed": parsed,
        "failed": failed,
        "with_references": with_refs,
        "chunks": n_chunks,
        "chunk_tokens_min": lo,
        "chunk_tokens_max": hi,
    }


def _citation_stats(session: Session) -> dict:
    """The citation rows of ``store_rows`` (counted there once), in the order ``stats`` prints them."""
    rows = store_rows(session)
    return {key: rows[key] for key in ("seeds", "references", "edges", "near_misses_dropped")}


def store_rows(session: Session) -> dict:
    """The store's rows that grow with its releases, counted: a release records them (its
    ``release.json``), so the next release's notes give the growth. Counts, not bytes: the same
    store always gives the same counts, while its file's size depends on its history of writes."""
    from reflong.db.citations import Citation, Reference, Seed

    bands = dict(session.exec(select(Citation.band, func.count()).group_by(Citation.band)).all())
    return {
        "papers": session.exec(select(func.count()).select_from(Paper)).one(),
        "chunks": session.exec(select(func.count()).select_from(Chunk)).one(),
        "references": session.exec(select(func.count()).select_from(Reference)).one(),
        "seeds": session.exec(select(func.count()).select_from(Seed)).one(),
        "edges": {band: bands.get(band, 0) for band in ("accept", "review", "reject")},
        "near_misses_dropped": session.exec(select(func.sum(Reference.near_misses_dropped))).one() or 0,
    }


SECTIONS: list[Callable[[Session], dict]] = [_paper_stats, _failure_stats, _text_stats]
SECTIONS.append(_citation_stats)


def _audit_stats(session: Session) -> dict:
    """Verdicts in force (latest per edge), by verdict."""
    from reflong.db.audits import verdicts_for

    counts: dict[str, int] = {}
    for verdict in verdicts_for(session).values():
        counts[verdict.verdict] = counts.get(verdict.verdict, 0) + 1
    return {"audits": dict(sorted(counts.items()))}


SECTIONS.append(_audit_stats)


def _size_stats(session: Session) -> dict:
    """The store's size on disk and its bytes by table (a table's indexes counted with it).

    Why: reject edges dominate a store that has seen many releases (issue 41); this is where
    that growth shows. Read from SQLite's ``dbstat`` table; a build of SQLite without it gives the
    total only (``bytes_by_table`` is then empty)."""
    conn = session.connection()
    page_size = conn.exec_driver_sql("PRAGMA page_size").scalar_one()
    pages = conn.exec_driver_sql("PRAGMA page_count").scalar_one()
    free = conn.exec_driver_sql("PRAGMA freelist_count").scalar_one()
    owner = dict(conn.exec_driver_sql("SELECT name, tbl_name FROM sqlite_schema").all())
    try:
        rows = conn.exec_driver_sql("SELECT name, SUM(pgsize) FROM dbstat GROUP BY name").all()
    except OperationalError:  # SQLite compiled without dbstat: the total is still right
        rows = []
    by_table: dict[str, int] = {}
    for name, size in rows:
        table = owner.get(name, name)
        by_table[table] = by_table.get(table, 0) + int(size or 0)
    ordered = dict(sorted(by_table.items(), key=lambda kv: (-kv[1], kv[0])))
    return {"store_bytes": page_size * pages, "free_bytes": page_size * free, "bytes_by_table": ordered}


SECTIONS.append(_size_stats)


def collect_stats(engine: Engine) -> dict:
    """Every section's counts merged into one flat-ish dict (stable keys)."""
    out: dict = {}
    with Session(engine) as session:
        for section in SECTIONS:
            out.update(section(session))
    return out
