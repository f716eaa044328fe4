"""OpenAlex as the second citation index: client vs the OpenAlex stand-in, limits, and `paper`.

The same small world as ``test_citation_index`` (a rendered 120-paper synthetic arXiv and its
imperfect index view), served by both stand-ins, so the two providers can be compared: on one
world they must choose the same keys and plan the same PDFs.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
import requests
from click.testing import CliRunner
from test_citation_index import SINCE, _index_rows

from reflong.cli import main
from reflong.common.errors import NetworkError, ServiceBusyError
from reflong.demo.citation_graph import IndexConfig, write_world_index
from reflong.demo.generate import generate
from reflong.demo.world import SynthConfig
from reflong.ingest.index.openalex import (
    ARXIV_LANDING_PAGES,
    BATCH_SIZE,
    MAX_OR_VALUES,
    OpenAlexIndex,
    arxiv_ids_of_work,
    arxiv_of_work,
)
from reflong.ingest.netpolicy import NetPolicy
from reflong.servers.arxiv_server import ArxivServer
from reflong.servers.openalex_server import OpenAlexServer
from reflong.servers.s2_server import S2Server


@pytest.fixture(scope="module")
def world(tmp_path_factory) -> Path:
    """test_citation_index's world, same settings (30% of citations missing, 20% spurious)."""
    root = tmp_path_factory.mktemp("world")
    generate(root / "catalog", SynthConfig(papers=120, seed=0, since=SINCE), jobs=1)
    write_world_index(root / "catalog", since=SINCE, config=IndexConfig(seed=0, missing=0.3, spurious=0.2))
    return root / "catalog"


def _client(url: str, **kw) -> OpenAlexIndex:
    client = OpenAlexIndex(url, mailto="tests@example.org", api_key=kw.pop("api_key", ""), delay=0.0, **kw)
    client.policy = NetPolicy(delay=0.0, retries=4, backoff=0.2)
    return client


def _counts(world: Path) -> dict[str, int]:
    counts: dict[str, int] = {}
    for r in _index_rows(world):
        counts[r["cited"]] = counts.get(r["cited"], 0) + 1
    return counts


@pytest.mark.slow
def test_batch_lookup_by_arxiv_dois_gives_the_index_views_citation_counts(world):
    counts = _counts(world)
    cited = sorted(counts)[:5]
    with OpenAlexServer(world) as server:
        client = _client(server.url)
        answer = {p.arxiv_id: p for p in client.papers([*cited, "2403.99999", "2201.00001"])}
        stats = requests.get(server.url + "/_stats").json()
    assert {a: answer[a].citation_count for a in cited} == {a: counts[a] for a in cited}
    assert all(answer[a].found and answer[a].paper_key.startswith("W") for a in cited)
    assert not answer["2403.99999"].found and not answer["2201.00001"].found
    # The two unknown ids missed by DOI are looked for once more by their arXiv landing pages.
    assert client.requests == {"batch": 1, "location": 1} and stats["batch"] == stats["locations"] == 1
    with pytest.raises(ValueError, match=f"at most {BATCH_SIZE} ids"):
        client.papers([f"2403.{i:05d}" for i in range(BATCH_SIZE + 1)])


