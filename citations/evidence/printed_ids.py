"""A reference that prints another arXiv paper's id than the seed's its title names.

Why: real bibliographies carry wrong arXiv ids (copy-paste), so a printed id that names another
paper is a doubt, not a verdict; a title printed nearly verbatim with the seed's first author
outweighs it. Only an arXiv seed can be contradicted by an arXiv id: a seed known by another kind
of id (a labelled set, a local source) is not.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from reflong.citations.evidence.base import Evidence, hold, note
from reflong.citations.thresholds import ID_OUTWEIGHED

if TYPE_CHECKING:
    from reflong.citations.evidence.pair import Pair
    from reflong.citations.records import Seed


def names_another_arxiv_paper(printed: str | None, seed: Seed) -> bool:
    """Whether a printed arXiv id names another paper than an arXiv seed: the one place this is
    decided (the pair's evidence and the second readings ask it alike)."""
    return bool(printed and printed != seed.info.arxiv_id and seed.arxiv_like)


def other_arxiv_id(pair: Pair) -> str | None:
    """The arXiv id the reference prints when it names another paper than an arXiv seed."""
    printed = pair.ref.entry.arxiv_id
    return printed if names_another_arxiv_paper(printed, pair.seed) else None


def read(pair: Pair, provisional: float) -> list[Evidence]:
    other = other_arxiv_id(pair)
    if other is None:
        return []
    if pair.title_score >= ID_OUTWEIGHED and pair.author == "match":
        return [note("printed_ids", f"reference carries another arXiv id ({other}); title and author agree")]
    return [hold("printed_ids", f"reference carries another arXiv id ({other})")]
