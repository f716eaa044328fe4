"""The citation index as a candidate generator: client vs the S2 stand-in, cache, keys, plan.

Small worlds through the real code paths: a rendered synthetic arXiv (120 papers), its index view
(``synth-index``), the arXiv and Semantic Scholar stand-ins on 127.0.0.1, and `reflong-build paper`.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
import requests
from click.testing import CliRunner

from reflong.cli import main
from reflong.common.errors import NetworkError
from reflong.db.engine import open_store
from reflong.demo.citation_graph import IndexConfig, read_truth_pairs, write_world_index
from reflong.demo.generate import generate
from reflong.demo.world import SynthConfig
from reflong.ingest.index.base import CachedIndex
from reflong.ingest.index.semantic_scholar import S2Index
from reflong.ingest.netpolicy import NetPolicy
from reflong.ingest.plan.selection import band_of, key_order, stratified_sample
from reflong.servers.arxiv_server import ArxivServer
from reflong.servers.s2_server import S2Server

SINCE = "2024-03"


@pytest.fixture(scope="module")
def world(tmp_path_factory) -> Path:
    """A 120-paper synthetic arXiv with an index view that misses and invents citations often
    enough (30% missing, 20% spurious) for disagreements to show in a small world."""
    root = tmp_path_factory.mktemp("world")
    generate(root / "catalog", SynthConfig(papers=120, seed=0, since=SINCE), jobs=1)
    write_world_index(root / "catalog", since=SINCE, config=IndexConfig(seed=0, missing=0.3, spurious=0.2))
    return root / "catalog"


def _index_rows(world: Path) -> list[dict]:
    return [json.loads(x) for x in (world / "s2_index.jsonl").read_text().splitlines()]


def _client(url: str, **kw) -> S2Index:
    client = S2Index(url, api_key=kw.pop("api_key", ""), delay=0.0, **kw)
    client.policy = NetPolicy(delay=0.0, retries=4, backoff=0.2)
    client.busy_first, client.busy_max, client.busy_budget = 0.2, 1.0, 30.0  # S2's 5-60 s, shortened
    return client


@pytest.mark.slow
def test_batch_lookup_gives_the_index_views_citation_counts(world):
    rows = _index_rows(world)
    counts: dict[str, int] = {}
    for r in rows:
        counts[r["cited"]] = counts.get(r["cited"], 0) + 1
    top = max(counts, key=counts.get)
    with S2Server(world, shared_limit=1000, shared_window=1) as server:
        client = _client(server.url)
        answer = {p.arxiv_id: p for p in client.papers([top, "2403.99999", "2201.00001"])}
    assert answer[top].found and answer[top].citation_count == counts[top]
    assert not answer["2403.99999"].found and not answer["2201.00001"].found
    assert client.requests == {"batch": 1}


@pytest.mark.slow
def test_citers_are_paged_to_the_end_with_arxiv_ids_and_off_arxiv_citers(world):
    rows = _index_rows(world)
    top = max({r["cited"] for r in rows}, key=lambda c: sum(r["cited"] == c for r in rows))
    expected = sorted(r["citing_key"] for r in rows if r["cited"] == top)
    assert len(expected) >= 5
    with S2Server(world, shared_limit=1000, shared_window=1) as server:
        client = _client(server.url)
        client.page_size = 2
        page = client.citers(top)
    assert sorted(c.key for c in page.citers) == expected
    assert client.requests["citations"] == -(-len(expected) // 2)  # ceil: one request a page
    on_arxiv = {c.arxiv_id for c in page.citers if c.arxiv_id}
    assert on_arxiv == {r["citing_arxiv"] for r in rows if r["cited"] == top and r["citing_arxiv"]}
    assert any(c.arxiv_id is None for c in page.citers)  # the index knows citers we cannot fetch


@pytest.mark.slow
def test_429_without_a_key_is_waited_out_without_retry_after(world):
    rows = _index_rows(world)
    seeds = sorted({r["cited"] for r in rows})[:4]
    with S2Server(world, shared_limit=2, shared_window=1.0) as server:
        client = _client(server.url)
        answers = [client.citers(s) for s in seeds]
        stats = requests.get(server.url + "/_stats").json()
    assert stats.get("status:429", 0) >= 1  # the shared pool ran over
    assert client.retries == stats["status:429"]
    assert (
        client.politeness.waited >= 0.2 and client.busy_waited == client.politeness.waited
    )  # no Retry-After
    for seed, page in zip(seeds, answers, strict=True):
        assert len(page.citers) == sum(r["cited"] == seed for r in rows)


@pytest.mark.slow
def test_a_key_gets_one_request_per_second_and_a_bad_key_is_refused(world):
    with S2Server(world, api_keys={"good"}) as server:
        r1 = requests.post(
            server.url + "/graph/v1/paper/batch", json={"ids": []}, headers={"x-api-key": "good"}
        )
        r2 = requests.post(
            server.url + "/graph/v1/paper/batch", json={"ids": []}, headers={"x-api-key": "good"}
        )
        r3 = requests.post(
            server.url + "/graph/v1/paper/batch", json={"ids": []}, headers={"x-api-key": "bad"}
        )
    assert r1.status_code == 200 and r2.status_code == 429 and "Retry-After" not in r2.headers
    assert r2.json()["code"] == "429" and r3.status_code == 403


@pytest.mark.slow
def test_bad_ids_limits_and_fields_are_400_as_s2_answers(world):
    with S2Server(world, shared_limit=1000, shared_window=1) as server:
        base = server.url + "/graph/v1/paper"
        too_many = requests.post(base + "/batch", json={"ids": [f"ARXIV:2403.{i:05d}" for i in range(501)]})
        bad_id = requests.post(base + "/batch", json={"ids": ["arxiv 2403.00001"]})
        bad_field = requests.post(base + "/batch?fields=citationCount,bogus", json={"ids": []})
        big_limit = requests.get(base + "/ARXIV:2403.00540/citations?limit=1001")
        far = requests.get(base + "/ARXIV:2403.00540/citations?offset=9500&limit=500")
        unknown = requests.get(base + "/ARXIV:2403.99999/citations")
    assert [r.status_code for r in (too_many, bad_id, bad_field, big_limit, far)] == [400] * 5
    assert "500" in too_many.json()["error"] and "10000" in far.json()["error"]
    assert unknown.status_code == 404
    with S2Server(world, shared_limit=1000, shared_window=1) as server:
        client = _client(server.url)
        client.page_size = 1001  # over S2's limit: one clear error, not a retry loop
        with pytest.raises(NetworkError, match="HTTP 400"):
            client.citers("2403.00540")
    assert client.requests == {"citations": 1}


@pytest.mark.slow
def test_the_cache_asks_nothing_twice(world, tmp_path):
    engine = open_store(tmp_path / "s.db")
    rows = _index_rows(world)
    seeds = sorted({r["cited"] for r in rows})
    with S2Server(world, shared_limit=1000, shared_window=1) as server:
        first = CachedIndex(engine, _client(server.url))
        counts = first.papers(seeds)
        citers = {s: first.citers(s) for s in seeds[:3]}
        made = dict(first.provider.requests)
        second = CachedIndex(engine, _client(server.url))
        assert second.papers(seeds) == counts
        assert {s: second.citers(s) for s in seeds[:3]} == citers
        stats = requests.get(server.url + "/_stats").json()
    assert made == {"batch": 1, "citations": 3}
    assert sum(second.provider.requests.values()) == 0
    assert stats["batch"] == 1 and stats["citations"] == 3
    assert second.hits == {"batch": len(seeds), "citations": 3}


def test_keys_spread_over_citation_bands_and_depend_only_on_the_seed():
    counts = {f"2403.{i:05d}": max(0, int(2000 / (i + 1) ** 1.1)) for i in range(3000)}
    order = key_order(counts, seed=0)
    assert order == key_order(dict(reversed(list(counts.items()))), seed=0)  # input order is irrelevant
    assert order != key_order(counts, seed=1)
    bands = {band_of(c) for c in counts.values() if c >= 2}
    first = order[: len(bands)]
    assert {b for _, b in first} == bands  # one key from every band before a second from any
    assert len(bands) >= 9 and "2-3" in bands and "1024-2047" in bands
    top20 = sorted(counts, key=counts.get, reverse=True)[:20]
    assert len({a for a, _ in order[:20]} & set(top20)) < 10  # not only the famous


def test_stratified_sample_is_proportional_and_never_the_first_n():
    items = [(f"2404.{i:05d}", f"2024-{4 + i % 6:02d}", "cs.CL" if i % 3 else "cs.LG") for i in range(600)]
    pick = stratified_sample(items, 60, 0, lambda x: f"{x[1]}|{x[2]}", lambda x: x[0])
    assert len(pick) == 60 and pick == stratified_sample(
        items, 60, 0, lambda x: f"{x[1]}|{x[2]}", lambda x: x[0]
    )
    by_month = {m: sum(1 for p in pick if p[1] == m) for m in {x[1] for x in items}}
    assert set(by_month.values()) == {10}  # 6 equal months, 10 each
    assert pick != sorted(items)[:60]


def _paper(world: Path, root: Path, *extra: str, db: str = "store.db"):
    with ArxivServer(world) as ax, S2Server(world, shared_limit=1000, shared_window=1) as s2:
        args = [
            "paper", "--since", SINCE, "--distractor-months", "6", "--pool-months", "6", "--categories", "",
            "--arxiv-url", ax.url, "--oai-url", ax.oai_url, "--s2-url", s2.url, "--delay", "0", "--index-delay", "0",
            "--db", str(root / db), "--cache", str(root / "cache"), "--out", str(root / "out"),
            "--keys", "8", "--citers-per-key", "5", "--distractors", "20", "--controls", "5", *extra,
        ]  # fmt: skip
        result = CliRunner().invoke(main, args)
        stats = requests.get(s2.url + "/_stats").json()
    assert result.exit_code == 0, result.output
    return result.stdout, stats  # the plan is printed; logs (stderr) say more


@pytest.fixture(scope="module")
def built(world, tmp_path_factory):
    root = tmp_path_factory.mktemp("run")
    dry, dry_stats = _paper(world, root, "--dry-run")
    pdfs_after_dry = len(list((root / "cache").glob("*.pdf")))
    real, real_stats = _paper(world, root)
    return root, dry, dry_stats | {"pdfs_after_dry": pdfs_after_dry}, real, real_stats


@pytest.mark.slow
def test_dry_run_prints_the_plan_and_downloads_nothing(built):
    root, dry, stats, _, _ = built
    lines = dry.splitlines()
    assert lines[0].startswith("plan for window 2024-03:s1:p6:d6; citation index: s2 at http://127.0.0.1")
    index_line = next(x for x in lines if x.strip().startswith("index:"))
    made = stats.get("batch", 0) + stats.get("citations", 0)
    assert f"index: {made} requests" in index_line
    # The estimate counts the pages of the first --keys candidates; a candidate whose index citers
    # all lie outside the pool is skipped and the next one paged, which the estimate cannot foresee.
    estimate = int(index_line.split("estimated ")[1].split(";")[0])
    assert estimate <= made <= estimate + 2
    pdf_line = next(x for x in lines if x.strip().startswith("PDFs:"))
    assert "5 controls + 20 distractors" in pdf_line and "(cap --max-pdfs 3000)" in pdf_line
    assert "GB at 1.7 MB a PDF" in dry and "free disk at the PDF cache" in dry
    assert "dry run: nothing downloaded" in dry
    con = sqlite3.connect(root / "store.db")
    picks = dict(con.execute("select role, count(*) from plan_pick group by role"))
    assert picks["control"] == 5 and picks["distractor"] == 20 and picks["citer"] >= 16
    assert con.execute("select count(*) from index_key").fetchone()[0] == 8
    assert len({b for (b,) in con.execute("select band from index_key")}) >= 2  # across bands
    assert stats["pdfs_after_dry"] == 0


@pytest.mark.slow
def test_real_run_fetches_exactly_the_plan_and_asks_the_index_nothing_again(built):
    root, _dry, _, real, real_stats = built
    assert real_stats.get("batch", 0) + real_stats.get("citations", 0) == 0  # all from the store
    con = sqlite3.connect(root / "store.db")
    planned = con.execute("select count(*) from plan_pick").fetchone()[0]
    assert f"PDFs fetched {planned}, cached 0, failed 0" in real
    assert len(list((root / "cache").glob("*.pdf"))) == planned
    assert "build 1: 800 tasks in 8 files" in real


@pytest.mark.slow
def test_index_text_disagreements_reach_the_audit_queue_and_the_report(built, world):
    root, _, _, real, _ = built
    report = json.loads((root / "out" / "build_report.json").read_text())
    a = report["index_agreement"]
    assert a["keys"] == 8 and a["index_pairs"] > 0
    assert a["index_only"] + a["text_only"] > 0  # 30% missing, 20% spurious in this index view
    assert a["index_confirmed_rate"] == round(a["confirmed_by_text"] / a["index_pairs"], 4)
    assert "index agreement over" in real
    con = sqlite3.connect(root / "store.db")
    rows = con.execute("select citing_arxiv_id, seed_arxiv_id, kind from index_disagreement").fetchall()
    assert sum(k == "index_only" for *_, k in rows) == a["index_only"]
    assert sum(k == "text_only" for *_, k in rows) == a["text_only"]
    truth = read_truth_pairs(world / "citations.jsonl")
    # The world's truth sides with the text: index-only pairs are spurious, text-only ones missing.
    assert all((c, s) not in truth for c, s, k in rows if k == "index_only")
    assert all((c, s) in truth for c, s, k in rows if k == "text_only")
    audit = CliRunner().invoke(main, ["audit", "--db", str(root / "store.db"), "--format", "jsonl"])
    queued = [json.loads(x) for x in audit.output.splitlines() if '"index_disagree"' in x]
    assert len(queued) == len(rows) and {q["method"] for q in queued} == {k for *_, k in rows}
    card = (root / "out" / "README.md").read_text()
    assert "Citation index vs our text" in card


@pytest.mark.slow
def test_without_an_index_the_pool_is_a_stratified_sample_not_the_first_by_date(world, tmp_path):
    with ArxivServer(world) as ax:
        args = [
            "ingest", "--since", SINCE, "--distractor-months", "6", "--pool-months", "6", "--categories", "",
            "--arxiv-url", ax.url, "--oai-url", ax.oai_url, "--delay", "0", "--db", str(tmp_path / "s.db"), "--cache", str(tmp_path / "c"),
            "--citation-index", "none", "--distractors", "10", "--max-pdfs", "30", "--dry-run",
        ]  # fmt: skip
        out = CliRunner().invoke(main, args)
    assert out.exit_code == 0, out.output
    assert "citation index: none (--citation-index none)" in out.output
    assert "10 distractors + 20 samples = 30" in out.output
    con = sqlite3.connect(tmp_path / "s.db")
    picked = [r[0] for r in con.execute("select arxiv_id from plan_pick where role = 'sample' order by 1")]
    pool = [
        r[0]
        for r in con.execute(
            "select p.arxiv_id from paper p join paper_role r on r.arxiv_id = p.arxiv_id "
            "where r.role = 'pool' order by p.first_published, p.arxiv_id"
        )
    ]
    assert len(picked) == 20 and sorted(picked) != sorted(pool[:20])
    months = {m for (m,) in con.execute(
        "select substr(p.first_published, 1, 7) from paper p join plan_pick k on k.arxiv_id = p.arxiv_id "
        "where k.role = 'sample'"
    )}  # fmt: skip
    assert len(months) >= 5  # spread over the six pool months


@pytest.mark.slow
def test_an_unreachable_index_falls_back_to_sampling_and_says_so(world, tmp_path):
    with ArxivServer(world) as ax:
        args = [
            "ingest", "--since", SINCE, "--distractor-months", "6", "--pool-months", "6", "--categories", "",
            "--arxiv-url", ax.url, "--oai-url", ax.oai_url, "--delay", "0", "--db", str(tmp_path / "s.db"), "--cache", str(tmp_path / "c"),
            "--s2-url", "http://127.0.0.1:9", "--index-delay", "0", "--retries", "0", "--dry-run",
        ]  # fmt: skip
        out = CliRunner().invoke(main, args)
    assert out.exit_code == 0, out.output
    assert "citation index: none (index unreachable" in out.output
