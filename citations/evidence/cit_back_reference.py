"""A footnote's back-reference "Surname, Head words, cit., p. 68": the author's work cited before
(resolve-19).

Why this exists
---------------
Humanities footnotes cite a work a second time by its author and the first words of its title,
closed by "cit." (*opera citata*): "Dal Pane, Il tramonto, cit., p. 68." for L. Dal Pane's "Il
tramonto delle corporazioni in Italia", "Cessi, La politica veneziana ecc., cit., p. 194 sg." for
"La politica veneziana di terraferma ...". The printed head is a fraction of the seed title, so
the field score stays low (the edge was dropped or held in review), and ``short_title_first``
needs the whole seed title.

The evidence is the convention itself, read on the whole string:

- the string is a name (one to three words, initials allowed), a comma, a head of at least two
  words, an optional "ecc."/"etc."/ellipsis, then "cit." and nothing but a locator after it;
- the seed's first author's surname is the name's last word;
- the seed title opens with the printed head, word for word as seeds are folded;
- among the candidate seeds, exactly one of that author opens with that head, and no seed's
  whole title is the head (a short title of its own, another work);
- the seed title numbers no part ("Antichi scrittori d'idraulica veneta, II"): a head cannot
  tell which volume the footnote cites ("Antichi scrittori... cit., II, I" is part 1 of vol. II).

A year printed must be the seed's own. Anything else leaves the edge as it was.

Printed without a name ("La politica veneziana ecc., cit., p. 142 sg."), the head must be marked
as cut ("ecc.", "etc.", an ellipsis) and exactly one seed of the whole list may open with it.

Profile: runs with ``--profile books`` only; switched off, it changes no decision on any labelled
set but LinkedBooks' (docs/parse-and-citations.md, "Profiles").
"""

from __future__ import annotations

import re

from reflong.citations.evidence import short_title_first as sf
from reflong.citations.fields.normalize import norm

NOTE = (
    "a back-reference '{name}, {head}, cit.': the seed's first author printed, its title opens "
    "with the printed head, only a locator after 'cit.'; no other seed of that author "
    "opens so"
)
_SHAPE = re.compile(
    r"^\s*(?P<name>(?:[A-Z]\.\s*){0,3}[A-ZÀ-Þ][^\W\d_]+(?:[ '’-][A-ZÀ-Þa-zà-ÿ][^\W\d_]+){0,2}),\s+"
    r"(?P<head>[^,;()]+?)\s*(?:,?\s*(?:ecc|etc)\.)?\s*(?:\.\.\.|…)?\s*,?\s*c\s?it\.(?P<rest>.*)$",
    re.DOTALL,
)
_MIN_HEAD_WORDS = 2
# No name: the head, then a mark that it is cut ("ecc.", "etc.", an ellipsis), then "cit.".
_UNNAMED = re.compile(
    r"^\s*(?P<head>[^\W\d_][^,;()]*?)\s*(?:,?\s*(?:ecc|etc)\.|\.\.\.|…)\s*,?\s*c\s?it\.(?P<rest>.*)$",
    re.DOTALL,
)
NOTE_UNNAMED = (
    "a back-reference '{head} ecc., cit.' (no author printed, the head marked as cut): the only "
    "seed whose title opens with the printed head, only a locator after 'cit.'"
)


def read(raw: str) -> tuple[str, str, str, list[int]] | None:
    """(name as printed, folded surname, folded head, printed years) of a back-reference, or
    None where the string is not one (more than a locator after "cit.", a head under 2 words)."""
    m = _SHAPE.match(raw)
    if not m:
        return None
    head = norm(m.group("head"))
    surname = norm(m.group("name").split()[-1]) if m.group("name").split() else ""
    if len(head.split()) < _MIN_HEAD_WORDS or not surname:
        return None
    ok, years = sf.locator_only(m.group("rest"))
    if not ok:
        return None
    return m.group("name"), surname, head, years


def opens_with(seed_plain: str, head: str) -> bool:
    """Whether the folded seed title opens with the folded head, on word boundaries."""
    return seed_plain == head or seed_plain.startswith(head + " ")


def read_unnamed(raw: str) -> tuple[str, list[int]] | None:
    """(folded head, printed years) of a back-reference printed without a name, its head marked
    as cut, or None."""
    m = _UNNAMED.match(raw)
    if not m:
        return None
    head = norm(m.group("head"))
    if len(head.split()) < _MIN_HEAD_WORDS:
        return None
    ok, years = sf.locator_only(m.group("rest"))
    return (head, years) if ok else None


_PART_NUMBER = re.compile(
    r"^(?:\d{1,2}|(?=[mdclxvi])m{0,4}(?:cm|cd|d?c{0,3})(?:xc|xl|l?x{0,3})(?:ix|iv|v?i{0,4}))$"
)
_NOT_PART = frozenset({"di", "mi", "dc", "cd", "mix", "dim", "mid", "lid", "vid", "civil", "mil", "i"})


def numbered(seed_plain: str) -> bool:
    """Whether the folded seed title carries a part or volume number ("ii", "3"): one of a set."""
    return any(_PART_NUMBER.match(w) and w not in _NOT_PART for w in seed_plain.split())
