"""OpenAlex as a citation index (plain HTTP through our own session), the second provider.

Endpoints used (https://docs.openalex.org, "Get lists of entities"; all GET ``/works``):

* batch lookup: ``filter=doi:10.48550/arxiv.2403.01234|10.48550/arxiv.2403.05678|...``. arXiv
  registers a DataCite DOI ``10.48550/arXiv.<id>`` for every paper and OpenAlex files the preprint
  under it; the pipe ORs values inside one filter, "up to 50 values for a given filter"
  (filter-entity-lists). The answer lists the works found, in no promised order, with DOIs
  lower-cased (``https://doi.org/10.48550/arxiv.2403.01234``): we map them back by DOI, and a
  DOI asked and not answered is a paper OpenAlex does not know.
* citers: ``filter=cites:W123`` (``cites`` takes OpenAlex work ids only, so a paper is looked up
  first), paged by cursor (paging: ``cursor=*``, then ``meta.next_cursor`` until it is null and
  ``results`` is empty). Basic paging (``page=``) reaches only the first 10,000 results of a list;
  cursor paging reaches all of them, so OpenAlex has no cap like S2's 10,000. ``per-page`` is 1 to
  200 (paging; the newer guide, https://developers.openalex.org/guides/page-through-results, lists
  ``per_page`` 1 to 100: should the live API refuse 200, the 400 names it and ``PAGE_SIZE`` is
  the one number to change). We stop at a short page or once ``meta.count`` works are in hand, which saves the
  final empty page the docs describe and makes the request count ceil(count / 200).
* ``select=`` returns only the listed root-level fields (select-fields; nested names are an error).

A citer's arXiv id comes from its DataCite DOI or from a location whose ``landing_page_url`` (or
``pdf_url``) is on arxiv.org: OpenAlex merges a preprint with its published version, whose
``doi`` is then the publisher's, and the arXiv copy survives only among ``locations``.

Limits: the rate-limit page (https://docs.openalex.org/how-to-use-the-api/rate-limits-and-authentication)
gives at most 100 requests per second for everyone (earlier: 10 per second, 100,000 calls a day)
and, since February 2026, a daily budget in US dollars (https://developers.openalex.org/api-reference/authentication):
a list/filter call costs $0.0001; $1 a day with a free API key (``api_key=``, 10,000 list
calls), $0.01 without (100 list calls). Exceeding either answers 429. ``mailto=`` puts a request
in the "polite pool" (faster, steadier answers) and lets OpenAlex reach the user. Hence: a gate of
0.11 s (the older 10 per second plus a 10% margin; the budget, not the speed, is what binds), every
429 retried with our exponential backoff (or ``Retry-After``, if OpenAlex ever sends one), except a
429 whose ``x-ratelimit-remaining-usd`` header says the day's budget is spent: waiting minutes
cannot help, so the run stops at once with one line (the answers so far are in the store). The
error page (https://developers.openalex.org/api-reference/errors) says only "check rate limit
headers to see your remaining allowance"; the names ``x-ratelimit-remaining-usd`` and
``x-ratelimit-reset`` (seconds to midnight UTC) are those OpenAlex's answers carry as reported by
other clients, not documented names, so without the header a 429 is simply retried.

Why not the ``pyalex`` PyPI client: it has its own session and its own retry loop (urllib3's
``Retry`` with its own backoff) and pages internally, so it would not share our politeness gate,
our backoff with ``Retry-After``, our request counters (which the plan's estimate is checked
against) or our one-line errors (the daily budget in particular). One GET with a filter and a
cursor is little code over ``requests``.
"""

from __future__ import annotations

import os
import re
import sys
from collections import Counter
from urllib.parse import urlsplit

import requests

from reflong.common.errors import NetworkError, ReflongError, ServiceBusyError
from reflong.ingest.index.base import Citer, CitersPage, IndexedPaper
from reflong.ingest.index.http_calls import RETRY, call_index
from reflong.ingest.index.provider import IndexProvider, IndexSetup, ProviderOption
from reflong.ingest.netpolicy import (
    NetPolicy,
    Politeness,
    make_session,
)

DEFAULT_OPENALEX_URL = "https://api.openalex.org"
MAILTO_ENV = "OPENALEX_MAILTO"
API_KEY_ENV = "OPENALEX_API_KEY"
BATCH_SIZE = 50  # values OR-ed in one filter (filter-entity-lists: "up to 50")
PAGE_SIZE = 200  # per-page: 1 to 200 (paging)
MAX_CITERS = sys.maxsize  # cursor paging reaches every citer: no cap
DELAY = 0.11  # seconds: 10 requests/s (the older published rate; now 100/s) with a 10% margin
LIST_COST = 0.0001  # US dollars a list/filter call
PUBLISHED_GAP = 0.01  # seconds a request at today's published 100 requests/s
ARXIV_DOI_PREFIX = "10.48550/arxiv."
PAPER_SELECT = "id,doi,ids,display_name,cited_by_count,publication_date"
CITER_SELECT = "id,doi,ids,display_name,publication_date,locations"
RETRY_STATUS = {429, 500, 502, 503, 504}

