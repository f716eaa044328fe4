"""The arXiv stand-in's Atom API enforces the real API's limits (see ``ApiLimits`` for the sources).

Small catalogs with scaled-down caps where the real numbers (30,000 results) would need a big
world; the real defaults are checked on their own.
"""

from __future__ import annotations

import json
import time
from itertools import pairwise
from pathlib import Path

import pytest
import requests
from lxml import etree

from reflong.servers.arxiv_server import ApiLimits, ArxivServer

ATOM = "{http://www.w3.org/2005/Atom}"
OS = "{http://a9.com/-/spec/opensearch/1.1/}"
QUERY = "cat:cs.CL AND submittedDate:[202401010000 TO 202412312359]"


@pytest.fixture
def catalog_dir(tmp_path: Path) -> Path:
    lines = []
    for i in range(80):
        day = f"2024-{1 + i // 28:02d}-{1 + i % 28:02d}"
        lines.append(
            {
                "arxiv_id": f"2401.{i:05d}",
                "version": "v1",
                "file": None,
                "title": f"Paper {i}",
                "authors": ["A. Author"],
                "published": day,
                "primary_category": "cs.CL",
            }
        )
    (tmp_path / "papers.jsonl").write_text("".join(json.dumps(r) + "\n" for r in lines), encoding="utf-8")
    return tmp_path


def _query(url: str, **params) -> tuple[requests.Response, etree._Element | None]:
    params.setdefault("search_query", QUERY)
    resp = requests.get(f"{url}/api/query", params=params, timeout=10)
    root = etree.fromstring(resp.content) if resp.content.startswith(b"<?xml") else None
    return resp, root


def _entries(root: etree._Element) -> list[str]:
    return [e.findtext(f"{ATOM}id").rsplit("/", 1)[-1] for e in root.iter(f"{ATOM}entry")]


def test_result_cap_and_page_limit(catalog_dir: Path) -> None:
    limits = ApiLimits(result_cap=50, max_page=20)
    with ArxivServer(catalog_dir, limits=limits) as srv:
        _, below = _query(srv.url, start=40, max_results=20, sortBy="submittedDate", sortOrder="ascending")
        _, past = _query(srv.url, start=60, max_results=20, sortBy="submittedDate", sortOrder="ascending")
        clamped_resp, clamped = _query(srv.url, start=0, max_results=30)
        refused, error = _query(srv.url, start=0, max_results=51)
    # the page crossing the cap stops at it; totalResults still reports every match
    assert _entries(below) == [f"2401.{i:05d}v1" for i in range(40, 50)]
    assert below.findtext(f"{OS}totalResults") == "80"
    assert _entries(past) == [] and past.findtext(f"{OS}totalResults") == "80"  # 200, silently empty
    assert clamped_resp.status_code == 200 and len(_entries(clamped)) == 20
    assert clamped.findtext(f"{OS}itemsPerPage") == "20"
    assert refused.status_code == 400
    entry = error.find(f"{ATOM}entry")
    assert entry.findtext(f"{ATOM}title") == "Error" and "50" in entry.findtext(f"{ATOM}summary")


def test_real_defaults_and_bad_paging_values(catalog_dir: Path) -> None:
    assert ApiLimits() == ApiLimits(30000, 2000, 8190, 0.0, 0.0, 0.0, 0)
    with ArxivServer(catalog_dir) as srv:
        over, _ = _query(srv.url, max_results=30001)
        _, big = _query(srv.url, max_results=5000)
        negative, neg_feed = _query(srv.url, start=-1)
        word, _ = _query(srv.url, max_results="ten")
    assert over.status_code == 400
    assert big.findtext(f"{OS}itemsPerPage") == "2000" and len(_entries(big)) == 80
    assert negative.status_code == 400 and word.status_code == 400
    assert "non-negative" in neg_feed.find(f"{ATOM}entry").findtext(f"{ATOM}summary")


def test_long_urls_get_414(catalog_dir: Path) -> None:
    with ArxivServer(catalog_dir, limits=ApiLimits(url_limit=2000)) as srv:
        few = ",".join(f"2401.{i:05d}" for i in range(50))  # ~550 bytes encoded
        many = ",".join(f"2401.{i:05d}" for i in range(80)) * 3  # ~2.9 KB
        ok = requests.get(f"{srv.url}/api/query", params={"id_list": few, "max_results": 100}, timeout=10)
        long = requests.get(f"{srv.url}/api/query", params={"id_list": many}, timeout=10)
        stats = srv.stats.snapshot()
    assert ok.status_code == 200 and len(_entries(etree.fromstring(ok.content))) == 50
    assert long.status_code == 414
    assert stats["by_kind_status"]["api"] == {"200": 1, "414": 1}


@pytest.mark.slow
def test_breaking_the_interval_gets_403_and_a_block(catalog_dir: Path) -> None:
    limits = ApiLimits(min_interval=0.3, block_seconds=0.8)
    with ArxivServer(catalog_dir, limits=limits) as srv:
        first, _ = _query(srv.url)
        second, _ = _query(srv.url)  # at once: too soon
        time.sleep(0.4)
        third, _ = _query(srv.url)  # interval kept, but still blocked after the violation
        time.sleep(0.9)
        fourth = requests.get(f"{srv.url}/oai2", params={"verb": "Identify"}, timeout=10)  # any kind
        fifth = requests.get(f"{srv.url}/pdf/2401.00001v1", timeout=10)  # too soon again
    assert [first.status_code, second.status_code, third.status_code] == [200, 403, 403]
    assert fourth.status_code == 200 and fifth.status_code == 403


def test_no_interval_rule_by_default_in_python(catalog_dir: Path) -> None:
    with ArxivServer(catalog_dir) as srv:
        codes = {_query(srv.url)[0].status_code for _ in range(5)}
    assert codes == {200}


def _glitches(catalog_dir: Path, seed: int) -> list[bool]:
    with ArxivServer(catalog_dir, limits=ApiLimits(empty_page_rate=0.3, seed=seed)) as srv:
        out = []
        for _ in range(30):
            _, root = _query(srv.url, max_results=5)
            empty = _entries(root) == []
            assert empty == (root.findtext(f"{OS}totalResults") == "0")  # glitch: nothing at all
            out.append(empty)
    return out


def test_occasional_empty_pages_are_seeded_and_succeed_on_retry(catalog_dir: Path) -> None:
    run = _glitches(catalog_dir, seed=3)
    assert 2 <= sum(run) <= 20  # about 30% of 30
    assert any(a and not b for a, b in pairwise(run))  # a retry after a glitch works
    assert _glitches(catalog_dir, seed=3) == run
    assert _glitches(catalog_dir, seed=4) != run


def test_date_window_queries_match_the_full_scan(catalog_dir: Path) -> None:
    """A top-level AND with submittedDate is answered from a date index: same hits as a scan."""
    window = "submittedDate:[202402010000 TO 202402102359]"
    with ArxivServer(catalog_dir) as srv:
        _, indexed = _query(srv.url, search_query=f"cat:cs.CL AND {window}", max_results=50)
        _, scanned = _query(
            srv.url, search_query=f"(cat:cs.CL AND {window}) OR ti:nothing-matches", max_results=50
        )
    expected = [f"2401.{i:05d}v1" for i in range(28, 38)]  # Feb 1..10, catalog order
    assert _entries(indexed) == expected and _entries(scanned) == expected
