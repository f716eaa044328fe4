"""A resumption token that cannot be used mid-list loses no record, in either server's order
(issue 18, item 5).

arXiv's current server (stand-in ``/oai``; github.com/arXiv/oaipmh) lists records in (modification
time, id) order: datestamps never go down, but a day's records are split across pages by the time
of day, so the next page holds ids below the last one seen (tests/data/real/arxiv_oaipmh_paging
shows it on arXiv's own code). The legacy export.arxiv.org/oai2 (stand-in ``/oai2``) listed them by
identifier, datestamps going up and down. A harvest whose token is refused starts a new list:
``from`` the last committed datestamp in datestamp order, ``from`` its own start in identifier
order. Each test picks a page boundary where the wrong rule would lose records (restarting after
the last id, or from the last datestamp in identifier order) and checks that none is lost.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import subprocess
import sys
from datetime import datetime, timezone
from urllib.parse import parse_qs, urlsplit

import pytest
import requests
from _harvest_catalog import write_catalog
from click.testing import CliRunner
from lxml import etree

from reflong.cli import main
from reflong.servers.arxiv_server import ArxivServer

NS = {"o": "http://www.openarchives.org/OAI/2.0/"}
FAST = ["--since", "2024-03", "--delay", "0", "--timeout", "5", "--no-pdfs"]
PAGE = 20
START = "2024-01-01"  # the distractor window's first day: the harvest's from


@pytest.fixture(scope="module")
def catalog(tmp_path_factory):
    """Six papers a day in January-March 2024, so a day's records fill more than one page."""
    root = tmp_path_factory.mktemp("cat")
    write_catalog(root, start="2024-01-01", until="2024-03-31", per_day=6)
    return root


def _run(srv, oai_url: str, db, *extra: str):
    args = ["ingest", *FAST, "--arxiv-url", srv.url, "--oai-url", oai_url, "--db", str(db), *extra]
    return CliRunner().invoke(main, args)


def digest(db) -> str:
    con = sqlite3.connect(db)
    h = hashlib.sha256()
    for table in ("arxiv_record", "paper_role"):
        cols = "*" if table == "arxiv_record" else "window, arxiv_id, role, version"
        rows = con.execute(f"select {cols} from {table} order by 1, 2, 3").fetchall()
        h.update(f"{table}:{len(rows)}:{json.dumps(rows)}".encode())
    con.close()
    return h.hexdigest()


def _pages(oai_url: str) -> list[list[tuple[str, str]]]:
    """The list the harvest asks for, page by page: (datestamp, id) of each record."""
    params = {"verb": "ListRecords", "metadataPrefix": "arXivRaw", "from": START, "set": "cs"}
    pages = []
    while True:
        root = etree.fromstring(requests.get(oai_url, params=params, timeout=10).content)
        pages.append(
            [
                (h.findtext("o:datestamp", namespaces=NS), h.findtext("o:identifier", namespaces=NS)[14:])
                for h in root.iterfind(".//o:header", NS)
            ]
        )
        token = root.find(".//o:resumptionToken", NS)
        if token is None or not token.text:
            return pages
        params = {"verb": "ListRecords", "resumptionToken": token.text}


def _lost_by_the_wrong_rule(pages, k: int, route: str) -> int:
    """Records after page ``k`` that a wrong restart would never ask for."""
    last_day, last_id = pages[k - 1][-1]
    ahead = [r for page in pages[k:] for r in page]
    if route == "/oai":  # restarting after the last id seen, within its day
        return sum(1 for day, aid in ahead if day == last_day and aid < last_id)
    return sum(1 for day, _aid in ahead if day < last_day)  # from the last datestamp, in id order


def _list_queries(srv) -> list[dict]:
    return [
        q
        for _t, kind, path, *_ in srv.faults.log
        if kind == "oai"
        and (q := {k: v[-1] for k, v in parse_qs(urlsplit(path).query).items()})["verb"] == "ListRecords"
    ]


