"""The real ``arxiv`` 4.x client, made polite and robust for long unattended runs.

``arxiv.Client`` pages through results well, but retries at once without backoff, sets no request
timeout, silently returns nothing when the first page comes back empty (a known arXiv glitch), and
lets connection errors escape as tracebacks. ``PoliteArxivClient`` keeps the library's paging,
URL building and feed parsing, and replaces only its per-page fetch (``_parse_feed``) with one
that has timeouts, exponential backoff (honouring ``Retry-After``), retries of empty pages (the
first one too), arXiv's throttling (429 ``Rate exceeded.``, or no answer) waited out within
``--throttle-minutes`` (``ingest/netpolicy.py``), and a one-line ``NetworkError`` when arXiv cannot
be reached.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator

import arxiv
import requests
from arxiv import _feed

from reflong.common.errors import NetworkError
from reflong.ingest.netpolicy import (
    BUSY_STATUS,
    DEFAULT_ARXIV_URL,
    RETRY_STATUS,
    ArxivConnection,
    NetPolicy,
    Politeness,
    connection_reason,
    make_session,
    retry_after_seconds,
    throttle_reason,
    unreachable_message,
)

log = logging.getLogger(__name__)

API_PAGE_SIZE = 2000  # the API manual's largest page ("max_results" up to 2000 per call)
API_RESULT_CAP = 30000  # the API manual: no query returns more than 30000 results, whatever the paging
ID_LIST_CHUNK = 200  # ids per id_list query: ~10,000 ids would make a URL real servers refuse (414)


class PoliteArxivClient(arxiv.Client):
    """``arxiv.Client`` pointed at ``base_url`` with politeness, timeouts and backoff."""

    def __init__(
        self,
        base_url: str = DEFAULT_ARXIV_URL,
        policy: NetPolicy | None = None,
        politeness: Politeness | None = None,
        session: requests.Session | None = None,
        page_size: int = API_PAGE_SIZE,
        conn: ArxivConnection | None = None,
    ) -> None:
        if conn is None:
            policy = policy or NetPolicy()
            conn = ArxivConnection(policy, session or make_session(), politeness or Politeness(policy.delay))
        policy = conn.policy
        super().__init__(page_size=page_size, delay_seconds=policy.delay, num_retries=policy.retries)
        self.base_url = base_url.rstrip("/")
        self.query_url_format = self.base_url + "/api/query?{}"
        self.conn = conn
        self.policy = policy
        self.politeness = conn.politeness
        self._session.close()  # the library's own session: replaced by the shared, pooled one
        self._session = conn.session
        self.on_page: Callable[[int], None] | None = None  # called with each page's entry count

    @property
    def requests_made(self) -> int:
        return self.conn.requests_by_kind["api"]

    @property
    def retries_made(self) -> int:
        return self.conn.retries_by_kind["api"]

    # -- the one method of arxiv.Client that is replaced ------------------------------------
    def _parse_feed(self, url: str, first_page: bool = True, _try_index: int = 0) -> _feed.ParsedFeed:
        """Fetch and parse one page, retrying with backoff; raise NetworkError when it keeps failing.

        A 403 stops at once (``BlockedError``); a throttling spell (429s, no answers) is waited
        out within ``throttle_minutes`` and a 503 spell within the retries, beyond which the run
        stops resumably (``ServiceBusyError``); a 414 (URL too long) is a bug of ours, not a
        network condition, and says so.
        """
        attempt = 0
        connect_failures = 0
        confirmed_empty = False
        while True:
            problem, retry_after, busy = None, None, False
            try:
                resp = self.conn.send(url, "api")
            except requests.ReadTimeout:  # perhaps a 429 still on its way: arXiv's can take 2 minutes
                self.conn.wait_throttled("api", url, f"no answer within {self.policy.timeout:g} s")
                continue
            except requests.ConnectionError as exc:  # refused, no route, DNS, connect timeout
                connect_failures += 1
                if connect_failures > self.policy.connect_retries:
                    raise NetworkError(unreachable_message(self.base_url, connection_reason(exc))) from None
                problem = f"connection failed ({connection_reason(exc)})"
            else:
                if (throttled := throttle_reason(resp)) is not None:
                    self.conn.wait_throttled("api", url, throttled, retry_after_seconds(resp))
                    continue
                if resp.status_code in RETRY_STATUS:
                    problem, retry_after = f"HTTP {resp.status_code}", retry_after_seconds(resp)
                    busy = resp.status_code in BUSY_STATUS
                elif resp.status_code == 414:
                    raise NetworkError(
                        f"arXiv refused a {len(url)}-character URL (HTTP 414); this is a bug in reflong-build "
                        "(id lists are sent in chunks of 200); please report it"
                    )
                elif resp.status_code != 200:
                    raise NetworkError(
                        f"arXiv answered HTTP {resp.status_code} to {url}; check --arxiv-url and --categories"
                    )
                else:
                    feed = _feed.parse(resp.content)
                    if feed.malformed:
                        problem = "malformed feed"
                    elif feed.results or (first_page and feed.header.total_results == 0 and confirmed_empty):
                        if self.on_page is not None:
                            self.on_page(len(feed.results))
                        return feed
                    elif first_page and feed.header.total_results == 0:
                        # Possibly really empty, possibly arXiv's empty-page glitch: ask once more.
                        confirmed_empty = True
                        problem = "empty first page (confirming)"
                    else:
                        problem = "empty page"
            attempt += 1
            self.conn.retry_or_give_up("api", attempt, problem, url, retry_after, busy)

    def page(self, search: arxiv.Search, start: int, page_size: int | None = None) -> _feed.ParsedFeed:
        """One page of ``search`` from ``start`` (the caller commits it before asking for the next)."""
        return self._parse_feed(self._format_url(search, start, page_size or self.page_size), start == 0)

    # -- conveniences used by the ingest ------------------------------------------------------
    def search(self, query: str, max_results: int | None = None) -> Iterator[arxiv.Result]:
        """Results of ``query`` oldest first (by submission date), at most ``max_results``."""
        search = arxiv.Search(
            query=query,
            max_results=max_results,
            sort_by=arxiv.SortCriterion.SubmittedDate,
            sort_order=arxiv.SortOrder.Ascending,
        )
        return self.results(search)

    def by_ids(self, ids: list[str]) -> Iterator[arxiv.Result]:
        """Entries for ``ids`` (with ``vN`` for exactly that version), in the order given.

        Sent in chunks of at most ``ID_LIST_CHUNK`` ids: one ``id_list`` of thousands of ids is a
        URL of hundreds of KB, which real servers refuse with 414.
        """
        for i in range(0, len(ids), ID_LIST_CHUNK):
            chunk = ids[i : i + ID_LIST_CHUNK]
            yield from self.results(arxiv.Search(id_list=chunk, max_results=len(chunk)))
