"""How many years before the seed's a reference by the seed's first author may be printed and still
cite the same work (resolve-13).

Why: the resolver accepts an earlier year only as an earlier version (``Thresholds.early_years``,
2 years) because a title alone, printed years before the seed existed, is often another work. An
entry that says it cites a report or a preprint ("Technical Report 92-83", "To appear in Machine
Learning", "submitted to") stretches that, always with the first author named: a report comes out
years before the journal paper the seed is (the older multi-style set: Brodley and Utgoff's report
of 1992, the paper of 1995).

Not stretched for a long title printed verbatim alone: books are reprinted and translated under
one title, and the labelled sets count another edition as another work (SciELO: a 2012
translation of a seed printed in 2019). Outside the window the older year holds the edge back
(review), as before.
"""

from __future__ import annotations

import re

REPORT_YEARS = 4  # a report or preprint before its journal version

_REPORT = re.compile(
    r"\b(?:tech(?:nical)?\.?\s*rep(?:ort|t)?\b|report\b|to appear\b|submitted\b|preprint\b|"
    r"working paper\b|manuscript\b|unpublished\b)",
    re.IGNORECASE,
)


def window(raw: str) -> tuple[int, str] | None:
    """The years before the seed's that an entry naming the seed's first author may print, and
    the evidence for it (for the edge's notes); None where only ``early_years`` applies."""
    found = _REPORT.search(raw)
    if found:
        return REPORT_YEARS, f"'{found.group(0)}': a report or preprint printed before the published version"
    return None
