"""A footnote's own remark before a reference is prose, not a title of the entry's own.

Why this exists
---------------
Humanities footnotes run a reference into the author's sentence: "(la sottolineatura è mia).
GNETTI, L'ordinamento del territorio trevigiano ...", "la mia memoria, La neutralità di Venezia
...", "JACOPO MORELLI, preface to PIETRO BEMBO, Della Istoria viniziana ...". For a seed without a
first author the resolver holds the edge back when "another title-like field comes first"
(``title_evidence.earlier_title_field``: the seed title may then be a volume after a chapter's
own title). A title is printed with a capital; a field that opens with a lower-case word ("la
sottolineatura è mia", "preface to", "la mia memoria") is the footnote's remark, so it is no
title of the entry's own and does not hold the seed back (resolve-17; LinkedBooks' second test
split). A lower-case name particle opening a name ("de Vergottini",
"la Fontaine") is followed by a capital, and stays a field that may be a title.

Profile: runs with ``--profile books`` only; switched off, it changes no decision on any labelled
set but LinkedBooks' (docs/parse-and-citations.md, "Profiles").
"""

from __future__ import annotations

from reflong.citations.evidence import title_evidence as te

_PARTICLES = frozenset({"de", "del", "della", "di", "da", "la", "le", "van", "von", "der", "du", "d"})


def is_remark(field: list[str]) -> bool:
    """Whether a field (words as printed) opens with a lower-case word that starts no name."""
    alpha = [w for w in field if w.isalpha()]
    if len(alpha) < 2 or not alpha[0][0].islower():
        return False
    return alpha[0].lower() not in _PARTICLES or alpha[1][0].islower()


def earlier_title_field(
    cased: list[str] | None, bounds: list[bool], field_first: int, at_start: bool
) -> str | None:
    """``title_evidence.earlier_title_field`` with the footnote's remark left out: only the
    entry's FIRST field (``at_start``: ``cased`` begins where the entry begins), since a lower-case
    field after the names is, in styles that lower-case titles ("F. Huang. glam: efficient
    open-domain question answering. In ..."), the entry's own title (bench/resolve.py's world)."""
    return te.earlier_title_field(
        cased, bounds, field_first, skip=lambda start, field: at_start and start == 0 and is_remark(field)
    )
