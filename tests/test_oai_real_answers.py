"""Our OAI-PMH harvest and the stand-in held against real answers of arXiv's servers (issue 18,
items 3-5; tests/data/real/SOURCES.md).

- ``arxiv_oaipmh_paging/``: answers of arXiv's current server (github.com/arXiv/oaipmh, the code
  behind https://oaipmh.arxiv.org/oai) recorded from its own code: Identify, ``from`` 2004
  refused, a whole list of 159 records followed through its stateless tokens (30 a page).
- ``export_arxiv_oai2/``: a page the legacy export.arxiv.org/oai2 answered in 2015.

The recorded list is replayed on 127.0.0.1 and harvested with the real client code
(``identify``, ``harvest_set``); the replay answers each recorded request with its recorded
answer (the first page also when asked without ``until``, which the harvest does not send).
"""

from __future__ import annotations

import gzip
import itertools
import json
import logging
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import ClassVar
from urllib.parse import parse_qs, urlsplit

import pytest
import requests
from lxml import etree
from sqlmodel import select

from reflong.db.engine import open_store, session_for
from reflong.db.harvest import ArxivRecordRow, HarvestState
from reflong.ingest.harvest.oai import clamp_from, datestamp_order, harvest_set, identify
from reflong.ingest.netpolicy import ArxivConnection, NetPolicy
from reflong.servers.arxiv_server import ArxivServer
from reflong.servers.oai import read_current_token

REAL = Path(__file__).parent / "data" / "real"
CURRENT = REAL / "arxiv_oaipmh_paging"
LEGACY = REAL / "export_arxiv_oai2"
NS = {"o": "http://www.openarchives.org/OAI/2.0/"}


def _read(path: Path) -> bytes:
    return gzip.decompress(path.read_bytes()) if path.suffix == ".gz" else path.read_bytes()


def _key(query: dict[str, str]) -> tuple:
    return tuple(sorted((k, v) for k, v in query.items() if k != "until"))


RECORDED = {
    _key(e["query"]): CURRENT / e["file"] for e in json.loads((CURRENT / "requests.json").read_text())
}
LIST_PAGES = [CURRENT / f"listrecords_page{i}.xml.gz" for i in range(6)]


def _headers(body: bytes) -> list[tuple[str, str]]:
    root = etree.fromstring(body)
    return [
        (h.findtext("o:datestamp", namespaces=NS), h.findtext("o:identifier", namespaces=NS)[14:])
        for h in root.iterfind(".//o:header", NS)
    ]


class _Replay(BaseHTTPRequestHandler):
    asked: ClassVar[list[dict]] = []

    def do_GET(self):
        parts = urlsplit(self.path)
        query = {k: v[-1] for k, v in parse_qs(parts.query).items()}
        type(self).asked.append(query)
        path = RECORDED.get(_key(query)) if parts.path == "/oai" else None
        body = _read(path) if path else b"not found\n"
        self.send_response(200 if path else 404)
        self.send_header("Content-Type", "text/xml" if path else "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.fixture
def replay():
    _Replay.asked = []
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Replay)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/oai"
    httpd.shutdown()


def test_identify_of_arxivs_server_gives_its_earliest_datestamp(replay):
    repo = identify(ArxivConnection(NetPolicy(delay=0, timeout=5)), replay)
    assert (repo.name, repo.earliest, repo.granularity) == ("arXiv", "2005-09-16", "YYYY-MM-DD")
    assert repo.base_url == "https://oaipmh.arxiv.org/oai"  # the documented endpoint, as the server says
    assert clamp_from("2004-03-01", repo) == "2005-09-16" and clamp_from("2024-01-01", repo) == "2024-01-01"
    # what the clamp avoids: arXiv's server refuses a from before its earliest datestamp
    early = etree.fromstring((CURRENT / "listrecords_from_2004.xml").read_bytes()).find("o:error", NS)
    assert early.get("code") == "badArgument" and "start date too early" in early.text


def test_the_recorded_list_is_harvested_to_its_end_without_complete_list_size(replay, tmp_path, caplog):
    """arXiv's current server sends no cursor and no completeListSize, and ends a resumed list with
    an empty ``<resumptionToken/>``: every record is stored, no warning, the set is covered."""
    expected = {aid for page in LIST_PAGES for _day, aid in _headers(_read(page))}
    assert len(expected) == 159
    caplog.set_level(logging.INFO)
    conn = ArxivConnection(NetPolicy(delay=0, timeout=5))
    with session_for(open_store(tmp_path / "a.db")) as session:
        repo = identify(conn, replay)
        report = harvest_set(session, conn, replay, "", clamp_from("2011-02-01", repo))
        stored = set(session.exec(select(ArxivRecordRow.arxiv_id)).all())
        state = session.exec(select(HarvestState)).one()
    assert report.pages == 6 and report.short is None and not report.fallback
    assert stored == expected and report.records == 159 and report.bad == 0
    assert "completeListSize" not in caplog.text and "resumption token" not in caplog.text
    assert state.completed and state.covered_from == "2011-02-01" and state.harvested_through == "2011-04-28"
    assert state.datestamp_order and state.complete_list_size is None and state.token is None
    assert [q.get("verb") for q in _Replay.asked] == ["Identify"] + ["ListRecords"] * 6


