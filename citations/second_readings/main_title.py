"""A seed whose main title is printed without its subtitle (``candidates/title_heads``).

Why: citers drop subtitles; the main title printed as a field of its own, with the first author
and a year near the seed's, and none of the doubts the full title's decision reads (a sequel or a
date, another printing, a container, another arXiv id, a title twin) is the seed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from reflong.citations.candidates import title_heads as th
from reflong.citations.evidence import author_evidence as ae
from reflong.citations.evidence import edition_evidence as ee
from reflong.citations.evidence import part_numbers as pn
from reflong.citations.evidence import title_evidence as te
from reflong.citations.evidence import variant_years as vy
from reflong.citations.evidence.containers import container_doubts, own_title_before
from reflong.citations.records import Match, Reference

if TYPE_CHECKING:
    from reflong.citations.resolve import SeedIndex


def read(index: SeedIndex, seed_i: int, ref: Reference, out: list[Match]) -> Match | None:
    """An accept for a seed whose main title is printed without its subtitle (``title_heads``):
    as a field of its own, with the first author and a year near the seed's, and none of the
    doubts the full title's decision reads (a sequel or date, another printing, a container,
    another arXiv id, a title twin). None otherwise, and where the full title decides."""
    seed, t = index.seeds[seed_i], index.thresholds
    head = index.heads.heads[seed_i]
    first = th.head_run(head, ref.words, ref.plain, ref.starts, ref.bounds, ref.colons)
    if first is None:
        return None
    # A seed with no author (a catalogue, an exhibition's volume) has no name to check: a
    # long main title with the seed's own year printed stands in for it (resolve-13).
    authorless = (
        not seed.author_phrase and seed.year in ref.years and len(head.split()) >= th.AUTHORLESS_HEAD_WORDS
    )
    if (
        not authorless
        and ae.first_author(
            seed.author_phrase, seed.author_last, ref.words, ref.bounds, first, ref.dash_at, seed.plain
        ).verdict
        != "match"
    ):
        return None
    years = vy.variant_years(seed.year, ref.years, seed.arxiv_like, t.late_years)
    if not years or seed.info.arxiv_id in index.twins:
        return None
    entry = ref.entry
    if entry.arxiv_id and entry.arxiv_id != seed.info.arxiv_id and seed.arxiv_like:
        return None
    held = next((x for x in out if x.seed_id == seed.info.arxiv_id and x.method == "title"), None)
    full = held or index.score_pair(seed_i, "title", ref)
    if full.band == "accept":
        return None  # the whole title decides
    last = first + len(head.split()) - 1
    words = ref.words[first : last + 1]
    if (
        te.differing_marks(
            seed.marks,
            te.sequel_marks(words) | te.trailing_sequel(ref.words, ref.bounds, last),
        )
        - te.sequel_marks(head.split())
        or ee.edition_doubts(head.split(), seed.year, ref.words, ref.years, [words], last, t.late_years)
        or container_doubts(
            seed, ref, first, last, "unknown" if authorless else "match", books=index.thresholds.books
        )
        or pn.part_doubt(
            seed.info.title,
            ref.words,
            ref.bounds,
            first,
            last,
            ref.cased,
            own_title_before(ref, first),
        )
    ):
        return None
    agree = (
        f"the seed has no author; its year {seed.year} printed"
        if authorless
        else f"first author and year {years[0]} agree"
    )
    reason = f"the seed's main title printed as a field of its own, its subtitle left out; {agree}"
    return Match(
        seed.info.arxiv_id,
        "title",
        t.accept,
        "accept",
        full.title_score,
        "unknown" if authorless else "match",
        reason,
        [reason],
        first,
    )