@pytest.mark.slow
@pytest.mark.parametrize("route", ["/oai", "/oai2"])
def test_an_expired_token_mid_list_loses_no_record(catalog, tmp_path, route):
    with ArxivServer(catalog, oai_page_size=PAGE) as srv:
        oai_url = srv.url + route
        whole = tmp_path / "whole.db"
        assert _run(srv, oai_url, whole).exit_code == 0
        pages = _pages(oai_url)
        k = next(k for k in range(2, len(pages) - 1) if _lost_by_the_wrong_rule(pages, k, route))
        assert _lost_by_the_wrong_rule(pages, k, route) > 0  # the wrong rule would lose these
        srv.faults.log.clear()
        srv.faults.counts["oai"] = 0
        srv.faults.add(f"oai:{k + 2}:expire")  # Identify, k pages, then page k+1's token is refused
        out = _run(srv, oai_url, tmp_path / "a.db")
        asked = _list_queries(srv)
    assert out.exit_code == 0, out.output
    assert "resumptionToken" in asked[k] and "resumptionToken" not in asked[k + 1]
    fallback = asked[k + 1]["from"]
    if route == "/oai":  # datestamp order: the last committed record's day, asked again whole
        assert fallback == pages[k - 1][-1][0] and "records came in datestamp order" in out.output
    else:  # identifier order: the harvest's own from
        assert fallback == START and "records came in identifier order" in out.output
    assert digest(tmp_path / "a.db") == digest(whole)  # not one record lost (nor one extra)


@pytest.mark.slow
def test_a_stored_token_past_its_expiration_date_is_not_used(catalog, tmp_path):
    """arXiv's current tokens hold a skip count that is right only while the list stays as it was;
    they say they expire at the next UTC midnight but the server takes them at any age. A rerun
    after that does not use the stored token: it starts a new list from the last committed day."""
    issued = datetime(2025, 6, 1, 12, 0, tzinfo=timezone.utc).timestamp()
    with ArxivServer(catalog, oai_page_size=PAGE, clock=lambda: issued, retry_after=0) as srv:
        whole = tmp_path / "whole.db"
        assert _run(srv, srv.oai_url, whole).exit_code == 0
        srv.faults.log.clear()
        srv.faults.counts["oai"] = 0
        srv.faults.add("oai:5:503")  # Identify, 3 pages, then a 503 and no retry: the run stops
        db = tmp_path / "a.db"
        stopped = _run(srv, srv.oai_url, db, "--retries", "0")
        assert stopped.exit_code == 1, stopped.output
        con = sqlite3.connect(db)
        token, expires, last_day = con.execute(
            "select token, token_expires, last_datestamp from harvest_state"
        ).fetchone()
        con.close()
        assert token and expires == "2025-06-02T00:00:00Z"
        srv.faults.clear()
        srv.faults.log.clear()
        rerun = _run(srv, srv.oai_url, db)
        asked = _list_queries(srv)
    assert rerun.exit_code == 0, rerun.output
    assert "resumptionToken" not in asked[0] and asked[0]["from"] == last_day
    assert "expired at 2025-06-02T00:00:00Z" in rerun.output
    assert digest(db) == digest(whole)


@pytest.mark.slow
def test_a_server_that_refuses_every_token_stops_in_one_line(catalog, tmp_path):
    with ArxivServer(catalog, oai_page_size=PAGE) as srv:
        srv.faults.add("oai:*:expire")  # every request with a token: badResumptionToken
        cmd = [sys.executable, "-c", "from reflong.cli import main; main()", "ingest", *FAST,
               "--arxiv-url", srv.url, "--oai-url", srv.oai_url, "--db", str(tmp_path / "a.db")]  # fmt: skip
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
        asked = _list_queries(srv)
    assert out.returncode == 1
    errors = [ln for ln in out.stderr.splitlines() if ln.startswith("Error:")]
    assert len(errors) == 1 and "refused 4 resumption tokens" in errors[0] and "rerun" in errors[0]
    assert "Traceback" not in out.stderr
    assert sum("resumptionToken" in q for q in asked) == 4  # three fallbacks, then the stop