def test_current_order_datestamps_rise_but_a_days_ids_cross_pages():
    """Why the fallback restarts from the last datestamp (inclusive), never after the last id."""
    pages = [_headers(_read(p)) for p in LIST_PAGES]
    ordered, last = datestamp_order(None, [day for page in pages for day, _ in page])
    assert ordered and last == "2011-04-28"
    crossing = 0
    for before, after in itertools.pairwise(pages):
        last_day, last_id = before[-1]
        crossing += sum(1 for day, aid in after if day == last_day and aid < last_id)
    assert crossing > 0  # records an "after the last id" restart would skip
    legacy = _headers((LEGACY / "listrecords_from_2014-10-01.xml").read_bytes())
    assert [aid for _d, aid in legacy] == sorted(aid for _d, aid in legacy)  # identifier order
    assert datestamp_order(None, [day for day, _ in legacy])[0] is False


def test_the_stand_in_answers_in_the_recorded_forms(tmp_path):
    """The stand-in's ``/oai`` against the recorded answers: Identify's fields, token form and
    attributes, the empty last token, no token for a one-page list, the errors; ``/oai2`` in the
    legacy server's identifier order with cursor and completeListSize."""
    cat = tmp_path / "cat"
    cat.mkdir()
    day = {i: f"2024-01-{1 if i <= 16 else 1 + i // 5:02d}" for i in range(1, 61)}  # 16 on the first day
    rows = [
        {"arxiv_id": f"2401.{i:05d}", "version": "v1", "file": None, "title": f"T{i}", "authors": ["A B"],
         "published": day[i], "categories": ["cs.CL"], "primary_category": "cs.CL",
         "versions": [{"version": "v1", "published": day[i]}],
         **({"datestamp": "2024-02-20"} if i % 9 == 4 else {})}
        for i in range(1, 61)
    ]  # fmt: skip
    (cat / "papers.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")

    def root(url, **params):
        return etree.fromstring(requests.get(url, params=params, timeout=10).content)

    def fields(ident):
        return [
            (etree.QName(e).localname, e.text)
            for e in ident.find("o:Identify", NS)
            if e.text and e.text.strip()
        ]

    real_ident = etree.fromstring((CURRENT / "identify.xml").read_bytes())
    real_pages = [etree.fromstring(_read(p)) for p in LIST_PAGES]
    real_one = etree.fromstring((CURRENT / "listrecords_one_page.xml").read_bytes())
    real_bad = etree.fromstring((CURRENT / "listrecords_bad_token.xml").read_bytes()).find("o:error", NS)
    with ArxivServer(cat, oai_page_size=7) as srv:
        ident = root(srv.oai_url, verb="Identify")
        pages = [root(srv.oai_url, verb="ListRecords", metadataPrefix="arXivRaw", **{"from": "2024-01-01"})]
        while (tok := pages[-1].find(".//o:resumptionToken", NS)) is not None and tok.text:
            pages.append(root(srv.oai_url, verb="ListRecords", resumptionToken=tok.text))
        one = root(srv.oai_url, verb="ListRecords", metadataPrefix="arXivRaw", **{"from": "2024-02-01"})
        bad = root(srv.oai_url, verb="ListRecords", resumptionToken="760571|10001").find("o:error", NS)
        legacy = root(f"{srv.url}/oai2", verb="ListRecords", metadataPrefix="arXivRaw")
    ours, real = dict(fields(ident)), dict(fields(real_ident))
    assert list(ours) == list(real)[: len(ours)] and ours.keys() == real.keys()
    assert {k: ours[k] for k in ours if k != "baseURL"} == {k: real[k] for k in real if k != "baseURL"}

    def tokens(answers):
        return [a.find(".//o:resumptionToken", NS) for a in answers]

    got, want = tokens(pages), tokens(real_pages)
    # no cursor, no completeListSize: only expirationDate (the next UTC midnight) on a live token
    for t in got[:-1] + want[:-1]:
        assert sorted(t.attrib) == ["expirationDate"] and t.text
        assert t.get("expirationDate").endswith("T00:00:00Z")
    assert dict(got[-1].attrib) == dict(want[-1].attrib) == {} and not got[-1].text and not want[-1].text
    ours_q = [read_current_token(t.text) for t in got[:-1]]
    real_q = [read_current_token(t.text) for t in want[:-1]]
    assert {tuple(q) for q, _ in ours_q} == {("verb", "metadataPrefix", "from")}
    assert {tuple(q) for q, _ in real_q} == {("verb", "metadataPrefix", "from", "until")}
    # both kinds of next token occur: same query with skip + page size, and from the next day
    kinds = {(q["from"] == "2024-01-01", skip) for q, skip in ours_q}
    assert (True, 7) in kinds and any(not same for same, _ in kinds)
    got_ids = [h for p in pages for h in _headers(etree.tostring(p))]
    assert len(got_ids) == 60 and datestamp_order(None, [d for d, _ in got_ids])[0]
    assert real_one.find(".//o:resumptionToken", NS) is None and one.find(".//o:resumptionToken", NS) is None
    assert len(_headers(etree.tostring(one))) == 7  # a full page, and still the whole list
    assert bad.get("code") == real_bad.get("code") == "badResumptionToken"
    legacy_heads = _headers(etree.tostring(legacy))
    assert [a for _d, a in legacy_heads] == sorted(a for _d, a in legacy_heads)
    assert datestamp_order(None, [d for d, _ in legacy_heads])[0] is False  # as the 2015 page
    legacy_token = legacy.find(".//o:resumptionToken", NS)
    assert legacy_token.get("cursor") == "0" and legacy_token.get("completeListSize") == "60"
