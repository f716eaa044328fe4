"""A version or sequel number on one side only: another work ("NimFlow 2" is not "NimFlow").

Why one module: the marks that differ between the seed title and the title as printed are first
cleared of what only looks like a sequel number (a number glued to the next word, "MEGA 4" for
"MEGA4", a nucleic-acid locant, a Greek letter spelt out, an OCR "1" for "l"), of a name the
citer left out ("DS14: ..."), and of an edition mark another edition shares; what remains names
another work, however close the rest. Not a veto over the late rules: a subtitle's head read on
its own (``title_heads``) may show that the mark was the container's ("InterCHI93").
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from reflong.citations.evidence import edition_left_out as el
from reflong.citations.evidence import greek_marks as gm
from reflong.citations.evidence import seed_prefix as sp
from reflong.citations.evidence import sequel_lookalikes as sl
from reflong.citations.evidence import title_evidence as te
from reflong.citations.evidence.base import Evidence, doubt, note, reject

if TYPE_CHECKING:
    from reflong.citations.evidence.pair import Pair


def read(pair: Pair, provisional: float) -> list[Evidence]:
    seed, ref = pair.seed, pair.ref
    sequel = te.differing_marks(seed.marks, pair.marks)
    if not sequel:
        return []
    out, sequel = _lookalikes(pair, sequel)
    prefix = sp.left_out(seed.info.title, sequel, ref.words) if sequel else None
    if prefix:
        sequel = set()
        if pair.author == "match" and pair.near_years:
            out.append(note("seed_prefix", sp.LEFT_OUT.format(name=prefix) + "; first author and year agree"))
        else:
            why = sp.LEFT_OUT.format(name=prefix) + ", without the seed's first author and year"
            out.append(doubt("seed_prefix", why))
    edition = el.left_out(seed.info.title, sequel, ref.words) if sequel else None
    if edition:
        # "... guidelines (8th edition)": another edition has the same title; the seed's own year decides.
        sequel = set()
        if seed.year is not None and seed.year in ref.years:
            out.append(
                note(
                    "edition_left_out",
                    el.LEFT_OUT.format(mark=edition) + f"; the seed's year {seed.year} printed",
                )
            )
        else:
            out.append(
                doubt("edition_left_out", el.LEFT_OUT.format(mark=edition) + ", without the seed's year")
            )
    if sequel:
        out.append(reject("sequel", f"sequel/version number differs ({', '.join(sorted(sequel))})"))
    return out


def _lookalikes(pair: Pair, sequel: set[str]) -> tuple[list[Evidence], set[str]]:
    """The differing marks that only look like sequel numbers, said, and the marks left."""
    seed_words, words = pair.seed.plain.split(), pair.ref.words
    out: list[Evidence] = []
    spaced = te.glued_numbers(sequel, seed_words, words)
    if spaced:
        out.append(
            note(
                "sequel_lookalikes", f"number {', '.join(sorted(spaced))} printed glued to the word after it"
            )
        )
        sequel = sequel - spaced
    named = sl.spaced_names(sequel, seed_words, words)
    if named:
        why = sl.SPACED_NOTE.format(forms="glued and spaced", marks=", ".join(sorted(named)))
        out.append(note("sequel_lookalikes", why))
        sequel = sequel - named
    locants = sl.locant_numbers(sequel, pair.seed.info.title, pair.ref.entry.raw) if sequel else set()
    if locants:
        out.append(note("sequel_lookalikes", sl.LOCANT_NOTE.format(marks=", ".join(sorted(locants)))))
        sequel = sequel - locants
    greek = gm.greek_marks(sequel, seed_words, words) if sequel else {}
    if greek:
        why = gm.NOTE.format(marks=", ".join(sorted(greek)), word=", ".join(greek[k] for k in sorted(greek)))
        out.append(note("greek_marks", why))
        sequel = sequel - set(greek)
    misread = te.misread_numerals(seed_words, pair.run, sequel)
    if misread:
        why = f"'{', '.join(sorted(misread))}' printed where the seed title has a word with 'l' (OCR)"
        out.append(note("sequel_lookalikes", why))
        sequel = sequel - misread
    return out, sequel
