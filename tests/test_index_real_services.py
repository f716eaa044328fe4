"""The citation indexes as they really answer (issue 18, items 9-11), not as we once read them.

* Semantic Scholar lists citing rows whose ``citingPaper.paperId`` is null (8 of 1,881 rows in a
  recorded answer, ``tests/data/real/s2_citations_pages.json``); they are counted, stored and shown
  in the plan. Its 429 is ``{"message": ..., "code": "429"}`` without ``Retry-After``, and the
  unkeyed pool is shared by everyone; the client waits a spell out on its own backoff, and its
  last word names ``S2_API_KEY`` only when no key is set.
* OpenAlex merges a preprint with its journal version: the merged work has the publisher's DOI and
  keeps arXiv only among its locations, so ``filter=doi:`` on arXiv's DOI misses it; the client asks
  ``locations.landing_page_url`` for the ids the DOI filter missed.
* OpenAlex answers a query that hits its 5 s soft timeout with a partial page, ``meta.timed_out``
  and no next cursor; the client asks again, and a list that stays short is flagged as incomplete.
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
from reflong.db.engine import open_store
from reflong.demo.citation_graph import IndexConfig, write_world_index
from reflong.demo.generate import generate
from reflong.demo.world import SynthConfig
from reflong.ingest.index.base import CachedIndex
from reflong.ingest.index.openalex import OpenAlexIndex
from reflong.ingest.index.semantic_scholar import S2Index
from reflong.ingest.netpolicy import NetPolicy
from reflong.servers.arxiv_server import ArxivServer
from reflong.servers.openalex_server import OpenAlexServer
from reflong.servers.s2_server import S2Server

REAL = Path(__file__).parent / "data" / "real"


@pytest.fixture(scope="module")
def world(tmp_path_factory) -> Path:
    """test_citation_index's world, same settings (30% of citations missing, 20% spurious)."""
    root = tmp_path_factory.mktemp("world")
    generate(root / "catalog", SynthConfig(papers=120, seed=0, since=SINCE), jobs=1)
    write_world_index(root / "catalog", since=SINCE, config=IndexConfig(seed=0, missing=0.3, spurious=0.2))
    return root / "catalog"


def _counts(world: Path) -> dict[str, int]:
    counts: dict[str, int] = {}
    for r in _index_rows(world):
        counts[r["cited"]] = counts.get(r["cited"], 0) + 1
    return counts


class _Replay(requests.adapters.BaseAdapter):
    """Answers every request from a list of recorded (status, JSON body) pairs, in order, and
    remembers what was asked (the real client's requests, the real service's answers)."""

    def __init__(self, answers: list[tuple[int, object]]) -> None:
        super().__init__()
        self.answers = list(answers)
        self.asked: list[str] = []

    def send(self, request, **kwargs):
        self.asked.append(request.url)
        status, body = self.answers.pop(0) if len(self.answers) > 1 else self.answers[0]
        resp = requests.Response()
        resp.status_code = status
        resp._content = json.dumps(body).encode()
        resp.headers["Content-Type"] = "application/json"
        resp.url = request.url
        resp.request = request
        return resp

    def close(self) -> None:
        pass


def _replaying_s2(answers, api_key: str = "") -> tuple[S2Index, _Replay]:
    replay = _Replay(answers)
    session = requests.Session()
    session.mount("https://", replay)
    client = S2Index("https://api.semanticscholar.org", api_key=api_key, delay=0.0, session=session)
    client.policy = NetPolicy(delay=0.0, retries=2, backoff=0.01)
    client.busy_first, client.busy_max, client.busy_budget = 0.01, 0.02, 0.05
    return client, replay


def _s2(url: str, api_key: str = "") -> S2Index:
    client = S2Index(url, api_key=api_key, delay=0.0)
    client.policy = NetPolicy(delay=0.0, retries=1, backoff=0.05)
    client.busy_first, client.busy_max, client.busy_budget = 0.05, 0.2, 10.0
    return client


# -- item 9: Semantic Scholar -------------------------------------------------------------------


