"""Date windows of a build and the roles they give papers (docs/architecture.md, "Roles of papers").

- seed window ``[since, since + seed_months)``: seeds (metadata only; the first-version date counts)
- citing pool ``[since + seed_months, since + seed_months + pool_months)``: papers whose PDFs are read
- distractor window ``[since - distractor_months, since)``: earlier papers, read at a version dated
  before ``since`` so that they cannot cite a seed.

Windows are half-open and compared on first-version dates. The window label names the build
window (e.g. ``2024-03:s1:p6:d2``): roles are stored per label, not per paper.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, timedelta

from reflong.common.errors import ReflongError

SEED, POOL, DISTRACTOR = "seed", "pool", "distractor"


def parse_month(text: str) -> date:
    """``"2024-03"`` -> 2024-03-01; a clear error otherwise."""
    m = re.fullmatch(r"(\d{4})-(\d{2})", text.strip())
    if not m or not 1 <= int(m.group(2)) <= 12:
        raise ReflongError(f"--since {text!r}: expected a month as YYYY-MM, e.g. 2024-03")
    return date(int(m.group(1)), int(m.group(2)), 1)


def add_months(d: date, months: int) -> date:
    """First day of the month ``months`` after (or before, if negative) the month of ``d``."""
    index = d.year * 12 + (d.month - 1) + months
    return date(index // 12, index % 12 + 1, 1)


@dataclass(frozen=True)
class Window:
    role: str
    start: date  # inclusive
    end: date  # exclusive

    def contains(self, day: str | None, slack_days: int = 0) -> bool:
        """``day`` (YYYY-MM-DD) in the window, widened by ``slack_days`` on both sides.

        The slack absorbs time-zone differences between arXiv's ``submittedDate`` query and the
        UTC dates of its feed, for papers submitted around midnight at a window edge.
        """
        if day is None:
            return False
        lo, hi = self.start - timedelta(days=slack_days), self.end + timedelta(days=slack_days)
        return lo.isoformat() <= day < hi.isoformat()

    def submitted_date_clause(self) -> str:
        """The arXiv API range for this window (inclusive bounds, minute precision)."""
        last = self.end - timedelta(days=1)
        return f"submittedDate:[{self.start:%Y%m%d}0000 TO {last:%Y%m%d}2359]"


@dataclass(frozen=True)
class BuildWindows:
    since: date
    seed_months: int = 1
    pool_months: int = 6
    distractor_months: int = 2

    def __post_init__(self) -> None:
        for name in ("seed_months", "pool_months", "distractor_months"):
            if getattr(self, name) < 0 or (name == "seed_months" and self.seed_months < 1):
                raise ReflongError(f"--{name.replace('_', '-')} must be a positive number of months")

    @property
    def label(self) -> str:
        return f"{self.since:%Y-%m}:s{self.seed_months}:p{self.pool_months}:d{self.distractor_months}"

    @property
    def cutoff(self) -> date:
        """Distractor text versions must be dated strictly before this day (the seed window start)."""
        return self.since

    def windows(self) -> list[Window]:
        """Seed, pool, distractor, in the order the ingest fetches them (empty windows left out)."""
        seed_end = add_months(self.since, self.seed_months)
        out = [Window(SEED, self.since, seed_end)]
        if self.pool_months:
            out.append(Window(POOL, seed_end, add_months(seed_end, self.pool_months)))
        if self.distractor_months:
            out.append(Window(DISTRACTOR, add_months(self.since, -self.distractor_months), self.since))
        return out
