"""The accept a second reading gives: the held edge's method and title score kept, its reason quoted.

Why: a second reading accepts where the field rules held an edge back, so an auditor must see
both what the field rules doubted and what overruled them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from reflong.citations.records import Match, Seed

if TYPE_CHECKING:
    from reflong.citations.resolve import SeedIndex


def late_accept(
    index: SeedIndex, seed: Seed, out: list[Match], reason: str, score: float, author: str, at: int
) -> Match:
    """The accept a late rule gives ``seed`` where the field rules held its edge back: the
    held edge's method and score are kept, and its reason is quoted so an auditor sees what
    the field rules doubted and what overruled them. ``score`` stands in where none was held."""
    held = next((m for m in out if m.seed_id == seed.info.arxiv_id), None)
    if held is not None and held.reason:
        reason += f" (the field rules held it: {held.reason})"
    return Match(
        seed.info.arxiv_id,
        held.method if held is not None else "title",
        index.thresholds.accept,
        "accept",
        held.title_score if held is not None else score,
        author,
        reason,
        [reason],
        at,
    )
