"""Another printing or part of the seed's title: a later edition, another volume, a chapter.

Why: the same title is printed by another edition, another part of a numbered series or
another volume (``edition_evidence``, ``part_numbers``), and a chapter seed's volume is printed
without the chapter's own title (``chapter_seed``). These doubts only hold an edge back, so they
are read only where the rest of the evidence leaves it within reach of accept.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from reflong.citations.evidence import chapter_seed as cs
from reflong.citations.evidence import edition_evidence as ee
from reflong.citations.evidence import part_numbers as pn
from reflong.citations.evidence.base import Evidence, doubt
from reflong.citations.evidence.containers import own_title_before

if TYPE_CHECKING:
    from reflong.citations.evidence.pair import Pair


def read(pair: Pair, provisional: float) -> list[Evidence]:
    seed, ref, lay = pair.seed, pair.ref, pair.lay
    forms = [pair.printed_title, pair.run]
    doubts = ee.edition_doubts(
        seed.plain.split(), seed.year, ref.words, ref.years, forms, lay.last, pair.t.late_years
    )
    out = [doubt("edition_evidence", d) for d in doubts]
    part = pn.part_doubt(
        seed.info.title,
        ref.words,
        ref.bounds,
        lay.first,
        lay.last,
        ref.cased,
        own_title_before(ref, lay.first),
    )
    if part:
        out.append(doubt("part_numbers", part))
    chapter = cs.container_only_doubt(seed.info.title, ref.plain) if pair.t.books else None
    if chapter:
        out.append(doubt("chapter_seed", chapter))
    return out
