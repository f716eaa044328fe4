"""Where and how the seed title is printed: the title field and the layout around it.

Why a module of its own: every other piece of evidence reads the title's position (where the
author block ends, where a container starts, which sequel marks belong to the title), so it is
read once per pair, first. The field is the bibliographic field holding the best fuzzy
alignment of the seed title; the layout reads the raw string beside it (``title_evidence``): a
title printed verbatim but not closed by punctuation scores as printed, its own sequel marks (not
a volume or a page after it), a series position as a doubt.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass

from rapidfuzz import fuzz

from reflong.citations.evidence import author_evidence as ae
from reflong.citations.evidence import container_in as ci
from reflong.citations.evidence import editor_after as eda
from reflong.citations.evidence import title_evidence as te
from reflong.citations.records import Reference, Seed
from reflong.citations.thresholds import ALIGNMENT_CUTOFF


@dataclass
class Layout:
    """What the raw string's layout around the seed title says (``title_evidence``)."""

    score: float  # the title score after the layout evidence (the field's, or the verbatim run's)
    start: int  # first word of the title as printed (the author block is before it)
    marks: set[str]  # sequel/version marks of the title as printed in the reference
    notes: list[str]  # evidence that raised the score
    doubts: list[str]  # evidence that keeps the edge out of accept (container, series volume)
    first: int = 0  # first word of the title run as printed (where its layout is read)
    last: int = 0  # its last word
    short: bool = False  # a short seed title printed verbatim: accepted only with author and year
    prefix: str | None = None  # a name printed with a colon before the title run ("ID5:")
    field_score: float = 0.0  # the field's own score, before the run's layout raised it
    needs: str | None = None  # accepted only with the first author and the seed's year (resolve-13)


def title_field(seed: Seed, ref: Reference) -> tuple[float, int, str, int]:
    """The seed title's score against the reference field that holds its best alignment, the
    index of the field's first word (-1 if nothing aligned), the field itself, and the character where the fuzzy alignment starts (-1: none)."""
    if not ref.words or not seed.plain:
        return 0.0, -1, "", -1
    al = fuzz.partial_ratio_alignment(seed.plain, ref.plain, score_cutoff=ALIGNMENT_CUTOFF)
    if al is None:
        return 0.0, -1, "", -1
    best = field_at(seed, ref, al.dest_start, max(al.dest_end, al.dest_start + 1))
    if best[0] < 100.0:
        # The title may occur more than once (its own field, and inside a URL such as
        # ".../Training_language_models_to_follow_..."): the alignment finds one occurrence,
        # so every exact occurrence is scored too and the best field wins.
        at = ref.plain.find(seed.plain)
        while at >= 0:
            best = max(best, field_at(seed, ref, at, at + len(seed.plain)), key=lambda f: f[0])
            at = ref.plain.find(seed.plain, at + 1)
    return (*best, al.dest_start)


def field_at(seed: Seed, ref: Reference, lo: int, hi: int) -> tuple[float, int, str]:
    """The reference field around characters ``lo:hi`` of ``ref.plain``, scored against the seed."""
    first = max(0, bisect.bisect_right(ref.starts, lo) - 1)
    last = max(first, bisect.bisect_right(ref.starts, hi - 1) - 1)
    # The window has the seed's length, so a shorter (truncated, typo'd) title drags in a
    # sliver of the neighbouring word: drop edge words the window covers less than half of.
    if first < last and (ref.starts[first] + len(ref.words[first]) - lo) * 2 < len(ref.words[first]):
        first += 1
    if last > first and (hi - ref.starts[last]) * 2 < len(ref.words[last]):
        last -= 1
    while first > 0 and not ref.bounds[first - 1]:
        first -= 1
    while last < len(ref.words) - 1 and not ref.bounds[last]:
        last += 1
    span = " ".join(ref.words[first : last + 1])
    best = (fuzz.ratio(seed.plain, span), first, span)
    # A seed longer than the title as printed pulls the alignment over a boundary into the
    # next field ("The cascade-correlation architecture. In Touretzky ..."): each field the
    # alignment touches is scored on its own too, since a title is one field.
    lo_w = first
    for i in range(first, last + 1):
        if ref.bounds[i] or i == last:
            if lo_w > first or i < last:
                part = " ".join(ref.words[lo_w : i + 1])
                best = max(best, (fuzz.ratio(seed.plain, part), lo_w, part), key=lambda f: f[0])
            lo_w = i + 1
    return best


