"""Other arXiv papers that carry a seed's exact title: evidence the resolver needs and cannot see.

arXiv has papers that share a title ("A Survey on Large Language Models", short questions such as
"Can Large Language Models Reason?"). When one of them is a seed and its twin is not (another
month, a category outside the build), a reference to the twin matches the seed's title perfectly
and is accepted unless the first author says otherwise -- and author evidence is often weak (a
misparsed author block scores only a small penalty, by design). The harvest already stored the
twin's metadata (``arxiv_record``: every record of the harvested sets, whatever its role; ``paper``:
every paper with a role, for local sources), so the resolver is told which seeds have twins and who
wrote them: a reference naming a twin's first author is that twin's, and one naming neither author
is a doubt for review, not an accept.
"""

from __future__ import annotations

import json
from collections.abc import Iterable

from sqlalchemy import text
from sqlmodel import Session

from reflong.citations.candidates.seeds import surname
from reflong.citations.fields.normalize import norm
from reflong.citations.resolve import SeedTitle

Twins = dict[str, list[tuple[str, str]]]  # seed id -> [(other arXiv id, its first author's surname)]


def _first_surname(authors_json: str | None) -> str:
    try:
        authors = json.loads(authors_json or "[]")
    except json.JSONDecodeError:
        return ""
    return surname(authors[0]) if authors and isinstance(authors[0], str) else ""


def find_twins(session: Session, seeds: Iterable[SeedTitle]) -> Twins:
    """Seed id -> the other stored arXiv papers whose normalised title equals the seed's."""
    by_title: dict[str, list[str]] = {}
    for s in seeds:
        by_title.setdefault(norm(s.title), []).append(s.arxiv_id)
    rows = session.execute(
        text(
            "select arxiv_id, title, authors_json from arxiv_record "
            "union select distinct arxiv_id, title, authors_json from paper"
        )
    )
    seen: set[tuple[str, str]] = set()
    twins: Twins = {}
    for arxiv_id, title, authors_json in rows:
        for seed_id in by_title.get(norm(title or ""), ()):
            if arxiv_id != seed_id and (seed_id, arxiv_id) not in seen:
                seen.add((seed_id, arxiv_id))
                twins.setdefault(seed_id, []).append((arxiv_id, _first_surname(authors_json)))
    # Seeds sharing a title with each other are twins too (the rows above include them).
    return {sid: sorted(v) for sid, v in sorted(twins.items())}
