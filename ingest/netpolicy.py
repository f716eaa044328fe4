"""How the ingest behaves on the network: politeness, timeouts, retries with backoff.

arXiv asks for at least 3 s between API calls; the default keeps to that. One ``ArxivConnection``
(one pooled ``requests`` session + one ``Politeness`` gate + one ``NetPolicy``) is shared by the
OAI-PMH harvest, the API client and the PDF downloads, so the whole run stays polite, and every
retry waits an exponentially growing backoff (or the server's ``Retry-After``, if longer).

Two answers stop the whole run at once, with one line that says how to resume:
- 403: arXiv blocks robots that break its rules; its robots policy treats requests that go on
  after a 403 as an attack, so nothing more is asked (``BlockedError``);
- a 429/503 spell that outlasts the retry budget (``ServiceBusyError``): everything committed so
  far stays, and rerunning the same command later resumes.
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
    ``pdf``), for the summary and the benchmarks.
    """

    policy: NetPolicy = field(default_factory=NetPolicy)
    session: requests.Session | None = None
    politeness: Politeness | None = None
    requests_by_kind: Counter = field(default_factory=Counter)
    retries_by_kind: Counter = field(default_factory=Counter)

    def __post_init__(self) -> None:
        if self.session is None:
            self.session = make_session()
        if self.politeness is None:
            self.politeness = Politeness(self.policy.delay)

    def send(self, url: str, kind: str, **kwargs) -> requests.Response:
        """One request through the gate (no retry); a 403 raises ``BlockedError`` at once."""
        self.politeness.wait()
        self.requests_by_kind[kind] += 1
        resp = self.session.get(url, timeout=self.policy.timeouts, **kwargs)
        if resp.status_code == 403:
            resp.close()
            log.error("arXiv answered 403 to %s: stopping the run", url)
            raise BlockedError(blocked_message(url))
        return resp

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
        """A GET that returns only a 200 answer: retried on 429/5xx/timeouts with backoff.

        ``check`` judges a 200's body: a returned problem (e.g. XML cut halfway) is retried like
        a 5xx, under the same budget and backoff.

        Raises ``BlockedError`` on 403, ``ServiceBusyError`` when a 429/503 spell outlasts the
        retry budget, ``NetworkError`` for anything else that will not go away by retrying.
        """
        attempt, connect_failures = 0, 0
        while True:
            problem, retry_after, busy = None, None, False
            try:
                resp = self.send(url, kind, params=params)
            except requests.ReadTimeout:
                problem = f"no answer within {self.policy.timeout:g} s"
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
                elif resp.status_code in RETRY_STATUS:
                    problem, retry_after = f"HTTP {resp.status_code}", retry_after_seconds(resp)
                    busy = resp.status_code in BUSY_STATUS
                else:
                    raise NetworkError(
                        f"arXiv answered HTTP {resp.status_code} to {resp.url}; check --arxiv-url and --categories"
                    )
            attempt += 1
            if attempt > self.policy.retries:
                if busy:
                    raise ServiceBusyError(busy_message(url, problem, attempt))
                raise NetworkError(
                    f"arXiv kept failing ({problem}) after {attempt} tries for {url}; "
                    "try again later (rerun the same command: it resumes) or raise --delay"
                )
            self.backoff(kind, attempt, problem, url, retry_after)
