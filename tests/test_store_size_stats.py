"""``stats`` reports the store's size and its bytes by table (issue 41 item 2): where a store that
has seen many releases grows (reject edges and their full-text copy) is read off, not guessed."""

from __future__ import annotations

import json
import sqlite3
from contextlib import closing

from click.testing import CliRunner
from sqlmodel import Session

from reflong.cli import main
from reflong.db import open_store
from reflong.db.citations import Citation


def _stats(db) -> dict:
    out = CliRunner().invoke(main, ["stats", "--db", str(db), "--format", "json"])
    assert out.exit_code == 0, out.output
    return json.loads(out.output)


def test_stats_gives_the_store_size_and_the_bytes_of_each_table(tmp_path):
    db = tmp_path / "s.db"
    engine = open_store(db)
    empty = _stats(db)
    with Session(engine) as session:
        for i in range(3000):
            session.add(
                Citation(
                    citing_arxiv_id=f"2405.{i:05d}", seed_arxiv_id="2403.00001", ref_order=i,
                    reference=f"A. Author. A long reference string number {i} about attention. 2024.",
                    method="title", score=61.0, band="reject",
                )
            )  # fmt: skip
        session.commit()
    engine.dispose()
    # The pages may still sit in the WAL (a reader of the first ``stats`` left open keeps the last
    # close from checkpointing): fold them into the file, which ``store_bytes`` counts page for page.
    with closing(sqlite3.connect(db)) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    grown = _stats(db)
    assert grown["store_bytes"] == db.stat().st_size  # the file, page for page
    tables = grown["bytes_by_table"]
    assert sum(tables.values()) <= grown["store_bytes"]
    # the edges (with their indexes) and the full-text copy of their strings are what grew
    growth = {t: tables[t] - empty["bytes_by_table"].get(t, 0) for t in tables}
    assert max(growth, key=growth.get) in {"citation", "citation_fts_data"}
    assert growth["citation"] > 3000 * 60  # each row holds its ~70-byte string, indexes count too
    table = CliRunner().invoke(main, ["stats", "--db", str(db)]).output.splitlines()
    assert f"store_bytes: {grown['store_bytes']}" in table
    first = table.index("bytes_by_table:") + 1
    shown = [int(line.rsplit(": ", 1)[1]) for line in table[first : first + len(tables)]]
    assert shown == sorted(tables.values(), reverse=True)  # the biggest first
