"""A short seed title that opens the entry with its first author printed right after it.

Why: humanities footnotes print "Nautica mediterranea di Bartolomeo Crescenzio Romano, Roma,
1602" (``evidence/author_after_title``); the field parse reads title and name as one field. One
seed only may fit, with all the evidence.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from reflong.citations.evidence import author_after_title as aat
from reflong.citations.records import Match, Reference
from reflong.citations.second_readings.base import late_accept

if TYPE_CHECKING:
    from reflong.citations.resolve import SeedIndex


def read(index: SeedIndex, ref: Reference, cands: list[int], out: list[Match]) -> Match | None:
    """An accept for a short seed title that opens the entry with its first author printed
    right after it ("Nautica mediterranea di Bartolomeo Crescenzio Romano, Roma, 1602"):
    ``author_after_title``. None where more than one seed fits or any evidence is missing."""
    found = []
    for i in cands:
        seed = index.seeds[i]
        if seed.n_words > 3:
            continue
        why = aat.evidence(seed.plain, seed.author_last, seed.year, ref.entry.raw, index.titled.__getitem__)
        if why:
            found.append((seed, why))
    if len(found) != 1:
        return None
    seed, reason = found[0]
    return late_accept(index, seed, out, reason, index.thresholds.accept, "match", 0)
