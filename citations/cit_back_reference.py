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
  whole title is the head (a short title of its own, another work).

A year printed must be the seed's own. Anything else leaves the edge as it was.
"""

from __future__ import annotations

import re

from reflong.citations import short_title_first as sf
from reflong.citations.normalize import norm

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
