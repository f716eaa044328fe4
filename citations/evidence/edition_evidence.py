"""Which printing of a title a reference cites: years, editions, parts and dates in the title.

Why this exists
---------------
A seed is one printing of a work: one year, one volume, one edition. Humanities bibliographies
cite the same bare title in many printings ("Origine delle feste veneziane", Venezia 1817 and
Venezia 1916; "Venetia città nobilissima et singolare" 1604 and 1663; "Ravenna. Hauptstadt des
spätantiken Abendlandes" 1969 and its "Kommentar 3. Teil" of 1989), and chronicles or
proceedings whose titles differ only in a date ("Cronaca veneta (origini-1495)" and "(origini-
1433)"). The title score cannot tell them apart: it is 100 for every printing. The entry's own
evidence can, and each finding here comes back as a sentence the resolver stores on the edge.

- ``printed_years``: the years an entry prints. Years before 1900 count too ("Venezia 1663",
  "Paris 1843"): ``entry_parse.find_years`` reads only 19xx/20xx (a page number such as 1735 is
  common in modern references), so an old year is read only where no modern year is printed,
  and never after a page marker ("p. 1337", "pp. 1801-1810").
- ``later_printing``: every printed year well after the seed's, none near it: another edition.
- ``title_dates_differ``: a number of three digits or more (a year, a date range's end) of the
  seed title printed as another number at the same place ("1829" for "1825"): another volume or
  chronicle, or a misprint, so a person decides.
- ``part_mark``: a volume, part or edition number printed after the title ("Kommentar 3. Teil",
  "iv edizione", "2nd ed.") that the seed title does not carry.
"""

from __future__ import annotations

import re
from difflib import SequenceMatcher

from reflong.citations.fields.entry_parse import find_years

OLD_YEAR_FIRST = 1450  # printed books; below this a four-digit number is a page or a shelf mark
_OLD_YEAR = re.compile(r"(?<![\d./])(1[4-8]\d\d)(?!\d|\.\d)")
# "p. 1337", "pp. 1801-1810", "col. 1456", "n. 1620", "nr. 1500", "pages 1715-1725": numbers, not years.
_PAGES = re.compile(
    r"(?i)\b(?:pp?|pages?|coll?|cols?|nn?|nos?|nr|fol|ff|cod|codd|ms|mss|vol|voll)\.?\s*"
    r"\d+(?:\s*[-\u2013/]\s*\d+)?"
)

FAR_AFTER_YEARS = 10  # a journal version follows its preprint by a few years, not by a decade
REPRINT_YEARS = 40  # more than a generation later: a reprint or a new edition, whoever cites it


def printed_years(raw: str) -> list[int]:
    """The years a reference prints: 19xx/20xx as ``find_years`` reads them, then the years
    1450-1899 outside page, column, number and shelf-mark positions ("Venezia 1663", "Roma
    1882-1948"). An old number read as a year only ever adds a year: the rules that read the
    latest year (``predates``) see a modern one first wherever one is printed."""
    text = _PAGES.sub(" ", raw)
    old = [int(y) for y in _OLD_YEAR.findall(text) if int(y) >= OLD_YEAR_FIRST]
    return find_years(raw) + old


def year_printed(seed_year: int | None, years: list[int], late: int) -> bool:
    """Whether the entry prints the seed's year (from a year before it to ``late`` after)."""
    return bool(seed_year) and any(seed_year - 1 <= y <= seed_year + late for y in years)  # type: ignore[operator]


MODERN = 1900  # find_years reads years from here on


def predates(seed_year: int | None, years: list[int], author: str) -> bool:
    """Whether every printed year is before the seed's (by more than one year). Years read only
    from the old range (no modern year printed) count only where the first author is unknown
    (no seed author, or no author block): old works are cited by their first printing's year
    and by a modern edition's, and a named author is the better evidence of the work then."""
    if not seed_year or not years or max(years) >= seed_year - 1:
        return False
    return max(years) >= MODERN or author == "unknown"


def later_printing(
    seed_year: int | None, years: list[int], near_after: int, seed_title: str = ""
) -> int | None:
    """The earliest printed year when every printed year is more than ``FAR_AFTER_YEARS`` after
    the seed's (none from a year before it to ``near_after`` after it); else None. A range
    printed for a multi-volume work ("1817-1827", "1905-1934") counts from its first year."""
    if not seed_year or not years:
        return None
    if any(str(seed_year) in run for run in _DIGITS.findall(seed_title)):
        return None  # the seed's year is a date its title names ("Venezia 1847-1848"): no printing
    if any(seed_year - 1 <= y <= seed_year + max(near_after, FAR_AFTER_YEARS) for y in years):
        return None
    first = min(years)
    return first if first > seed_year + FAR_AFTER_YEARS else None


