"""How the ingest behaves on the network: politeness, timeouts, retries with backoff.

arXiv asks for at least 3 s between API calls; the default keeps to that. One ``Politeness`` gate
is shared by the metadata client and the PDF downloads, so the whole run stays polite, and every
retry waits an exponentially growing backoff (or the server's ``Retry-After``, if longer).
"""

from __future__ import annotations

import re
import threading
import time
from dataclasses import dataclass

import requests

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
