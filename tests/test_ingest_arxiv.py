"""The real ``arxiv`` client against the local arXiv-protocol server serving ../shared/corpus, and
the ingest through that server compared with the ingest of the same folder through ``--source``."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import arxiv
import pytest
from click.testing import CliRunner

from reflong.cli import main
from reflong.servers.arxiv_server import ArxivServer

SINCE = "2022-03"  # seeds 2022-03, pool 2022-04..09, distractors 2022-01..02: every role gets papers
# The corpus knows some papers by metadata alone, at an unknown version (v0, from seeds.jsonl):
# the API route keeps them so, like --source; arXivRaw (the OAI default) lists v1..vN for every
# paper, so the OAI route is compared on synthetic catalogs instead (tests/test_harvest_oai.py).
FAST = ["--delay", "0.01", "--timeout", "5", "--metadata", "api"]


@pytest.fixture(scope="module")
def server(corpus_dir):
    with ArxivServer(corpus_dir) as srv:
        yield srv


def _plain_client(server, page_size=100) -> arxiv.Client:
    client = arxiv.Client(page_size=page_size, delay_seconds=0.0, num_retries=0)
    client.query_url_format = server.url + "/api/query?{}"
    return client


def test_real_arxiv_client_searches_pages_and_versions(server):
    client = _plain_client(server, page_size=2)  # 2 per page: the client must page
    search = arxiv.Search(
        query="cat:cs.CL AND submittedDate:[202204010000 TO 202209302359]",
        max_results=None,
        sort_by=arxiv.SortCriterion.SubmittedDate,
        sort_order=arxiv.SortOrder.Ascending,
    )
    results = list(client.results(search))
    assert [r.get_short_id() for r in results] == [
        "2204.02311v1",
        "2204.05862",  # known by metadata alone (seeds.jsonl): no version, no categories
        "2204.10628v1",
        "2205.01068v1",
        "2206.07682",
        "2206.10883v3",
    ]
    v3 = results[-1]
    assert v3.published.date().isoformat() == "2022-06-22" and v3.updated.date().isoformat() == "2022-07-22"
    assert v3.primary_category == "cs.CL" and v3.pdf_url == f"{server.url}/pdf/2206.10883v3"
    # id_list with and without versions; an unknown version is left out.
    by_id = list(client.results(arxiv.Search(id_list=["2205.14135v1", "2205.14135", "2205.14135v7"])))
    assert [(r.get_short_id(), r.updated.date().isoformat()) for r in by_id] == [
        ("2205.14135v1", "2022-05-27"),
        ("2205.14135v2", "2022-06-23"),
    ]


def test_pdf_route_serves_exact_bytes_with_ranges(server, corpus_dir):
    import requests

    data = (corpus_dir / "pdf" / "2205.14135.pdf").read_bytes()
    assert requests.get(f"{server.url}/pdf/2205.14135v2", timeout=5).content == data
    part = requests.get(f"{server.url}/pdf/2205.14135v2", headers={"Range": "bytes=1000-"}, timeout=5)
    assert part.status_code == 206 and part.content == data[1000:]
    assert requests.get(f"{server.url}/pdf/2205.14135v1", timeout=5).status_code == 404  # no PDF of v1


def _ingest(args: list[str]) -> dict:
    out = CliRunner().invoke(main, ["ingest", *args, *FAST])
    assert out.exit_code == 0, out.output
    return {"line": [ln for ln in out.output.splitlines() if ln.startswith("ingest from")][-1]}


PAPER_COLS = (
    "arxiv_id, version, title, authors_json, categories_json, primary_category, first_published, "
    "version_date, doi, pdf_sha256, status"
)


def _tables(db) -> dict:
    con = sqlite3.connect(db)
    return {
        "paper": con.execute(f"select {PAPER_COLS} from paper order by arxiv_id, version").fetchall(),
        "role": con.execute(
            "select window, arxiv_id, role, version from paper_role order by arxiv_id"
        ).fetchall(),
        "failure": con.execute("select stage, subject, reason from failure order by subject").fetchall(),
    }


@pytest.fixture(scope="module")
def both_ingests(server, corpus_dir, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("both")
    pdf_before = server.faults.counts["pdf"]
    via_server = _ingest(
        [
            "--since",
            SINCE,
            "--arxiv-url",
            server.url,
            "--oai-url",
            server.oai_url,
            "--db",
            str(tmp / "a.db"),
            "--cache",
            str(tmp / "ca"),
        ]
    )
    pdf_requests = server.faults.counts["pdf"] - pdf_before
    via_source = _ingest(
        ["--since", SINCE, "--source", str(corpus_dir), "--db", str(tmp / "s.db"), "--cache", str(tmp / "cs")]
    )
    return tmp, via_server, via_source, pdf_requests


def test_server_and_source_give_the_same_papers_table(both_ingests):
    tmp, via_server, via_source, _ = both_ingests
    a, s = _tables(tmp / "a.db"), _tables(tmp / "s.db")
    assert a == s
    roles = {}
    for _window, arxiv_id, role, version in a["role"]:
        roles.setdefault(role, []).append(f"{arxiv_id}v{version}")
    assert roles == {
        "seed": ["2203.02155v0", "2203.06947v0", "2203.11171v0", "2203.14465v1", "2203.15556v0"],
        "pool": [
            "2204.02311v1",
            "2204.05862v0",
            "2204.10628v1",
            "2205.01068v1",
            "2205.14135v2",
            "2206.07682v0",
            "2206.10883v3",
        ],
        # 2201.12091's only PDF is v2 of 2022-06-19, after the seed window: it is read at v1,
        # which the catalog knows by date only (no PDF), so it fails as no-pdf instead of
        # silently using a version that could cite a seed.
        "distractor": ["2201.07525v1", "2201.09329v1", "2201.11903v1", "2201.12091v1", "2202.00535v1"],
    }
    assert {r[0] for r in a["role"]} == {"2022-03:s1:p6:d2"}
    by_status = {}
    for row in a["paper"]:
        by_status[row[-1]] = by_status.get(row[-1], 0) + 1
    assert by_status == {"metadata": 5, "downloaded": 8, "failed": 4}
    assert [f for f in a["failure"] if f[0] == "download"] == [
        ("download", "2201.11903v1", "no-pdf"),
        ("download", "2201.12091v1", "no-pdf"),
        ("download", "2204.05862", "no-pdf"),
        ("download", "2206.07682", "no-pdf"),
    ]
    expected = "17 papers (seed 5, pool 7, distractor 5); PDFs fetched 8, cached 0, failed 4"
    assert expected in via_server["line"] and expected in via_source["line"]


def test_pdfs_match_the_corpus_bytes_and_versions(both_ingests, corpus_dir):
    import hashlib

    tmp = both_ingests[0]
    con = sqlite3.connect(tmp / "a.db")
    rows = con.execute("select arxiv_id, version, pdf_path, pdf_sha256 from paper where status='downloaded'")
    for arxiv_id, version, path, sha in rows:
        assert path.endswith(f"{arxiv_id}v{version}.pdf")
        src = hashlib.sha256((corpus_dir / "pdf" / f"{arxiv_id}.pdf").read_bytes()).hexdigest()
        assert sha == src == hashlib.sha256(Path(path).read_bytes()).hexdigest()


def test_rerun_downloads_nothing_and_adds_no_rows(both_ingests, server):
    tmp, _, _, pdf_requests_first = both_ingests
    before = _tables(tmp / "a.db")
    api_before, pdf_before = server.faults.counts["api"], server.faults.counts["pdf"]
    rerun = _ingest(
        [
            "--since",
            SINCE,
            "--arxiv-url",
            server.url,
            "--oai-url",
            server.oai_url,
            "--db",
            str(tmp / "a.db"),
            "--cache",
            str(tmp / "ca"),
        ]
    )
    assert "PDFs fetched 0, cached 8, failed 4" in rerun["line"]
    assert _tables(tmp / "a.db") == before
    # Only the 4 PDFs that do not exist were asked for again; no finished metadata page was
    # asked again (every page is committed with its query's state, and these windows are closed).
    assert server.faults.counts["pdf"] - pdf_before == 4 and pdf_requests_first == 12
    assert server.faults.counts["api"] == api_before


def test_stats_report_roles_status_and_failures(both_ingests):
    tmp = both_ingests[0]
    out = CliRunner().invoke(main, ["stats", "--db", str(tmp / "s.db"), "--format", "json"])
    data = json.loads(out.output)
    assert data["papers"] == 17
    assert data["papers_by_status"] == {"downloaded": 8, "failed": 4, "metadata": 5}
    assert data["roles_by_window"] == {"2022-03:s1:p6:d2": {"distractor": 5, "pool": 7, "seed": 5}}
    assert data["failures"] == {"download": {"no-pdf": 4}}


def test_source_without_since_stores_every_paper_without_roles(corpus_dir, tmp_path):
    args = ["--source", str(corpus_dir), "--db", str(tmp_path / "all.db"), "--cache", str(tmp_path / "c")]
    first = _ingest(args)
    assert "113 papers; PDFs fetched 55, cached 0, failed 0" in first["line"]
    second = _ingest(args)
    assert "113 papers; PDFs fetched 0, cached 55, failed 0" in second["line"]
    con = sqlite3.connect(tmp_path / "all.db")
    assert con.execute("select count(*) from paper_role").fetchone() == (0,)
    assert dict(con.execute("select status, count(*) from paper group by status")) == {
        "downloaded": 55,
        "metadata": 58,
    }
    assert con.execute("select count(distinct arxiv_id), count(*) from paper").fetchone() == (113, 113)


def test_arxiv_without_since_is_a_usage_error(tmp_path):
    out = CliRunner().invoke(main, ["ingest", "--db", str(tmp_path / "x.db"), "--cache", str(tmp_path / "c")])
    assert out.exit_code == 1 and "--since is required" in out.output


def test_max_papers_caps_each_window_the_same_way_on_both_paths(server, corpus_dir, tmp_path):
    common = ["--since", SINCE, "--max-papers", "2"]
    _ingest(
        [
            *common,
            "--arxiv-url",
            server.url,
            "--oai-url",
            server.oai_url,
            "--db",
            str(tmp_path / "a.db"),
            "--cache",
            str(tmp_path / "c"),
        ]
    )
    _ingest(
        [*common, "--source", str(corpus_dir), "--db", str(tmp_path / "s.db"), "--cache", str(tmp_path / "c")]
    )
    a, s = _tables(tmp_path / "a.db"), _tables(tmp_path / "s.db")
    assert a == s
    # Seeds and distractors: the two oldest of their window (metadata listing order), distractors read
    # at v1, dated before 2022-03. The pool is a seeded sample stratified by month and category, never
    # the first N by date: its 6 papers fall in strata 2022-04|cs.CL (2), 2022-06|cs.LG (2),
    # 2022-05|cs.CL and 2022-07|cs.CL; two picks go to the two largest strata, one each.
    rows = [(r[1], r[2], r[3]) for r in a["role"]]
    assert [r for r in rows if r[1] != "pool"] == [
        ("2201.07525", "distractor", 1),
        ("2201.09329", "distractor", 1),
        ("2203.02155", "seed", 0),
        ("2203.06947", "seed", 0),
    ]
    pool = sorted(r[0] for r in rows if r[1] == "pool")
    strata = {"2204.02311": "04|CL", "2204.05862": "04|CL"}
    assert len(pool) == 2 and pool != ["2204.02311", "2204.05862"]  # not the two earliest
    assert len({strata.get(p, p) for p in pool}) == 2


def test_bad_since_and_bad_source_are_clear_errors(tmp_path):
    base = ["ingest", "--db", str(tmp_path / "x.db"), "--cache", str(tmp_path / "c")]
    out = CliRunner().invoke(main, [*base, "--since", "2024-3"])
    assert out.exit_code == 2 and "expected a month as YYYY-MM" in out.output
    (tmp_path / "empty").mkdir()
    out = CliRunner().invoke(main, [*base, "--source", str(tmp_path / "empty")])
    assert out.exit_code == 1 and out.output.strip().splitlines() == [
        f"Error: --source {tmp_path / 'empty'}: no papers.jsonl there (see the catalog format in README)"
    ]
