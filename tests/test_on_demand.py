"""PDFs rendered on demand for a metadata-only world (the 2024-sized catalog has no PDFs)."""

from __future__ import annotations

import json
import re

import pymupdf
import pytest
import requests

from reflong.demo.catalog2024 import write_catalog
from reflong.demo.citation_graph import TRUTH_FILE, read_truth_pairs, write_world_index
from reflong.demo.on_demand import OnDemandPdfs
from reflong.ingest.catalog.reader import read_catalog
from reflong.servers.arxiv_server import ArxivServer


def _text(data: bytes) -> str:
    with pymupdf.open(stream=data, filetype="pdf") as doc:
        return re.sub(
            r"-\n|\s+", lambda m: "" if m.group(0) == "-\n" else " ", "".join(p.get_text() for p in doc)
        )


@pytest.fixture(scope="module")
def small_world(tmp_path_factory):
    out = tmp_path_factory.mktemp("w2024")
    write_catalog(out, scale=0.01)
    write_world_index(out, since="2024-03")
    return out


def test_a_citer_prints_the_seeds_it_cites_and_a_distractor_none(small_world):
    catalog = read_catalog(small_world)
    truth = read_truth_pairs(small_world / TRUTH_FILE)
    pdfs = OnDemandPdfs(catalog, small_world / TRUTH_FILE)
    citing = sorted({c for c, _ in truth})[0]
    seeds = sorted(s for c, s in truth if c == citing)
    paper = catalog.papers[citing]
    data = pdfs(citing, paper.latest.number)
    assert data is not None and data.startswith(b"%PDF-")
    text = _text(data)
    for s in seeds:
        assert catalog.papers[s].title[:40].lower() in text.lower()
    assert pdfs(citing, paper.latest.number) == data and pdfs.rendered == 1  # cached, same bytes
    distractor = next(
        p
        for p in sorted(catalog.papers.values(), key=lambda p: p.arxiv_id)
        if (p.first_published or "") < "2024-03"
    )
    text = _text(pdfs(distractor.arxiv_id, distractor.latest.number))
    seed_titles = [catalog.papers[s].title.lower()[:40] for _, s in truth]
    assert not any(t in text.lower() for t in seed_titles)
    assert pdfs("9999.99999", 1) is None


def test_the_arxiv_stand_in_serves_rendered_pdfs_for_versions_without_a_file(small_world):
    rec = json.loads((small_world / "papers.jsonl").read_text().splitlines()[0])
    with ArxivServer(small_world) as server:
        missing = requests.get(f"{server.url}/pdf/{rec['arxiv_id']}{rec['version']}")
        server.pdf_source = OnDemandPdfs(server.catalog, small_world / TRUTH_FILE)
        served = requests.get(f"{server.url}/pdf/{rec['arxiv_id']}{rec['version']}")
    assert missing.status_code == 404
    assert served.status_code == 200 and served.content.startswith(b"%PDF-")


def test_real_lengths_give_corpus_sized_papers_that_still_print_their_seeds(small_world):
    from reflong.demo.world import real_lengths

    catalog = read_catalog(small_world)
    truth = read_truth_pairs(small_world / TRUTH_FILE)
    citing = sorted({c for c, _ in truth})[0]
    number = catalog.papers[citing].latest.number
    demo = _text(OnDemandPdfs(catalog, small_world / TRUTH_FILE)(citing, number))
    real = _text(OnDemandPdfs(catalog, small_world / TRUTH_FILE, lengths="real")(citing, number))
    body, _ = real_lengths(0, citing)
    # ~4 characters a token: the real paper is about its drawn body length, the demo's ~3.5K is not.
    assert len(real) > 3 * body > len(demo)
    for s in sorted(s for c, s in truth if c == citing):
        assert catalog.papers[s].title[:40].lower() in real.lower()
    with pytest.raises(ValueError, match="unknown length model"):
        OnDemandPdfs(catalog, small_world / TRUTH_FILE, lengths="huge")
