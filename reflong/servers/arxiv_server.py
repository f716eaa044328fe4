"""A local server that speaks the arXiv API protocol, serving any catalog folder.

It answers what the ingest asks of export.arxiv.org, on 127.0.0.1:

- ``/api/query?search_query=...&id_list=...&start=&max_results=&sortBy=&sortOrder=``: an Atom feed
  (the arXiv schema: ``opensearch:totalResults``, entries with ``id`` ``.../abs/<id>v<N>``,
  ``published`` = first-version date, ``updated`` = this version's date, authors, categories,
  ``arxiv:primary_category``, ``arxiv:comment``, ``arxiv:doi``, a ``pdf`` link). ``search_query``
  understands ``cat:``, ``submittedDate:[YYYYMMDDHHMM TO YYYYMMDDHHMM]``, ``lastUpdatedDate:``,
  ``ti:``, ``au:``, ``all:`` combined with AND, OR, ANDNOT and parentheses; ``id_list`` takes bare
  ids (latest version) and versioned ids (exactly that version, omitted if unknown).
- ``/pdf/<id>v<N>`` (and ``/pdf/<id>`` for the latest), with HTTP Range support for resumes.
- ``/oai``: OAI-PMH 2.0 as arXiv's current server (https://oaipmh.arxiv.org/oai) answers it:
  arXivRaw and oai_dc, sets, datestamps, stateless resumption tokens, pages of 2,500 in
  (modification time, id) order, ``from`` no earlier than 2005-09-16; ``/oai2``: as the legacy
  export.arxiv.org/oai2 did (id order, pages of 1,000, tokens that expire, ``cursor`` and
  ``completeListSize``); 503 + Retry-After on both (``oai.py`` says what it follows of arXiv's
  code and where).
- ``/_stats``: requests by kind (api, oai, pdf, other) and by HTTP status, as JSON (also
  ``ArxivServer.stats.snapshot()``), so benches can report what a run asked for.

Faults can be injected per request number, per kind of request, so retry and resume paths can be
tested: ``api`` requests: 429, throttle:SECONDS (a 429 spell), 503, hang (no answer for
``hang_seconds``), empty (a page with no entries); ``oai`` requests: 503 (with Retry-After), hang,
expire, truncate, empty, short; ``pdf`` requests: 429, throttle:SECONDS, generating:N (the "PDF being
generated" page for that paper's first N requests), 503, 404, hang, hang-body (half the file, then
silence), truncate (a complete response holding half the file), cut (the connection drops mid-body).
How arXiv answers a throttled request and a PDF it has yet to make, and the sources, are in
``FaultPlan``.

Run it for the demo or the benchmarks:
    python -m reflong.servers.arxiv_server --catalog ../shared/corpus --port 8765 [--fault pdf:2:truncate]
and point the ingest at it with ``--arxiv-url http://127.0.0.1:8765 --oai-url http://127.0.0.1:8765/oai``.
"""

from __future__ import annotations

import argparse
import bisect
import json
import logging
import random
import re
import sys
import threading
import time
import xml.etree.ElementTree as ET
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlsplit

from reflong.ingest.catalog.reader import Catalog, CatalogPaper, CatalogVersion, read_catalog
from reflong.ingest.metadata import matches_categories, split_versioned_id, versioned_id
from reflong.servers.background import BackgroundServer
from reflong.servers.oai import CURRENT, LEGACY, OaiRepository, end_list_here

ATOM = "http://www.w3.org/2005/Atom"
ARXIV = "http://arxiv.org/schemas/atom"
OPENSEARCH = "http://a9.com/-/spec/opensearch/1.1/"
ET.register_namespace("", ATOM)
ET.register_namespace("arxiv", ARXIV)
ET.register_namespace("opensearch", OPENSEARCH)

log = logging.getLogger(__name__)

API_FAULTS = {"429", "throttle", "503", "hang", "empty"}
PDF_FAULTS = {"429", "throttle", "generating", "503", "404", "hang", "hang-body", "truncate", "cut"}
# OAI-PMH: 503 + Retry-After (arXiv's flow control), hang, expire (this request's token answered as
# expired: badResumptionToken), truncate (a 200 whose XML stops halfway), empty (a 200 with no body),
# short (a well-formed page whose resumptionToken is empty although records remain: the list ends
# early against its completeListSize), move (before this resumed page is answered, a record the
# list already showed on the token's day is modified today: ``OaiRepository.move_a_shown_record``;
# where the token splits no day, the first later one that does).
OAI_FAULTS = {"503", "hang", "expire", "truncate", "empty", "short", "move"}
FAULTS = {"api": API_FAULTS, "pdf": PDF_FAULTS, "oai": OAI_FAULTS}
# Faults that take an argument (``throttle:SECONDS``, ``generating:N``): its type, and whether it may be left out.
_FAULT_ARGS = {"throttle": (float, False), "generating": (int, True)}

# What arXiv's throttling answers: HTTP 429, this text body, no Retry-After (see ``FaultPlan``).
RATE_EXCEEDED = b"Rate exceeded."


def generating_page(vid: str, refresh: int = 10) -> bytes:
    """The HTML page arXiv's classic PDF route answered (HTTP 200) while it made the PDF from TeX.

    In our words, not arXiv's: what the recorded page said (inspirehep/inspire-next issue #2360)
    is that a PDF is being created from the article's source, that this can take a little time,
    and that the browser will reload the URL in 10 seconds, no sooner (faster requests could set
    off arXiv's robot alarm)."""
    return (
        "<!DOCTYPE html>\n<html><head>"
        f'<meta http-equiv="refresh" content="{refresh}">'
        f"<title>PDF for {vid} is being generated</title></head>\n<body>"
        f"<h1>PDF for {vid}</h1><p>The PDF is being made from the article's source; this can take a "
        f"little while.</p><p>This page reloads in {refresh} seconds; please do not ask sooner.</p>"
        "</body></html>\n"
    ).encode()


