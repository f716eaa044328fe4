"""The seed title found in the raw string as the naive scan finds it, vouched for by evidence the
scan does not use (resolve-18).

Why this exists
---------------
Four resolver versions added narrow layout rules from one split's misses, and each next unread
split came in at recall ~0.96, under the naive baseline (rapidfuzz ``partial_ratio`` of the seed
title against the raw string >= 90): where OCR, glued fields or an unusual style break the parsed
title field, the title is still in the string, and the scan finds it. The scan alone is not
precise (0.88 to 0.96 on the real sets): a short or common title is found inside other titles,
and it knows no authors or years. So the scan's finding is accepted only with evidence it does not
use, all of it read from the string:

- the seed title is long enough to be distinctive (``MIN_WORDS`` words, a few of them content
  words: ``MIN_CONTENT_WORDS``), and found nearly verbatim (``thresholds.SCAN_MIN_RATIO``);
- the seed's first author's surname is printed BEFORE the title, folded for case and accents, or
  one OCR letter off (``ocr_author``);
- no printed year conflicts with the seed's (every year printed is a year of another printing, a
  reprint or another work: the edition rules decide those);
- no other candidate seed's title is found as well (two seeds fit: the scan cannot tell them).

What stays doubtful keeps its review band. The accept's reason names each piece of evidence.
"""

from __future__ import annotations

from rapidfuzz import fuzz

from reflong.citations.evidence import ocr_author as oa

# Words that a seed's author field holds in some sets ("In", "AA") but that print as anything.
NOT_SURNAMES = frozenset({"in", "aa", "vv", "ed", "eds", "et", "al", "and", "di", "de", "la"})
MIN_WORDS = 4
MIN_CONTENT_WORDS = 3
# A shorter title (3 words, 2 content words) is found inside longer titles more often: it counts
# only where it opens a field ("Maier, Johann Christoph: Beschreibung von Venedig, 2. Aufl.").
SHORT_WORDS = 3
SHORT_CONTENT_WORDS = 2
EARLY_YEARS = 1  # a printed year this many years before the seed's still agrees
LATE_YEARS = 2  # ... and this many after it

NOTE = (
    "the seed title found in the raw string (scan ratio {ratio:.1f}, no other seed as close), "
    "its first author '{author}' printed before it{year}"
)


def ratio(title: str, plain: str) -> float:
    """How nearly the folded seed ``title`` occurs in the folded raw string (the naive scan)."""
    return fuzz.partial_ratio(title, plain) if title and plain else 0.0


def distinctive(n_words: int, content_words: int, opens_field: bool) -> bool:
    """Whether a title is long enough that finding it in a string is evidence of itself: four
    words, or three where it opens a field of the string (``opens_field``)."""
    if n_words >= MIN_WORDS and content_words >= MIN_CONTENT_WORDS:
        return True
    return opens_field and n_words >= SHORT_WORDS and content_words >= SHORT_CONTENT_WORDS


def continued(
    cased: list[str] | None, words: list[str], bounds: list[bool], last: int, dated: bool = False
) -> str | None:
    """The word that carries the found title on in its field: a lower-case word ("Storia della
    Marca trivigiana e veronese" for the seed "Storia della Marca"), or a capitalised one after a
    title printed in Title Case ("Teaching Small Language Model Programs"): a longer title of
    another work. "in" and its kin hand over to a container only where a capitalised title follows
    ("... Fantoni in Rassegna storica"; "... approach in the source planner" goes on); "etc."/"ecc."
    closes a title; a one-letter abbreviation ("p.", "n.") is a locator. A string printed in
    capitals (``cased`` None) shows no case: every word that follows in the field carries on.
    ``dated``: the seed's own year is printed; a capitalised word after the title is then read as
    the place or publisher run into it ("Scipio Slataper, Milano Mondadori, 1950")."""
    if last + 1 >= len(words) or bounds[last]:
        return None
    printed = cased if cased is not None else words
    word = printed[last + 1]
    if not word.isalpha() or len(word) < 2 or word.lower() in CLOSING_WORDS:
        return None
    if word[0].isupper():
        return word if printed[last][:1].isupper() and cased is not None and not dated else None
    if word.lower() in CONTAINER_WORDS:
        if cased is None:
            return word  # no case to tell a container from the title going on
        after = cased[last + 2] if last + 2 < len(cased) and not bounds[last + 1] else ""
        return word if after[:1].islower() else None
    return word