def test_citers_are_cursor_paged_to_the_end_with_arxiv_ids_from_dois_and_locations(world):
    rows = _index_rows(world)
    counts = _counts(world)
    top = max(counts, key=counts.get)
    expected_arxiv = {r["citing_arxiv"] for r in rows if r["cited"] == top and r["citing_arxiv"]}
    with OpenAlexServer(world) as server:
        client = _client(server.url)
        client.page_size = 2
        wid = client.papers([top])[0].paper_key
        page = client.citers(top)
        # What the stand-in serves for these citers: some arXiv works have no DOI (location only).
        works = requests.get(
            server.url + "/works", params={"filter": f"cites:{wid}", "per-page": 200, "select": "id,doi"}
        ).json()["results"]
    assert len(page.citers) == counts[top] >= 5
    assert client.requests == {"batch": 1, "citations": -(-counts[top] // 2)}  # ceil: no empty last page
    assert {c.arxiv_id for c in page.citers if c.arxiv_id} == expected_arxiv
    assert any(c.arxiv_id is None for c in page.citers)  # citers outside arXiv: known, not fetchable
    assert sorted(c.key for c in page.citers) == sorted(w["id"].rsplit("/", 1)[1] for w in works)
    assert any(w["doi"] is None for w in works)  # the location-only path was exercised


def test_a_works_arxiv_id_comes_from_its_location_or_its_datacite_doi():
    loc = {
        "locations": [{"landing_page_url": "http://arxiv.org/abs/2404.01234v3"}],
        "doi": "https://doi.org/10.1/x",
    }
    doi_only = {"doi": "https://doi.org/10.48550/arxiv.2405.00001", "locations": []}
    ids_only = {"doi": None, "ids": {"doi": "10.48550/ARXIV.2405.00002v2"}}
    pdf = {"locations": [{"landing_page_url": None, "pdf_url": "https://arxiv.org/pdf/2406.00003v1.pdf"}]}
    publisher = {
        "doi": "https://doi.org/10.18653/v1/2024.acl-long.1",
        "locations": [{"landing_page_url": "https://aclanthology.org/x"}],
    }
    # a location from DataCite: arXiv's DOI as the landing page (issue 41 item 4)
    datacite = {
        "doi": "https://doi.org/10.1145/3600006",
        "locations": [{"landing_page_url": "https://doi.org/10.48550/arXiv.2407.00004v2", "pdf_url": None}],
    }
    old_style = {"locations": [{"landing_page_url": "https://doi.org/10.48550/arXiv.hep-th/9901001"}]}
    cases = (loc, doi_only, ids_only, pdf, publisher, datacite, old_style)
    assert [arxiv_of_work(w) for w in cases] == [
        "2404.01234",
        "2405.00001",
        "2405.00002",
        "2406.00003",
        None,
        "2407.00004",
        "hep-th/9901001",
    ]
    assert arxiv_ids_of_work(datacite) == {"2407.00004"}


def test_a_lookup_stays_below_openalex_s_cap_of_100_or_values_with_a_margin():
    # docs.openalex.org: a filter ORs at most 100 values; the location lookup sends every landing
    # page form of each id of a batch
    assert BATCH_SIZE * len(ARXIV_LANDING_PAGES) <= 0.8 * MAX_OR_VALUES


@pytest.mark.slow
def test_429_over_the_per_second_limit_is_retried_until_the_answers_are_whole(world):
    counts = _counts(world)
    seeds = sorted(counts)[:4]
    with OpenAlexServer(world, per_second=2) as server:
        client = _client(server.url)
        known = {p.arxiv_id: p.paper_key for p in client.papers(seeds)}
        pages = [client.citers(s, known[s]) for s in seeds]
        stats = requests.get(server.url + "/_stats").json()
    assert stats.get("status:429", 0) >= 1  # two a second: the burst ran over
    assert client.retries == stats["status:429"]
    assert client.politeness.waited >= 0.2  # backed off (OpenAlex sends no Retry-After)
    assert [len(p.citers) for p in pages] == [counts[s] for s in seeds]


def test_a_spent_daily_budget_stops_at_once_with_one_line(world):
    seeds = sorted(_counts(world))[:4]
    with OpenAlexServer(world, free_usd=0.0003) as server:  # 3 list calls a day without a key
        client = OpenAlexIndex(server.url, mailto=None, api_key="", delay=0.0)
        client.policy = NetPolicy(delay=0.0, retries=4, backoff=0.2)
        for s in seeds[:3]:
            client.papers([s])
        with pytest.raises(ServiceBusyError, match=r"daily budget .* spent .* resets in .* OPENALEX_API_KEY"):
            client.papers([seeds[3]])
        stats = requests.get(server.url + "/_stats").json()
        keyed = requests.get(
            server.url + "/works", params={"filter": f"doi:10.48550/arxiv.{seeds[3]}", "api_key": "k"}
        )
    assert stats["status:429"] == 1 and client.retries == 0  # no retry loop against a spent day
    assert keyed.status_code == 200 and float(keyed.headers["x-ratelimit-remaining-usd"]) > 0.99


def test_documented_limits_answer_400(world):
    top = max(_counts(world), key=_counts(world).get)
    with OpenAlexServer(world) as server:
        works = server.url + "/works"
        wid = _client(server.url).papers([top])[0].paper_key
        cites = f"cites:{wid}"
        big_page = requests.get(works, params={"filter": cites, "per-page": 201})
        many_or = requests.get(
            works, params={"filter": "doi:" + "|".join(f"10.48550/arxiv.2403.{i:05d}" for i in range(101))}
        )
        deep = requests.get(works, params={"page": 51, "per-page": 200})
        last_basic = requests.get(works, params={"page": 50, "per-page": 200})
        nested = requests.get(works, params={"filter": cites, "select": "id,open_access.is_oa"})
        unknown = requests.get(works, params={"filter": "author_name:einstein"})
        mixed = requests.get(works, params={"filter": cites, "page": 2, "cursor": "*"})
        forged = requests.get(works, params={"filter": cites, "cursor": "bm90LWEtY3Vyc29y"})
        hundred = requests.get(
            works, params={"filter": "doi:" + "|".join(f"10.48550/arxiv.2403.{i:05d}" for i in range(100))}
        )
    bad = [big_page, many_or, deep, nested, unknown, mixed, forged]
    assert [r.status_code for r in bad] == [400] * len(bad)
    assert "200" in big_page.json()["message"] and "100" in many_or.json()["message"]
    assert "10,000" in deep.json()["message"] and "ursor" in deep.json()["message"]
    assert last_basic.status_code == 200 and hundred.status_code == 200  # the limits are inclusive
    with OpenAlexServer(world) as server:
        client = _client(server.url)
        client.page_size = 201  # over OpenAlex's per-page: one clear error, not a retry loop
        with pytest.raises(NetworkError, match=r"HTTP 400 .*per-page"):
            client.citers(top, wid)
    assert client.requests == {"citations": 1}


def _paper(world: Path, root: Path, index: str, *extra: str) -> tuple[str, dict]:
    with (
        ArxivServer(world) as ax,
        S2Server(world, shared_limit=1000, shared_window=1) as s2,
        OpenAlexServer(world) as oa,
    ):
        args = [
            "paper", "--since", SINCE, "--distractor-months", "6", "--pool-months", "6", "--categories", "",
            "--arxiv-url", ax.url, "--oai-url", ax.oai_url, "--s2-url", s2.url, "--openalex-url", oa.url, "--openalex-mailto", "t@example.org",
            "--citation-index", index, "--delay", "0", "--index-delay", "0",
            "--db", str(root / "store.db"), "--cache", str(root / "cache"), "--out", str(root / "out"),
            "--keys", "8", "--citers-per-key", "5", "--distractors", "20", "--controls", "5", *extra,
        ]  # fmt: skip
        result = CliRunner().invoke(main, args)
        stats = {
            "s2": requests.get(s2.url + "/_stats").json(),
            "openalex": requests.get(oa.url + "/_stats").json(),
        }
    assert result.exit_code == 0, result.output
    return result.stdout, stats


def _plan_tables(db: Path) -> tuple[list, list]:
    con = sqlite3.connect(db)
    keys = con.execute(
        "select arxiv_id, citation_count, band, citers_in_pool from index_key order by arxiv_id"
    ).fetchall()
    picks = con.execute("select arxiv_id, role, seed_arxiv_id from plan_pick order by arxiv_id").fetchall()
    return keys, picks


@pytest.fixture(scope="module")
def runs(world, tmp_path_factory):
    s2_root, oa_root = tmp_path_factory.mktemp("s2"), tmp_path_factory.mktemp("oa")
    s2_dry, s2_stats = _paper(world, s2_root, "s2", "--dry-run")
    oa_dry, oa_stats = _paper(world, oa_root, "openalex", "--dry-run")
    oa_real, oa_real_stats = _paper(world, oa_root, "openalex")
    return s2_root, s2_dry, s2_stats, oa_root, oa_dry, oa_stats, oa_real, oa_real_stats


@pytest.mark.slow
def test_openalex_dry_run_plans_the_same_keys_and_pdfs_as_s2_on_the_same_world(runs):
    s2_root, s2_dry, s2_stats, oa_root, oa_dry, oa_stats, *_ = runs
    first = oa_dry.splitlines()[0]
    assert first.startswith("plan for window 2024-03:s1:p6:d6; citation index: openalex at http://127.0.0.1")
    assert "(polite pool, no key: 100 list requests a day, 0 s/request)" in first
    assert s2_dry.splitlines()[0].split("citation index: ")[1].startswith("s2 at")
    assert sum(s2_stats["openalex"].values()) == 0 and oa_stats["s2"] == {}  # each run asked one index
    index_line = next(x for x in oa_dry.splitlines() if x.strip().startswith("index:"))
    made = sum(oa_stats["openalex"].get(k, 0) for k in ("batch", "locations", "citations"))
    assert f"index: {made} requests" in index_line
    estimate = int(index_line.split("estimated ")[1].split(";")[0])
    assert estimate <= made <= estimate + 2  # as for S2: a skipped candidate is paged beyond it
    s2_keys, s2_picks = _plan_tables(s2_root / "store.db")
    oa_keys, oa_picks = _plan_tables(oa_root / "store.db")
    assert len(oa_keys) == 8 and oa_keys == s2_keys  # same ids, counts, bands, citers in the pool
    assert oa_picks == s2_picks and len(oa_picks) >= 16 + 5 + 20
    pdf_line = lambda out: next(x for x in out.splitlines() if x.strip().startswith("PDFs:"))  # noqa: E731
    assert pdf_line(oa_dry) == pdf_line(s2_dry)
    con = sqlite3.connect(oa_root / "store.db")
    assert {s for (s,) in con.execute("select distinct source from index_paper")} == {"openalex"}


@pytest.mark.slow
def test_openalex_real_run_fetches_the_plan_and_asks_the_index_nothing_again(runs):
    *_, oa_root, _dry, _stats, real, real_stats = runs
    assert sum(real_stats["openalex"].get(k, 0) for k in ("batch", "locations", "citations")) == 0
    con = sqlite3.connect(oa_root / "store.db")
    planned = con.execute("select count(*) from plan_pick").fetchone()[0]
    assert f"PDFs fetched {planned}, cached 0, failed 0" in real
    assert "build 1: 800 tasks in 8 files" in real
    report = json.loads((oa_root / "out" / "build_report.json").read_text())
    assert report["index_agreement"]["keys"] == 8 and report["index_agreement"]["index_pairs"] > 0


@pytest.mark.parametrize("option", ["--openalex-url", "--s2-url"])
def test_a_bad_index_url_is_a_usage_error_before_any_request(tmp_path, option):
    out = CliRunner().invoke(
        main,
        ["ingest", "--since", SINCE, option, "api.example.org", "--db", str(tmp_path / "s.db")],
    )
    assert out.exit_code == 2 and "not an http(s) URL" in out.output and option in out.output