_DOI_RE = re.compile(r"^(?:https?://(?:dx\.)?doi\.org/)?10\.48550/arxiv\.(\S+)$", re.IGNORECASE)
_ARXIV_URL_RE = re.compile(r"^https?://(?:www\.|export\.)?arxiv\.org/(?:abs|pdf)/([^?#]+)$", re.IGNORECASE)


def arxiv_doi(arxiv_id: str) -> str:
    """arXiv's DataCite DOI of a paper, lower-cased as OpenAlex stores DOIs."""
    return f"{ARXIV_DOI_PREFIX}{arxiv_id}".lower()


def _strip_version(arxiv_id: str) -> str:
    return re.sub(r"v\d+$", "", arxiv_id.strip().removesuffix(".pdf"))


def arxiv_of_doi(doi: str | None) -> str | None:
    """The arXiv id in an arXiv DataCite DOI (bare or as a doi.org URL), without a version."""
    m = _DOI_RE.match((doi or "").strip())
    return _strip_version(m.group(1)) if m else None


def arxiv_of_work(work: dict) -> str | None:
    """A work's arXiv id: an arxiv.org location first (it keeps the id's case), then its DOI."""
    for loc in work.get("locations") or []:
        for url in ((loc or {}).get("landing_page_url"), (loc or {}).get("pdf_url")):
            m = _ARXIV_URL_RE.match((url or "").strip())
            if m:
                return _strip_version(m.group(1))
    ids = work.get("ids") or {}
    return arxiv_of_doi(work.get("doi")) or arxiv_of_doi(ids.get("doi"))


def short_id(openalex_id: str | None) -> str | None:
    """``https://openalex.org/W123`` -> ``W123``."""
    if not openalex_id:
        return None
    return openalex_id.rstrip("/").rsplit("/", 1)[-1]


def _float_header(resp: requests.Response, name: str) -> float | None:
    try:
        return float(resp.headers[name])
    except (KeyError, ValueError):
        return None


def _budget_spent(resp: requests.Response) -> bool:
    """A 429 for the day's budget (not for speed): less than one list call's cost remains."""
    remaining = _float_header(resp, "x-ratelimit-remaining-usd")
    return remaining is not None and remaining < LIST_COST


