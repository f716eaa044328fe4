"""OpenAlex as a citation index (plain HTTP through our own session), the second provider.

Endpoints used (https://docs.openalex.org, "Get lists of entities"; all GET ``/works``):

* batch lookup: ``filter=doi:10.48550/arxiv.2403.01234|10.48550/arxiv.2403.05678|...``. arXiv
  registers a DataCite DOI ``10.48550/arXiv.<id>`` for every paper and OpenAlex files the preprint
  under it; the pipe ORs values inside one filter, "up to 100 values for a given filter"
  (filter-entity-lists; ``MAX_IDS_IN_FILTER = 100`` in OpenAlex's own server,
  ourresearch/openalex-elastic-api settings.py; older docs said 50). We send 50 ids a batch, which
  is harmless and leaves room for the two URLs of each id in the lookup below. The answer lists the
  works found, in no promised order, with DOIs lower-cased
  (``https://doi.org/10.48550/arxiv.2403.01234``): we map them back by DOI.
* merged works: OpenAlex clusters a preprint with its published version into one work
  (ourresearch/openalex-docs, about-the-data/work.md: a journal DOI and an arxiv.org/abs URL "appear
  in OpenAlex as one Work"); that work carries the publisher's DOI and keeps arXiv only among its
  ``locations``, so the DOI filter above misses it, and a published, highly cited seed would lose
  its count and its citers, unseen. For the ids the DOI filter missed, one more request asks
  ``filter=locations.landing_page_url:http://arxiv.org/abs/<id>|https://arxiv.org/abs/<id>|...``
  (a term filter on the exact URL, openalex-elastic-api works/fields.py; OpenAlex stores arXiv's
  landing page as ``http://arxiv.org/abs/<id>`` and, for some older works, with https, as clients
  record it live). A location whose URL carries a version (``.../abs/<id>v2``) is not found this
  way; an id neither request finds is a paper OpenAlex does not know, as far as we can tell.
* citers: ``filter=cites:W123`` (``cites`` takes OpenAlex work ids only, so a paper is looked up
  first), paged by cursor (paging: ``cursor=*``, then ``meta.next_cursor`` until it is null and
  ``results`` is empty). Basic paging (``page=``) reaches only the first 10,000 results of a list;
  cursor paging reaches all of them, so OpenAlex has no cap like S2's 10,000. ``per-page`` is 1 to
  200 (paging; ``max_per_page = 200`` in openalex-elastic-api core/paginate.py). We stop at a short
  page (OpenAlex gives no next cursor after one: core/cursor.py) or once ``meta.count`` works are
  in hand, which saves the final empty page the docs describe and makes the request count
  ceil(count / 200).
* partial pages: OpenAlex runs every query under a 5 s soft timeout that "returns partial results
  with timed_out=true rather than hard-cancelling", and says so with ``meta.timed_out: true``
  (openalex-elastic-api core/shared_view.py, 2026); such a page is short and so has no next
  cursor, and taking it for the end silently cut citer lists (137 of 500 in a trial). A partial
  page is asked again (``TIMED_OUT_RETRIES`` times, with backoff); a citers page that stays
  partial is kept and the list flagged (``CitersPage.timed_out``, stored, said by the plan); a
  lookup that stays partial stops the run in one line (a rerun resumes), since a paper reported
  unknown would be cached as such.
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

import logging
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
# ids a lookup. OpenAlex ORs at most 100 values a filter (docs.openalex.org, "OR" filters); the
# location lookup sends 2 URLs an id, so 40 ids are 80 values: a margin of 20 below the cap.
BATCH_SIZE = 40
MAX_OR_VALUES = 100
PAGE_SIZE = 200  # per-page: 1 to 200 (paging)
MAX_CITERS = sys.maxsize  # cursor paging reaches every citer: no cap
DELAY = 0.11  # seconds: 10 requests/s (the older published rate; now 100/s) with a 10% margin
LIST_COST = 0.0001  # US dollars a list/filter call
PUBLISHED_GAP = 0.01  # seconds a request at today's published 100 requests/s
ARXIV_DOI_PREFIX = "10.48550/arxiv."
PAPER_SELECT = "id,doi,ids,display_name,cited_by_count,publication_date"
CITER_SELECT = "id,doi,ids,display_name,publication_date,locations"
RETRY_STATUS = {429, 500, 502, 503, 504}
TIMED_OUT_RETRIES = 2  # asks again of a page that came back partial (meta.timed_out)
ARXIV_LANDING_PAGES = ("http://arxiv.org/abs/{}", "https://arxiv.org/abs/{}")  # as OpenAlex stores them

log = logging.getLogger(__name__)

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


def _arxiv_of_location(loc: dict | None) -> str | None:
    """The arXiv id a location shows, without its version: an arxiv.org URL (``abs/IDv2``,
    ``pdf/ID``) or arXiv's DataCite DOI as the landing page (``doi.org/10.48550/arXiv.ID``), as
    OpenAlex records locations that came from DataCite."""
    for url in ((loc or {}).get("landing_page_url"), (loc or {}).get("pdf_url")):
        url = (url or "").strip()
        m = _ARXIV_URL_RE.match(url)
        if m:
            return _strip_version(m.group(1))
        if found := arxiv_of_doi(url):
            return found
    return None


def arxiv_ids_of_work(work: dict) -> set[str]:
    """Every arXiv id a work shows: its arxiv.org locations and its DataCite DOI."""
    out = {found for loc in work.get("locations") or [] if (found := _arxiv_of_location(loc))}
    ids = work.get("ids") or {}
    for doi in (work.get("doi"), ids.get("doi")):
        arxiv_id = arxiv_of_doi(doi)
        if arxiv_id:
            out.add(arxiv_id)
    return out


def arxiv_of_work(work: dict) -> str | None:
    """A work's arXiv id: an arXiv location first (it keeps the id's case), then its DOI."""
    for loc in work.get("locations") or []:
        if found := _arxiv_of_location(loc):
            return found
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
    lookups_per_batch = 2  # the DOI filter, then the landing-page filter for its misses
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
        self.timed_out_pages = 0  # answers that came back partial (meta.timed_out), asked again or kept
        self.found_by_location = 0  # ids the DOI filter missed and a landing-page lookup found
        self._work_ids: dict[str, str] = {}  # arXiv id -> W id, from lookups of this run

    # -- the two questions ----------------------------------------------------------------
    def papers(self, arxiv_ids: list[str]) -> list[IndexedPaper]:
        if len(arxiv_ids) > BATCH_SIZE:
            raise ValueError(f"at most {BATCH_SIZE} ids per batch")
        if not arxiv_ids:
            return []
        wanted = {arxiv_doi(a): a for a in arxiv_ids}
        answer = self._lookup(
            "batch",
            {"filter": "doi:" + "|".join(wanted), "select": PAPER_SELECT, "per-page": PAGE_SIZE},
            len(arxiv_ids),
        )
        best: dict[str, dict] = {}
        for work in answer.get("results") or []:
            arxiv_id = arxiv_of_doi(work.get("doi")) or arxiv_of_doi((work.get("ids") or {}).get("doi"))
            asked = wanted.get(arxiv_doi(arxiv_id)) if arxiv_id else None
            if asked is not None:
                _keep_best(best, asked, work)
        missed = [a for a in arxiv_ids if a not in best]
        if missed:
            # Works merged with their published version: the publisher's DOI, arXiv in locations.
            urls = [form.format(a) for a in missed for form in ARXIV_LANDING_PAGES]
            answer = self._lookup(
                "location",
                {
                    "filter": "locations.landing_page_url:" + "|".join(urls),
                    "select": PAPER_SELECT + ",locations",
                    "per-page": PAGE_SIZE,
                },
                len(missed),
            )
            by_lower = {a.lower(): a for a in missed}
            for work in answer.get("results") or []:
                for arxiv_id in arxiv_ids_of_work(work):
                    asked = by_lower.get(arxiv_id.lower())
                    if asked is not None:
                        _keep_best(best, asked, work)
            found = sum(1 for a in missed if a in best)
            self.found_by_location += found
            if found:
                log.info(
                    "OpenAlex: %d of %d ids missed by arXiv's DOI found by their arXiv location",
                    found,
                    len(missed),
                )
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
        cursor, timed_out = "*", False
        while True:
            answer, partial = self._page(
                "citations",
                {
                    "filter": f"cites:{wid}",
                    "select": CITER_SELECT,
                    "per-page": self.page_size,
                    "cursor": cursor,
                },
            )
            if partial:
                timed_out = True
                log.warning(
                    "OpenAlex answered a page of the citers of %s only in part (meta.timed_out) %d times; "
                    "the list is kept and flagged incomplete",
                    arxiv_id,
                    TIMED_OUT_RETRIES + 1,
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
                return CitersPage(citers, timed_out=timed_out)

    # -- one request, polite and retried -----------------------------------------------------
    @property
    def _host(self) -> str:
        return urlsplit(self.base_url).netloc or self.base_url

    def _page(self, kind: str, params: dict) -> tuple[dict, bool]:
        """One list answer, asked again while it comes back partial (``meta.timed_out``, OpenAlex's
        soft timeout); the answer and whether it stayed partial after ``TIMED_OUT_RETRIES``."""
        for attempt in range(TIMED_OUT_RETRIES + 1):
            answer = self._call(kind, params)
            if not (answer.get("meta") or {}).get("timed_out"):
                return answer, False
            self.timed_out_pages += 1
            if attempt < TIMED_OUT_RETRIES:
                wait = self.policy.backoff_for(attempt + 1)
                log.info(
                    "OpenAlex timed out on a %s page (meta.timed_out); asking again in %.1f s", kind, wait
                )
                self.politeness.sleep(wait)
        return answer, True

    def _lookup(self, kind: str, params: dict, n_ids: int) -> dict:
        """A lookup answer; one that stays partial would report known papers as unknown (and be
        cached so), so it stops the run in one line instead."""
        answer, partial = self._page(kind, params)
        if partial:
            raise ServiceBusyError(
                f"OpenAlex at {self._host} answered a lookup of {n_ids} papers only in part "
                f"(meta.timed_out, its soft timeout) {TIMED_OUT_RETRIES + 1} times; the answers so far "
                "are stored: rerun the same command later to resume"
            )
        return answer

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


def _keep_best(best: dict[str, dict], asked: str, work: dict) -> None:
    """Two works for one paper (a duplicate OpenAlex has not merged yet): keep the more cited."""
    key = (int(work.get("cited_by_count") or 0), short_id(work.get("id")) or "")
    old = best.get(asked)
    if old is None or key > (int(old.get("cited_by_count") or 0), short_id(old.get("id")) or ""):
        best[asked] = work


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
