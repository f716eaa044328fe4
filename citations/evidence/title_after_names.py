"""The seed title printed as the entry's own title field, right after its author list (resolve-15).

Why this exists
---------------
``title_evidence.venue_like`` holds back a seed without an author whose title reads as a venue
("Proceedings of ...", "Advances in ...", "... conference on ...") when it is printed after the
entry's own fields: there it stands where a journal or a series stands, after the entry's own
title. But biomedical titles open with the same words ("In vivo assessment of ...", "In silico
...", "Advances in recovery of ...", "... conference on scientific issues ..."), and the "own
fields" before them were only the entry's authors: five right edges of the PMC test split were
held in review at 89.99. A field printed right after the
entry's author list, closed by a colon ("Streit WR: Advances in recovery of ...") or followed by
the year alone ("Friedman E (2005) In silico ..."), is the entry's title, not its venue.

Read from the words as printed: every comma-separated piece before the title's field a name
("Surname AB", ``colon_authors.segment_kind``), the last closed by the colon the resolver already
found (``colon_authors.list_end``) or followed by a field holding one year and nothing else.
"""

from __future__ import annotations

from reflong.citations.evidence import colon_authors as ca

NOTE = "the seed title is the entry's own title field, printed right after its author list"


def _year(word: str) -> bool:
    return len(word) == 4 and word.isdigit() and word[:2] in ("18", "19", "20")


def names_then_year(cased: list[str] | None, bounds: list[bool], field_first: int) -> bool:
    """Whether the words before ``field_first`` are an author list, then a field holding one year
    and nothing else ("Israeli O, Goldring-Aviram A, ..., Friedman E (2005) In silico ...")."""
    if cased is None or field_first < 3 or field_first > len(cased):
        return False
    year_at = field_first - 1
    if not (_year(cased[year_at]) and bounds[year_at] and bounds[year_at - 1]):
        return False
    lead = 0
    while lead < year_at and cased[lead].isdigit():
        lead += 1  # "12. Israeli O, ..."
    segments: list[list[str]] = []
    lo = lead
    for i in range(lead, year_at):
        if bounds[i]:
            segments.append(cased[lo : i + 1])
            lo = i + 1
    if lo != year_at or len(segments) < ca.MIN_NAMES:
        return False
    kinds = [ca.segment_kind(s) for s in segments]
    return all(k == "name" for k in kinds[:-1]) and kinds[-1] is not None


def colon_closes_names(colon_list_end: int, field_first: int) -> bool:
    """Whether the colon closing the entry's author list (word ``colon_list_end``,
    ``colon_authors.list_end``; -1 when there is none) is the word right before the field starting
    at ``field_first``, so that field follows the names directly ("Vogel SS, Koushik SV: Title").

    Why one place: the resolver's start of the entry's own fields (``resolve``) and
    ``own_title_field`` ask the same question, and -1 must never match a field at word 0."""
    return colon_list_end >= 0 and colon_list_end == field_first - 1


def own_title_field(
    cased: list[str] | None, bounds: list[bool], colon_list_end: int, field_first: int
) -> str | None:
    """The evidence that the field starting at word ``field_first`` is the entry's own title (it
    follows the entry's author list directly), or None."""
    if colon_closes_names(colon_list_end, field_first):
        return f"{NOTE} (closed by a colon)"
    if names_then_year(cased, bounds, field_first):
        return f"{NOTE} and the year ('{cased[field_first - 1]}')"  # type: ignore[index]
    return None
