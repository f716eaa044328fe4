"""A paper build reads its window's texts and streams the edge table, whatever the store holds.

A scale-1 refresh's fourth release peaked at 6.1 GB in ``load_paper_inputs``: it built an ORM
object for every stored edge (2.0 M, every release's kept rejects) and loaded every release's
parsed PDF text. These tests count the rows it materialises on a store holding two windows.
"""

from __future__ import annotations

from sqlalchemy import event

from reflong.assemble.paper.inputs import load_paper_inputs
from reflong.db import Citation, Paper, PaperRole, ParsedDoc, Seed, open_store, session_for
from reflong.ingest.parse.pdf_text import PARSER_VERSION

OLD, NEW = "2024-03:s1:p6:d2", "2024-04:s1:p6:d2"
KEY_OLD, KEY_NEW = "2403.00001", "2404.00001"


def _store(db_path, per_window: int = 6):
    """Two windows, each with one seed, ``per_window`` pool citers (parsed, with edges) and an
    earlier release's reject edges to the other window's seed."""
    engine = open_store(db_path)
    with session_for(engine) as s:
        for window, key, month in ((OLD, KEY_OLD, "03"), (NEW, KEY_NEW, "04")):
            s.add(Seed(arxiv_id=key, title=f"Seed paper of 2024-{month}", published=f"2024-{month}-02"))
            s.add(PaperRole(window=window, arxiv_id=key, role="seed", version=1))
            for i in range(per_window):
                pid = f"24{month}.1{i:04d}"
                sha = f"sha-{pid}"
                s.add(
                    Paper(arxiv_id=pid, version=1, title=f"Paper {pid}", pdf_sha256=sha, status="downloaded")
                )
                s.add(PaperRole(window=window, arxiv_id=pid, role="pool", version=1))
                s.add(
                    ParsedDoc(
                        pdf_sha256=sha,
                        parser_version=PARSER_VERSION,
                        body_text=f"Body of {pid}.",
                        references_text=f"[1] A. Author. Seed paper of 2024-{month}. 2024.",
                        has_references=True,
                    )
                )
                for seed, band, score in (
                    (key, "accept", 100.0 - i),
                    (KEY_OLD if key == KEY_NEW else KEY_NEW, "reject", 40.0),
                ):
                    s.add(
                        Citation(
                            citing_arxiv_id=pid,
                            citing_version=1,
                            seed_arxiv_id=seed,
                            ref_order=1,
                            reference=f"[1] A. Author. Seed paper of 2024-{month}. 2024.",
                            method="title",
                            score=score,
                            band=band,
                        )
                    )
        s.commit()
    return engine


def _counting_loads():
    loaded: dict[str, int] = {"Citation": 0, "ParsedDoc": 0}

    def on_load(kind):
        def count(target, context):
            loaded[kind] += 1

        return count

    handlers = [(Citation, on_load("Citation")), (ParsedDoc, on_load("ParsedDoc"))]
    for cls, fn in handlers:
        event.listen(cls, "load", fn)
    return loaded, handlers


def test_a_build_loads_only_its_windows_texts_and_no_edge_objects(tmp_path):
    engine = _store(tmp_path / "store.db")
    loaded, handlers = _counting_loads()
    try:
        inputs = load_paper_inputs(engine, NEW)
    finally:
        for cls, fn in handlers:
            event.remove(cls, "load", fn)
    # The window's six texts, not the twelve the store holds.
    assert loaded["ParsedDoc"] == 6
    # Edges are streamed as column tuples in batches: no ORM object per stored edge (24 here).
    assert loaded["Citation"] == 0
    assert sorted(inputs.docs) == [f"2404.1{i:04d}v1" for i in range(6)]
    (key,) = inputs.keys
    assert key.arxiv_id == KEY_NEW
    assert sorted(key.positives) == sorted(inputs.docs)
    # Every band counts as "cited" (the reject edge to the other window's seed too).
    assert inputs.cited_seeds["2404.10000v1"] == {KEY_NEW, KEY_OLD}


def test_streamed_edges_keep_the_first_of_equal_scores(tmp_path):
    """Id order is the old whole-table order: of two accepts of one citer with an equal score,
    the earlier-stored edge's reference is the evidence, as before."""
    engine = _store(tmp_path / "store.db", per_window=1)
    with session_for(engine) as s:
        for order, text in ((2, "[2] first stored"), (3, "[3] second stored")):
            s.add(
                Citation(
                    citing_arxiv_id="2404.10000",
                    citing_version=1,
                    seed_arxiv_id=KEY_NEW,
                    ref_order=order,
                    reference=text,
                    method="title",
                    score=100.0,
                    band="accept",
                )
            )
        s.commit()
    (key,) = load_paper_inputs(engine, NEW).keys
    assert key.evidence["2404.10000v1"].reference.startswith("[1] A. Author.")