def author_before(surname: str, words: list[str], first: int) -> str | None:
    """The word before word ``first`` that is the seed's folded ``surname`` (or its OCR variant)."""
    if len(surname) < 2 or surname in NOT_SURNAMES or first <= 0:
        return None
    block = words[:first]
    parts = surname.split()
    last = parts[-1] if parts else surname
    for w in block:
        if w == last or w == surname.replace(" ", ""):
            return w
    return oa.variant(last, block)


SHORT_LAST_WORD = 3
AUTHOR_BLOCK_WORDS = 4  # the words before a colon that may hold the author's name
# Lower-case words after which a container may follow ("... di pozzo nell'Archivio Veneto",
# "... in Atti"), and words that close a title ("... di Uenetia ecc.").
CONTAINER_WORDS = frozenset(["in", "nel", "nell", "nella", "nelle", "nei", "negli", "im", "dans"])
CLOSING_WORDS = frozenset(["etc", "ecc"])


def cut_short(seed_last: str, printed: str) -> bool:
    """Whether the seed title's last word is a short token the printed word extends ("i" found in
    "ii", "Volumen I" in "Volumen II"): the scan's alignment stops inside another token, a part
    number or a name, not the seed's."""
    return len(seed_last) <= SHORT_LAST_WORD and printed != seed_last and printed.startswith(seed_last)


def carried_from_before(
    cased: list[str] | None, bounds: list[bool], colons: list[bool] | None, first: int, author: str
) -> str | None:
    """The word that carries a longer title into the found one, in the same field: the found
    title printed lower-case after it ("Deep learning for protein structure prediction" for the
    seed "Learning for ..."), a capitalised word right before it ("What You Don't Say What makes
    in-context learning"), or a head closed by a colon that is not the author block ("Structural
    holes: The winograd schema challenge"). A title found after the footnote's prose ("nella sua
    Historia de bellis") or after its author ("M. Juoie Le schisme", "Maier, Johann Christoph:
    Beschreibung") counts. ``author``: the author's word as printed (folded)."""
    if cased is None or first <= 0:
        return None
    lo = max(0, first - AUTHOR_BLOCK_WORDS)
    if colons and colons[first - 1]:
        folded = [w.lower() for w in cased[lo:first]]
        return None if any(author in w or w in author for w in folded if len(w) > 1) else cased[first - 1]
    if bounds[first - 1]:
        return None
    word, before = cased[first], cased[first - 1]
    if word.isalpha() and word[0].islower():
        return before
    if before.isalpha() and before[0].isupper() and len(before) > 1 and before.lower() not in author:
        return before
    return None


def year_printed(seed_year: int | None, years: list[int]) -> bool:
    """Whether the seed's year (or one within ``EARLY_YEARS``/``LATE_YEARS`` of it) is printed."""
    return seed_year is not None and any(
        seed_year - EARLY_YEARS <= y <= seed_year + LATE_YEARS for y in years
    )


def year_conflict(seed_year: int | None, years: list[int]) -> bool:
    """Whether the string prints years and none of them is near the seed's."""
    if not years or seed_year is None:
        return False
    return not any(seed_year - EARLY_YEARS <= y <= seed_year + LATE_YEARS for y in years)


def note(ratio_: float, author: str, seed_year: int | None, years: list[int]) -> str:
    """The accept's evidence, as the edge's reason."""
    agree = [y for y in years if seed_year is not None and abs(y - seed_year) <= LATE_YEARS]
    if seed_year is None:
        year = ", the seed has no year"
    else:
        year = f", the seed's year {seed_year} printed" if agree else ", no year printed"
    return NOTE.format(ratio=ratio_, author=author, year=year)
