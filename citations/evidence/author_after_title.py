"""A short title printed first with its author right after it: "Title di Name Surname, Place, Year"
(resolve-19).

Why this exists
---------------
Older humanities footnotes print the title first and the author after it, joined by a
preposition: "Nautica mediterranea di Bartolomeo Crescenzio Romano, Roma, 1602, pp. 84-",
"compendio di ginecologia del D. r Gustavo Augusto Braun pag. 181." (LinkedBooks' fourth split).
The field parse reads the title and the name as one field, its score falls
under the keep threshold (the edge was dropped, or held in review), and the scan rule
(``scan_agreement``) looks for the author only *before* the title.

The layout of the whole string is the evidence, as for ``short_title_first``:

- the string opens with the seed title, word for word as seeds are folded;
- right after it a preposition that introduces an author ("di", "del", "by", "von", "par") and a
  short name (at most five words, initials allowed) holding the seed's first author's surname;
- after the name only a place, a year and a locator (``short_title_first.locator_only``), and a
  year printed must be the seed's own;
- no other seed has the same title.

Anything else (an editor, "a cura di", a container, another year) leaves the edge as it was.

Profile: runs with ``--profile books`` only; switched off, it changes no decision on any labelled
set but LinkedBooks' (docs/parse-and-citations.md, "Profiles").
"""

from __future__ import annotations

import re
from collections.abc import Callable

from reflong.citations.evidence import short_title_first as sf
from reflong.citations.fields.normalize import norm
from reflong.citations.fields.seed_title_form import without_etc

NOTE = (
    "the short title opens the entry as a whole field and its first author '{name}' is printed "
    "right after it ('{joint}'), only a place, year or locator after the name"
)
_WORD = re.compile(r"[^\W_]+", re.UNICODE)
# A preposition that names the author after a title: Italian, English, German, French.
_JOINT = re.compile(r"^\s*,?\s*(?P<joint>di|del|by|von|par)\s+", re.IGNORECASE)
_MAX_NAME_WORDS = 5


def evidence(
    seed_plain: str,
    surname: str,
    seed_year: int | None,
    raw: str,
    titled: Callable[[str], int],
) -> str | None:
    """The accept reason, or None. ``surname``: the seed's first author folded as ``norm`` folds;
    ``titled(form)``: how many seeds of the list have that folded title (``SeedIndex``)."""
    if not surname or not seed_plain or titled(seed_plain) != 1:
        return None
    n_words = len(seed_plain.split())
    words = list(_WORD.finditer(raw[:200]))
    if len(words) <= n_words:
        return None
    end = words[n_words - 1].end()
    if without_etc(norm(raw[:end])) != seed_plain:
        return None
    joint = _JOINT.match(raw[end:])
    if not joint:
        return None
    name_from = end + joint.end()
    name_words = list(_WORD.finditer(raw[name_from : name_from + 80]))[:_MAX_NAME_WORDS]
    at = next((i for i, w in enumerate(name_words) if norm(w.group()) == surname), None)
    if at is None or any(w.group()[0].islower() and len(w.group()) > 1 for w in name_words[:at]):
        return None  # no surname, or prose before it ("di una storia di ...")
    rest = raw[name_from + name_words[at].end() :]
    ok, years = sf.locator_only(_after_name(rest))
    if not ok:
        return None
    if years and (seed_year is None or seed_year not in years):
        return None  # another printing, or a year the seed list cannot vouch for
    found = NOTE.format(name=name_words[at].group(), joint=joint.group("joint"))
    if years:
        found += f"; the seed's year {seed_year} printed"
    return found + "; no other seed has that title"


def _after_name(rest: str) -> str:
    """The rest with one capitalised word of the name dropped ("Crescenzio Romano"): a second
    surname or a toponymic, before the comma that ends the name."""
    m = re.match(r"^\s+[A-ZÀ-Þ][^\W\d_]+(?=\s*[,.])", rest)
    return rest[m.end() :] if m else rest