def layout(
    seed: Seed, ref: Reference, field: tuple[float, int, str, int], accept: float, books: bool = False
) -> Layout:
    """The raw string as evidence beside the field (``title_evidence``): a title printed
    verbatim but not closed by punctuation scores as printed; the title's own sequel marks
    (not a volume or page number after it); container and series positions as doubts."""
    score, start, _span, near = field
    # Near-verbatim runs are looked for only where the field falls short (cost: a few ratios).
    fuzzy = score < accept
    runs = (
        te.windows(seed.plain, seed.n_words, ref.words, ref.plain, ref.starts, near, fuzzy)
        if near >= 0
        else []
    )
    if not runs:
        return _field_layout(seed, ref, field)
    long_enough = seed.n_words >= te.MIN_VERBATIM_WORDS and len(seed.plain) >= te.MIN_VERBATIM_CHARS
    chosen, notes, short, prefix, needs = None, [], False, None, None
    if score < 100.0:
        cased = ref.cased
        for run in runs:
            if run.score <= score or not (long_enough or run.score == 100.0):
                continue
            # A title in capitals gives its case no say ("... PREDICTION IS ALL CONVOLUTIONAL").
            run_case = None if te.mostly_capitals(cased[run.first : run.last + 1] if cased else []) else cased
            before = te.before_is_not_title(ref.words, run_case, ref.colons, ref.bounds, run.first)
            if before is None and te.author_block_before(
                ref.words, ref.bounds, ref.colons, run.first, seed.author_last
            ):
                before = "an author block closed by a colon"
            if before is None:
                before = te.name_block_before(run_case, ref.bounds, run.first, seed.author_last)
            if before is None:
                before = ae.own_block_before(ref.words, ref.cased, ref.colons, ref.bounds, run.first)
            name = None
            if before is None and run.score == 100.0:
                name = te.name_prefix(ref.words, ref.cased, ref.colons, ref.bounds, run.first)
                before = f"the name prefix '{name}:'" if name else None
            after = te.after_is_not_title(
                ref.words, run_case, ref.colons, ref.bounds, run.last, ref.entry.raw
            )
            # The books profile's ends: "... in Quellen" (``container_in``), "... a cura di
            # L. Messedaglia" (``editor_after``).
            if books and after is None and run.score == 100.0 and seed.n_words >= ci.MIN_WORDS:
                after = ci.after(ref.words, run_case, ref.bounds, run.last)
            if books and after is None:
                after = eda.phrase_after(ref.words, run.last)
            # A near-verbatim run closed by boundaries on both sides is a field of its own:
            # the field's score decides it (the run exists for unclosed and glued fields).
            both_closed = before == after == te.BOUNDARY_NOTE
            if before and after and (run.score == 100.0 or not both_closed):
                chosen, short, prefix = run, not long_enough, name
                needs = ci.NEEDS if after == ci.NOTE else None
                notes.append(
                    f"title printed {'verbatim' if run.score == 100 else f'near-verbatim ({run.score:.1f})'}"
                    f" in the raw string, field score {score:.1f} (before it {before}, after it {after})"
                )
                break
    if chosen is None:
        # The run inside the field that scored (the field path): the first one in the field.
        inside = [r for r in runs if start <= r.first] or runs
        chosen = inside[0]
    else:
        score, start = chosen.score, chosen.first
    words = ref.words
    marks = te.sequel_marks(words[chosen.first : chosen.last + 1])
    marks |= te.trailing_sequel(words, ref.bounds, chosen.last)
    marks |= te.leading_sequel(words, ref.bounds, chosen.first)
    series = te.series_note(seed.plain.split(), words, ref.entry.raw, chosen.last)
    doubts = [series] if series else []
    field_score = field[0]
    return Layout(
        score, start, marks, notes, doubts, chosen.first, chosen.last, short, prefix, field_score, needs
    )


def _field_layout(seed: Seed, ref: Reference, field: tuple[float, int, str, int]) -> Layout:
    """The layout where no run of words carries the title nearly verbatim: the field decides,
    and the layout is read from where the fuzzy alignment starts."""
    score, start, span, near = field
    first = max(0, bisect.bisect_right(ref.starts, near) - 1) if near >= 0 else start
    last = min(first + max(0, len(span.split()) - 1), len(ref.words) - 1)
    # Sequel marks from the words the title aligns with, not the whole field: an
    # unclosed field runs on into the volume and pages ("... formalizm Uspehi Mat Nauk 30").
    marks = te.sequel_marks(span.split())
    if near >= 0 and start >= 0:
        # From the field's start (a name before the title, "M6: ...", is the title's) to
        # the end of the alignment.
        lo = max(first, start)
        hi = max(lo, min(lo + seed.n_words, start + len(span.split())) - 1)
        marks = te.sequel_marks(ref.words[start : hi + 1])
        marks |= te.trailing_sequel(ref.words, ref.bounds, hi)
    return Layout(score, start, marks, [], [], first, last)
