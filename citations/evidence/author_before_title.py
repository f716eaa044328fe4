"""A seed title printed word for word right after its first author's name, the seed's year printed.

Why this exists
---------------
Humanities footnotes print the author and the title without the punctuation a parser keys on:
"C. Tentori nel suo Della legislazione veneziana sulla preservazione della laguna, Venezia, 1792"
(the author's name, then "in his", then the title), "B. Paolo Giustiniani: Trat-tati lettere e
frammenti, Roma 1961" (a colon the parser reads as part of the field), "Carrano Francesco: Della
dife-sa di Venezia negli anni 1848-1849 Genova, 1850". The title field then starts at the name and
scores under the accept line (75-88), although three independent facts agree: the seed's whole
title printed word for word, the seed's first author named right before it, the seed's year
printed. resolve-16 sent these to review (LinkedBooks' second test split).

The rule is narrow on purpose: a title of four words or more (a shorter one is too often the head
of a longer title), its end closed by a field boundary, a year, or a capitalised place and a
year ("... 1848-1849 Genova, 1850"); the surname the word right before it, or before at most two
lower-case words ("nel suo", "in his"); the seed's own year printed exactly. A seed without a
year (old books in the LinkedBooks lists: "Ludovici Tuberonis De Turearum origine, moribus et
rebus gestis commentarius, Florentiae 1590") needs a title of six words or more instead, and the
edge says the year could not be checked. Anything else keeps the field's score.

Profile: runs with ``--profile books`` only; switched off, it changes no decision on any labelled
set but LinkedBooks' (docs/parse-and-citations.md, "Profiles").
"""

from __future__ import annotations

MIN_WORDS = 4
MIN_WORDS_NO_YEAR = 6  # a seed without a year: a longer title stands in for the year's check
MAX_LINK_WORDS = 2  # lower-case words between the name and the title ("nel suo")


def _runs(words: list[str], title: list[str]) -> list[int]:
    n = len(title)
    return [p for p in range(len(words) - n + 1) if words[p : p + n] == title]


def _closed(words: list[str], bounds: list[bool], cased: list[str] | None, last: int) -> bool:
    """The title's run ends where a field ends, a year follows, or a place then a year."""
    if last + 1 >= len(words) or bounds[last] or words[last + 1].isdigit():
        return True
    nxt = last + 1
    capital = cased is not None and cased[nxt][:1].isupper()
    return capital and (bounds[nxt] or (nxt + 1 < len(words) and words[nxt + 1].isdigit()))


def evidence(
    seed_plain: str,
    seed_last: str,
    seed_year: int | None,
    words: list[str],
    bounds: list[bool],
    cased: list[str] | None,
    years: list[int],
) -> str | None:
    """The sentence for the edge when the rule holds, else None."""
    title = seed_plain.split()
    if not seed_last or len(title) < (MIN_WORDS if seed_year is not None else MIN_WORDS_NO_YEAR):
        return None
    if seed_year is not None and seed_year not in years:
        return None
    year = (
        f"the seed's year {seed_year} printed" if seed_year is not None else "the seed has no year to check"
    )
    for p in _runs(words, title):
        if not _closed(words, bounds, cased, p + len(title) - 1):
            continue
        j, links = p - 1, 0
        while j >= 0 and links <= MAX_LINK_WORDS:
            if words[j] == seed_last:
                between = f" {' '.join(words[j + 1 : p])}" if links else ""
                return (
                    f"the seed title printed word for word right after its first author "
                    f"('{words[j]}{between}'), {year}"
                )
            if bounds[j] or cased is None or not cased[j].isalpha() or not cased[j][0].islower():
                break
            j, links = j - 1, links + 1
    return None
