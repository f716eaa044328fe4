"""One raw reference string decided against a few seeds, as the behaviour tests of the resolver
read it: the pipeline's own path (``citations.match``), no store."""

from __future__ import annotations

from reflong.citations.match import RawEntry, build_index, match_raw
from reflong.citations.records import Match
from reflong.citations.resolve import SeedTitle
from reflong.citations.thresholds import Thresholds


def decide(
    seeds: SeedTitle | list[SeedTitle], raw: str, thresholds: Thresholds | None = None
) -> tuple[str, Match | None]:
    """(accept | review | none, the best match or None) for ``raw`` against ``seeds``."""
    index = build_index([seeds] if isinstance(seeds, SeedTitle) else seeds, thresholds)
    decision = match_raw(index, RawEntry("e1", "c1", raw))
    return decision.decision, decision.matches[0] if decision.matches else None
