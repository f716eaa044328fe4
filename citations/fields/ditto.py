"""Ditto dashes: "———. Distant Reading." prints "the same author(s) as the entry before".

Why a module of its own: humanities styles (Chicago, MLA) replace a repeated author block by a
dash, so the entry itself names nobody and the resolver's first-author check has nothing to
read. The authors are those of the nearest earlier entry of the same reference list that names
any; this module finds the dash (or its form in words, "Id." / "Idem" / "Ead.") and that entry, for every path that resolves a list in order
(``resolve_stage``, ``match``, assembly's re-check of a final text).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from reflong.citations.fields.entry_parse import ParsedEntry, parse_entry

# An optional list number ("[12]", "12."), then the dash: two or more dashes, hyphens or
# underscores ("———", "---", "______", "–––––", "--,") or a two/three-em dash ("⸺", "⸻"),
# followed by punctuation, a space or the end. One hyphen or dash alone is not a ditto.
_DITTO = re.compile(
    r"^\s*(?:\[\s*\d{1,4}\s*\]|\(\s*\d{1,4}\s*\)|\d{1,4}\s*[.)]\s)?\s*"
    r"(?:[\u2e3a\u2e3b]+|(?:[\u2014\u2015\u2013\u2012\u2010\u2212_-]\s?){2,})\s*(?=[.,:;(]|\s|$)"
)
# "Id." / "Idem" / "Ead." / "Eadem" (Latin "the same"), then a comma or period: the ditto in words
# of Italian and other humanities bibliographies ("Id., Venezia nel Cinquecento, ..."). Not
# "Ibid." (the same work, not the same author).
_IDEM = re.compile(
    r"^\s*(?:\[\s*\d{1,4}\s*\]|\(\s*\d{1,4}\s*\)|\d{1,4}\s*[.)]\s)?\s*(?:Id|Ead|Idem|Eadem|IDEM)\.?\s*[,.:;]"
)
_DASHES_ONLY = re.compile(r"^[\s\u2e3a\u2e3b\u2014\u2015\u2013\u2012\u2010\u2212_.,:;-]*$")

DITTO_NOTE = "authors from the entry before (ditto)"


def is_ditto(raw: str) -> bool:
    """Whether the entry's author block is a ditto dash (same authors as the entry before)."""
    return bool(_DITTO.match(raw))


def is_idem(raw: str) -> bool:
    """Whether the entry's author block is "Id." / "Idem" / "Ead." (the author of the entry before)."""
    return bool(_IDEM.match(raw))


def same_author_as_before(raw: str) -> bool:
    """Whether the entry prints "the same author(s) as the entry before" (a ditto dash or "Id.")
    instead of names. The splitter reads only dashes (``is_ditto``) as entry starts."""
    return is_ditto(raw) or is_idem(raw)


def _authors(entry: ParsedEntry | str) -> list[str]:
    """The entry's named authors (a parse on demand for a bare string or an unparsed entry),
    without dash-only "names" a parser may have read from a ditto."""
    if isinstance(entry, str):
        entry = parse_entry(entry)
    elif not entry.authors and entry.title is None:
        entry = parse_entry(entry.raw)
    return [a for a in entry.authors if a and not _DASHES_ONLY.match(a)]


def inherited_authors(entries: Sequence[ParsedEntry | str]) -> list[tuple[str, ...] | None]:
    """For each entry of one reference list, in order: None when it prints its own authors, else
    (a ditto) the authors of the nearest earlier entry that names any, () when none does.

    Earlier dittos are skipped: their authors are those of the same earlier entry."""
    out: list[tuple[str, ...] | None] = []
    named: list[int] = []  # earlier entries that are no dittos, nearest last
    cache: dict[int, list[str]] = {}  # a run of dittos reads the same earlier entries once
    for i, entry in enumerate(entries):
        raw = entry if isinstance(entry, str) else entry.raw
        if not same_author_as_before(raw):
            out.append(None)
            named.append(i)
            continue
        found: tuple[str, ...] = ()
        for j in reversed(named):
            if j not in cache:
                cache[j] = _authors(entries[j])
            authors = cache[j]
            if authors:
                found = tuple(authors)
                break
        out.append(found)
    return out