class QueryError(ValueError):
    """A search_query the server does not understand (answered with HTTP 400, like arXiv)."""


# --------------------------------------------------------------------------------------------
# search_query: tokens, a small recursive-descent parser, evaluation on catalog papers
# --------------------------------------------------------------------------------------------
_TOKEN_RE = re.compile(
    r"\s*(?:(?P<lp>\()|(?P<rp>\))|(?P<op>ANDNOT|AND|OR)(?=[\s(]|$)"
    r'|(?P<term>[A-Za-z]+:(?:\[[^\]]*\]|"[^"]*"|[^\s()]+))|(?P<word>"[^"]*"|[^\s()]+))'
)


def _tokens(query: str) -> list[tuple[str, str]]:
    out, pos = [], 0
    query = query.strip()
    while pos < len(query):
        m = _TOKEN_RE.match(query, pos)
        if not m or m.end() == pos:
            raise QueryError(f"cannot read the query at {query[pos : pos + 20]!r}")
        pos = m.end()
        kind = m.lastgroup
        out.append((kind, m.group(kind)))
    return out


def _date_bounds(value: str) -> tuple[str, str]:
    m = re.fullmatch(r"\[\s*(\d{8})\d{0,6}\s+TO\s+(\d{8})\d{0,6}\s*\]", value)
    if not m:
        raise QueryError(f"bad date range {value!r}; expected [YYYYMMDDHHMM TO YYYYMMDDHHMM]")
    lo, hi = m.group(1), m.group(2)
    return f"{lo[:4]}-{lo[4:6]}-{lo[6:]}", f"{hi[:4]}-{hi[4:6]}-{hi[6:]}"


def _term(field_name: str, value: str):
    value = value.strip('"')
    low = value.lower()
    if field_name == "cat":
        return lambda p: matches_categories(p.categories, [value])
    if field_name in ("submittedDate", "lastUpdatedDate"):
        lo, hi = _date_bounds(value)
        if field_name == "submittedDate":
            return lambda p: p.first_published is not None and lo <= p.first_published <= hi
        return lambda p: (d := (p.latest.date or p.first_published)) is not None and lo <= d <= hi
    if field_name == "ti":
        return lambda p: low in p.title.lower()
    if field_name == "au":
        return lambda p: any(low in a.lower() for a in p.authors)
    if field_name == "all":
        return lambda p: low in p.title.lower() or any(low in a.lower() for a in p.authors)
    if field_name == "id":
        return lambda p: p.arxiv_id == split_versioned_id(value)[0]
    raise QueryError(f"unsupported field {field_name!r}")


class _Parser:
    """expr := and_expr (OR and_expr)* ; and_expr := atom ((AND|ANDNOT) atom)* ; atom := term | ( expr )"""

    def __init__(self, tokens: list[tuple[str, str]]) -> None:
        self.tokens, self.i = tokens, 0

    def peek(self) -> tuple[str, str] | None:
        return self.tokens[self.i] if self.i < len(self.tokens) else None

    def take(self) -> tuple[str, str]:
        tok = self.peek()
        if tok is None:
            raise QueryError("query ends too early")
        self.i += 1
        return tok

    def parse(self):
        pred = self.expr()
        if self.peek() is not None:
            raise QueryError(f"unexpected {self.peek()[1]!r}")
        return pred

    def expr(self):
        left = self.and_expr()
        while self.peek() == ("op", "OR"):
            self.take()
            right = self.and_expr()
            left = (lambda a, b: lambda p: a(p) or b(p))(left, right)
        return left

    def and_expr(self):
        left = self.atom()
        while self.peek() in (("op", "AND"), ("op", "ANDNOT")):
            op = self.take()[1]
            right = self.atom()
            if op == "AND":
                left = (lambda a, b: lambda p: a(p) and b(p))(left, right)
            else:
                left = (lambda a, b: lambda p: a(p) and not b(p))(left, right)
        return left

    def atom(self):
        kind, text = self.take()
        if kind == "lp":
            inner = self.expr()
            if self.take()[0] != "rp":
                raise QueryError("missing )")
            return inner
        if kind == "term":
            name, _, value = text.partition(":")
            return _term(name, value)
        if kind == "word":
            return _term("all", text)
        raise QueryError(f"unexpected {text!r}")


def parse_query(query: str):
    """A predicate on ``CatalogPaper`` for an arXiv ``search_query``."""
    return _Parser(_tokens(query)).parse()


