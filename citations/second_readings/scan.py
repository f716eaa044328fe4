"""The seed the naive scan finds in the raw string, accepted with evidence the scan does not read.

Why: where no rule accepts, a seed title found nearly verbatim (``SCAN_MIN_RATIO``) is the seed
when its blind spots are covered (``evidence/scan_agreement``): a distinctive title, its first
author printed before it, no year in conflict, no other seed found as well, no container, sequel
or part doubt.
"""

from __future__ import annotations

import bisect
from typing import TYPE_CHECKING

from rapidfuzz import fuzz

from reflong.citations.evidence import part_numbers as pn
from reflong.citations.evidence import scan_agreement as sa
from reflong.citations.evidence import title_evidence as te
from reflong.citations.evidence.containers import container_doubts, own_title_before
from reflong.citations.evidence.printed_ids import names_another_arxiv_paper
from reflong.citations.records import Match, Reference
from reflong.citations.second_readings.base import late_accept
from reflong.citations.thresholds import SCAN_MIN_RATIO

if TYPE_CHECKING:
    from reflong.citations.resolve import SeedIndex


def read(index: SeedIndex, ref: Reference, cands: list[int], out: list[Match]) -> Match | None:
    """An accept for the seed the naive scan finds in the raw string where no rule accepted
    one, with the scan's blind spots covered by evidence it does not read (``scan_agreement``:
    a distinctive title, its first author printed before it, no year in conflict, no other
    seed found as well). None where any of it is missing: the edge keeps its band."""
    if not cands or ref.ditto:
        return None
    ratios = sorted(((sa.ratio(index.seeds[i].plain, ref.plain), i) for i in cands), reverse=True)
    best, seed_i = ratios[0]
    if best < SCAN_MIN_RATIO or (len(ratios) > 1 and ratios[1][0] >= best):
        return None
    seed = index.seeds[seed_i]
    if sa.year_conflict(seed.year, ref.years):
        return None
    if names_another_arxiv_paper(ref.entry.arxiv_id, seed):
        return None
    al = fuzz.partial_ratio_alignment(seed.plain, ref.plain)
    if al is None:
        return None
    first = max(0, bisect.bisect_right(ref.starts, al.dest_start) - 1)
    last = max(first, bisect.bisect_right(ref.starts, al.dest_end - 1) - 1)
    printed = sa.author_before(seed.author_last, ref.words, first)
    if printed is None:
        return None
    opens = first == 0 or ref.bounds[first - 1] or bool(ref.colons and ref.colons[first - 1])
    if (
        not sa.distinctive(seed.n_words, len(seed.tokens), opens)
        or sa.cut_short(seed.plain.split()[-1], ref.words[last])
        or sa.continued(ref.cased, ref.words, ref.bounds, last, sa.year_printed(seed.year, ref.years))
        or sa.carried_from_before(ref.cased, ref.bounds, ref.colons, first, printed)
        or container_doubts(seed, ref, first, last, "match", books=index.thresholds.books)
    ):
        # Too short to tell; "Volumen I" found in "Volumen II"; a longer title of another
        # work ("... trivigiana e veronese", "Deep learning for ..."); a volume the entry
        # cites a chapter of, after "In" or as an edited volume after the entry's own title
        # ("Chapter," Journal, 1989. Reprint in Michael Earle, ed., Volume): the author the
        # scan finds is then the volume's editor, and the volume is not what is cited.
        return None
    printed_marks = (
        te.sequel_marks(ref.words[first : last + 1])
        | te.trailing_sequel(ref.words, ref.bounds, last)
        | te.leading_sequel(ref.words, ref.bounds, first)
    )
    if te.differing_marks(seed.marks, printed_marks) or pn.part_doubt(
        seed.info.title, ref.words, ref.bounds, first, last, ref.cased, own_title_before(ref, first)
    ):
        # Another part, edition or version ("Part 2:", "(7th edition)", "DS16:"), or another
        # volume of a numbered work ("Volumen V" for the seed's "Volumen I": ``part_numbers``).
        return None
    reason = sa.note(best, printed, seed.year, ref.years)
    return late_accept(index, seed, out, reason, best, "match", first)
