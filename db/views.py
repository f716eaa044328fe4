"""Views and full-text search that make the store pleasant to browse (Datasette, sqlite3 shell).

Created by ``open_store`` (an ``after_create`` hook on the metadata), idempotently: a view is
(re)created only when its SQL differs from what the file holds, so an older store gains new
columns on its next open and a read-only look (``stats``, Datasette) writes nothing.

* ``audit_current``: the verdict in force per edge (the latest audit row of each edge key).
* ``citing_pairs``: every citation edge with its evidence, the citing paper's title, the seed's
  title, the verdict in force and the band a build uses (``effective_band``: the verdict wins,
  the same rule as ``reflong.db.audits.effective_band``; a test keeps the two in agreement).
* ``reference_fts`` / ``citation_fts``: SQLite FTS5 indexes on reference strings, kept in sync by
  triggers. Datasette finds them (``content="reference"``) and shows a search box on the
  ``reference`` and ``citation`` tables.
* ``reference_words``: each resolved reference's words, as the resolver reads them, in hashed form
  (``citations/candidates/reference_words.py``): a refresh finds the old references a new seed can
  touch by a query, not by reading every list again. Not for browsing: contentless, its tokens are
  hashes.
* ``ix_reference_doi``: the DOI look-up of the same refresh.
"""

from __future__ import annotations

from sqlalchemy import event, text
from sqlmodel import SQLModel

VIEWS: dict[str, str] = {
    "audit_current": (
        "CREATE VIEW audit_current AS "
        "SELECT a.edge_key, a.citing_arxiv_id, a.citing_version, a.seed_arxiv_id, a.verdict, a.who, "
        "a.created_at, a.why, a.source FROM audit a "
        "WHERE a.id = (SELECT MAX(b.id) FROM audit b WHERE b.edge_key = a.edge_key)"
    ),
    "citing_pairs": (
        "CREATE VIEW citing_pairs AS "
        "SELECT c.citing_arxiv_id, c.citing_version, p.title AS citing_title, "
        "c.seed_arxiv_id, s.title AS seed_title, c.band, "
        "CASE a.verdict WHEN 'confirm' THEN 'accept' WHEN 'reject' THEN 'reject' ELSE c.band END "
        "AS effective_band, a.verdict, a.who AS verdict_who, a.why AS verdict_why, "
        "c.score, c.method, c.ref_order, c.reference, c.reason, "
        "c.citing_arxiv_id || 'v' || c.citing_version || '->' || c.seed_arxiv_id AS edge_key "
        "FROM citation c "
        "LEFT JOIN seed s ON s.arxiv_id = c.seed_arxiv_id "
        "LEFT JOIN paper p ON p.arxiv_id = c.citing_arxiv_id AND p.version = c.citing_version "
        "LEFT JOIN audit_current a ON a.citing_arxiv_id = c.citing_arxiv_id "
        "AND a.citing_version = c.citing_version AND a.seed_arxiv_id = c.seed_arxiv_id "
        "ORDER BY c.citing_arxiv_id, c.seed_arxiv_id, c.score DESC"
    ),
}

# (fts table, content table, indexed column)
FTS: tuple[tuple[str, str, str], ...] = (
    ("reference_fts", "reference", "raw"),
    ("citation_fts", "citation", "reference"),
)


def _fts_statements(fts: str, table: str, column: str) -> list[str]:
    return [
        f"CREATE TRIGGER IF NOT EXISTS {fts}_ai AFTER INSERT ON {table} BEGIN "
        f"INSERT INTO {fts}(rowid, {column}) VALUES (new.id, new.{column}); END",
        f"CREATE TRIGGER IF NOT EXISTS {fts}_ad AFTER DELETE ON {table} BEGIN "
        f"INSERT INTO {fts}({fts}, rowid, {column}) VALUES ('delete', old.id, old.{column}); END",
        f"CREATE TRIGGER IF NOT EXISTS {fts}_au AFTER UPDATE OF {column} ON {table} BEGIN "
        f"INSERT INTO {fts}({fts}, rowid, {column}) VALUES ('delete', old.id, old.{column}); "
        f"INSERT INTO {fts}(rowid, {column}) VALUES (new.id, new.{column}); END",
    ]


# The word index of resolved references: written by the resolve stage, read by a refresh's pick.
WORDS_TABLE = "reference_words"
EXTRA: dict[str, str] = {
    # Contentless, without positions: only "which references hold these words" is asked, so the
    # index is all it keeps (16 MB for 198,000 references where a stored copy took 198 MB). Rows
    # are never deleted (SQLite before 3.43 cannot, contentless): a reference gone or re-resolved
    # leaves words behind, which only adds references to check, never hides one; a full re-resolve
    # clears the table first (``resolve_stage``).
    WORDS_TABLE: f"CREATE VIRTUAL TABLE {WORDS_TABLE} USING fts5(words, content='', detail=none, columnsize=0)",
    "ix_reference_doi": "CREATE INDEX ix_reference_doi ON reference (doi)",
}


def ensure_views(connection) -> None:
    """Create or update the browsing views and FTS indexes on an open connection."""
    existing = dict(
        connection.execute(
            text("SELECT name, sql FROM sqlite_master WHERE type IN ('view', 'table', 'trigger', 'index')")
        ).all()
    )
    for name, sql in VIEWS.items():  # in order: citing_pairs reads audit_current
        if existing.get(name) != sql:
            connection.execute(text(f"DROP VIEW IF EXISTS {name}"))
            connection.execute(text(sql))
    for fts, table, column in FTS:
        if fts not in existing:
            connection.execute(
                text(
                    f'CREATE VIRTUAL TABLE {fts} USING fts5({column}, content="{table}", content_rowid="id")'
                )
            )
            # Index rows written before the index existed (a store from an earlier version).
            connection.execute(text(f"INSERT INTO {fts}({fts}) VALUES ('rebuild')"))
        for suffix, statement in zip(("_ai", "_ad", "_au"), _fts_statements(fts, table, column), strict=True):
            if fts + suffix not in existing:
                connection.execute(text(statement))
    for name, sql in EXTRA.items():
        if name not in existing:
            connection.execute(text(sql))


@event.listens_for(SQLModel.metadata, "after_create")
def _after_create(_metadata, connection, **_kw) -> None:
    ensure_views(connection)
