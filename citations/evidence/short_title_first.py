"""A short title printed first, followed only by a locator: a footnote's short form (resolve-16).

Why this exists
---------------
Humanities footnotes cite a work a second time by its short title alone, with no author and no
date: "Documenti, cit., II, n. 72, pp. 146-148", "Secunda pars..., f. CLXXXIIr", "Venezia ducale,
I (1963), 215." (LinkedBooks' training file, ``citation_fresh_test``: 84 of resolve-15's 140
misses there). A title of one or two words with no author evidence went to review on purpose:
a short generic phrase can be another work's title, or only the start of a longer one.

The evidence that makes such an entry safe is the layout of the WHOLE string, not the title's
score: the entry is the title and nothing else that could name another work.

- the string starts with the seed title (nothing but quotes or brackets before it), and the title
  field ends there, at a field boundary: punctuation, an ellipsis, "cit.", or the end;
- everything after it is a locator: volume and part numerals, "cit.", "n.", "p./pp./f./ff./col.",
  page and folio ranges, a year, a place right before a year, month names of a dated document
  (``locator_only``); any other word (a subtitle, an editor, a container) keeps the entry out;
- no printed year contradicts the seed's: a year printed must be the seed's own (extra evidence),
  or the seed has none (a year then belongs to the printing cited, and the seed list cannot
  tell it is another);
- no OTHER seed's title is also a whole field at the string's start (``SeedIndex`` checks the
  seed list: "Documenti" and "Documenti, cit" both fitting keeps both out), since the seed list
  is the universe the decision is made in.

Whatever fails one of these stays in review, as before.

Profile: runs with ``--profile books`` only; switched off, it changes no decision on any labelled
set but LinkedBooks' (docs/parse-and-citations.md, "Profiles").
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from reflong.citations.evidence.base import Evidence, raise_

if TYPE_CHECKING:
    from reflong.citations.evidence.pair import Pair

import re
from collections.abc import Callable, Iterator

from reflong.citations.fields.normalize import norm
from reflong.citations.fields.seed_title_form import without_etc

NOTE = "the short title printed first as the whole title field, only a locator after it"
NOTE_AFTER_NAME = (
    "the short title printed as the whole title field after one surname ('{name}'; the seed names "
    "no author), only a locator after it"
)
NOTE_AFTER_IDEM = (
    "the short title printed as the whole title field right after 'Id.' (naming nobody known), "
    "only a locator after it"
)
IDEM = re.compile(r"^\s*(?:Id|Idem|Ead|Eadem)\s*\.?\s*,\s*", re.IGNORECASE)
# One surname in capitals closed by a comma, initials before it allowed: "G. MANTESE, ",
# "BELLEMO, ". Capitals, as these footnotes print authors: a capitalised title word ("Documenti,")
# is no name.
NAME_BLOCK = re.compile(r"^\s*(?:[A-Z]\.\s*){0,3}[A-ZÀ-Þ]{3,}(?:['’][A-ZÀ-Þ]+)?,\s+")

# Words a locator is made of (folded, a trailing period dropped): Italian, Latin, German, French
# and English abbreviations of volume, part, page, folio, column, note, document, paragraph.
_LOCATOR_TEXT = (
    "cit op loc p pp pag pagg pg pgg f ff fol fols foll c cc col coll coi vol voll voi vols t tom "
    "to tomo n nn no nos nr par parr paragrafi paragrafo doc docc app sg sgg seg segg sq sqq ss "
    "e et and s bd a r v ibid ivi passim fasc pt lib cap capp art tav tavv fig figg nota note "
    "ser anno libro parte tomo"
)
_LOCATOR_WORDS = frozenset(_LOCATOR_TEXT.split())
_MONTH_TEXT = (
    "gennaio febbraio marzo aprile maggio giugno luglio agosto settembre ottobre novembre dicembre "
    "gen feb mar apr mag giu lug ago set ott nov dic"
)
_MONTHS = frozenset(_MONTH_TEXT.split())
_ROMAN = re.compile(r"^(?=[mdclxvi])m{0,4}(cm|cd|d?c{0,3})(xc|xl|l?x{0,3})(ix|iv|v?i{0,4})[rv]?$")
# Roman numerals as OCR prints them ("Ili", "Ill" for III) and words that read as numerals but
# are ordinary words in the languages of the set ("di", "mi": Italian; "vi" is a volume).
_OCR_ROMAN = frozenset({"ili", "ill", "lll", "ll", "vu", "vll"})
_NOT_ROMAN = frozenset({"di", "mi", "dc", "cd", "mix", "dim", "mid", "lid", "vid", "civil", "mil"})
_NUMBER = re.compile(r"^\d+[rv]?$|^\d+(?:bis|ter)?$")
_YEAR = re.compile(r"^(1[4-9]\d\d|20\d\d)$")
_TOKEN = re.compile(r"[^\W_]+", re.UNICODE)
# Where a title field may end: punctuation or an ellipsis; a space only before a numeral.
_BOUNDARY = re.compile(r"\s*(?:\.\.\.|…|[,;:.()\[\]«»“”\"'])")


def _is_numeral(word: str) -> bool:
    w = word.lower()
    if _NUMBER.match(w):
        return True
    return w not in _NOT_ROMAN and (w in _OCR_ROMAN or bool(_ROMAN.match(w)))


def locator_only(rest: str) -> tuple[bool, list[int]]:
    """Whether ``rest`` (the string after the title) holds nothing but a locator, and the years it
    prints. A capitalised word counts only as a place directly before a year ("Basileae 1560")."""
    words = _TOKEN.findall(rest)
    years: list[int] = []
    for i, word in enumerate(words):
        low = word.lower()
        if _YEAR.match(low):
            years.append(int(low))
            continue
        if _is_numeral(word) or low in _LOCATOR_WORDS or low in _MONTHS:
            continue
        if word[0].isupper() and i + 1 < len(words) and _YEAR.match(words[i + 1]):
            continue  # the place of printing
        return False, years
    return True, years


def fields_at_start(raw: str, max_chars: int = 120) -> Iterator[tuple[str, str]]:
    """Each (title form, rest) where a field at the string's start ends at a boundary: the
    folded title form as seeds are folded (``without_etc(norm(...))``) and the raw rest."""
    head = raw[:max_chars]
    for m in re.finditer(r"(?<=[^\W_])(?=\s*(?:\.\.\.|…|[,;:.()\[\]«»“”\"']|\s+[^\W_]|$))", head):
        pos = m.start()
        rest = raw[pos:]
        if not (_BOUNDARY.match(rest) or not rest.strip() or _space_then_numeral(rest)):
            continue
        form = without_etc(norm(raw[:pos]))
        if form:
            yield form, rest


def _space_then_numeral(rest: str) -> bool:
    """An unpunctuated title may be followed by a space and its volume ("Tár XIII, 700") or a
    page abbreviation closed by a period ("l friulani pp. 23-25")."""
    if not rest[:1].isspace():
        return False
    if _PAGE_MARK.match(rest):
        return True
    words = _TOKEN.findall(rest[:12])
    return bool(words and _is_numeral(words[0]))


_PAGE_MARK = re.compile(r"\s+(?:p|pp|pag|pagg|pg|f|ff|col|coll|vol|voi|n|nn)\.", re.IGNORECASE)
# The seed's first author alone before the title, closed by a comma: "Moravcsik, ", "R. Cessi, ".
AUTHOR_BLOCK = re.compile(r"^\s*(?:[A-Z]\.\s*){0,3}(?P<name>[^\W\d_][^\W\d_'’-]+),\s+")
NOTE_AFTER_AUTHOR = (
    "the short title printed as the whole title field right after the seed's first author "
    "('{name}', alone), only a locator after it"
)


def after_author(
    seed_plain: str,
    seed_year: int | None,
    raw: str,
    titled: Callable[[str], int],
    surname: str,
) -> str | None:
    """``evidence`` for an entry that prints the seed's first author, and only that one surname,
    before the title ("Moravcsik, Byzantinoturcica..., II 171."): a footnote's short form that
    names its author. ``surname``: the seed's surname key, folded as ``norm`` folds."""
    block = AUTHOR_BLOCK.match(raw)
    if not block or not surname or norm(block.group("name")) != surname:
        return None
    found = _evidence(seed_plain, seed_year, raw[block.end() :], titled)
    return found and found.replace(NOTE, NOTE_AFTER_AUTHOR.format(name=block.group("name")), 1)