# --------------------------------------------------------------------------------------------
# faults and request log
# --------------------------------------------------------------------------------------------
@dataclass
class FaultPlan:
    """Faults by request number: ``{("api", 1): "429", ("pdf", 2): "truncate"}`` (1-based per kind).

    A rule with number 0 applies to every request of that kind.

    Two faults are the real service's behaviour over time, not one bad answer:

    - ``throttle:SECONDS`` (api, pdf): from that request on, every request of the kind is answered
      for SECONDS as arXiv throttles today: HTTP 429, ``Content-Type: text/plain``, the body
      ``Rate exceeded.`` and no ``Retry-After``; with the server's ``throttle_latency`` each 429
      takes that long to arrive. Sources: curl against export.arxiv.org/api/query got 429 with body
      ``Rate exceeded.`` on 10 of 10 single requests spaced 30 s or more apart, neither of the two
      recorded with headers had ``Retry-After``, and the 429 took 0.26 s to 124 s to arrive
      (ultimatile/arxiv-skills issue #25, 2026-09-15, which also quotes arXiv staff on the arXiv API
      list: the limit is about arXiv's overall capacity, the client's only fix is to try later);
      arxiv.py's maintainer: "several reports of users encountering 429 statuses even though they
      stay below the documented rate limit" (lukasschwab/arxiv.py issue #203, 2026-06-04); spells
      lasting hours (huangkiki/dailypaper-skills issue #10: 429 again after about 5 hours).
    - ``generating:N`` (pdf): the paper asked for by that request answers its first N requests with
      HTTP 200, ``Content-Type: text/html`` and a page saying its PDF is being made
      (``generating_page``), then the PDF. arXiv's own fulltext service: "Classic PDF route will
      return 200 even if PDF is not yet generated. But at least it will be honest about the
      Content-Type. If we don't get a PDF back, we should wait and try again" (5 tries, 5 s apart;
      arXiv/zzzArchived_arxiv-fulltext, fulltext/services/legacy/legacy.py, commit
      36008457022cde245d78b3ad91e0a95aa21bc420); the page itself asks for a reload after 10 s
      (inspirehep/inspire-next issue #2360). Today's arxiv-browse makes a missing PDF on the
      request through its genpdf service and answers 500 "file unavailable" when that fails
      (browse/services/dissemination/article_store.py ``_genpdf``, commit 26f634fbf98d), which
      the ``503``/``404`` faults cover; the 200 page is what clients still must not take for a PDF.
    """

    rules: dict[tuple[str, int], str] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=lambda: {"api": 0, "pdf": 0, "oai": 0})
    # one entry per request: (monotonic time, kind, path, fault injected, Range header)
    log: list[tuple[float, str, str, str | None, str | None]] = field(default_factory=list)
    throttled_until: dict[str, float] = field(default_factory=dict)  # kind -> end of its 429 spell
    generating: dict[str, int] = field(default_factory=dict)  # PDF path -> generating pages still to serve
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @classmethod
    def parse(cls, specs: list[str]) -> FaultPlan:
        plan = cls()
        for spec in specs:
            plan.add(spec)
        return plan

    def add(self, spec: str) -> None:
        """``api:1:429``, ``pdf:2:truncate``, ``pdf:*:503``, ``oai:3:503``, ``api:2:throttle:120``,
        ``pdf:1:generating:3``."""
        try:
            kind, number, fault = spec.split(":", 2)
            n = 0 if number == "*" else int(number)
            name, _, arg = fault.partition(":")
            kind_of_arg, optional = _FAULT_ARGS.get(name, (None, True))
            if (arg and kind_of_arg is None) or (not arg and not optional):
                raise ValueError
            if arg and kind_of_arg(arg) <= 0:
                raise ValueError
        except ValueError:
            raise ValueError(
                f"bad fault {spec!r}; expected KIND:N:FAULT such as api:1:429, api:2:throttle:120 "
                "(seconds) or pdf:1:generating:3 (requests)"
            ) from None
        allowed = FAULTS.get(kind)
        if allowed is None or name not in allowed:
            raise ValueError(
                f"bad fault {spec!r}; " + ", ".join(f"{k} faults: {sorted(v)}" for k, v in FAULTS.items())
            )
        with self._lock:
            self.rules[(kind, n)] = fault

    def clear(self) -> None:
        """No more faults: the rules, a 429 spell under way and PDFs still being generated end."""
        with self._lock:
            self.rules.clear()
            self.throttled_until.clear()
            self.generating.clear()

    def next(self, kind: str, path: str, range_header: str | None = None) -> str | None:
        """Count this request and return the fault to inject into it, if any."""
        with self._lock:
            now = time.monotonic()
            self.counts[kind] += 1
            rule = self.rules.get((kind, self.counts[kind])) or self.rules.get((kind, 0))
            name, _, arg = (rule or "").partition(":")
            fault = rule
            if now < self.throttled_until.get(kind, 0.0):
                fault = "throttle"  # a spell under way answers everything of its kind
            elif path in self.generating:
                if self.generating[path] > 0:
                    self.generating[path] -= 1
                    fault = "generating"
                elif name == "generating":
                    fault = None  # made by now: a rule for every request does not start it again
            elif name == "throttle":
                self.throttled_until[kind] = now + float(arg)
                fault = "throttle"
            elif name == "generating":
                self.generating[path] = int(arg or 1) - 1
                fault = "generating"
            self.log.append((now, kind, path, fault, range_header))
            return fault


@dataclass
class RequestStats:
    """Requests by kind (api, oai, pdf, other) and answers by HTTP status, for benches and tests.

    Read from Python (``ArxivServer.stats.snapshot()``) or over HTTP (``GET /_stats``, not counted).
    A request that hangs counts under its kind and has no status.
    """

    by_kind: dict[str, int] = field(default_factory=dict)
    by_kind_status: dict[str, dict[str, int]] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def request(self, kind: str) -> None:
        with self._lock:
            self.by_kind[kind] = self.by_kind.get(kind, 0) + 1

    def answer(self, kind: str, status: int) -> None:
        with self._lock:
            per = self.by_kind_status.setdefault(kind, {})
            per[str(status)] = per.get(str(status), 0) + 1

    def snapshot(self) -> dict:
        with self._lock:
            by_status: dict[str, int] = {}
            for per in self.by_kind_status.values():
                for status, n in per.items():
                    by_status[status] = by_status.get(status, 0) + n
            return {
                "requests": sum(self.by_kind.values()),
                "by_kind": dict(sorted(self.by_kind.items())),
                "by_status": dict(sorted(by_status.items())),
                "by_kind_status": {
                    k: dict(sorted(v.items())) for k, v in sorted(self.by_kind_status.items())
                },
            }

    def reset(self) -> None:
        with self._lock:
            self.by_kind.clear()
            self.by_kind_status.clear()


