"""Whether the seed title is printed as the container of the cited work, not the work.

Why a module of its own: a chapter cites its volume after "In", an edited volume prints its
editors beside its title, a venue-like seed (proceedings, a series) stands after the entry's own
title; in each the seed's title is printed and yet the seed is not what is cited. These doubts
only ever hold an edge back, so they are read only for an edge the rest of the evidence would
accept (``evidence/registry.py``), which keeps this reading off the hot path.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from reflong.citations.evidence import author_evidence as ae
from reflong.citations.evidence import institution_author as ia
from reflong.citations.evidence import prose_remark as pr
from reflong.citations.evidence import title_after_names as tan
from reflong.citations.evidence import title_evidence as te
from reflong.citations.evidence.base import Evidence, doubt, note
from reflong.citations.records import Reference, Seed

if TYPE_CHECKING:
    from reflong.citations.evidence.pair import Pair


def container_doubts(
    seed: Seed,
    ref: Reference,
    first: int,
    last: int,
    author: str,
    notes: list[str] | None = None,
    books: bool = False,
) -> list[str]:
    """Why the title printed from word ``first`` may be the container of the cited work
    rather than the work: after "In" (a chapter of the volume); or, when the seed's first
    author cannot vouch for it (no author, or not named), after another title-like field, or
    a venue-like seed title (proceedings, a series) printed after the entry's own fields.
    An institution read as the author block is written to ``notes`` (the edge's evidence)."""
    if first > 0 and chapter(seed, ref, first):
        return [te.CONTAINER_NOTE]
    field_first = first
    while field_first > 0 and not ref.bounds[field_first - 1]:
        field_first -= 1
    # The entry's own editors or authors, read from its start ("R. Polacco (a cura di), Title").
    block = ae.own_block_end(ref.words, ref.cased, ref.colons, ref.bounds, first + 2)
    k = block[0] if block and ref.cased else 0  # no title-like field inside the author block
    if tan.colon_closes_names(ref.colon_list_end, field_first):
        k = field_first  # "Vogel SS, Thaler C, Koushik SV: Fanciful FRET": names (``colon_authors``)
    heads = field_first <= k <= first + 1  # up to the title (an alignment may start a word early)
    k = field_first if heads else min(k, field_first)
    e = te.editors_at(ref.words, ref.bounds, first, last)
    if e is not None and not heads and te.prose_between_names_and(ref.cased, e):
        return [
            "the seed title is printed as an edited volume (editors next to it) after a title of the entry's own"
        ]
    if seed.author_phrase and author != "mismatch":
        return []
    why = "seed has no author to check" if not seed.author_phrase else "first author not named"
    held: list[str] = []
    if not seed.author_phrase and ref.cased:
        # An institution printed as the author ("NBS – National Bureau of Statistics of
        # China."): an author block, not a title of the entry's own (``institution_author``).
        inst = ia.institution_block(ref.cased, ref.bounds, field_first)
        if inst and inst[0] > k:
            k = inst[0]
            held.append(f"an institution printed as the author ('{inst[1]}')")
    # A field opening lower-case is the footnote's remark, not a title (``prose_remark``; books).
    earlier = pr.earlier_title_field(
        ref.cased and ref.cased[k:], ref.bounds[k:], field_first - k, at_start=k == 0 and books
    )
    if earlier:
        return [f"{why} and {earlier}"]
    lead = 1 if ref.words and ref.words[0].isdigit() else 0  # "[12]" numbering
    if field_first > lead and te.venue_like(seed.plain):
        # Printed right after the entry's author list, it is the entry's title, not a venue
        # ("Streit WR: Advances in recovery of ...": ``title_after_names``, resolve-15).
        # Only for a seed with no author, and a field that opens with the seed's words: a seed
        # whose first author is not named, or "2015, in Proc. 34th ICRC" (an "in" the seed
        # title does not open with), is the volume of a contribution.
        container_in = ref.words[field_first] == "in" and not seed.plain.startswith("in ")
        own = None
        if not seed.author_phrase and not container_in:
            own = tan.own_title_field(ref.cased, ref.bounds, ref.colon_list_end, field_first)
        if own is None:
            return [f"{why}; the seed reads as a venue, printed after the entry's own fields"]
        held.append(own)
    if notes is not None:
        notes.extend(held)
    return []


def chapter(seed: Seed, ref: Reference, first: int) -> bool:
    """The title run is printed as the container of the entry ("Chapter. In: Eds (eds)
    Volume"): a chapter of the volume, not the volume. Unless nothing but the entry's authors
    comes before the "In" and they include the seed's first author: physics styles cite a
    contribution as "Author, in: Eds (Eds.), Book" with no chapter title, and the book is
    meant. An editor who wrote a chapter of their own volume is caught by the chapter title
    printed between their name and the "In"."""
    p = te.container_at(ref.words, ref.bounds, first)
    if p is None:
        return False
    if ae.legacy_verdict(seed.author_phrase, seed.author_last, ref.words, p) != "match":
        return True
    return te.prose_between_names_and(ref.cased, p)


def own_title_before(ref: Reference, first: int) -> bool:
    """Whether a title-like field of the entry's own (prose, ``earlier_title_field``) is
    printed before the field that holds word ``first``."""
    field_first = first
    while field_first > 0 and not ref.bounds[field_first - 1]:
        field_first -= 1
    return te.earlier_title_field(ref.cased, ref.bounds, field_first) is not None


def read(pair: Pair, provisional: float) -> list[Evidence]:
    """The container doubts of the pair's title run, and an institution read as its author."""
    notes: list[str] = []
    doubts = container_doubts(
        pair.seed, pair.ref, pair.lay.first, pair.lay.last, pair.author, notes, books=pair.t.books
    )
    return [note("containers", n) for n in notes] + [doubt("containers", d) for d in doubts]