_DIGITS = re.compile(r"\d{3,}")


def _date_key(token: str) -> tuple[str, tuple[str, ...]] | None:
    """A token holding a date ("1825", "origini1433" from "origini-1433", "14741797" from
    "1474-1797"; hyphens are deleted by ``normalize``): its letters and its digit runs."""
    digits = tuple(_DIGITS.findall(token))
    return (re.sub(r"\d", "", token), digits) if digits else None


def title_dates_differ(seed_words: list[str], printed: list[str]) -> tuple[str, str] | None:
    """A date of the seed title printed as another date at the same place of the title (the
    same letters around it): (seed's token, printed token), or None."""
    if not any(_DIGITS.search(w) for w in seed_words):
        return None
    ops = SequenceMatcher(None, seed_words, printed, autojunk=False).get_opcodes()
    for tag, i1, i2, j1, j2 in ops:
        if tag != "replace":
            continue
        for a in seed_words[i1:i2]:
            ka = _date_key(a)
            for b in printed[j1:j2]:
                kb = _date_key(b)
                if ka and kb and ka[0] == kb[0] and ka[1] != kb[1]:
                    return a, b
    return None


# A part, volume or edition number after the title: "3. Teil", "Teil 3", "iv edizione",
# "2nd ed.", "4. Auflage", "t. 3". Words as ``normalize.norm`` leaves them (lower case, no dots).
_PART_TEXT = (
    "teil teilband band bd tomo tome tom t vol voll vols volume volumes part parte pt libro book "
    "livre heft fasc fascicolo"
)
_PART_WORDS = frozenset(_PART_TEXT.split())
_EDITION_TEXT = "ed edn edition edizione ediz auflage aufl edicion edicao"
_EDITION_WORDS = frozenset(_EDITION_TEXT.split())
_NUMBER = re.compile(r"^(?:\d{1,2}|[ivx]{1,5}|\d{1,2}(?:st|nd|rd|th|a|o|e))$")


def part_mark(words: list[str], after: int, seed_words: list[str], window: int = 8) -> str | None:
    """A part, volume or edition number printed within ``window`` words after word ``after``
    (the title's last word) that the seed title does not carry: "3 teil", "iv edizione",
    "2nd ed", "t 3". Returns the words as printed (normalised), or None."""
    seed = set(seed_words)
    stop = min(len(words), after + 1 + window)
    for i in range(after + 1, stop):
        w = words[i]
        if w not in _PART_WORDS and w not in _EDITION_WORDS:
            continue
        for j in (i - 1, i + 1):
            if after < j < len(words) and _NUMBER.match(words[j]):
                mark = " ".join(words[min(i, j) : max(i, j) + 1])
                if not (words[j] in seed and w in seed):
                    return mark
    return None


def edition_doubts(
    seed_words: list[str],
    seed_year: int | None,
    words: list[str],
    years: list[int],
    printed: list[list[str]],
    last: int,
    near_after: int,
) -> list[str]:
    """Why the entry may cite another printing of the seed's title (each a sentence for the
    edge's reason), from the entry's own evidence:

    - a date of the title printed as another date (``title_dates_differ``, in any of the
      ``printed`` forms of the title: the field, the verbatim run);
    - every printed year more than ``FAR_AFTER_YEARS`` after the seed's (``later_printing``)
      together with a second fact: more than ``REPRINT_YEARS`` later (a reprint or a new
      edition), or a part, volume or edition number after the title (``part_mark``) that the
      seed title lacks, or a seed printed before 1900 (no preprint or journal version follows
      a book of then by a decade; resolve-13). For a modern seed a decade alone is not enough:
      a translation or a late journal version
      of the same work is printed that late too; nor is another first author with it (the
      same bare title printed 37 years later by another author was one work in the labels of
      tests/data/real/citation_styles)."""
    out = []
    for form in printed:
        dates = title_dates_differ(seed_words, form)
        if dates:
            out.append(f"the title prints the date '{dates[1]}' where the seed's has '{dates[0]}'")
            break
    later = later_printing(seed_year, years, near_after, " ".join(seed_words))
    if later is not None and seed_year:
        gap = later - seed_year
        why = f"printed year {later} is {gap} years after the seed's ({seed_year})"
        part = part_mark(words, last, seed_words)
        if gap > REPRINT_YEARS:
            out.append(f"{why}: another edition or a reprint")
        elif seed_year < MODERN:
            # A book printed before 1900 has no preprint nor a journal version that follows it
            # years later: printed again over a decade later ("Origine delle feste veneziane",
            # Venezia 1817, and Milano 1829) it is another edition (resolve-13).
            out.append(f"{why}: a work printed before {MODERN}, printed again: another edition")
        elif part:
            out.append(f"{why} and it names '{part}' after the title: another part or edition")
    return out
