"""How the ingest behaves on the network: politeness, timeouts, retries with backoff.

arXiv asks for at least 3 s between API calls; the default keeps to that. One ``ArxivConnection``
(one pooled ``requests`` session + one ``Politeness`` gate + one ``NetPolicy``) is shared by the
OAI-PMH harvest, the API client and the PDF downloads, so the whole run stays polite, and every
retry waits an exponentially growing backoff (or the server's ``Retry-After``, if longer).

Two answers stop the whole run at once, with one line that says how to resume:
- 403: arXiv blocks robots that break its rules; its robots policy treats requests that go on
  after a 403 as an attack, so nothing more is asked (``BlockedError``);
- a spell of "come back later" that outlasts its budget (``ServiceBusyError``): everything
  committed so far stays, and rerunning the same command later resumes.

Throttling has a budget in *time*, not in tries. arXiv's API answers HTTP 429 with the text body
``Rate exceeded.`` and no ``Retry-After``, for minutes at a time, even to clients below the
documented rate, and the 429 itself can take up to two minutes to arrive (sources in
``reflong/servers/arxiv_server.py``, ``FaultPlan``). So a 429, and a request that got no answer
within ``--timeout`` (likely a 429 still on its way), open a *throttling spell*: it is waited out
with growing waits (``throttle_backoff`` doubled, at most ``throttle_max_wait``), each logged as
``arXiv is throttling (HTTP 429 'Rate exceeded.'); waiting 60 s, 2.3 of 10 min used``, until an
answer comes or ``throttle_minutes`` (``--throttle-minutes``, default 10) have passed since the
spell began; then the run stops with one line. The spells of a run (count, seconds) are in
``ArxivConnection.throttling`` and the ingest summary. A 503 (arXiv's OAI flow control, with
``Retry-After``) and other 5xx keep the count of ``retries``.
Every retry and wait is logged (``logging``, to stderr through the CLI), so it shows without a TTY.
"""

from __future__ import annotations

import logging
import re
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from urllib.parse import urlsplit

import requests

from reflong.common.errors import BlockedError, NetworkError, ServiceBusyError

log = logging.getLogger(__name__)

DEFAULT_ARXIV_URL = "https://export.arxiv.org"


@dataclass(frozen=True)
class NetPolicy:
    delay: float = 3.0  # seconds between two requests (arXiv's terms: >= 3)
    timeout: float = 30.0  # read timeout per request, seconds
    connect_timeout: float = 10.0
    retries: int = 3  # retries after the first try on 429/5xx/timeouts/empty pages
    connect_retries: int = 1  # retries when the host cannot be reached at all
    backoff: float | None = None  # first backoff, seconds; default: max(delay, 1)
    max_backoff: float = 120.0
    # A throttling spell (429s, requests with no answer) is waited out for up to this many minutes.
    throttle_minutes: float = 10.0
    throttle_backoff: float = 15.0  # first wait of a spell, seconds; doubled at each further wait
    throttle_max_wait: float = 60.0  # no single wait of a spell is longer
    # A PDF still being generated (HTTP 200, an HTML page) is asked again after this many seconds
    # (the page itself asks for a reload after 10 s), up to this many requests in one run (arXiv's
    # own fulltext service tried 5 times); see ``ingest/download.py``.
    pdf_not_ready_wait: float = 10.0
    pdf_not_ready_tries: int = 5

    def throttle_wait(self, n: int) -> float:
        """Seconds to wait before retry ``n`` (1-based) of a throttling spell: never sooner than the
        gate, doubled each time, capped at ``throttle_max_wait``."""
        base = max(self.throttle_backoff, self.delay)
        return min(base * 2 ** (n - 1), max(self.throttle_max_wait, self.delay))

    def backoff_for(self, attempt: int, retry_after: float | None = None) -> float:
        """Seconds to wait before retry number ``attempt`` (1-based): base * 2**(attempt-1)."""
        base = self.backoff if self.backoff is not None else max(self.delay, 1.0)
        wait = min(base * 2 ** (attempt - 1), self.max_backoff)
        if retry_after is not None:
            wait = max(wait, min(retry_after, self.max_backoff))
        return wait

    @property
    def timeouts(self) -> tuple[float, float]:
        return (min(self.connect_timeout, self.timeout), self.timeout)


