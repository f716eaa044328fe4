"""A seed title closed by its edition ("... guidelines (8th edition)") cited without it (resolve-15).

Why this exists
---------------
Guidelines and handbooks carry their edition in the title as the indexing source records it
("Prevention of venous thromboembolism: American College of Chest Physicians evidence-based
clinical practice guidelines (8th edition)"), and citers often print the title without it ("...
Evidence-Based Clinical Practice Guidelines. Chest 2008, 133(6 Suppl):381S-453S": PMC test split).
The ordinal "8th" then stood on the seed's side only and the sequel/version rule rejected
the edge as another work. An edition mark the citer leaves out is no contradicting number.

But another edition of the same guideline has the same title: what tells them apart is the year.
The mark counts as left out only when it closes the seed title set off by a bracket or a comma
("(8th edition)", ", 17th ed."; not "... on a first edition", a title's own words), is the only mark the two sides
differ by, and the reference prints no ordinal or edition of its own anywhere (a "7th edition"
cites the 7th). The seed's own year printed then vouches for this edition (accept); without it the
edge goes to review, never to accept.
"""

from __future__ import annotations

import re

from reflong.citations.evidence import title_evidence as te

_EDITION_END = re.compile(
    r"(?:[\(\[]|,)\s*(?P<mark>\d{1,3}(?:st|nd|rd|th)|[a-z]+)\s+(?:edition|ed\.?|edn\.?)\s*[\)\]]?\s*$",
    re.IGNORECASE,
)
# Any ordinal the reference prints ("7th", "seventh", or a title's own "first"): another edition
# may be meant, so the rule stays out.
_ORDINAL = re.compile(
    r"^(?:\d{1,3}(?:st|nd|rd|th)|first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth"
    r"|eleventh|twelfth|thirteenth|fourteenth|fifteenth|sixteenth|seventeenth|eighteenth|nineteenth"
    r"|twentieth)$"
)
_EDITION_WORDS = frozenset({"edition", "ed", "edn"})
LEFT_OUT = "the seed's edition mark '{mark}' left out by the reference"


def mark_of(title: str) -> str | None:
    """The ordinal of an edition mark closing the seed title, folded ("8th"), or None."""
    m = _EDITION_END.search(title)
    if not m:
        return None
    mark = m.group("mark").lower()
    return mark if te.sequel_marks([mark]) else None


def left_out(title: str, differing: set[str], ref_words: list[str]) -> str | None:
    """The seed's closing edition mark as printed ("8th edition") when it is the only mark the
    seed and the reference differ by (``differing``, folded) and the reference prints no ordinal
    or edition word of its own; else None."""
    mark = mark_of(title)
    if mark is None or differing != {mark}:
        return None
    if any(_ORDINAL.match(w) for w in ref_words) or _EDITION_WORDS & set(ref_words):
        return None
    m = _EDITION_END.search(title)
    return m.group(0).strip(" ()[]") if m else None