def test_s2_rows_without_a_paper_id_in_a_recorded_answer_are_counted_not_dropped_silently():
    recorded = json.loads((REAL / "s2_citations_pages.json").read_text(encoding="utf-8"))["pages"]
    assert [p["body"]["offset"] for p in recorded] == [1700, 1800] and "next" not in recorded[1]["body"]
    client, replay = _replaying_s2([(p["status"], p["body"]) for p in recorded])
    client.page_size = 100  # as recorded (limit=100)
    page = client.citers("1234.56789")
    rows = [r["citingPaper"] for p in recorded for r in p["body"]["data"]]
    nulls = [r for r in rows if r["paperId"] is None]
    assert len(rows) == 181 and len(nulls) == 4  # 4 of the cassette's 8 null rows are on its last page
    assert page.without_id == 4 and len(page.citers) == 177
    assert sorted(c.key for c in page.citers) == sorted(r["paperId"] for r in rows if r["paperId"])
    assert "offset=1800" in replay.asked[1]  # the second request followed the recorded `next`
    assert not page.capped and not page.timed_out


def test_s2_stand_in_answers_429_as_s2_does_no_retry_after_and_a_code(world):
    with S2Server(world, shared_limit=1, shared_window=60) as server:
        ok = requests.post(server.url + "/graph/v1/paper/batch", json={"ids": []})
        busy = requests.post(server.url + "/graph/v1/paper/batch", json={"ids": []})
    assert ok.status_code == 200 and busy.status_code == 429
    assert "Retry-After" not in busy.headers
    body = busy.json()
    assert body["code"] == "429" and body["message"].startswith(
        "Too Many Requests. Please wait and try again"
    )


@pytest.mark.slow
def test_s2_shared_pool_refuses_under_the_published_rate_and_the_client_waits_the_spell_out(world):
    counts = _counts(world)
    seeds = sorted(counts)[:3]
    # Others fill the shared pool for 1.5 s from the start: every unkeyed request is refused, far
    # below the published rate; --retries 1 alone would give up after one backoff.
    with S2Server(world, shared_limit=1000, shared_window=1, busy_spell=1.5) as server:
        client = _s2(server.url)
        pages = [client.citers(s) for s in seeds]
        stats = requests.get(server.url + "/_stats").json()
    assert stats["status:429"] >= 3 and client.retries == stats["status:429"]
    assert client.politeness.waited >= 1.0
    assert [len(p.citers) for p in pages] == [counts[s] for s in seeds]


def test_s2_a_spell_longer_than_the_budget_stops_in_one_line_naming_the_key_only_without_one(world):
    with S2Server(world, busy_spell=3600) as server:
        client = _s2(server.url)
        client.busy_budget = 0.3
        with pytest.raises(ServiceBusyError) as unkeyed:
            client.citers(sorted(_counts(world))[0])
    message = str(unkeyed.value)
    assert "\n" not in message and "429" in message and "set S2_API_KEY" in message
    assert "answers so far are stored" in message
    # With a key the dedicated 1 request/s ran out: the key is set, so no "set S2_API_KEY".
    with S2Server(world, keyed_per_second=0.01) as server:
        client = _s2(server.url, api_key="k")
        client.busy_budget = 0.3
        client.papers([sorted(_counts(world))[0]])
        with pytest.raises(ServiceBusyError) as keyed:
            client.papers([sorted(_counts(world))[1]])
    assert "S2_API_KEY is set" in str(keyed.value) and "set S2_API_KEY " not in str(keyed.value)


def test_s2_out_of_retries_on_5xx_names_the_key_only_when_none_is_set():
    unavailable = (503, {"message": "Service Unavailable"})
    keyless, _ = _replaying_s2([unavailable])
    with pytest.raises(NetworkError, match=r"HTTP 503.* set S2_API_KEY"):
        keyless.papers(["2403.00001"])
    keyed, _ = _replaying_s2([unavailable], api_key="k")
    with pytest.raises(NetworkError) as exc:
        keyed.papers(["2403.00001"])
    assert "HTTP 503" in str(exc.value) and "S2_API_KEY" not in str(exc.value)


