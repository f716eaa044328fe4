"""What the first-author verdict weighs: a title without its first author, a short title without one.

Why: the verdict itself is read with the pair (``evidence/pair.py``: where the author is printed,
a co-author's slot, a group, a ditto); this module says what it costs. A long title whose first
author is not found loses ``MISMATCH_PENALTY`` points (a verbatim title still accepts); a title of
three words or fewer is too generic to stand without its author and is held for review; so is a
title of two words when no author is printed at all, unless the seed names none either and its
own field and year are printed (``own_field_with_year``). A predating reference by another author
is ``predates``'s to weigh.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from reflong.citations.evidence import title_evidence as te
from reflong.citations.evidence.base import Evidence, Strength, hold, note
from reflong.citations.evidence.predates import predates
from reflong.citations.thresholds import MISMATCH_PENALTY

if TYPE_CHECKING:
    from reflong.citations.evidence.pair import Pair


def read(pair: Pair, provisional: float) -> list[Evidence]:
    seed, ref = pair.seed, pair.ref
    if pair.author == "mismatch":
        if predates(pair):
            return []
        if pair.ditto_short:
            return [note("first_author", "first author not found")]  # the title and year decide
        if seed.n_words <= 3:
            return [hold("first_author", "first author not found")]
        return [Evidence("first_author", Strength.PENALTY, "first author not found", points=MISMATCH_PENALTY)]
    if pair.author == "unknown" and seed.n_words <= 2 and not pair.ditto_short and not pair.short_first:
        own = (
            None
            if seed.author_phrase
            else te.own_field_with_year(
                seed.plain, seed.year, ref.words, ref.bounds, ref.years, pair.field[:3]
            )
        )
        if own:
            return [note("first_author", own)]
        return [hold("first_author", "short title without author evidence")]
    return []
