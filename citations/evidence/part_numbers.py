"""Which part of a numbered series or a multi-volume work a title names.

Why this exists
---------------
Series of papers share one title and number their parts ("Swanton MT ... (1980) Arrangement of
coding and non-coding sequences ... DNA of ciliated protozoa. VII. Chromosoma 77"), and books
in several volumes number them in the language they are printed in ("Los peces marinos de
Venezuela. Volumen I", "Band 2", "Tome III", "Tomo I", "Teil 3", "Parte II", "Libro I"). The
title score cannot tell the parts apart: the series' title is printed verbatim in every part,
and a seed's "Volumen I" left out of an entry only lowers the score into the variant band. The
sequel marks (``title_evidence.sequel_marks``) read only "ii" to "iv" as roman numerals, since
"i", "v" and "x" are words and letters too.

So a numeral counts here only where it stands as a part number: after a volume or part word, or
as a field of its own right after the title ("protozoa. VII. Chromosoma", and a seed title
ending ". VII"). The part the seed names is compared with the part the entry prints with the
title; each difference is a sentence for the edge, and it holds the edge back from accept (a
person decides; never a reject, a misprint stays possible):

- the entry names another part than the seed's ("Volumen II" for a seed "Volumen I");
- the seed names a part and the entry prints the title without it (which part is cited is
  then not said);
- the entry prints a part number the seed title lacks, after a title of the entry's own: the
  seed's title then stands where a series' name stands, and the entry is one numbered part of
  the series ("Arrangement of ... in Oxytricha sp. DNA of ciliated protozoa. VII."). Printed
  right after the entry's authors, a volume or part the seed lacks ("Storia documentata di
  Venezia, VI, Venezia"; "parte III"; "Teilband 3") is a volume of the seed's own work, and
  the labelled sets count it as the work (LinkedBooks and the older set: 18 such entries).
"""

from __future__ import annotations

import re
from functools import lru_cache

from reflong.citations.fields.normalize import words_with_boundaries

# Words that number a volume of a multi-volume work, folded as ``normalize.norm`` leaves them.
_VOLUME_TEXT = """
    vol vols volume volumes volumen volumenes volume band bd tome tomes tomo tomos tom tomus libro
    livre book heft fasc fascicolo fascicule deel
    """
VOLUME_WORDS = frozenset(_VOLUME_TEXT.split())
# Words that number a part of a work or of a series of papers.
PART_WORDS = frozenset({"part", "parts", "parte", "partie", "pt", "teil", "teilband", "pars"})
NUMBER_WORDS = VOLUME_WORDS | PART_WORDS
_ROMAN = re.compile(r"^(?=[ivx])x{0,3}(?:ix|iv|v?i{0,3})$")  # "l" left out: "Li" is a surname
_ROMAN_VALUES = {"i": 1, "v": 5, "x": 10}


def numeral(token: str) -> int | None:
    """The value of a part number as printed: 1-3 digits or a roman numeral up to 39."""
    if token.isdigit() and len(token) <= 3:
        return int(token)
    if not _ROMAN.match(token):
        return None
    total = 0
    for a, b in zip(token, token[1:] + " ", strict=True):
        v = _ROMAN_VALUES[a]
        total += -v if b != " " and _ROMAN_VALUES[b] > v else v
    return total


def _numbered(words: list[str], i: int) -> tuple[int, str] | None:
    """A volume or part word at ``i`` followed by its number ("volumen i", "teil 3"), or the
    number then the word ("3 teil"): (value, the word)."""
    if words[i] not in NUMBER_WORDS and not (
        words[i] == "v" and i + 1 < len(words) and words[i + 1].isdigit()
    ):
        return None  # "v. 1" is a volume, not the numeral five
    if i + 1 < len(words) and (value := numeral(words[i + 1])) is not None:
        if i + 2 < len(words) and words[i + 2] == "of":
            return None  # "vol. 4 of <series>": the title before it is the book itself
        return value, words[i]
    return None


def _numeral_field(
    words: list[str], bounds: list[bool], i: int, cased: list[str] | None = None
) -> int | None:
    """A roman numeral printed as a field of its own at ``i`` (a boundary before and after it,
    or the end): "protozoa. VII. Chromosoma". Digits are left out: a volume or a page number
    stands alone in many styles. With the printed case (``cased``), a numeral of two letters or
    more must be printed in capitals or in lower case: "Xi", "Vi" are surnames."""
    if i <= 0 or i >= len(words) or not bounds[i - 1] or not _ROMAN.match(words[i]):
        return None
    if cased is not None and len(cased[i]) > 1 and not (cased[i].isupper() or cased[i].islower()):
        return None
    if i < len(words) - 1 and not bounds[i]:
        return None
    return numeral(words[i])


@lru_cache(maxsize=65536)
def title_part(title: str) -> tuple[int, str] | None:
    """The part a seed title names: (its number, how: a volume or part word, or "numeral" for
    a numeral field closing the title: "DNA of ciliated protozoa. VII"), or None."""
    words, bounds = words_with_boundaries(title)
    for i in range(len(words)):
        found = _numbered(words, i)
        if found:
            return found
    last = len(words) - 1
    value = _numeral_field(words, bounds, last) if last > 0 else None
    return (value, "numeral") if value is not None else None


def printed_part(
    words: list[str], bounds: list[bool], first: int, last: int, cased: list[str] | None = None
) -> tuple[int, str] | None:
    """The part an entry prints with its title run (words ``first..last``): a volume or part
    word with its number inside the run or right after it, or a numeral field of its own
    closing the run or right after it: (its number, how), or None."""
    stop = min(len(words), last + 2)
    for i in range(max(0, first), stop):
        found = _numbered(words, i)
        if found:
            return found
    for i in (last, last + 1):
        if i > first:
            value = _numeral_field(words, bounds, i, cased)
            if value is not None:
                return value, "numeral"
    return None


def part_doubt(
    seed_title: str,
    words: list[str],
    bounds: list[bool],
    first: int,
    last: int,
    cased: list[str] | None = None,
    own_title_first: bool = False,
) -> str | None:
    """Why the entry may cite another part than the seed (a sentence for the edge), or None.
    ``first``/``last``: the title run as the entry prints it; ``cased``: its words as printed;
    ``own_title_first``: a title-like field of the entry's own is printed before the run."""
    ours = title_part(seed_title)
    theirs = printed_part(words, bounds, first, last, cased)
    if ours is None and theirs is None:
        return None
    if ours is not None and theirs is not None:
        if ours[0] == theirs[0]:
            return None
        return f"the reference names part {theirs[0]} ('{theirs[1]}'), the seed part {ours[0]}"
    if ours is not None:
        # The seed's number printed anywhere close after the title ("Genera Orchidacearum 6:
        # Epidendroideae") still names it.
        after = words[max(0, first) : min(len(words), last + 4)]
        if any(numeral(w) == ours[0] for w in after):
            return None
        return f"the seed is part {ours[0]} of a series or a set, and the reference names no part"
    assert theirs is not None
    if not own_title_first:
        # "ROMANIN Samuele, Storia documentata di Venezia, VI, Venezia", "..., parte III, Venezia
        # 1888-92", "Band E20 ..., Teilband 3": a volume or part of the seed's own work, which the
        # labelled sets count as the work (LinkedBooks: 17 such entries, all the seed).
        return None
    return (
        f"the reference names part {theirs[0]} after the title, which the seed title does not number, "
        "and prints a title of its own before it (one part of a numbered series)"
    )
