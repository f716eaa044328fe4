"""The Semantic Scholar Graph API as a citation index (plain HTTP through our own session).

Endpoints used (https://api.semanticscholar.org/api-docs/graph):

* ``POST /graph/v1/paper/batch?fields=...`` with ``{"ids": ["ARXIV:2403.01234", ...]}``: at most 500
  ids per call; the answer is a list in the order asked, ``null`` for ids the graph does not know.
* ``GET /graph/v1/paper/{id}/citations?fields=...&offset=&limit=``: the citing papers, ``limit`` at
  most 1000, and only the first 10,000 citations are reachable (``offset + limit`` must stay under
  10,000); the answer has ``next`` while more remain. A row's ``citingPaper.paperId`` can be null:
  S2 lists citing records it has no paper for (8 of 1,881 rows in a recorded answer,
  danielnsilva/semanticscholar tests/data/test_get_paper_citations.yaml; 4 of them are in
  tests/data/real/). Such a row has no id to fetch or store: it is skipped and counted
  (``CitersPage.without_id``), and the plan says how many.

Limits (https://www.semanticscholar.org/product/api, summarised at
https://apis.io/rate-limits/semantic-scholar/semantic-scholar-rate-limits/): without a key every
caller shares one pool (historically 100 requests per 5 minutes per IP, and 429s when the pool is
busy); a key (header ``x-api-key``) gives a dedicated 1 request per second across all endpoints.
Hence the gate: 1.1 s with a key (1 s plus a margin: two requests whose starts are 1 s apart can
arrive less than 1 s apart, and a strict limiter answers 429), 3 s without.

A 429 is ``{"message": "Too Many Requests. Please wait and try again or apply for a key for higher
rate limits. ...", "code": "429"}`` with no ``Retry-After`` (users' recorded answers:
SakanaAI/AI-Scientist issue #84; allenai/s2-folks issue #218: the API "doesn't tell me how long to
wait"), and the shared pool answers it below the published rate, because others use it too
(allenai/s2-folks issue #84, S2's own staff: "a known problem with our implementation of the rate
limiting ... adjust the rate"). So a 429 is not a retry among ``--retries`` but the start of a spell
to wait out (``http_calls.BusyRule``): 5 s, doubling to at most 60 s a wait (the backoff S2's
Python client uses on 429: danielnsilva/semanticscholar, ApiRequester.py, ``wait_exponential(min=5,
max=60)``), for up to 10 minutes per request (two windows of the historical 100 requests per 5
minutes); a longer spell stops the run in one line that says to rerun later (answers are stored)
and, only when no key is set, to set ``S2_API_KEY``.

Why not the ``semanticscholar`` PyPI client: it brings its own retry loop (tenacity) and its own
HTTP client, so it would not share our politeness gate, our backoff with ``Retry-After``, our
request counters or our one-line errors, and its paging hides the request count the plan
estimates. Two endpoints with JSON bodies are little code over ``requests``.
"""

from __future__ import annotations

import logging
import os
import re
from collections import Counter
from urllib.parse import quote, urlsplit

import requests

from reflong.common.errors import NetworkError, ReflongError
from reflong.ingest.index.base import Citer, CitersPage, IndexedPaper
from reflong.ingest.index.http_calls import RETRY, BusyRule, call_index
from reflong.ingest.index.provider import AutoRule, IndexProvider, IndexSetup
from reflong.ingest.netpolicy import (
    NetPolicy,
    Politeness,
    make_session,
)

DEFAULT_S2_URL = "https://api.semanticscholar.org"
API_KEY_ENV = "S2_API_KEY"
BATCH_SIZE = 500  # ids per POST /paper/batch
PAGE_SIZE = 1000  # citers per GET /paper/{id}/citations
MAX_CITERS = 10_000  # offset + limit must stay below this
KEYED_DELAY = 1.1  # seconds: 1 request per second with a key, 10% margin for arrival jitter
SHARED_DELAY = 3.0  # seconds: the unauthenticated shared pool (100 per 5 minutes)
PAPER_FIELDS = "citationCount,externalIds,publicationDate,title"
CITER_FIELDS = "externalIds,publicationDate,title"
RETRY_STATUS = {429, 500, 502, 503, 504}
BUSY_FIRST = 5.0  # seconds: the first wait of a 429 spell (S2's Python client: min=5)
BUSY_LONGEST = 60.0  # seconds: the longest single wait (S2's Python client: max=60)
BUSY_BUDGET = 600.0  # seconds of 429 waits per request before the run stops (two 5-minute windows)

