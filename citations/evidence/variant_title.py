"""A title printed differently, accepted on its first author and a year near the seed's.

Why: citers reword titles (a word inserted or changed, a subtitle left out); a title scoring from
``Thresholds.variant`` to accept is the seed when its first author is named first and a printed
year is near the seed's (``variant_years``), and nothing else holds the edge back. The raise is
UNOPPOSED: the decision applies it only then. A title of fewer than four words is too generic.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from reflong.citations.evidence import variant_years as vy
from reflong.citations.evidence.base import HOLDS_BACK, Evidence, Strength, note
from reflong.citations.records import title_words

if TYPE_CHECKING:
    from reflong.citations.evidence.pair import Pair

MIN_WORDS = 4


def eligible(pair: Pair, provisional: float, so_far: list[Evidence]) -> bool:
    """Whether the variant rule may lift this edge: the score in the variant band, the first
    author named, a near year printed, nothing read so far holding it back."""
    t = pair.t
    return (
        t.variant <= provisional < t.accept
        and pair.author == "match"
        and not any(e.strength in HOLDS_BACK for e in so_far)
        and title_words(pair.seed) >= MIN_WORDS
        and bool(pair.near_years)
    )


def read(pair: Pair, provisional: float, so_far: list[Evidence]) -> list[Evidence]:
    t = pair.t
    if eligible(pair, provisional, so_far) and pair.seed.year:
        why = f"title printed differently (score {provisional:.1f}); first author and year {pair.near_years[0]} agree"
        return [Evidence("variant_title", Strength.UNOPPOSED, why)]
    if t.variant <= provisional < t.accept and pair.author == "match" and not pair.near_years:
        late = vy.variant_years(pair.seed.year, pair.ref.years, True, t.late_years)
        if late:  # what the preprint's window would have taken: said, so a person sees why
            return [note("variant_title", vy.too_late_note(provisional, late[-1], pair.seed.year))]
    return []