class OpenAlexIndex:
    """OpenAlex's DOI batch lookup and ``cites:`` cursor paging, polite, retried and counted."""

    source = "openalex"
    batch_size = BATCH_SIZE
    page_size = PAGE_SIZE
    max_citers = MAX_CITERS
    published_gap = PUBLISHED_GAP

    def __init__(
        self,
        base_url: str = DEFAULT_OPENALEX_URL,
        mailto: str | None = None,
        api_key: str | None = None,
        policy: NetPolicy | None = None,
        delay: float | None = None,
        session: requests.Session | None = None,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.mailto = mailto if mailto is not None else (os.environ.get(MAILTO_ENV) or None)
        self.api_key = api_key if api_key is not None else (os.environ.get(API_KEY_ENV) or None)
        self.delay = DELAY if delay is None else delay
        self.policy = policy or NetPolicy(delay=self.delay)
        self.politeness = Politeness(self.delay)  # one gate for this host
        self.session = session or make_session()
        self.requests: Counter = Counter()
        self.retries = 0
        self._work_ids: dict[str, str] = {}  # arXiv id -> W id, from lookups of this run

    # -- the two questions ----------------------------------------------------------------
    def papers(self, arxiv_ids: list[str]) -> list[IndexedPaper]:
        if len(arxiv_ids) > BATCH_SIZE:
            raise ValueError(f"at most {BATCH_SIZE} ids per batch")
        if not arxiv_ids:
            return []
        wanted = {arxiv_doi(a): a for a in arxiv_ids}
        answer = self._call(
            "batch",
            {"filter": "doi:" + "|".join(wanted), "select": PAPER_SELECT, "per-page": PAGE_SIZE},
        )
        best: dict[str, dict] = {}
        for work in answer.get("results") or []:
            arxiv_id = arxiv_of_doi(work.get("doi")) or arxiv_of_doi((work.get("ids") or {}).get("doi"))
            asked = wanted.get(arxiv_doi(arxiv_id)) if arxiv_id else None
            if asked is None:
                continue
            # Two works under one DOI (a duplicate OpenAlex has not merged yet): the more cited.
            key = (int(work.get("cited_by_count") or 0), short_id(work.get("id")) or "")
            old = best.get(asked)
            if old is None or key > (int(old.get("cited_by_count") or 0), short_id(old.get("id")) or ""):
                best[asked] = work
        out = []
        for arxiv_id in arxiv_ids:
            work = best.get(arxiv_id)
            if work is None:
                out.append(IndexedPaper(arxiv_id, False))
                continue
            wid = short_id(work.get("id"))
            if wid:
                self._work_ids[arxiv_id] = wid
            out.append(
                IndexedPaper(
                    arxiv_id,
                    True,
                    int(work.get("cited_by_count") or 0),
                    wid,
                    work.get("display_name"),
                    work.get("publication_date"),
                )
            )
        return out

    def citers(self, arxiv_id: str, paper_key: str | None = None) -> CitersPage:
        """Every work OpenAlex says cites ``arxiv_id`` (``paper_key``: its W id, if known)."""
        wid = paper_key or self._work_ids.get(arxiv_id)
        if wid is None:
            found = self.papers([arxiv_id])[0]
            if not found.found or not found.paper_key:
                return CitersPage([])
            wid = found.paper_key
        citers: list[Citer] = []
        cursor = "*"
        while True:
            answer = self._call(
                "citations",
                {
                    "filter": f"cites:{wid}",
                    "select": CITER_SELECT,
                    "per-page": self.page_size,
                    "cursor": cursor,
                },
            )
            results = answer.get("results") or []
            for work in results:
                key = short_id(work.get("id"))
                if key:
                    citers.append(
                        Citer(
                            key, arxiv_of_work(work), work.get("publication_date"), work.get("display_name")
                        )
                    )
            meta = answer.get("meta") or {}
            total = meta.get("count")
            cursor = meta.get("next_cursor")
            done = (
                not results or len(results) < self.page_size or (total is not None and len(citers) >= total)
            )
            if done or not cursor:
                return CitersPage(citers)

    # -- one request, polite and retried -----------------------------------------------------
    @property
    def _host(self) -> str:
        return urlsplit(self.base_url).netloc or self.base_url

    def _call(self, kind: str, params: dict) -> dict:
        url = self.base_url + "/works"
        params = dict(params)
        if self.mailto:
            params["mailto"] = self.mailto
        if self.api_key:
            params["api_key"] = self.api_key

        def send() -> requests.Response:
            self.requests[kind] += 1
            return self.session.get(url, params=params, timeout=self.policy.timeouts)

        def answer(resp: requests.Response):
            if resp.status_code == 200:
                try:
                    body = resp.json()
                except ValueError:
                    body = None
                if not isinstance(body, dict):
                    raise NetworkError(
                        f"OpenAlex at {self._host} answered GET /works ({kind}) with a body that is not "
                        "a JSON object; check --openalex-url"
                    )
                return body
            if resp.status_code in (401, 403):
                raise ReflongError(
                    f"OpenAlex at {self._host} refused the request (HTTP {resp.status_code}: "
                    f"{_message(resp)}); check {API_KEY_ENV}, or slow down with --index-delay"
                )
            if resp.status_code == 429 and _budget_spent(resp):
                reset = _float_header(resp, "x-ratelimit-reset")
                when = f" (it resets in {reset / 3600:.1f} h)" if reset is not None else ""
                raise ServiceBusyError(
                    f"OpenAlex's daily budget for this caller is spent{when}; the answers so far are "
                    f"stored: rerun the same command after the reset, or set {API_KEY_ENV} "
                    "(a free key gives $1 a day, 10,000 list requests)"
                )
            if resp.status_code not in RETRY_STATUS:
                raise NetworkError(
                    f"OpenAlex at {self._host} answered HTTP {resp.status_code} to GET /works "
                    f"({kind}): {_message(resp)}"
                )
            return RETRY

        return call_index(
            send,
            answer,
            who=f"OpenAlex at {self._host}",
            policy=self.policy,
            politeness=self.politeness,
            on_retry=self._count_retry,
            give_up_hint="raise --index-delay",
        )

    def _count_retry(self) -> None:
        self.retries += 1


def _message(resp: requests.Response) -> str:
    """OpenAlex's error body is JSON ``{"error", "message"}``; anything else, its first 200 chars."""
    try:
        body = resp.json()
    except ValueError:
        return resp.text[:200]
    if isinstance(body, dict):
        return str(body.get("message") or body.get("error") or body)[:200]
    return str(body)[:200]


def open_client(setup: IndexSetup) -> tuple[OpenAlexIndex, str]:
    """The client for the plan: polite pool with a mailto, the day's budget by API key."""
    client = OpenAlexIndex(setup.url, setup.given("openalex_mailto"), setup.api_key, delay=setup.delay)
    pool = "polite pool" if client.mailto else "no mailto"
    budget = "key" if client.api_key else "no key: 100 list requests a day"
    return client, f"{pool}, {budget}, {client.delay:g} s/request"


PROVIDER = IndexProvider(
    name="openalex",
    default_url=DEFAULT_OPENALEX_URL,
    key_env=API_KEY_ENV,
    url_help="Base URL of an OpenAlex API endpoint, for --citation-index openalex",
    description=f"OpenAlex (openalex; key from {API_KEY_ENV})",
    delay_note=f"OpenAlex {DELAY:g}",
    open=open_client,
    options=(
        ProviderOption(
            "--openalex-mailto",
            f"Email sent as mailto= to OpenAlex (its polite pool). Env: {MAILTO_ENV}.",
            envvar=MAILTO_ENV,
            metavar="EMAIL",
        ),
    ),
)
