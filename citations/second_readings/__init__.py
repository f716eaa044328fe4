"""Second readings: a reference read as a whole where no pair decision accepted it.

Why apart from the pair evidence: these readings look across seeds (the naive scan's best seed
must have no rival; a back-reference names the one seed of its author that opens so; a main title
is looked up among the seeds with a subtitle, candidates or not), so they cannot be evidence of
one pair. Each gives an accept of its own, quoting what the field rules held the edge back for;
``apply`` runs them in one declared order and never over a veto (the pair evidence found another
work: another coined name).
"""

from __future__ import annotations

from collections.abc import Collection
from typing import TYPE_CHECKING

from reflong.citations.records import Match, Reference
from reflong.citations.second_readings import author_after, back_reference, main_title, scan

if TYPE_CHECKING:
    from reflong.citations.resolve import SeedIndex


def apply(
    index: SeedIndex,
    ref: Reference,
    cands: list[int],
    out: list[Match],
    exclude: Collection[str],
    written_on: str | None = None,
) -> list[Match]:
    """The pair decisions ``out`` with the second readings' accepts put in, in order: a main
    title alone (for every seed with a subtitle it reaches), then, where nothing is accepted,
    the scan's seed, then (not for a ditto, and with the books profile only: humanities
    footnotes print them) an author after the title or a back-reference."""
    vetoed = {m.seed_id for m in out if m.veto}

    def put(found: Match | None) -> None:
        nonlocal out
        if found is not None and found.seed_id not in vetoed:
            out = [m for m in out if m.seed_id != found.seed_id] + [found]

    for seed_i in index.heads.candidates(ref.wordset):
        if index.allowed(seed_i, exclude, written_on):
            put(main_title.read(index, seed_i, ref, out))
    if not any(m.band == "accept" for m in out):
        put(scan.read(index, ref, cands, out))
    if not any(m.band == "accept" for m in out) and not ref.ditto and index.thresholds.books:
        put(author_after.read(index, ref, cands, out) or back_reference.read(index, ref, out))
    return out