# --------------------------------------------------------------------------------------------
# the feed
# --------------------------------------------------------------------------------------------
def _stamp(day: str | None) -> str:
    return f"{day}T00:00:00Z" if day else "1970-01-01T00:00:00Z"


def _entry(feed: ET.Element, paper: CatalogPaper, version: CatalogVersion, base_url: str) -> None:
    vid = versioned_id(paper.arxiv_id, version.number)
    entry = ET.SubElement(feed, f"{{{ATOM}}}entry")
    ET.SubElement(entry, f"{{{ATOM}}}id").text = f"http://arxiv.org/abs/{vid}"
    ET.SubElement(entry, f"{{{ATOM}}}updated").text = _stamp(version.date or paper.first_published)
    ET.SubElement(entry, f"{{{ATOM}}}published").text = _stamp(paper.first_published)
    ET.SubElement(entry, f"{{{ATOM}}}title").text = paper.title
    ET.SubElement(entry, f"{{{ATOM}}}summary").text = ""
    for name in paper.authors:
        author = ET.SubElement(entry, f"{{{ATOM}}}author")
        ET.SubElement(author, f"{{{ATOM}}}name").text = name
    if paper.doi:
        ET.SubElement(entry, f"{{{ARXIV}}}doi").text = paper.doi
    ET.SubElement(
        entry, f"{{{ATOM}}}link", href=f"http://arxiv.org/abs/{vid}", rel="alternate", type="text/html"
    )
    ET.SubElement(
        entry,
        f"{{{ATOM}}}link",
        title="pdf",
        href=f"{base_url}/pdf/{vid}",
        rel="related",
        type="application/pdf",
    )
    comment = paper.comment or ("This paper has been withdrawn" if paper.withdrawn else None)
    if comment:
        ET.SubElement(entry, f"{{{ARXIV}}}comment").text = comment
    if paper.primary_category:
        ET.SubElement(entry, f"{{{ARXIV}}}primary_category", term=paper.primary_category, scheme=ARXIV)
    for cat in paper.categories:
        ET.SubElement(entry, f"{{{ATOM}}}category", term=cat, scheme=ARXIV)


@dataclass(frozen=True)
class ApiLimits:
    """The real API's limits, each as arXiv documents or is seen to behave.

    - ``result_cap`` (30,000): "the maximum number of results returned from a single call
      (max_results) is limited to 30000 in slices of at most 2000 at a time" (arXiv API User's
      Manual, 3.1.1.2 "start and max_results paging", info.arxiv.org/help/api/user-manual.html);
      the manual adds that a request with ``max_results`` above 30,000 gets HTTP 400 with an
      explanation, so that is answered with a 400 Atom error feed. Past the cap arXiv does not
      fail: ``opensearch:totalResults`` still gives the full count but entries at index 30,000
      and beyond never come (reported on the arXiv API list, groups.google.com/g/arxiv-api/c/
      DCfTl4jj7j0: ``start`` near the reported total returned a feed with no entries). So
      ``start >= 30000`` answers 200 with an empty page: a client that pages a 45,000-paper
      window in one query stops early without an error, as the issue describes.
    - ``max_page`` (2,000): the slice limit above; arXiv's reimplementation of the legacy API
      supports "max page size of 2,000 results" (arxiv-search release notes, ARXIVNG-1896).
      A larger ``max_results`` (up to the cap) is clamped to 2,000 and ``itemsPerPage`` says 2000.
    - ``url_limit`` (8,190 bytes of request target, Apache's default LimitRequestLine): arXiv
      answers an over-long GET with 414 (arxiv.py issue #15: an ``id_list`` of 642 ids got
      "HTTP Error 414"; 642 ids with encoded commas is about 8.3 KB).
    - ``min_interval`` (seconds between requests from one client): the Terms of Use for arXiv APIs
      (info.arxiv.org/help/api/tou.html) ask for "no more than one request every three seconds"
      and one connection at a time, and arXiv's robots policy blocks clients that do not comply
      with HTTP 403. A request sooner than ``min_interval`` after the previous one (any kind:
      API, OAI, PDF; 50 ms of slack for clock jitter) is answered 403, and the client stays
      blocked for ``block_seconds`` after its last violation. The Python default is 0 (no rule:
      tests and benches that do not test politeness); the command line default is 3.0, faithful.
    - ``empty_page_rate``: arXiv's API sometimes answers a valid feed with no entries and
      ``totalResults`` 0 for a query that has results, which succeeds on retry (arXiv API list,
      groups.google.com/g/arxiv-api/c/DYHxWrtBgbo "anomalously empty results"; the aRxiv 0.20
      release notes). Each API query is such a glitch with this probability, drawn from a
      ``random.Random(seed)`` so a run is repeatable.
    """

    result_cap: int = 30000
    max_page: int = 2000
    url_limit: int = 8190
    min_interval: float = 0.0
    block_seconds: float = 0.0
    empty_page_rate: float = 0.0
    seed: int = 0


class ApiError(ValueError):
    """A request the API refuses with HTTP 400 and an Atom error feed (manual section 3.4)."""


