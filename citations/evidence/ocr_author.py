"""The seed's first author printed as OCR mangled it ("Gessi" for Cessi, "Juoie" for Jugie) (resolve-16).

Why this exists
---------------
LinkedBooks' strings are OCR of printed footnotes. The first author's surname is sometimes read
one letter off ("M. Juoie, Le schisme byzantin..": Jugie; "Gessi (Venezia ducale, ...)": Cessi;
"RlGONI" for Rigoni) or cut by a smudge ("Castagne ™ A., Il primo comune": Castagnetti). The
author rule then read another person and held the edge back ("first author not found": 12 of
resolve-15's misses on ``citation_fresh_test``).

Italian surnames that differ by one letter are often different people (Rossi, Rosso), so a near
name alone is no evidence. It counts as the seed's author only together with the seed title
printed verbatim (``resolve.py`` checks that), and only in these forms:

- one edit (Levenshtein 1) from a surname of at least 5 letters, the first letters equal or a
  known OCR confusion (C/G, l/I, e/c);
- a cut: the printed word is the first 6 or more letters of the surname, at least 60% of it.

A name two edits away ("Castagneto" for Castagnetti) or in another alphabet (Greek OCR) stays a
mismatch. The edge's reason names the printed word and the seed's surname.

Profile: in the pair readings it runs with ``--profile books`` only (switched off there, it changes
no decision on any labelled set but LinkedBooks'); the scan agreement's check of the author printed
before a title (``second_readings/scan``) reads it under every profile.
"""

from __future__ import annotations

from rapidfuzz.distance import Levenshtein

NOTE = (
    "'{printed}' printed where the seed's first author is '{seed}' (an OCR misreading, one letter off or cut)"
)

_FIRST_LETTER_OCR = frozenset({("c", "g"), ("g", "c"), ("l", "i"), ("i", "l"), ("e", "c"), ("c", "e")})
MIN_SURNAME = 5
MIN_CUT = 6


def variant(surname: str, block: list[str]) -> str | None:
    """The word of the author ``block`` (folded words before the title) that is an OCR variant of
    the seed's folded ``surname`` in one of the forms above, or None."""
    if len(surname) < MIN_SURNAME or not surname.isalpha():
        return None
    for word in block:
        if not word.isalpha() or word == surname:
            continue
        if len(word) >= MIN_CUT and surname.startswith(word) and len(word) >= 0.6 * len(surname):
            return word
        if len(word) < MIN_SURNAME or Levenshtein.distance(word, surname) != 1:
            continue
        if word[0] == surname[0] or (word[0], surname[0]) in _FIRST_LETTER_OCR:
            return word
    return None