def test_s2_rows_without_an_id_are_stored_and_shown_in_the_plan(world, tmp_path):
    with (
        ArxivServer(world) as ax,
        S2Server(world, shared_limit=1000, shared_window=1, unnamed_share=0.2) as s2,
    ):
        args = [
            "ingest", "--since", SINCE, "--distractor-months", "6", "--pool-months", "6", "--categories", "",
            "--arxiv-url", ax.url, "--oai-url", ax.oai_url, "--s2-url", s2.url, "--delay", "0", "--index-delay", "0",
            "--db", str(tmp_path / "s.db"), "--cache", str(tmp_path / "c"),
            "--keys", "8", "--citers-per-key", "5", "--distractors", "20", "--controls", "5", "--dry-run",
        ]  # fmt: skip
        out = CliRunner().invoke(main, args)
    assert out.exit_code == 0, out.output
    con = sqlite3.connect(tmp_path / "s.db")
    stored = con.execute("select sum(n_without_id), count(*) from index_citers_done").fetchone()
    assert stored[0] > 0
    line = next(x for x in out.output.splitlines() if x.strip().startswith("citers:"))
    assert f"{stored[1]} lists paged" in line and f"{stored[0]} citing rows without an index id" in line


# -- item 10: OpenAlex merged works -----------------------------------------------------------


def _merged(server: OpenAlexServer) -> dict[str, str]:
    """arXiv id -> W id of the stand-in's works merged with a journal version (arXiv only in
    ``locations``), for the arXiv papers the index view says are cited."""
    out = {}
    for wid, work in server.world.works.items():
        if work["doi"] and "10.48550/arxiv." not in work["doi"] and work["cited_by_count"]:
            for loc in work["locations"]:
                url = loc.get("landing_page_url") or ""
                if "arxiv.org/abs/" in url:
                    out[url.rsplit("/", 1)[1]] = wid
    return out


def test_openalex_stand_in_merges_cited_works_and_filters_by_landing_page(world):
    with OpenAlexServer(world) as server:
        merged = _merged(server)
        arxiv_id, wid = sorted(merged.items())[0]
        works = server.url + "/works"
        by_doi = requests.get(works, params={"filter": f"doi:10.48550/arxiv.{arxiv_id}"}).json()
        by_page = requests.get(
            works, params={"filter": f"locations.landing_page_url:http://arxiv.org/abs/{arxiv_id}"}
        ).json()
        hundred = requests.get(
            works,
            params={"filter": "doi:" + "|".join(f"10.48550/arxiv.2403.{i:05d}" for i in range(100))},
        )
        too_many = requests.get(
            works,
            params={"filter": "doi:" + "|".join(f"10.48550/arxiv.2403.{i:05d}" for i in range(101))},
        )
    assert len(merged) >= 3  # a quarter of the cited works, as published papers often are
    assert by_doi["meta"]["count"] == 0  # the arXiv DOI no longer finds it
    assert [w["id"].rsplit("/", 1)[1] for w in by_page["results"]] == [wid]
    assert (
        by_page["results"][0]["doi"].startswith("https://doi.org/10.")
        and "48550" not in by_page["results"][0]["doi"]
    )
    assert hundred.status_code == 200 and too_many.status_code == 400 and "100" in too_many.json()["message"]


def test_openalex_a_merged_seed_keeps_its_count_and_all_its_citers(world):
    counts = _counts(world)
    with OpenAlexServer(world) as server:
        merged = _merged(server)
        client = OpenAlexIndex(server.url, mailto="t@example.org", api_key="", delay=0.0)
        client.policy = NetPolicy(delay=0.0, retries=2, backoff=0.05)
        seeds = sorted(merged)
        found = {p.arxiv_id: p for p in client.papers(seeds)}
        pages = {s: client.citers(s) for s in seeds}
    assert all(found[s].found and found[s].paper_key == merged[s] for s in seeds)
    assert {s: found[s].citation_count for s in seeds} == {s: counts[s] for s in seeds}
    assert {s: len(pages[s].citers) for s in seeds} == {s: counts[s] for s in seeds}
    assert client.requests["location"] == 1  # one landing-page lookup for the DOI filter's misses


# -- item 11: OpenAlex partial pages -----------------------------------------------------------


def _top(world: Path) -> str:
    counts = _counts(world)
    return max(counts, key=counts.get)