class Politeness:
    """A gate that keeps at least ``delay`` seconds between the starts of two requests."""

    def __init__(self, delay: float) -> None:
        self.delay = delay
        self._last: float | None = None
        self._lock = threading.Lock()
        self.waited = 0.0  # total seconds slept, for tests and the summary

    def wait(self) -> None:
        with self._lock:
            if self._last is not None:
                remaining = self.delay - (time.monotonic() - self._last)
                if remaining > 0:
                    time.sleep(remaining)
                    self.waited += remaining
            self._last = time.monotonic()

    def sleep(self, seconds: float) -> None:
        """A backoff sleep; it also counts as distance from the last request."""
        if seconds > 0:
            time.sleep(seconds)
            self.waited += seconds


def retry_after_seconds(resp: requests.Response) -> float | None:
    value = resp.headers.get("Retry-After")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        return None


def throttle_reason(resp: requests.Response) -> str | None:
    """``HTTP 429 'Rate exceeded.'`` when ``resp`` is arXiv throttling (its short text body quoted),
    else None."""
    if resp.status_code != 429:
        return None
    body = ""
    if resp.headers.get("Content-Type", "").startswith("text/"):
        try:
            text = resp.text.strip()
        except requests.RequestException:
            text = ""
        if text and len(text) <= 80 and "\n" not in text:
            body = text
    return f"HTTP 429 '{body}'" if body else "HTTP 429"


def connection_reason(exc: BaseException) -> str:
    """A short human reason out of requests' nested connection errors."""
    text = str(exc)
    m = re.search(r"\[Errno -?\d+\] ([^'\")\]]+)", text)
    if m:
        return m.group(1).strip()
    if "Failed to resolve" in text or "NameResolution" in text:
        return "host name could not be resolved"
    if "timed out" in text.lower():
        return "connection timed out"
    return type(exc).__name__


def user_agent() -> str:
    import arxiv

    from reflong import __version__

    return f"reflong-build/{__version__} arxiv.py/{arxiv.__version__}"


def make_session() -> requests.Session:
    """A pooled session; retries are ours (with backoff and politeness), not urllib3's."""
    session = requests.Session()
    adapter = requests.adapters.HTTPAdapter(pool_connections=4, pool_maxsize=4, max_retries=0)
    session.mount("http://", adapter)
    session.mount("https://", adapter)
    session.headers["User-Agent"] = user_agent()
    return session


RETRY_STATUS = {429, 500, 502, 503, 504}
BUSY_STATUS = {429, 503}  # "come back later": outlasting the budget stops the run, resumably
# (429, arXiv's throttling, is waited out in time: ``ArxivConnection.wait_throttled``.)


def blocked_message(url: str) -> str:
    host = urlsplit(url).netloc or url
    return (
        f"arXiv ({host}) answered 403 Forbidden: it blocks robots that break its rules (more than one "
        "request per 3 s, parallel connections); the run stopped at once and everything fetched so far is "
        "stored. Wait at least an hour, keep --delay at 3 or more, then rerun the same command to resume"
    )


def busy_message(url: str, problem: str, tries: int) -> str:
    host = urlsplit(url).netloc or url
    return (
        f"arXiv ({host}) kept failing ({problem}) after {tries} tries; the run stopped cleanly and "
        "everything fetched so far is stored: rerun the same command later to resume"
    )


def throttled_message(url: str, problem: str, minutes: float) -> str:
    host = urlsplit(url).netloc or url
    return (
        f"arXiv ({host}) kept throttling ({problem}) for {minutes:g} min, the --throttle-minutes budget; "
        "the run stopped cleanly and everything fetched so far is stored: rerun the same command later "
        "to resume (or give a longer --throttle-minutes)"
    )


