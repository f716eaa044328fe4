"""First-author evidence of a ditto entry ("———. Title"), which prints no names of its own.

Why a module of its own: the dash stands for the authors of the entry before, so the author
check reads the inherited names (``fields/ditto.py`` finds them), and a short title of such an
entry may stand on a strong layout instead.
"""

from __future__ import annotations

from reflong.citations.fields.ditto import DITTO_NOTE
from reflong.citations.fields.normalize import norm
from reflong.citations.records import Reference, Seed


def ditto_author(seed: Seed, ref: Reference, title_start: int, author: str, notes: list[str]) -> str:
    """The first-author check of a ditto entry ("———. Title"): the dash prints no names, so
    the authors inherited from the entry before are read instead; without them, nothing
    before a title printed right after the dash is an author block (publisher and place
    after the title are no evidence against the seed's author)."""
    if ref.inherited and seed.author_phrase:
        text = " " + " ".join(norm(a) for a in ref.inherited) + " "
        phrase, last = seed.author_phrase, seed.author_last
        named = f" {phrase} " in text or (last and f" {last} " in text)
        named = named or (len(phrase) >= 4 and phrase.replace(" ", "") in text.replace(" ", ""))
        notes.append(DITTO_NOTE if named else f"{DITTO_NOTE} do not name the seed's first author")
        return "match" if named else "mismatch"
    return "unknown" if title_start <= 0 else author


def ditto_short_title(seed: Seed, ref: Reference, field: tuple[float, int, str, int]) -> str | None:
    """Why a short title of a ditto entry whose authors are not the seed's known ones may
    still be accepted, or None: the title printed word for word as a complete field of its
    own (a boundary, or the ditto dash, before it; a boundary or the end after it; nothing
    else in the field) and the seed's own year printed in the entry."""
    score, start, span, _ = field
    if seed.n_words > 3 or score < 100.0 or start < 0 or span != seed.plain or not seed.year:
        return None
    last = start + seed.n_words - 1
    before = start == 0 or ref.bounds[start - 1]
    after = last == len(ref.words) - 1 or ref.bounds[last]
    if not (before and after and seed.year in ref.years):
        return None
    return (
        "ditto author not resolved; the short title printed verbatim as a field of its own "
        f"and the seed's year {seed.year} printed"
    )
