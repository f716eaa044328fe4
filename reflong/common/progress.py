"""Progress reporting that stages can use without knowing about terminals.

Stages take a ``Progress`` factory; the CLI passes ``tqdm_progress`` and tests pass nothing
(``null_progress``). This keeps display concerns in the CLI, as docs/architecture.md asks. Without a
terminal, progress is a log line every 30 s (``LineProgress``), so long runs in CI or under nohup
are not silent.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Protocol


class ProgressBar(Protocol):
    def update(self, n: int = 1) -> None: ...
    def set_postfix_str(self, s: str) -> None: ...


class _NullBar:
    def update(self, n: int = 1) -> None:
        pass

    def set_postfix_str(self, s: str) -> None:
        pass

    def __enter__(self) -> _NullBar:
        return self

    def __exit__(self, *exc: object) -> None:
        return None


ProgressFactory = Callable[..., AbstractContextManager[ProgressBar]]


def null_progress(total: int | None = None, desc: str = "", unit: str = "it") -> _NullBar:
    """A progress bar that shows nothing (library use, tests)."""
    return _NullBar()


class LineProgress:
    """Progress as a plain line every ``interval`` seconds, through the ``reflong.common.progress`` logger.

    Without a terminal (a log file, CI, nohup) a redrawn bar is either invisible or noise; a long
    run still needs a sign of life and an estimate. A run shorter than ``interval`` prints nothing;
    one that printed anything ends with a ``done`` line."""

    def __init__(
        self,
        total: int | None = None,
        desc: str = "",
        unit: str = "it",
        interval: float = 30.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.total, self.desc, self.unit, self.interval, self.clock = total, desc, unit, interval, clock
        self.n = 0
        self.postfix = ""
        self.start = self.last = clock()
        self.printed = False

    def update(self, n: int = 1) -> None:
        self.n += n
        now = self.clock()
        if now - self.last >= self.interval:
            self.last = now
            self._line(now)

    def set_postfix_str(self, s: str) -> None:
        self.postfix = s

    def _count(self) -> str:
        if self.total:
            return f"{self.n}/{self.total} {self.unit} ({100 * self.n // self.total}%)"
        return f"{self.n} {self.unit}"

    def _line(self, now: float) -> None:
        elapsed = max(now - self.start, 1e-9)
        rate = self.n / elapsed
        left = ""
        if self.total and rate > 0 and self.n < self.total:
            left = f", about {(self.total - self.n) / rate:.0f} s left"
        extra = f" [{self.postfix}]" if self.postfix else ""
        _progress_log.info("%s: %s, %.1f %s/s%s%s", self.desc, self._count(), rate, self.unit, left, extra)
        self.printed = True

    def __enter__(self) -> LineProgress:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.printed or self.interval <= 0:
            elapsed = self.clock() - self.start
            _progress_log.info("%s: %s done in %.0f s", self.desc, self._count().split(" (")[0], elapsed)


_progress_log = logging.getLogger("reflong.common.progress")


def tqdm_progress(total: int | None = None, desc: str = "", unit: str = "it"):
    """A tqdm bar on a terminal; elsewhere ``LineProgress`` lines every ``REFLONG_PROGRESS_SECONDS``
    (default 30). Nothing when the CLI runs with ``-q`` (``reflong.common.progress`` logs no INFO)."""
    import os
    import sys

    from tqdm import tqdm

    if not _progress_log.isEnabledFor(logging.INFO):
        return _NullBar()
    if sys.stderr.isatty() or os.environ.get("REFLONG_PROGRESS") == "1":
        return tqdm(total=total, desc=desc, unit=unit, leave=False, dynamic_ncols=True)
    interval = float(os.environ.get("REFLONG_PROGRESS_SECONDS", "30"))
    return LineProgress(total, desc, unit, interval)
