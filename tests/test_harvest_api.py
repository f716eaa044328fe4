"""The API route (``--metadata api``) within the API's limits, against a stand-in that enforces them:
window queries split under a (small) result cap, pages of at most the page size, id_list look-ups in
chunks of 200 (a longer list would be a URL the server refuses with 414)."""

from __future__ import annotations

import sqlite3
from urllib.parse import parse_qs, urlsplit

import pytest
from _harvest_catalog import write_catalog
from click.testing import CliRunner
from test_harvest_oai import _expected_roles, _roles

from reflong.cli import main
from reflong.db import open_store, session_for
from reflong.ingest.harvest.api import lookup_versions
from reflong.ingest.harvest.arxiv_client import PoliteArxivClient
from reflong.servers.arxiv_server import ApiLimits, ArxivServer


def _api_queries(srv) -> list[dict]:
    return [
        {k: v[-1] for k, v in parse_qs(urlsplit(path).query).items()}
        for _t, kind, path, *_ in srv.faults.log
        if kind == "api"
    ]


@pytest.mark.slow
def test_window_queries_split_under_the_cap_and_the_store_matches_oai(tmp_path):
    root = tmp_path / "cat"
    papers = write_catalog(root, until="2024-09-30", per_day=2)  # ~60 a month: over a cap of 50
    limits = ApiLimits(result_cap=50, max_page=20)
    args = ["ingest", "--since", "2024-03", "--delay", "0", "--no-pdfs", "--metadata", "api"]
    args += ["--api-result-cap", "50", "--api-page-size", "20"]
    with ArxivServer(root, limits=limits) as srv:
        out = CliRunner().invoke(main, [*args, "--arxiv-url", srv.url, "--db", str(tmp_path / "a.db")])
        assert out.exit_code == 0, out.output
        queries = _api_queries(srv)
        statuses = srv.stats.snapshot()["by_status"]
        port = srv._httpd.server_address[1]
    assert set(statuses) == {"200"}  # no 400 past the cap, no 414
    searches = [q for q in queries if "search_query" in q]
    assert all(int(q["start"]) < 50 for q in searches)  # no page asked past the cap
    assert all(int(q["max_results"]) <= 20 for q in searches)
    firsts = [q["search_query"] for q in searches if q["start"] == "0"]
    assert len(firsts) > 9  # the 6-month pool and the 2-month distractor window were split
    got, expected = _roles(tmp_path / "a.db"), _expected_roles(papers)
    # Same roles and pins as the spec, except withdrawals: the API shows only the comment, which
    # here gives a reason without the word "withdrawn" (why OAI's arXivRaw is the default route).
    withdrawn = {p["arxiv_id"] for p in papers if p["versions"][-1].get("withdrawn")}
    assert {k: v for k, v in got.items() if k not in withdrawn} == expected
    assert set(got) - set(expected) <= withdrawn
    looked_up = [q for q in queries if "id_list" in q]
    assert looked_up and all(len(q["id_list"].split(",")) <= 200 for q in looked_up)
    # a rerun asks nothing again: every query finished and its window is closed
    with ArxivServer(root, port=port, limits=limits) as srv:
        out = CliRunner().invoke(main, [*args, "--arxiv-url", srv.url, "--db", str(tmp_path / "a.db")])
        assert out.exit_code == 0, out.output
        assert srv.stats.snapshot()["by_kind"] == {}


def test_id_list_lookups_go_in_chunks_of_200(tmp_path):
    root = tmp_path / "cat"
    papers = write_catalog(root, until="2024-02-29", per_day=12)
    ids = [f"{p['arxiv_id']}v1" for p in papers[:700]]
    assert len(",".join(ids)) > 8190  # as one id_list, a URL the server refuses with 414
    with ArxivServer(root) as srv:
        client = PoliteArxivClient(srv.url)
        client.conn.politeness.delay = 0
        engine = open_store(tmp_path / "a.db")
        with session_for(engine) as session:
            found = lookup_versions(session, client, ids, None)
        sizes = [len(q["id_list"].split(",")) for q in _api_queries(srv)]
        statuses = srv.stats.snapshot()["by_status"]
    assert sizes == [200, 200, 200, 100] and set(statuses) == {"200"} and found == 700
    con = sqlite3.connect(tmp_path / "a.db")
    assert con.execute("select count(*) from arxiv_record").fetchone()[0] == 700