log = logging.getLogger(__name__)


def published_delay(api_key: str | None) -> float:
    return KEYED_DELAY if api_key else SHARED_DELAY


def arxiv_of(external_ids: dict | None) -> str | None:
    """The arXiv id in S2's ``externalIds`` (``{"ArXiv": "2403.01234", ...}``), without a version."""
    value = (external_ids or {}).get("ArXiv")
    if not value:
        return None
    return re.sub(r"v\d+$", "", str(value).strip())


class S2Index:
    """Semantic Scholar's batch lookup and citation paging, polite, retried and counted."""

    source = "s2"
    batch_size = BATCH_SIZE
    lookups_per_batch = 1
    page_size = PAGE_SIZE
    max_citers = MAX_CITERS
    published_gap = 1.0  # 1 request/s with a key: the rate the plan's "hours at the rules" assumes

    def __init__(
        self,
        base_url: str = DEFAULT_S2_URL,
        api_key: str | None = None,
        policy: NetPolicy | None = None,
        delay: float | None = None,
        session: requests.Session | None = None,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.api_key = api_key if api_key is not None else (os.environ.get(API_KEY_ENV) or None)
        self.delay = published_delay(self.api_key) if delay is None else delay
        self.policy = policy or NetPolicy(delay=self.delay)
        self.politeness = Politeness(self.delay)  # one gate for this host
        self.session = session or make_session()
        if self.api_key:
            self.session.headers["x-api-key"] = self.api_key
        self.requests: Counter = Counter()
        self.retries = 0
        self.busy_waited = 0.0  # seconds spent waiting out 429 spells, for the plan line
        self.busy_first, self.busy_max, self.busy_budget = BUSY_FIRST, BUSY_LONGEST, BUSY_BUDGET

    # -- the two questions ----------------------------------------------------------------
    def papers(self, arxiv_ids: list[str]) -> list[IndexedPaper]:
        if len(arxiv_ids) > BATCH_SIZE:
            raise ValueError(f"at most {BATCH_SIZE} ids per batch")
        body = {"ids": [f"ARXIV:{a}" for a in arxiv_ids]}
        answer = self._call("batch", "POST", "/graph/v1/paper/batch", {"fields": PAPER_FIELDS}, body)
        if not isinstance(answer, list) or len(answer) != len(arxiv_ids):
            raise NetworkError(f"the index at {self._host} answered a batch of {len(arxiv_ids)} ids oddly")
        out = []
        for arxiv_id, item in zip(arxiv_ids, answer, strict=True):
            if not item:
                out.append(IndexedPaper(arxiv_id, False))
                continue
            out.append(
                IndexedPaper(
                    arxiv_id,
                    True,
                    int(item.get("citationCount") or 0),
                    item.get("paperId"),
                    item.get("title"),
                    item.get("publicationDate"),
                )
            )
        return out

    def citers(self, arxiv_id: str, paper_key: str | None = None) -> CitersPage:
        """``paper_key`` is not needed: S2 takes ``ARXIV:<id>`` in the path."""
        citers: list[Citer] = []
        offset, capped, without_id = 0, False, 0
        path = f"/graph/v1/paper/{quote('ARXIV:' + arxiv_id, safe=':')}/citations"
        while True:
            limit = min(self.page_size, MAX_CITERS - 1 - offset)
            answer = self._call(
                "citations", "GET", path, {"fields": CITER_FIELDS, "offset": offset, "limit": limit}
            )
            if answer is None:  # 404: the index does not know the paper
                return CitersPage([])
            for row in answer.get("data") or []:
                paper = row.get("citingPaper") or {}
                key = paper.get("paperId")
                if not key:  # a citing record S2 has no paper for: nothing to fetch, counted
                    without_id += 1
                    continue
                citers.append(
                    Citer(
                        key,
                        arxiv_of(paper.get("externalIds")),
                        paper.get("publicationDate"),
                        paper.get("title"),
                    )
                )
            nxt = answer.get("next")
            if nxt is None:
                break
            offset = int(nxt)
            if offset + 1 >= MAX_CITERS:
                capped = True
                break
        if without_id:
            log.debug("S2 listed %d citing rows of %s without a paperId (skipped)", without_id, arxiv_id)
        return CitersPage(citers, capped, without_id=without_id)

    # -- one request, polite and retried -----------------------------------------------------
    @property
    def _host(self) -> str:
        return urlsplit(self.base_url).netloc or self.base_url

    def _call(self, kind: str, method: str, path: str, params: dict, body: dict | None = None):
        url = self.base_url + path

        def send() -> requests.Response:
            self.requests[kind] += 1
            return self.session.request(method, url, params=params, json=body, timeout=self.policy.timeouts)

        def answer(resp: requests.Response):
            if resp.status_code == 200:
                return resp.json()
            if resp.status_code == 404 and kind == "citations":
                return None
            if resp.status_code in (401, 403):
                raise ReflongError(
                    f"the citation index at {self._host} refused the request (HTTP {resp.status_code}); "
                    f"check {API_KEY_ENV}, or unset it to use the shared pool"
                )
            if resp.status_code not in RETRY_STATUS:
                raise NetworkError(
                    f"the citation index at {self._host} answered HTTP {resp.status_code} to {method} "
                    f"{path}: {resp.text[:200]}"
                )
            return RETRY

        return call_index(
            send,
            answer,
            who=f"the citation index at {self._host}",
            policy=self.policy,
            politeness=self.politeness,
            on_retry=self._count_retry,
            give_up_hint="raise --index-delay if it persists" if self.api_key else f"set {API_KEY_ENV}",
            busy=BusyRule(self.busy_first, self.busy_max, self.busy_budget, self._busy_message),
            on_busy_wait=self._count_busy_wait,
        )

    def _busy_message(self, waited: float) -> str:
        """The one line of a 429 spell that outlasted the budget: a key is suggested only if unset."""
        start = (
            f"the citation index at {self._host} kept answering 429 (Too Many Requests) for {waited:.0f} s"
        )
        resume = "the answers so far are stored: rerun the same command later to resume"
        if self.api_key:
            return (
                f"{start} although {API_KEY_ENV} is set (a key's limit is 1 request/s across all "
                f"endpoints; keep --index-delay at {KEYED_DELAY:g} or more); {resume}"
            )
        return (
            f"{start}: the pool without a key is shared by every caller and refuses even below its "
            f"published rate; {resume}, or set {API_KEY_ENV} for a dedicated 1 request/s"
        )

    def _count_retry(self) -> None:
        self.retries += 1

    def _count_busy_wait(self, seconds: float) -> None:
        self.busy_waited += seconds


def open_client(setup: IndexSetup) -> tuple[S2Index, str]:
    """The client for the plan, and what the plan line says of it (key or shared pool, gap)."""
    client = S2Index(setup.url, setup.api_key, delay=setup.delay)
    who = "key" if setup.api_key else "shared pool, no key"
    return client, f"{who}, {client.delay:g} s/request"


PROVIDER = IndexProvider(
    name="s2",
    default_url=DEFAULT_S2_URL,
    key_env=API_KEY_ENV,
    url_help="Base URL of a Semantic Scholar Graph API endpoint",
    description=f"Semantic Scholar (auto: when {API_KEY_ENV} or --s2-url is set; an unreachable index "
    "falls back to none)",
    delay_note=f"S2 {S2Index.published_gap:g} with {API_KEY_ENV}, {SHARED_DELAY:g} without",
    open=open_client,
    # The default index when it can be used well: with a key, or a URL (a stand-in) given.
    auto=AutoRule(
        applies=lambda setup: bool(setup.api_key or setup.given("s2_url")),
        declined=f"no {API_KEY_ENV} and no --s2-url; --citation-index s2 uses the shared pool",
    ),
)