def test_openalex_stand_in_times_out_with_a_partial_page_and_no_cursor(world):
    top = _top(world)
    with OpenAlexServer(world, faults=["citations:1:timed_out"]) as server:
        wid = (
            requests.get(
                server.url + "/works",
                params={"filter": f"locations.landing_page_url:http://arxiv.org/abs/{top}"},
            )
            .json()["results"][0]["id"]
            .rsplit("/", 1)[1]
        )
        params = {"filter": f"cites:{wid}", "per-page": 4, "cursor": "*"}
        partial = requests.get(server.url + "/works", params=params).json()
        whole = requests.get(server.url + "/works", params=params).json()
    assert partial["meta"]["timed_out"] is True and partial["meta"]["next_cursor"] is None
    assert len(partial["results"]) < 4 == len(whole["results"])
    assert "timed_out" not in whole["meta"] and whole["meta"]["next_cursor"]


def test_openalex_a_timed_out_page_is_asked_again_and_the_list_is_whole(world):
    top = _top(world)
    counts = _counts(world)
    with OpenAlexServer(world, faults=["citations:2:timed_out"]) as server:
        client = OpenAlexIndex(server.url, mailto=None, api_key="", delay=0.0)
        client.policy = NetPolicy(delay=0.0, retries=2, backoff=0.05)
        client.page_size = 2
        page = client.citers(top)
    assert len(page.citers) == counts[top] and not page.timed_out
    assert client.requests["citations"] == -(-counts[top] // 2) + 1  # the timed-out page, asked again


def test_openalex_a_list_that_stays_timed_out_is_flagged_stored_and_shown(world, tmp_path):
    top = _top(world)
    counts = _counts(world)
    with OpenAlexServer(world, faults=["citations:*:timed_out"]) as server:
        client = OpenAlexIndex(server.url, mailto=None, api_key="", delay=0.0)
        client.policy = NetPolicy(delay=0.0, retries=2, backoff=0.05)
        client.page_size = 4
        cached = CachedIndex(open_store(tmp_path / "s.db"), client)
        citers = cached.citers(top)
    assert len(citers) < counts[top]  # short: the index answered only part of the list
    con = sqlite3.connect(tmp_path / "s.db")
    assert con.execute("select timed_out, n_citers from index_citers_done").fetchone() == (1, len(citers))
    assert cached.citers_report([top]).timed_out == [top]


@pytest.mark.slow
def test_openalex_timed_out_lists_reach_the_plan_line(world, tmp_path):
    with (
        ArxivServer(world) as ax,
        # The first page asked stays partial through the client's two retries: one list flagged.
        OpenAlexServer(world, faults=[f"citations:{n}:timed_out" for n in (1, 2, 3)]) as oa,
    ):
        args = [
            "ingest", "--since", SINCE, "--distractor-months", "6", "--pool-months", "6", "--categories", "",
            "--arxiv-url", ax.url, "--oai-url", ax.oai_url, "--openalex-url", oa.url, "--citation-index", "openalex",
            "--delay", "0", "--index-delay", "0", "--retries", "1",
            "--db", str(tmp_path / "s.db"), "--cache", str(tmp_path / "c"),
            "--keys", "8", "--citers-per-key", "5", "--distractors", "20", "--controls", "5", "--dry-run",
        ]  # fmt: skip
        out = CliRunner().invoke(main, args)
    assert out.exit_code == 0, out.output
    con = sqlite3.connect(tmp_path / "s.db")
    flagged = con.execute("select count(*) from index_citers_done where timed_out").fetchone()[0]
    assert flagged == 1
    line = next(x for x in out.output.splitlines() if x.strip().startswith("citers:"))
    assert f"{flagged} incomplete" in line and "timed out" in line


def test_openalex_a_lookup_that_stays_timed_out_stops_in_one_line_and_caches_no_unknowns(world, tmp_path):
    seeds = sorted(_counts(world))[:5]
    with OpenAlexServer(world, faults=["batch:*:timed_out"]) as server:
        client = OpenAlexIndex(server.url, mailto=None, api_key="", delay=0.0)
        client.policy = NetPolicy(delay=0.0, retries=2, backoff=0.05)
        engine = open_store(tmp_path / "s.db")
        with pytest.raises(ServiceBusyError) as exc:
            CachedIndex(engine, client).papers(seeds)
    assert "\n" not in str(exc.value) and "meta.timed_out" in str(exc.value) and "rerun" in str(exc.value)
    assert client.requests == {"batch": 3}  # asked, then asked again twice
    con = sqlite3.connect(tmp_path / "s.db")
    assert con.execute("select count(*) from index_paper").fetchone()[0] == 0  # no paper cached as unknown
