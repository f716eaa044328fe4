"""Text normalisation shared by the entry parser, the resolver and the splitter.

Reference strings come out of PDFs with line-break hyphens, ligatures, accents, zero-width
characters, quotes and LaTeX leftovers. Seed titles come from arXiv metadata (sometimes with
LaTeX). Both are mapped to the same comparison form so that fuzzy scores measure wording, not
typography. Hyphens are deleted outright: a hyphen at a line break may or may not be a real one
("Memory-\\nEfficient" vs "in-\\nterventions"), and deleting every hyphen on both sides makes the
two cases compare equal without guessing.
"""

from __future__ import annotations

import re
import unicodedata

ZERO_WIDTH = re.compile("[\u200b\u200c\u200d\u2060\ufeff\u00ad]")
_LATEX_CMD = re.compile(
    r"\\(?:emph|textit|textbf|textsc|texttt|mathrm|mathcal|mathbf|text|url|em|it|bf|sc)\b"
)
_LATEX_ACCENT = re.compile(r"\\[`'^\"~=.uvHtcdbk]\s*\{?([A-Za-z])\}?")
_LATEX_OTHER = re.compile(r"\\[A-Za-z]+")
# PDF text often renders an accent as a separate spacing character before its letter ("H´enaff").
_SPACING_ACCENT = re.compile("[\u00b4\u00a8\u02c6\u02dc\u02d8\u02c7`]\\s?(?=[A-Za-z])")
_HYPHEN_BREAK = re.compile(r"(?<=\w)[-\u2010\u2011\u2012\u2013\u00ad]\s+(?=[a-z])")
_HYPHEN_BREAK_CASED = re.compile(r"(?<=\w)[-\u2010\u2011\u2012\u2013\u00ad]\s+(?=[a-zA-Z])")
_DASHES = re.compile("[-\u2010\u2011\u2012\u2013\u2014\u2212]")
_APOSTROPHES = re.compile("['\u2018\u2019\u02bc`\u00b4]")
# Characters that end a bibliographic field: the title of a reference is delimited by them.
BOUNDARY_CHARS = '.?!,;()[]{}"\u201c\u201d\u00ab\u00bb'
# A period glued to the next field by PDF extraction (" .Review of scientific instruments") ends a
# field as well: a space before it and a letter after it never occur inside a title.
# So does a period glued between a word of three letters or more and the next word ("... of the
# Hamiltonian.e -print", "Phys.Rev"): initials ("P.E."), "e.g." and numbers ("2.76") keep theirs.
_BOUNDARY = re.compile(
    r"[?!,;()\[\]{}\"\u201c\u201d\u00ab\u00bb]|\.(?=\s|$)|(?<=\s)\.(?=[^\W\d_])|(?<=[^\W\d_]{3})\.(?=[^\W\d_])"
)
# Letters of any script survive (a CJK or Cyrillic title still compares), punctuation does not.
_NON_ALNUM = re.compile(r"[^\w\s]|_")
_TOKEN = re.compile(r"\x00|[^\W_]+")
_TOKEN_COLON = re.compile(r"[\x00\x01]|[^\W_]+")
_COMBINING = re.compile("[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]")
_SPACES = re.compile(r"\s+")


def clean_unicode(text: str) -> str:
    """NFKC (ligatures, full-width forms), no zero-width characters, LaTeX accents resolved."""
    text = ZERO_WIDTH.sub("", text)
    text = _SPACING_ACCENT.sub("", text)
    text = _LATEX_ACCENT.sub(r"\1", text)
    return unicodedata.normalize("NFKC", text)


def fold(text: str) -> str:
    """Lower case without accents ("Rozière" -> "roziere", "H´enaff" -> "henaff")."""
    return _unaccent(text).lower()


def _unaccent(text: str) -> str:
    if text.isascii():  # fast path: most reference strings; only LaTeX accents to resolve
        return _LATEX_ACCENT.sub(r"\1", _SPACING_ACCENT.sub("", text))
    text = unicodedata.normalize("NFKD", clean_unicode(text))
    text = _COMBINING.sub("", text)
    return text.replace("\u00b4", "").replace("\u00a8", "").replace("\u02dd", "")


# The numero sign printed as "nº", "n°", "n.º" or "Nª": one word "n" on every side ("Lei nº
# 13.146" cited for a seed "Lei n° 13.146"); folding alone made "nº" "no" and "n°" "n" (resolve-12).
_NUMERO = re.compile(r"(?<![^\W\d_])([Nn])\.?\s?[\u00ba\u00b0\u00aa]")


# A closing quote after a number, glued to the next field ("... system 1509-1529’journal of
# Italian History"): no apostrophe (those follow letters: "l’Italia", "1990’s" keeps its "s"), so it
# ends the title field instead of gluing "1529journal" into one word (resolve-12).
_GLUED_CLOSING_QUOTE = re.compile(r"(?<=\d)\u2019(?=[^\W\d_]{2})")


# A title between single curly quotes ("Burgess, ‘A Fond Thing Vainly Invented ... England’ in S
# Wright ed., Parish"): the closing quote ends the field as a double quote would. Alone, both marks
# are apostrophes and dropped ("d’Assise", "students’"), so "England’ in S Wright ed" ran on into
# the container's editor; only a pair is read: an opening mark at a word's start, closed by a mark
# no letter follows (an elision inside, "d’Assise", stays an apostrophe) (resolve-21).
_SINGLE_QUOTED = re.compile(
    r"(?<![^\s(\[,;:])\u2018(?=[^\W\d_])((?:[^\u2018\u2019]|\u2019(?=[^\W\d_]))+?)\u2019(?![^\W\d_])"
)