def _int_param(params: dict[str, str], name: str, default: int) -> int:
    raw = params.get(name, "")
    if raw == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ApiError(f"{name} must be an integer") from None
    if value < 0:
        raise ApiError(f"{name} must be non-negative")
    return value


def error_feed(message: str) -> bytes:
    """arXiv's error answer: an Atom feed with one entry titled Error (API manual 3.4 "Errors")."""
    feed = ET.Element(f"{{{ATOM}}}feed")
    ET.SubElement(feed, f"{{{ATOM}}}title").text = "arXiv Query: error"
    ET.SubElement(feed, f"{{{ATOM}}}updated").text = "2026-01-01T00:00:00Z"
    ET.SubElement(feed, f"{{{OPENSEARCH}}}totalResults").text = "1"
    ET.SubElement(feed, f"{{{OPENSEARCH}}}startIndex").text = "0"
    ET.SubElement(feed, f"{{{OPENSEARCH}}}itemsPerPage").text = "1"
    entry = ET.SubElement(feed, f"{{{ATOM}}}entry")
    ET.SubElement(entry, f"{{{ATOM}}}id").text = "http://arxiv.org/api/errors"
    ET.SubElement(entry, f"{{{ATOM}}}title").text = "Error"
    ET.SubElement(entry, f"{{{ATOM}}}summary").text = message
    ET.SubElement(entry, f"{{{ATOM}}}updated").text = "2026-01-01T00:00:00Z"
    author = ET.SubElement(entry, f"{{{ATOM}}}author")
    ET.SubElement(author, f"{{{ATOM}}}name").text = "arXiv api core"
    return b'<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(feed, encoding="utf-8")


def _submitted_range(query: str) -> tuple[str, str] | None:
    """The ``submittedDate`` bounds of a query that ANDs them at top level, else None.

    Such a query can only match papers first published in that range, so the catalog is narrowed
    by bisection before the predicate runs (a day window of a 360K-paper catalog in milliseconds).
    """
    try:
        tokens = _tokens(query)
    except QueryError:
        return None
    depth, found = 0, None
    for kind, value in tokens:
        if kind == "lp":
            depth += 1
        elif kind == "rp":
            depth -= 1
        elif depth == 0 and kind == "op" and value != "AND":
            return None
        elif depth == 0 and kind == "term" and value.startswith("submittedDate:"):
            try:
                found = _date_bounds(value.partition(":")[2].strip('"'))
            except QueryError:
                return None
    return found


class QueryCache:
    """The hits of the last few search queries, so paging a big window does not rescan the catalog."""

    def __init__(self, size: int = 8) -> None:
        self.size = size
        self._data: OrderedDict[tuple[str, str, str], list[CatalogPaper]] = OrderedDict()
        self._lock = threading.Lock()
        self._by_date: list[CatalogPaper] | None = None  # dated papers by first-version date
        self._dates: list[str] = []
        self._position: dict[str, int] = {}  # catalog order, the order of "relevance" here

    def _index(self, catalog: Catalog) -> None:
        with self._lock:
            if self._by_date is not None:
                return
            dated = [p for p in catalog.papers.values() if p.first_published]
            self._position = {aid: i for i, aid in enumerate(catalog.papers)}
            dated.sort(key=lambda p: (p.first_published, self._position[p.arxiv_id]))
            self._dates = [p.first_published for p in dated]
            self._by_date = dated

    def get(self, catalog: Catalog, query: str, sort_by: str, sort_order: str) -> list[CatalogPaper]:
        key = (query, sort_by, sort_order)
        with self._lock:
            hit = self._data.get(key)
            if hit is not None:
                self._data.move_to_end(key)
                return hit
        predicate = parse_query(query)
        bounds = _submitted_range(query)
        if bounds is not None:
            self._index(catalog)
            lo = bisect.bisect_left(self._dates, bounds[0])
            hi = bisect.bisect_right(self._dates, bounds[1])
            papers = [p for p in self._by_date[lo:hi] if predicate(p)]
            papers.sort(key=lambda p: self._position[p.arxiv_id])
        else:
            papers = [p for p in catalog.papers.values() if p.first_published and predicate(p)]
        descending = sort_order == "descending"
        if sort_by == "submittedDate":
            papers.sort(key=lambda p: (p.first_published, p.arxiv_id), reverse=descending)
        elif sort_by == "lastUpdatedDate":
            papers.sort(key=lambda p: (p.latest.date or p.first_published, p.arxiv_id), reverse=descending)
        with self._lock:
            self._data[key] = papers
            while len(self._data) > self.size:
                self._data.popitem(last=False)
        return papers


