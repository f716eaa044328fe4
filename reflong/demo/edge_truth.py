"""The resolver's accepted edges of a rehearsal against what each read PDF really prints.

Why beside answer precision and recall: a task's documents are chosen where the index and the
text agree, so a true citation the resolver misses while the index knows it makes the document
unclear and it is left out of the task; the answers stay right and hide the miss. Scoring every
accepted (citing version, seed) edge against the seed citations the stand-in printed in that
version shows what the messier entries cost the resolver.

A printed entry that is venue-only with no id (``Entry.provable`` False) counts neither way, as in
``rehearsal.answers_vs_truth``.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path


def text_edges_vs_truth(
    run_dir: Path | str, world: Path | str, lengths: str = "real", messy: bool = True
) -> dict:
    """{"edge_precision", "edge_recall", "edges_accepted", "edges_printed", "edges_unprovable"} over
    every reference list the run resolved."""
    from reflong.demo.citation_graph import TRUTH_FILE
    from reflong.demo.on_demand import OnDemandPdfs
    from reflong.ingest.catalog.reader import read_catalog

    db = Path(run_dir) / "store.db"
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        lists = con.execute("select arxiv_id, version from reference_list where status = 'ok'").fetchall()
        seeds = {r[0] for r in con.execute("select arxiv_id from seed")}
        accepted: dict[tuple[str, int], set[str]] = {}
        for citing, version, seed in con.execute(
            "select citing_arxiv_id, citing_version, seed_arxiv_id from citation where band = 'accept'"
        ):
            accepted.setdefault((citing, version), set()).add(seed)
    finally:
        con.close()
    catalog = read_catalog(Path(world))
    pdfs = OnDemandPdfs(catalog, Path(world) / TRUTH_FILE, lengths=lengths, messy=messy)
    tp = n_accepted = n_printed = n_moot = 0
    for arxiv_id, version in sorted(lists):
        printed = pdfs.entries(arxiv_id, version)
        entries = [e for e in (printed[0] if printed else []) if e.key in seeds]
        moot = {e.key for e in entries if not e.provable}
        truth = {e.key for e in entries if e.provable}
        got = accepted.get((arxiv_id, version), set()) - moot
        tp += len(got & truth)
        n_accepted += len(got)
        n_printed += len(truth)
        n_moot += len(moot)
    return {
        "edge_precision": round(tp / n_accepted, 4) if n_accepted else None,
        "edge_recall": round(tp / n_printed, 4) if n_printed else None,
        "edges_accepted": n_accepted,
        "edges_printed": n_printed,
        "edges_unprovable": n_moot,
    }
