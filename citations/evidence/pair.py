"""The readings of one (reference, seed) pair that every evidence module shares.

Why a module of its own: the title's place in the string, the first-author verdict and the years
are read once per pair and then weighed by many modules (a sequel mark, an earlier version, a
variant title all ask whether the first author and a year agree). Reading them here, in one
order, is what lets each evidence module be a small function of the pair. What the readings say
along the way (the layout's notes, the author's note, a short title's layout) is evidence too:
``Pair.evidence`` holds it, in the order it was read.

Order matters only here: the author verdict is settled before anything reads it (a ditto takes
the entry before's authors; an OCR letter off, or the seed's whole title right after its first
author, makes it a match), and a name prefix printed without the seed's author and year sends
the title back to its field's score before any module weighs the title.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from reflong.citations.evidence import author_before_title as abt
from reflong.citations.evidence import author_evidence as ae
from reflong.citations.evidence import colon_authors as ca
from reflong.citations.evidence import last_word as lw
from reflong.citations.evidence import ocr_author as oa
from reflong.citations.evidence import short_title_first as sf
from reflong.citations.evidence import title_after_names as tan
from reflong.citations.evidence import title_evidence as te
from reflong.citations.evidence import variant_years as vy
from reflong.citations.evidence.base import Evidence, Strength, doubt, note, raise_
from reflong.citations.evidence.ditto_author import ditto_author, ditto_short_title
from reflong.citations.evidence.title_layout import Layout, layout, title_field
from reflong.citations.records import Reference, Seed
from reflong.citations.thresholds import Thresholds


@dataclass
class Pair:
    """One reference against one seed: what the evidence modules read."""

    seed: Seed
    ref: Reference
    t: Thresholds
    field: tuple[float, int, str, int]  # the title field: score, first word, span, alignment char
    lay: Layout
    title_score: float  # the title's score as printed (the field's, or the verbatim run's)
    author: str = "unknown"  # match | mismatch | unknown: the first-author verdict, settled
    ditto_short: str | None = None  # a short title of an entry without usable authors, on layout
    short_first: str | None = None  # ``short_title_first``: the title and a locator only
    marks: set[str] = field(default_factory=set)  # the title's sequel marks as printed
    twins: Sequence[tuple[str, str, str]] = ()  # other arXiv papers with the seed's title
    evidence: list[Evidence] = field(default_factory=list)  # what the readings said, in order

    @property
    def year_agrees(self) -> bool:
        """A printed year from the year before the seed's to ``late_years`` after it."""
        year = self.seed.year
        return bool(year) and any(year - 1 <= y <= year + self.t.late_years for y in self.ref.years)

    @property
    def near_years(self) -> list[int]:
        """Printed years near the seed's (``variant_years``)."""
        return vy.variant_years(self.seed.year, self.ref.years, self.seed.arxiv_like, self.t.late_years)

    @property
    def printed_title(self) -> list[str]:
        """The title field's words (empty when nothing aligned)."""
        return self.field[2].split() if self.field[1] >= 0 else []

    @property
    def run(self) -> list[str]:
        """The words of the title run as printed."""
        return self.ref.words[self.lay.first : self.lay.last + 1]


def read_pair(
    seed: Seed,
    ref: Reference,
    t: Thresholds,
    titled: Callable[[str], int],
    twins: Mapping[str, Sequence[tuple[str, str, str]]],
) -> Pair:
    """The pair's readings, in the order the module doc gives. ``titled(plain)``: how many seeds
    carry that folded title; ``twins``: seed id -> other arXiv papers with its title."""
    field_ = title_field(seed, ref)
    lay = layout(seed, ref, field_, t.accept, t.books)
    pair = Pair(
        seed, ref, t, field_, lay, lay.score, marks=lay.marks, twins=twins.get(seed.info.arxiv_id, ())
    )
    pair.evidence += [note("title_layout", n) for n in lay.notes]
    pair.evidence += [doubt("title_layout", d) for d in lay.doubts]
    _read_author(pair)
    pair.short_first = _read_short_first(pair, titled)
    _read_printed_title(pair)
    return pair


def read_author_before_title(pair: Pair) -> None:
    """The whole seed title right after its first author's name, the seed's year printed ("C.
    Tentori nel suo Della legislazione ..., 1792": ``author_before_title``): the author is named
    and the title accepted. Read after the id match is decided, before any title evidence; the
    books profile only (a humanities footnote's phrasing)."""
    seed, ref, t = pair.seed, pair.ref, pair.t
    if not t.books or pair.title_score >= t.accept or pair.author == "mismatch" or ref.ditto:
        return
    named = abt.evidence(seed.plain, seed.author_last, seed.year, ref.words, ref.bounds, ref.cased, ref.years)
    if named:
        pair.author = "match"
        pair.evidence.append(raise_("author_before_title", named))