def render_feed(
    catalog: Catalog,
    params: dict[str, str],
    base_url: str,
    empty: bool = False,
    limits: ApiLimits | None = None,
    cache: QueryCache | None = None,
    glitch: bool = False,
) -> bytes:
    """The Atom answer to one API query.

    ``empty``: a page without entries (totalResults kept; the ``api:N:empty`` fault);
    ``glitch``: arXiv's anomalously empty answer (no entries and totalResults 0). ``ApiError``
    (and ``QueryError``) for requests arXiv refuses with 400; limits as in ``ApiLimits``.
    """
    limits = limits or ApiLimits()
    query = params.get("search_query", "").strip()
    id_list = [i.strip() for i in params.get("id_list", "").split(",") if i.strip()]
    start = _int_param(params, "start", 0)
    max_results = _int_param(params, "max_results", 10)
    if max_results > limits.result_cap:
        raise ApiError(f"max_results must be less than or equal to {limits.result_cap}")
    max_results = min(limits.max_page, max_results)

    end = min(start + max_results, limits.result_cap)  # nothing at index 30,000 or beyond
    page: list[tuple[CatalogPaper, CatalogVersion]] = []
    total = 0
    if id_list:
        predicate = parse_query(query) if query else None
        hits = []
        for vid in id_list:
            try:
                arxiv_id, number = split_versioned_id(vid)
            except ValueError:
                continue
            version = catalog.version(arxiv_id, number)
            if version is not None and (predicate is None or predicate(catalog.papers[arxiv_id])):
                hits.append((catalog.papers[arxiv_id], version))
        total, page = len(hits), hits[start:end]
    elif query:
        sort_by = params.get("sortBy", "relevance")
        sort_order = params.get("sortOrder", "descending")
        papers = (cache or QueryCache()).get(catalog, query, sort_by, sort_order)
        total, page = len(papers), [(p, p.latest) for p in papers[start:end]]

    feed = ET.Element(f"{{{ATOM}}}feed")
    ET.SubElement(feed, f"{{{ATOM}}}title").text = f"arXiv Query: {query or ','.join(id_list)}"
    ET.SubElement(feed, f"{{{ATOM}}}updated").text = "2026-01-01T00:00:00Z"
    ET.SubElement(feed, f"{{{OPENSEARCH}}}totalResults").text = "0" if glitch else str(total)
    ET.SubElement(feed, f"{{{OPENSEARCH}}}startIndex").text = str(start)
    ET.SubElement(feed, f"{{{OPENSEARCH}}}itemsPerPage").text = str(max_results)
    if not (empty or glitch):
        for paper, version in page:
            _entry(feed, paper, version, base_url)
    return b'<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(feed, encoding="utf-8")


