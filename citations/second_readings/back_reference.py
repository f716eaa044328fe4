"""A footnote's back-reference ("Dal Pane, Il tramonto, cit., p. 68.") to the one seed it can name.

Why: a footnote cites a work again by its author and the first words of its title, marked
"cit." (``evidence/cit_back_reference``); the seed's own key words need not be printed, so every
seed of that author is looked at, and exactly one must open with the printed head.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from reflong.citations.evidence import cit_back_reference as cbr
from reflong.citations.records import Match, Reference, Seed
from reflong.citations.second_readings.base import late_accept

if TYPE_CHECKING:
    from reflong.citations.resolve import SeedIndex


def read(index: SeedIndex, ref: Reference, out: list[Match]) -> Match | None:
    """An accept for a footnote's back-reference "Dal Pane, Il tramonto, cit., p. 68." to the
    one candidate seed of that author whose title opens with the printed head
    (``cit_back_reference``). None where the string is not one or not exactly one seed fits."""
    shape = cbr.read(ref.entry.raw)
    if shape is None:
        return _unnamed(index, ref, out)
    name, surname, head, years = shape
    # The seed's own key words need not be printed (a head is its first words): every seed
    # of the printed author is looked at, not only the candidates.
    return _accept(
        index,
        index.seeds_by_author.get(surname, ()),
        head,
        years,
        cbr.NOTE.format(name=name, head=head),
        "match",
        out,
    )


def _accept(
    index: SeedIndex,
    pool: Iterable[Seed],
    head: str,
    years: list[int],
    note: str,
    author: str,
    out: list[Match],
) -> Match | None:
    """The accept for a back-reference's printed ``head``: the one seed of ``pool`` whose title
    opens with it, not a numbered volume, its year among any printed. None where the head is a
    whole title of its own (another work), or no seed or more than one opens so."""
    if index.titled[head]:
        return None
    own = [sd for sd in pool if cbr.opens_with(sd.plain, head)]
    if len(own) != 1 or cbr.numbered(own[0].plain):
        return None  # two works open so; a volume of a set the head cannot tell
    seed = own[0]
    if years and (seed.year is None or seed.year not in years):
        return None
    reason = note + (f"; the seed's year {seed.year} printed" if years else "")
    return late_accept(index, seed, out, reason, index.thresholds.accept, author, 0)


def _unnamed(index: SeedIndex, ref: Reference, out: list[Match]) -> Match | None:
    """``_cit_back_reference`` for a head printed without a name and marked as cut ("La
    politica veneziana ecc., cit."): the one seed of the whole list that opens with it."""
    shape = cbr.read_unnamed(ref.entry.raw)
    if shape is None:
        return None
    head, years = shape
    return _accept(index, index.seeds, head, years, cbr.NOTE_UNNAMED.format(head=head), "unknown", out)