# An em dash with a space on each side between fields ("Micfaolo Amari —· Storia dei Musulmani di
# Sicilia, Firenze", "Riebet — Trattato pratico di anatomia"): older footnotes print it where others
# print a comma, so it is a field boundary; a dash inside a word joins it as before (resolve-21).
_SPACED_DASH = re.compile(r"\s[-\u2013\u2014]*\u2014[-\u2013\u2014\u00b7]*\s")


# An Italian century printed as a numeral after an elision mark ("nel ‘300", "il '900"): the same
# word as its name ("nel Trecento"), which is how the other printings of such a title spell it
# (resolve-13).
_CENTURY_NUMERAL = re.compile(r"(?<![\w.,])[\u2018\u2019'`]([2-9])00(?![\d\w])")
_CENTURY_TEXT = "duecento trecento quattrocento cinquecento seicento settecento ottocento novecento"
_CENTURY_NAMES = dict(zip("23456789", _CENTURY_TEXT.split(), strict=True))
# A year glued to the capitalised word after it by the PDF text ("... Eight English Plays
# 1675-1707Carbondale: Southern Illinois"): the next field (a place, a publisher) starts there, so
# a field boundary is read between them (resolve-13).
_GLUED_YEAR = re.compile(r"(?<![\w/.])((?:1[5-9]|20)\d\d)(?=[A-Z][a-z]{2,})")


# An entry opening with initials and a surname in capitals, the title right after it with no
# punctuation ("B. CECCHETTI Vita dei veneziani nel 1300, Venezia 1885", "U. PROCACCE La casa
# Buonarroti"): the capitals end the author field, so a field boundary is read there, as the comma
# other entries print (resolve-21). Only at the start, with initials: a title opening with an
# acronym ("NATO Expansion ...") has none.
_CAPITALS_AUTHOR = re.compile(
    r"^(\s*(?:[A-Z]\.\s*){1,3}[A-ZÀ-Þ][A-ZÀ-Þ'’-]{2,})\s+(?=[A-ZÀ-Þ](?:[a-zà-ÿ'’]|\s)|[«\"“‘])"
)


def _printed_forms(text: str) -> str:
    """resolve-13's printed forms: a century numeral read as its name, a glued year closed; and
    resolve-21's author in capitals closed before an unpunctuated title."""
    if "00" in text:
        text = _CENTURY_NUMERAL.sub(lambda m: " " + _CENTURY_NAMES[m.group(1)], text)
    text = _CAPITALS_AUTHOR.sub(r"\1, ", text)
    return _GLUED_YEAR.sub(r"\1. ", text)


def _prepare(text: str, keep_case: bool = False, printed_signs: bool = True) -> str:
    if printed_signs and not text.isascii():
        text = _NUMERO.sub(r"\1 ", text)
    if printed_signs:
        text = _printed_forms(text)
    text = _unaccent(text) if keep_case else fold(text)
    text = _LATEX_CMD.sub(" ", text)
    text = _LATEX_OTHER.sub(" ", text)
    text = (_HYPHEN_BREAK_CASED if keep_case else _HYPHEN_BREAK).sub("", text)
    if printed_signs and "\u2014" in text:
        text = _SPACED_DASH.sub(" ; ", text)
    text = _DASHES.sub("", text)
    if printed_signs and "\u2019" in text:
        text = _GLUED_CLOSING_QUOTE.sub('" ', text)
    if printed_signs and "\u2018" in text:
        text = _SINGLE_QUOTED.sub(r'"\1"', text)
    return _APOSTROPHES.sub("", text)


def norm(text: str, *, printed_signs: bool = True) -> str:
    """Comparison form: folded, no hyphens/apostrophes, every other non-alphanumeric a space.

    ``printed_signs=False`` leaves out resolve-12's folding of the numero sign and of a closing
    quote glued to the next field, and resolve-13's century numerals and glued years: the labelled sets' builders group works with the form they were
    built with, so a later change of the resolver's reading never regroups a committed set."""
    text = _NON_ALNUM.sub(" ", _prepare(text, printed_signs=printed_signs).replace("$", " "))
    return _SPACES.sub(" ", text).strip()


def words_with_boundaries(text: str) -> tuple[list[str], list[bool]]:
    """Words of the comparison form, each flagged when a field boundary follows it.

    A boundary is a sentence stop ("." before a space), "?", "!", ",", ";", brackets or quotes.
    Colons are deliberately not boundaries: "CMMLU: Measuring massive multitask ..." must stay one
    title so it does not pass for "Measuring Massive Multitask Language Understanding".
    """
    words, flags, _ = _split_words(_prepare(text))
    return words, flags


def cased_words(text: str, words: list[str]) -> tuple[list[str], list[bool]] | None:
    """The words of ``words_with_boundaries(text)`` with their printed case ("Nucl", "SL", "In")
    and, for each, whether a colon follows it ("CMMLU: Measuring ..."); None where case folding
    changed the tokens (a rare letter): layout evidence only, so the resolver then does without."""
    cased, _, colons = _split_words(_prepare(text, keep_case=True).replace(":", " \x01 "), colons=True)
    return (cased, colons) if [w.lower() for w in cased] == words else None


def _split_words(text: str, colons: bool = False) -> tuple[list[str], list[bool], list[bool]]:
    text = _BOUNDARY.sub(" \x00 ", text)
    words: list[str] = []
    flags: list[bool] = []
    colon_after: list[bool] = []
    for token in (_TOKEN_COLON if colons else _TOKEN).findall(text):
        if token == "\x00":
            if flags:
                flags[-1] = True
        elif token == "\x01":
            if colon_after:
                colon_after[-1] = True
        else:
            words.append(token)
            flags.append(False)
            colon_after.append(False)
    return words, flags, colon_after
