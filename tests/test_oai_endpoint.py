"""arXiv's OAI-PMH endpoint as it is now (issue 18, items 3 and 4).

- The documented endpoint is https://oaipmh.arxiv.org/oai, served by github.com/arXiv/oaipmh,
  whose only route is ``/oai``; ``--oai-url`` is that endpoint, used as given (nothing appended),
  apart from ``--arxiv-url`` (the API and PDFs). Before, ``/oai2`` was always appended to the arXiv
  URL, so the documented endpoint could not be used.
- It is checked with ``Identify`` before any page is asked for: what is not an OAI-PMH endpoint,
  or not arXiv's, stops the run with one line naming ``--oai-url``.
- ``from`` earlier than the repository's earliest datestamp (2005-09-16, from ``Identify``) is a
  ``badArgument`` at arXiv (``requests/data_queries.py``: "start date too early"); the harvest
  starts at the earliest datestamp instead, so a window starting in 2004 harvests.
"""

from __future__ import annotations

import sqlite3
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

import pytest
from _harvest_catalog import write_catalog
from click.testing import CliRunner

from reflong.cli import main
from reflong.cli.options import default_of
from reflong.common.errors import NetworkError
from reflong.db.engine import open_store, session_for
from reflong.ingest.harvest.oai import harvest_set
from reflong.ingest.netpolicy import ArxivConnection, NetPolicy
from reflong.ingest.stage import IngestSettings
from reflong.servers.arxiv_server import ArxivServer

FAST = ["--delay", "0", "--timeout", "5", "--no-pdfs"]
CS = {"cs.CL", "cs.LG", "cs.AI"}


def _oai_requests(srv) -> list[tuple[str, dict]]:
    return [
        (urlsplit(path).path, {k: v[-1] for k, v in parse_qs(urlsplit(path).query).items()})
        for _t, kind, path, *_ in srv.faults.log
        if kind == "oai"
    ]


def _ingest(srv, oai_url: str, db, *args: str):
    cmd = ["-v", "ingest", *args, *FAST, "--arxiv-url", srv.url, "--oai-url", oai_url, "--db", str(db)]
    return CliRunner().invoke(main, cmd)


@pytest.fixture(scope="module")
def catalog_2004(tmp_path_factory):
    """Papers first submitted in 2004 (before arXiv's earliest datestamp, 2005-09-16)."""
    root = tmp_path_factory.mktemp("cat2004")
    return root, write_catalog(root, start="2004-01-01", until="2004-09-30", per_day=1)


def test_a_window_starting_in_2004_harvests(catalog_2004, tmp_path):
    root, papers = catalog_2004
    with ArxivServer(root, oai_page_size=50) as srv:
        out = _ingest(srv, srv.oai_url, tmp_path / "a.db", "--since", "2004-05", "--pool-months", "2")
        asked = _oai_requests(srv)
    assert out.exit_code == 0, out.output
    # the distractor window starts 2004-03-01; arXiv would refuse it, so the harvest asks from its
    # earliest datestamp, which every record carries at least
    lists = [q for _p, q in asked if q["verb"] == "ListRecords" and "from" in q]
    assert [q["from"] for q in lists] == ["2005-09-16"]
    assert "windows start 2004-03-01, before the repository's earliest datestamp 2005-09-16" in out.output
    live = [p for p in papers if set(p["categories"]) & CS and not p["versions"][-1].get("withdrawn")]

    def first_in(lo: str, hi: str) -> int:
        return sum(1 for p in live if lo <= p["first_published"] < hi)

    con = sqlite3.connect(tmp_path / "a.db")
    roles = dict(con.execute("select role, count(*) from paper_role group by role"))
    con.close()
    assert roles == {
        "seed": first_in("2004-05-01", "2004-06-01"),
        "pool": first_in("2004-06-01", "2004-08-01"),
        "distractor": first_in("2004-03-01", "2004-05-01"),
    }
    assert min(roles.values()) > 10


def test_without_the_clamp_arxiv_refuses_the_window_in_one_line(catalog_2004, tmp_path):
    """What the clamp avoids: asked ``from`` 2004, arXiv's server answers badArgument."""
    root, _ = catalog_2004
    with ArxivServer(root) as srv, session_for(open_store(tmp_path / "a.db")) as session:
        conn = ArxivConnection(NetPolicy(delay=0, timeout=5))
        with pytest.raises(NetworkError) as err:
            harvest_set(session, conn, srv.oai_url, "cs", "2004-03-01")
    message = str(err.value)
    assert "BadArgument" in message and "start date too early" in message and "--oai-url" in message
    assert "\n" not in message