def _minutes(seconds: float, budget_minutes: float) -> str:
    return f"{seconds / 60:.{1 if budget_minutes >= 1 else 2}f}"


@dataclass
class ThrottleLog:
    """The throttling spells of a run: how many, and how long they lasted in all (seconds)."""

    spells: int = 0
    seconds: float = 0.0


def unreachable_message(base_url: str, reason: str) -> str:
    host = urlsplit(base_url).netloc or base_url
    return (
        f"cannot reach arXiv at {host} ({reason}); check the network connection or proxy, "
        "or use --arxiv-url URL for a mirror or --source DIR for a local catalog"
    )


@dataclass
class ArxivConnection:
    """The one way this run talks to arXiv: one session, one gate, one retry policy, one counter.

    ``requests_by_kind`` counts every request sent (retries included) per kind (``oai``, ``api``,
    ``pdf``), for the summary and the benchmarks; ``throttling`` the throttling spells (``send``
    opens one at a 429 or a request with no answer, and closes it at the next answer).
    """

    policy: NetPolicy = field(default_factory=NetPolicy)
    session: requests.Session | None = None
    politeness: Politeness | None = None
    requests_by_kind: Counter = field(default_factory=Counter)
    retries_by_kind: Counter = field(default_factory=Counter)
    throttling: ThrottleLog = field(default_factory=ThrottleLog)
    _spell_began: float | None = field(default=None, init=False, repr=False)
    _spell_waits: int = field(default=0, init=False, repr=False)

    def __post_init__(self) -> None:
        if self.session is None:
            self.session = make_session()
        if self.politeness is None:
            self.politeness = Politeness(self.policy.delay)

    def send(self, url: str, kind: str, **kwargs) -> requests.Response:
        """One request through the gate (no retry); a 403 raises ``BlockedError`` at once."""
        self.politeness.wait()
        self.requests_by_kind[kind] += 1
        began = time.monotonic()
        try:
            resp = self.session.get(url, timeout=self.policy.timeouts, **kwargs)
        except requests.ReadTimeout:
            self._spell_from(began)  # perhaps a 429 still on its way
            raise
        if resp.status_code == 403:
            resp.close()
            log.error("arXiv answered 403 to %s: stopping the run", url)
            raise BlockedError(blocked_message(url))
        if resp.status_code == 429:
            self._spell_from(began)
        else:
            self._spell_over()
        return resp

    def _spell_from(self, began: float) -> None:
        if self._spell_began is None:
            self._spell_began, self._spell_waits = began, 0

    def _spell_over(self, answered: bool = True) -> None:
        if self._spell_began is not None:
            lasted = time.monotonic() - self._spell_began
            self.throttling.spells += 1
            self.throttling.seconds += lasted
            self._spell_began = None
            if answered:
                log.info("arXiv answers again after %.0f s of throttling", lasted)

    def wait_throttled(self, kind: str, url: str, problem: str, retry_after: float | None = None) -> None:
        """Wait once more within the throttling spell under way, logged; ``ServiceBusyError`` once
        the spell has lasted ``throttle_minutes`` (the last wait ends at the budget, so the last
        request is sent just before it). A ``Retry-After`` (arXiv sends none) is honoured."""
        if self._spell_began is None:
            self._spell_from(time.monotonic())
        budget = self.policy.throttle_minutes * 60
        used = time.monotonic() - self._spell_began
        if used >= budget:
            self._spell_over(answered=False)
            raise ServiceBusyError(throttled_message(url, problem, self.policy.throttle_minutes))
        self._spell_waits += 1
        wait = self.policy.throttle_wait(self._spell_waits)
        if retry_after is not None:
            wait = max(wait, retry_after)
        wait = min(wait, budget - used)
        self.retries_by_kind[kind] += 1
        lead = "arXiv is throttling" if problem.startswith("HTTP") else "arXiv is not answering"
        log.warning(
            "%s (%s)%s; waiting %.3g s, %s of %g min used: %s",
            lead,
            problem,
            f", Retry-After {retry_after:g} s" if retry_after is not None else "",
            wait,
            _minutes(used, self.policy.throttle_minutes),
            self.policy.throttle_minutes,
            url,
        )
        self.politeness.sleep(wait)

    def retry_or_give_up(
        self, kind: str, attempt: int, problem: str, url: str, retry_after: float | None, busy: bool
    ) -> None:
        """After failed try ``attempt``: wait and return, or raise once the retries are spent.

        Every retried arXiv request loop (``get`` here, the API pages in ``arxiv_client``) ends a
        failed try here, so the give-up rule and its message are one: ``ServiceBusyError`` when
        the last failure was a 503-like spell, ``NetworkError`` otherwise.
        """
        if attempt > self.policy.retries:
            if busy:
                raise ServiceBusyError(busy_message(url, problem, attempt))
            raise NetworkError(
                f"arXiv kept failing ({problem}) after {attempt} tries for {url}; "
                "try again later (rerun the same command: it resumes) or raise --delay"
            )
        self.backoff(kind, attempt, problem, url, retry_after)

    def backoff(self, kind: str, attempt: int, problem: str, url: str, retry_after: float | None) -> None:
        """Wait before retry ``attempt``, logged so that it shows without a TTY."""
        wait = self.policy.backoff_for(attempt, retry_after)
        self.retries_by_kind[kind] += 1
        log.warning(
            "%s request failed (%s)%s; retry %d of %d in %.1f s: %s",
            kind,
            problem,
            f", Retry-After {retry_after:g} s" if retry_after is not None else "",
            attempt,
            self.policy.retries,
            wait,
            url,
        )
        self.politeness.sleep(wait)

    def get(
        self,
        url: str,
        kind: str,
        params: dict | None = None,
        check: Callable[[requests.Response], str | None] | None = None,
    ) -> requests.Response:
        """A GET that returns only a 200 answer: retried on 5xx with backoff, on 429 and timeouts
        within the throttling budget.

        ``check`` judges a 200's body: a returned problem (e.g. XML cut halfway) is retried like
        a 5xx, under the same budget and backoff.

        Raises ``BlockedError`` on 403, ``ServiceBusyError`` when a throttling spell outlasts
        ``throttle_minutes`` or a 503 spell the retries, ``NetworkError`` for anything else that
        will not go away by retrying.
        """
        attempt, connect_failures = 0, 0
        while True:
            problem, retry_after, busy = None, None, False
            try:
                resp = self.send(url, kind, params=params)
            except requests.ReadTimeout:
                self.wait_throttled(kind, url, f"no answer within {self.policy.timeout:g} s")
                continue
            except requests.ConnectionError as exc:
                connect_failures += 1
                if connect_failures > self.policy.connect_retries:
                    raise NetworkError(unreachable_message(url, connection_reason(exc))) from None
                problem = f"connection failed ({connection_reason(exc)})"
            else:
                if resp.status_code == 200:
                    problem = check(resp) if check is not None else None
                    if problem is None:
                        return resp
                elif (throttled := throttle_reason(resp)) is not None:
                    self.wait_throttled(kind, url, throttled, retry_after_seconds(resp))
                    continue
                elif resp.status_code in RETRY_STATUS:
                    problem, retry_after = f"HTTP {resp.status_code}", retry_after_seconds(resp)
                    busy = resp.status_code in BUSY_STATUS
                else:
                    raise NetworkError(
                        f"arXiv answered HTTP {resp.status_code} to {resp.url}; check --arxiv-url and --categories"
                    )
            attempt += 1
            self.retry_or_give_up(kind, attempt, problem, url, retry_after, busy)