def evidence(
    seed_plain: str,
    seed_year: int | None,
    raw: str,
    titled: Callable[[str], int],
    authorless: bool = False,
    ditto: bool = False,
) -> str | None:
    """The accept reason for a short seed title printed first with only a locator after it, or
    None. ``titled(form)``: how many seeds of the list have that folded title (``SeedIndex``).

    ``authorless``: the seed names no author, so one printed surname before the title
    ("BELLEMO, ll territorio... p. 48.") contradicts nothing; it is read past (``NAME_BLOCK``).
    ``ditto``: the entry opens with "Id.," and the entry before names nobody the resolver knows
    (the caller's author verdict is "unknown"): the rest of the string is read the same way."""
    if ditto:
        idem = IDEM.match(raw)
        found = _evidence(seed_plain, seed_year, raw[idem.end() :], titled) if idem else None
        return found.replace(NOTE, NOTE_AFTER_IDEM, 1) if found else None
    found = _evidence(seed_plain, seed_year, raw, titled)
    name = NAME_BLOCK.match(raw) if authorless and not found else None
    if name:
        found = _evidence(seed_plain, seed_year, raw[name.end() :], titled)
        return found and found.replace(NOTE, NOTE_AFTER_NAME.format(name=name.group(0).strip(" ,")), 1)
    return found


def _evidence(seed_plain: str, seed_year: int | None, raw: str, titled: Callable[[str], int]) -> str | None:
    """``evidence`` on ``raw`` as given (the caller has cut any name block off its start)."""
    found: str | None = None
    others = 0
    for form, rest in fields_at_start(raw):
        ok, years = locator_only(rest)
        if not ok:
            continue
        if form == seed_plain:
            if seed_year is not None and years and seed_year not in years:
                return None  # another printing, or another work of that title
            found = "the seed's year printed" if seed_year in years else ""
            others += titled(form) - 1
        else:
            others += titled(form)
    if found is None or others:
        return None
    return NOTE + (f"; {found}" if found else "") + "; no other seed has a title fitting that field"


def read(pair: Pair, provisional: float) -> list[Evidence]:
    """The whole string is the title verbatim and a locator, however the field parse scored it
    ("Törtelnelmi Tár XIII, 700" unpunctuated): accepted; a sequel or a year still holds it."""
    return [raise_("short_title_first", pair.short_first)] if pair.short_first else []