def _read_author(pair: Pair) -> None:
    """The first-author verdict, settled: the author block, an OCR letter off, a colon-closed
    list, a ditto's inherited authors, a short title of an entry without usable authors."""
    seed, ref, start = pair.seed, pair.ref, pair.lay.start
    found = ae.first_author(
        seed.author_phrase, seed.author_last, ref.words, ref.bounds, start, ref.dash_at, seed.plain
    )
    pair.author = found.verdict
    if found.note:
        pair.evidence.append(note("first_author", found.note))
    if pair.t.books and pair.author == "mismatch" and start > 0 and f" {seed.plain} " in f" {ref.plain} ":
        # The title printed word for word and the seed's surname one OCR letter off ("Juoie" for
        # Jugie): the same author as the scan printed it (``ocr_author``; OCR'd books only).
        printed = oa.variant(seed.author_last, ref.words[:start])
        if printed:
            pair.author = "match"
            pair.evidence.append(note("ocr_author", oa.NOTE.format(printed=printed, seed=seed.author_last)))
    if tan.colon_closes_names(ref.colon_list_end, start):
        pair.evidence.append(note("colon_authors", ca.note(ref.entry.raw)))
    if ref.ditto:
        notes: list[str] = []
        pair.author = ditto_author(seed, ref, start, pair.author, notes)
        pair.evidence += [note("ditto", n) for n in notes]
        if pair.author != "match":
            pair.ditto_short = ditto_short_title(seed, ref, pair.field)
    elif not seed.author_phrase and ditto_short_title(seed, ref, pair.field):
        # No author to look for: the same strong layout a ditto without authors needs.
        pair.ditto_short = ae.no_author_short_title(ref.words, start, seed.year)
    if pair.ditto_short:
        pair.evidence.append(note("ditto", pair.ditto_short))


def _read_short_first(pair: Pair, titled: Callable[[str], int]) -> str | None:
    """A footnote's short form, the title and a locator only (``short_title_first``): read only
    where the title alone would not be accepted, so other edges keep their reasons; the books
    profile only."""
    seed, ref, t, author = pair.seed, pair.ref, pair.t, pair.author
    held = (
        pair.title_score < t.accept
        or (pair.lay.short and not (author == "match" and pair.year_agrees))
        or (author == "unknown" and seed.n_words <= 2)
    )
    if not held or seed.n_words > 3 or not t.books:
        return None
    if author == "unknown":
        return sf.evidence(
            seed.plain, seed.year, ref.entry.raw, titled, authorless=not seed.author_phrase, ditto=ref.ditto
        )
    if author == "match" and not ref.ditto:
        return sf.after_author(seed.plain, seed.year, ref.entry.raw, titled, seed.author_last)
    return None


def _read_printed_title(pair: Pair) -> None:
    """How the title as printed differs from the seed's: a short token extended into another, a
    changed last word, a short title printed verbatim, a title closed only by "in" and its
    container, a name prefix the seed title leaves out."""
    seed, ref, t, lay, author = pair.seed, pair.ref, pair.t, pair.lay, pair.author
    if min(t.variant, t.accept) <= pair.title_score < 100.0:
        ours = seed.plain.split()
        # "UTRAN Iu" for "UTRAN Iub": another name, not a typo; a person decides.
        extended = te.extended_tokens(ours, pair.printed_title, ref.entry.raw) or te.extended_tokens(
            ours, pair.run, ref.entry.raw
        )
        if extended:
            seed_tok, ref_tok = extended[0]
            why = f"'{ref_tok}' printed where the seed title has '{seed_tok}' (a short token is a name, not a typo)"
            pair.evidence.append(doubt("extended_token", why))
        changed = lw.changed_last_word(ours, pair.printed_title, ref.wordset) or lw.changed_last_word(
            ours, pair.run, ref.wordset
        )
        if changed and author == "match" and pair.near_years:
            # "Instance-based learning methods" for "... algorithms" by Aha, 1991: misquoted.
            pair.evidence.append(note("last_word", lw.note(changed) + "; first author and year agree"))
        elif changed:
            pair.evidence.append(doubt("last_word", lw.note(changed)))  # "... in soil" for "... in sludge"
    agreed = author == "match" and pair.year_agrees
    if lay.short and not pair.short_first:
        if agreed:
            pair.evidence.append(
                note("short_title", "a short title printed verbatim; first author and year agree")
            )
        else:
            why = "a short title printed verbatim, without the seed's first author and year"
            pair.evidence.append(doubt("short_title", why))
    if lay.needs and not (author == "match" and seed.year in ref.years):
        pair.evidence.append(doubt("container_in", lay.needs))  # the seed's own year, exactly
    if lay.prefix:
        _read_name_prefix(pair, agreed)


def _read_name_prefix(pair: Pair, agreed: bool) -> None:
    """A name printed with a colon before the title run ("ID5: An incremental ID3" for "An
    incremental ID3"): the name of the system the work introduces, printed by one citer and left
    out by another, with the first author and year; without them the name may be another system
    built on the seed's, so the field decides, as if the run had not been read."""
    lay = pair.lay
    if agreed:
        pair.marks.discard(lay.prefix.lower())
        why = f"printed with the name prefix '{lay.prefix}:' the seed title leaves out; first author and year agree"
        pair.evidence.append(note("name_prefix", why))
        return
    pair.title_score = lay.field_score
    why = (
        f"printed with the name prefix '{lay.prefix}:', without the seed's first author and year: "
        f"field score {lay.field_score:.1f}"
    )
    # The run's readings no longer stand: only what the field says, and the doubts, remain.
    pair.evidence = [e for e in pair.evidence if e.strength is Strength.DOUBT] + [note("name_prefix", why)]
