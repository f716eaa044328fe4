"""A number beside a Greek letter that one side drops or spells out: not a sequel (resolve-19).

Why this exists
---------------
The sequel rule (``title_evidence.sequel_marks``) rejects a title whose short number is printed
on one side only: "NimFlow 2" is not "NimFlow". In biomedicine the number belongs to a gene or a
protein name that carries a Greek letter ("β1 subunit", "PGC-1α", "IL-1β"), and PDF extraction or
the citer's typing changes the letter: dropped ("accessory 1 subunit" for "accessory β1
subunit"), spelled ("PGC-1alpha"), transliterated ("PGC-1a"), or bracketed by the record
("PGC-1[alpha]", folded to "pgc1 alpha"). The number then looks like a mark on one side only,
and the edge was rejected (PMC's fourth split).

The evidence that it is the same name, not another version, is the OTHER side's word at that
place: the same number with a Greek letter glued to it (or the Greek letter's name as the next
word). A bare number on both sides, or a different number, stays a sequel mark.
"""

from __future__ import annotations

import re

# Greek letters as printed, spelled, or transliterated to one Latin letter after a gene's number.
_GREEK_NAMES = (
    "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho "
    "sigma tau upsilon phi chi psi omega"
)
_NAMES = frozenset(_GREEK_NAMES.split())
_GREEK_CHARS = re.compile(r"[\u0370-\u03ff]")
_SUFFIX = re.compile(r"^(?P<mark>.*?\d{1,2})(?P<greek>[\u0370-\u03ff]|[a-z]+)$")
# One Latin letter standing for a Greek one after a number: "1a" (alpha), "1b" (beta), "3k".
_TRANSLITERATED = frozenset("abgdek")

NOTE = "number {marks} printed beside a Greek letter the other side drops or spells ('{word}')"


def _is_greek(mark: str, tail: str) -> bool:
    """A Greek letter, its name, or (only after a gene-like mark with letters, "pgc1a", never a
    bare "2a": a phase or a part) one Latin letter standing for it."""
    if _GREEK_CHARS.fullmatch(tail) or tail in _NAMES:
        return True
    return tail in _TRANSLITERATED and not mark.isdigit()


def greek_marks(marks: set[str], seed_words: list[str], ref_words: list[str]) -> dict[str, str]:
    """Of the marks printed on one side only, those the other side prints with a Greek letter:
    mark -> the word that carries it (for the edge's reason).

    A mark counts when the other side has a word that is the mark with a Greek letter glued
    ("pgc1α", "pgc1a", "pgc1alpha"), the mark followed by a Greek letter's name as the next word
    ("pgc1 alpha"), or a word that is the mark once its Greek letters are removed ("β1" for "1")."""
    found: dict[str, str] = {}
    sides = (seed_words, ref_words)
    for mark in marks:
        for words in sides:
            if mark in words:
                here = words
                break
        else:
            continue
        other = ref_words if here is seed_words else seed_words
        for i, word in enumerate(other):
            suffix = _SUFFIX.match(word)
            if suffix and suffix.group("mark") == mark and _is_greek(mark, suffix.group("greek")):
                found[mark] = word
            elif word == mark and i + 1 < len(other) and other[i + 1] in _NAMES:
                found[mark] = f"{word} {other[i + 1]}"
            elif _GREEK_CHARS.search(word) and _GREEK_CHARS.sub("", word) == mark:
                found[mark] = word
            if mark in found:
                break
    return found