def test_the_documented_endpoint_is_the_default_and_used_as_given(catalog_2004, tmp_path):
    assert default_of(IngestSettings, "oai_url") == "https://oaipmh.arxiv.org/oai"
    help_text = CliRunner().invoke(main, ["ingest", "--help"]).output
    assert "--oai-url" in help_text and "https://oaipmh.arxiv.org/oai" in help_text
    root, _ = catalog_2004
    with ArxivServer(root, oai_page_size=100) as srv:
        out = _ingest(srv, srv.oai_url, tmp_path / "a.db", "--since", "2004-05")
        asked = _oai_requests(srv)
    assert out.exit_code == 0, out.output
    assert {path for path, _q in asked} == {"/oai"}  # the endpoint as given: no /oai2 appended
    assert asked[0][1] == {"verb": "Identify"}  # checked before any page is asked for
    assert all(q["verb"] == "ListRecords" for _p, q in asked[1:]) and len(asked) > 2


class _Other(BaseHTTPRequestHandler):
    """An OAI-PMH endpoint that is not arXiv's, or answers Identify with an OAI-PMH error."""

    body = b""

    def do_GET(self):
        self.send_response(200)
        self.send_header("Content-Type", "text/xml")
        self.send_header("Content-Length", str(len(self.body)))
        self.end_headers()
        self.wfile.write(self.body)

    def log_message(self, *args):
        pass


_ZENODO = b"""<?xml version="1.0" encoding="UTF-8"?>
<OAI-PMH xmlns="http://www.openarchives.org/OAI/2.0/"><responseDate>2026-01-01T00:00:00Z</responseDate>
<request verb="Identify">https://zenodo.org/oai2d</request><Identify><repositoryName>Zenodo</repositoryName>
<baseURL>https://zenodo.org/oai2d</baseURL><protocolVersion>2.0</protocolVersion>
<earliestDatestamp>2014-02-03T14:41:33Z</earliestDatestamp><deletedRecord>no</deletedRecord>
<granularity>YYYY-MM-DDThh:mm:ssZ</granularity></Identify></OAI-PMH>"""
_BAD_VERB = b"""<?xml version="1.0" encoding="UTF-8"?>
<OAI-PMH xmlns="http://www.openarchives.org/OAI/2.0/"><responseDate>2026-01-01T00:00:00Z</responseDate>
<request>http://example.org/oai</request><error code="badVerb">Illegal verb</error></OAI-PMH>"""


@pytest.mark.parametrize(
    ("case", "expected"),
    [
        ("root", "HTTP 404"),  # a base URL, not the endpoint
        ("api", "is not an OAI-PMH endpoint (not an OAI-PMH answer (root element feed))"),
        ("zenodo", "is an OAI-PMH repository, but not arXiv's (it calls itself 'Zenodo')"),
        ("error", "did not answer Identify as an OAI-PMH repository does (error badVerb: Illegal verb)"),
    ],
)
def test_an_endpoint_that_is_not_arxivs_oai_pmh_stops_in_one_line(catalog_2004, tmp_path, case, expected):
    root, _ = catalog_2004
    other = ThreadingHTTPServer(
        ("127.0.0.1", 0), type("H", (_Other,), {"body": _ZENODO if case == "zenodo" else _BAD_VERB})
    )
    threading.Thread(target=other.serve_forever, daemon=True).start()
    try:
        with ArxivServer(root) as srv:
            url = {
                "root": f"{srv.url}/",
                "api": f"{srv.url}/api/query",
                "zenodo": f"http://127.0.0.1:{other.server_address[1]}/oai2d",
                "error": f"http://127.0.0.1:{other.server_address[1]}/oai",
            }[case]
            out = _ingest(srv, url, tmp_path / "a.db", "--since", "2004-05")
            listed = [q for _p, q in _oai_requests(srv) if q.get("verb") == "ListRecords"]
    finally:
        other.shutdown()
    assert out.exit_code == 1, out.output
    errors = [ln for ln in out.output.splitlines() if ln.startswith("Error:")]
    assert len(errors) == 1 and expected in errors[0] and "--oai-url" in errors[0], out.output
    assert "Traceback" not in out.output and listed == []  # stopped before any page