# --------------------------------------------------------------------------------------------
# HTTP
# --------------------------------------------------------------------------------------------
class _Handler(BaseHTTPRequestHandler):
    server: _HTTPServer
    protocol_version = "HTTP/1.1"

    _kind = "other"

    def log_message(self, format: str, *args) -> None:  # quiet; the FaultPlan keeps a log
        pass

    def send_response(self, code: int, message: str | None = None) -> None:
        if self._kind != "stats":
            self.server.owner.stats.answer(self._kind, code)
        super().send_response(code, message)

    def _send(self, status: int, body: bytes, ctype: str, headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)

    def _hang(self) -> None:
        self.server.stopping.wait(self.server.hang_seconds)
        self.close_connection = True

    def do_GET(self) -> None:
        owner = self.server.owner
        parts = urlsplit(self.path)
        path = parts.path.rstrip("/") or "/"
        self._kind = (
            "api"
            if path == "/api/query"
            else "pdf"
            if path.startswith("/pdf/")
            else "oai"
            if path in ("/oai2", "/oai")
            else "stats"
            if path == "/_stats"
            else "other"
        )
        if self._kind != "stats":
            owner.stats.request(self._kind)
        try:
            if len(self.path) > owner.limits.url_limit:
                msg = f"Request-URI Too Long ({len(self.path)} > {owner.limits.url_limit} bytes)\n"
                self._send(414, msg.encode(), "text/plain")
                return
            if self._kind in ("api", "oai", "pdf") and not owner.polite(self.client_address[0]):
                self._send(403, b"Forbidden: more than one request every few seconds\n", "text/plain")
                return
            if self._kind == "api":
                self._api(owner, parts.query)
            elif self._kind == "pdf":
                self._pdf(owner, unquote(parts.path[len("/pdf/") :]))
            elif self._kind == "oai":
                self._oai(owner, parts.query)
            elif self._kind == "stats":
                body = json.dumps(owner.stats.snapshot(), indent=1).encode()
                self._send(200, body, "application/json")
            else:
                self._send(404, b"not found\n", "text/plain")
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True

    def _throttled(self, owner: ArxivServer, headers: dict[str, str] | None = None) -> None:
        """arXiv's 429 (``FaultPlan``): ``Rate exceeded.``, no Retry-After unless the test asks for one."""
        if owner.throttle_latency > 0 and self.server.stopping.wait(owner.throttle_latency):
            self.close_connection = True
            return
        self._send(429, RATE_EXCEEDED, "text/plain", headers)

    def _api(self, owner: ArxivServer, query: str) -> None:
        fault = owner.faults.next("api", self.path)
        if fault in ("429", "throttle"):
            self._throttled(owner, owner.fault_headers if fault == "429" else None)
            return
        if fault == "503":
            self._send(503, b"fault 503\n", "text/plain", owner.fault_headers)
            return
        if fault == "hang":
            self._hang()
            return
        params = {k: v[-1] for k, v in parse_qs(query, keep_blank_values=True).items()}
        try:
            body = render_feed(
                owner.catalog,
                params,
                owner.url,
                empty=fault == "empty",
                limits=owner.limits,
                cache=owner.query_cache,
                glitch=fault is None and owner.glitch(),
            )
        except (QueryError, ValueError) as exc:
            self._send(400, error_feed(str(exc)), "application/atom+xml; charset=utf-8")
            return
        self._send(200, body, "application/atom+xml; charset=utf-8")

    def _oai(self, owner: ArxivServer, query: str) -> None:
        """OAI-PMH (see ``oai.py``): ``/oai`` the current server, ``/oai2`` the legacy one; faults
        first, then the protocol answer (always 200 + XML)."""
        fault = owner.faults.next("oai", self.path)
        if fault == "503":
            headers = {"Retry-After": owner.fault_headers.get("Retry-After", "1")}
            self._send(503, b"Service temporarily unavailable, retry later\n", "text/plain", headers)
            return
        if fault == "hang":
            self._hang()
            return
        if fault == "empty":
            self._send(200, b"", "text/xml; charset=utf-8")
            return
        path = urlsplit(self.path).path.rstrip("/")
        repository = owner.oai_legacy if path == "/oai2" else owner.oai
        if fault == "move":
            owner.move_pending = True
        if owner.move_pending and repository.impl == "current":
            # the first resumed page from here on whose token splits a day (skip > 0)
            moved = repository.move_a_shown_record(query)
            if moved is not None:
                owner.moved.append(moved)
                owner.move_pending = False
        body = repository.handle(query, force_expired=fault == "expire")
        if fault == "truncate":
            body = body[: max(1, len(body) // 2)]
        elif fault == "short":
            body = end_list_here(body)
        self._send(200, body, "text/xml; charset=utf-8")

    def _pdf(self, owner: ArxivServer, name: str) -> None:
        fault = owner.faults.next("pdf", self.path, self.headers.get("Range"))
        name = name.removesuffix(".pdf")
        try:
            arxiv_id, number = split_versioned_id(name)
        except ValueError:
            self._send(404, b"no such paper\n", "text/plain")
            return
        version = owner.catalog.version(arxiv_id, number)
        if fault in ("429", "throttle"):
            self._throttled(owner, owner.fault_headers if fault == "429" else None)
            return
        if fault in ("503", "404"):
            self._send(int(fault), f"fault {fault}\n".encode(), "text/plain", owner.fault_headers)
            return
        if fault == "generating":
            self._send(200, generating_page(name), "text/html; charset=utf-8")
            return
        if fault == "hang":
            self._hang()
            return
        data = None
        if version is not None and version.file is not None and version.file.is_file():
            data = version.file.read_bytes()
        elif version is not None and owner.pdf_source is not None:
            data = owner.pdf_source(arxiv_id, version.number)  # a metadata-only world renders on demand
        if data is None:
            self._send(404, f"no PDF of {name}\n".encode(), "text/plain")
            return
        start = 0
        m = re.fullmatch(r"bytes=(\d+)-", self.headers.get("Range", "").strip())
        if m and fault is None:
            start = int(m.group(1))
            if start >= len(data):
                self._send(416, b"", "text/plain", {"Content-Range": f"bytes */{len(data)}"})
                return
        body = data[start:]
        half = max(1, len(body) // 2)
        if fault == "truncate":
            self._send(200, body[:half], "application/pdf")
            return
        status = 206 if start else 200
        self.send_response(status)
        self.send_header("Content-Type", "application/pdf")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Accept-Ranges", "bytes")
        if start:
            self.send_header("Content-Range", f"bytes {start}-{len(data) - 1}/{len(data)}")
        self.end_headers()
        if fault in ("hang-body", "cut"):
            self.wfile.write(body[:half])
            self.wfile.flush()
            owner.mid_body.set()
            if fault == "hang-body":
                self._hang()
            self.close_connection = True
            return
        self.wfile.write(body)


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    owner: ArxivServer
    stopping: threading.Event
    hang_seconds: float

    def handle_error(self, request, client_address) -> None:
        """Clients that drop a connection (timeouts, killed runs) are expected here, not errors."""
        exc = sys.exc_info()[1]
        if not isinstance(exc, (ConnectionError, TimeoutError)):
            log.warning("arXiv test server: error serving %s", client_address, exc_info=True)


class ArxivServer(BackgroundServer):
    """The server in a background thread: ``with ArxivServer(catalog_dir) as srv: srv.url``."""

    thread_name = "arxiv-server"

    def __init__(
        self,
        catalog_dir: str | Path,
        host: str = "127.0.0.1",
        port: int = 0,
        faults: FaultPlan | None = None,
        hang_seconds: float = 30.0,
        retry_after: float | None = None,
        throttle_latency: float = 0.0,
        oai_page_size: int | None = None,
        oai_id_page_size: int | None = None,
        token_ttl: float = 3600.0,
        clock=time.time,
        limits: ApiLimits | None = None,
    ) -> None:
        self.catalog = read_catalog(catalog_dir)
        # (arxiv_id, version) -> PDF bytes for versions without a file (reflong.demo.on_demand).
        self.pdf_source: Callable[[str, int], bytes | None] | None = None
        self.limits = limits or ApiLimits()  # Python default: no 3 s rule (the CLI enforces it)
        self.query_cache = QueryCache()
        self._rng = random.Random(self.limits.seed)
        self._gate = threading.Lock()
        self._last_seen: dict[str, float] = {}
        self._blocked_until: dict[str, float] = {}
        self.faults = faults or FaultPlan()
        self.stats = RequestStats()
        self.moved: list[str] = []  # ids the oai:N:move fault modified, in order
        self.move_pending = False  # a move fault waits for a token that splits a day
        self.fault_headers = {"Retry-After": f"{retry_after:g}"} if retry_after is not None else {}
        self.throttle_latency = throttle_latency  # seconds a throttled request waits for its 429
        self.mid_body = threading.Event()  # set once a hang-body/cut fault has sent half a file
        self._httpd = _HTTPServer((host, port), _Handler)
        self._httpd.owner = self
        self._httpd.stopping = threading.Event()
        self._httpd.hang_seconds = hang_seconds
        self._thread: threading.Thread | None = None
        # Page sizes: None keeps each implementation's own (2,500 now, 1,000 for the legacy one).
        self._oai_options = dict(
            page_size=oai_page_size, id_page_size=oai_id_page_size, token_ttl=token_ttl, clock=clock
        )
        self._oai: dict[str, OaiRepository] = {}
        self._oai_lock = threading.Lock()

    @property
    def oai_url(self) -> str:
        """The OAI-PMH endpoint that answers as arXiv's current server (give it to ``--oai-url``)."""
        return f"{self.url}/oai"

    @property
    def oai(self) -> OaiRepository:
        """The current implementation (``/oai``), indexed at its first request."""
        return self._repository(CURRENT, self.oai_url)

    @property
    def oai_legacy(self) -> OaiRepository:
        """The legacy export.arxiv.org/oai2 implementation (``/oai2``), indexed at its first request."""
        return self._repository(LEGACY, f"{self.url}/oai2")

    def _repository(self, impl: str, base_url: str) -> OaiRepository:
        with self._oai_lock:
            if impl not in self._oai:
                self._oai[impl] = OaiRepository(self.catalog, base_url, impl=impl, **self._oai_options)
            return self._oai[impl]

    def polite(self, client: str) -> bool:
        """False (answer 403) when ``client`` asks sooner than ``min_interval`` after its last request.

        Every request counts, refused ones too: a client that keeps going after a 403 stays
        blocked. After a violation the client is blocked for ``block_seconds``.
        """
        if self.limits.min_interval <= 0:
            return True
        now = time.monotonic()
        with self._gate:
            last = self._last_seen.get(client)
            self._last_seen[client] = now
            if now < self._blocked_until.get(client, 0.0):
                self._blocked_until[client] = now + self.limits.block_seconds
                return False
            if last is not None and now - last < self.limits.min_interval - 0.05:
                self._blocked_until[client] = now + self.limits.block_seconds
                return False
            return True

    def glitch(self) -> bool:
        """Whether this API answer is one of arXiv's anomalously empty pages (seeded draw)."""
        if self.limits.empty_page_rate <= 0:
            return False
        with self._gate:
            return self._rng.random() < self.limits.empty_page_rate

    def stop(self) -> None:
        self._httpd.stopping.set()
        super().stop()


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(
        prog="python -m reflong.servers.arxiv_server", description=__doc__.split("\n")[0]
    )
    ap.add_argument("--catalog", required=True, help="catalog folder (papers.jsonl, seeds.jsonl, PDFs)")
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=8765, help="0: any free port")
    ap.add_argument(
        "--fault",
        action="append",
        default=[],
        help="KIND:N:FAULT, e.g. api:1:429, pdf:2:truncate, api:2:throttle:120 (a 429 spell of 120 s "
        "from the 2nd API request, as arXiv throttles), pdf:1:generating:3 (the 'PDF being generated' "
        "page for that paper's first 3 requests)",
    )
    ap.add_argument("--hang-seconds", type=float, default=30.0)
    ap.add_argument(
        "--retry-after", type=float, default=None, help="Retry-After of injected 429/503 (OAI 503: default 1)"
    )
    ap.add_argument(
        "--throttle-latency",
        type=float,
        default=0.0,
        help="seconds each 429 of a throttle spell takes to arrive (arXiv's took 0.26 s to 124 s)",
    )
    ap.add_argument(
        "--oai-page-size",
        type=int,
        default=None,
        help="records per ListRecords page (default: arXiv's, 2500 at /oai, 1000 at /oai2)",
    )
    ap.add_argument(
        "--token-ttl", type=float, default=3600.0, help="seconds a legacy (/oai2) resumptionToken lives"
    )
    ap.add_argument(
        "--delay",
        dest="min_interval",
        type=float,
        default=3.0,
        help="seconds a client must leave between requests, else 403 (arXiv's rule: 3; 0 for benches, "
        "with the client's --delay 0)",
    )
    # The name the client's option has (``ingest --delay``); --min-interval until 0.3.
    ap.add_argument(
        "--min-interval", dest="old_min_interval", type=float, default=None, help=argparse.SUPPRESS
    )
    ap.add_argument("--block-seconds", type=float, default=0.0, help="a 403'd client stays blocked this long")
    ap.add_argument("--url-limit", type=int, default=8190, help="longer request targets get 414")
    ap.add_argument("--result-cap", type=int, default=30000, help="API results per query (arXiv: 30000)")
    ap.add_argument("--max-page", type=int, default=2000, help="API max_results per call (arXiv: 2000)")
    ap.add_argument(
        "--empty-page-rate", type=float, default=0.0, help="probability of arXiv's empty-page glitch"
    )
    ap.add_argument("--seed", type=int, default=0, help="seed of the empty-page draws")
    args = ap.parse_args(argv)
    if args.old_min_interval is not None:
        print("warning: --min-interval is now --delay; the old spelling works until 0.3", file=sys.stderr)
        args.min_interval = args.old_min_interval
    limits = ApiLimits(
        result_cap=args.result_cap,
        max_page=args.max_page,
        url_limit=args.url_limit,
        min_interval=args.min_interval,
        block_seconds=args.block_seconds,
        empty_page_rate=args.empty_page_rate,
        seed=args.seed,
    )
    server = ArxivServer(
        args.catalog,
        args.host,
        args.port,
        FaultPlan.parse(args.fault),
        args.hang_seconds,
        retry_after=args.retry_after,
        throttle_latency=args.throttle_latency,
        oai_page_size=args.oai_page_size,
        token_ttl=args.token_ttl,
        limits=limits,
    )
    print(
        f"arXiv-protocol server for {args.catalog} at {server.url} ({len(server.catalog.papers)} papers; "
        f"API at /api/query, OAI-PMH at /oai (legacy: /oai2), counts at /_stats; "
        f"min interval {limits.min_interval:g} s)",
        flush=True,
    )
    try:
        server._httpd.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server._httpd.server_close()


if __name__ == "__main__":
    main()
