"""Title twins: another stored arXiv paper with a seed's exact title keeps its own references."""

from __future__ import annotations

import json

from sqlmodel import Session, select

from reflong.citations.candidates.title_twins import find_twins
from reflong.citations.resolve import SeedTitle
from reflong.citations.stages.resolve_stage import run_resolve
from reflong.db.citations import Citation, Reference, ReferenceList
from reflong.db.engine import open_store
from reflong.db.harvest import ArxivRecordRow
from reflong.db.papers import Paper

TITLE = "Do Retrieval-Augmented Generation Really Reason?"


def _store(tmp_path):
    engine = open_store(tmp_path / "store.db")
    with Session(engine) as s:
        # The seed (cs.CL) and its twin (cs.IR, outside the build's categories: metadata only).
        s.add(Paper(arxiv_id="2403.10469", version=1, title=TITLE, authors_json='["Fatima Varga"]'))
        s.add(ArxivRecordRow(arxiv_id="2403.08959", title=TITLE.lower(), authors_json='["Carla Akhtar"]'))
        s.add(ArxivRecordRow(arxiv_id="2403.00001", title="Do RAG Models Really Reason?", authors_json="[]"))
        s.add(ReferenceList(arxiv_id="2408.00169", version=1, parser="builtin-test", n_references=2))
        refs = [
            "C. Akhtar, S. Quinn, et al. Do Retrieval-Augmented Generation Really Reason? arXiv, 2024.",
            "F. Varga and K. Banerjee. Do retrieval-augmented generation really reason? arXiv, 2024.",
        ]
        for order, raw in enumerate(refs, 1):
            s.add(Reference(arxiv_id="2408.00169", version=1, order=order, raw=raw))
        s.commit()
    return engine


def test_find_twins_reads_every_stored_record(tmp_path):
    engine = _store(tmp_path)
    seeds = [SeedTitle("2403.10469", TITLE, "2024-03-20", "Varga")]
    with Session(engine) as s:
        assert find_twins(s, seeds) == {"2403.10469": [("2403.08959", "Akhtar")]}


def test_resolve_gives_the_twin_its_reference_and_the_seed_its_own(tmp_path):
    engine = _store(tmp_path)
    seeds = tmp_path / "seeds.jsonl"
    seeds.write_text(
        json.dumps(
            {"arxiv_id": "2403.10469", "title": TITLE, "published": "2024-03-20", "first_author": "Varga"}
        )
        + "\n"
    )
    report = run_resolve(engine, str(seeds))
    assert report.title_twins == 1
    with Session(engine) as s:
        edges = {c.ref_order: c for c in s.exec(select(Citation)).all()}
    assert edges[1].band == "reject" and "2403.08959" in edges[1].reason
    assert edges[2].band == "accept"
