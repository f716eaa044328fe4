"""A reference that prints the seed's arXiv id or DOI: accepted, unless title and author disagree.

Why its own decision: a printed id names the paper outright, so the title evidence only checks
it. An id whose title field scores below ``Thresholds.contradiction`` is a conflict when the first
author disagrees too (a copy-paste error: review), and a retitled version when the first author
agrees (arXiv titles change between versions: GELU's v1 was "Bridging nonlinearities and
stochastic regularizers ..."). A title guess of fewer than three words cannot contradict an id.
"""

from __future__ import annotations

from reflong.citations.evidence.pair import Pair
from reflong.citations.fields.entry_parse import parse_entry
from reflong.citations.fields.normalize import norm
from reflong.citations.records import Match


def decide_id_match(pair: Pair, method: str) -> Match:
    """The decision for a pair proposed by a printed arXiv id or DOI (``method``)."""
    entry, title, author = pair.ref.entry, round(pair.title_score, 2), pair.author
    sid = pair.seed.info.arxiv_id
    if entry.title is None and not entry.authors:
        entry = parse_entry(entry.raw)  # the title guess is needed only here
    guess_words = len(norm(entry.title or "").split())
    if pair.title_score < pair.t.contradiction and guess_words >= 3:
        if author != "match":
            why = "id-conflict: the id names this seed but title and first author disagree"
            return Match(sid, method, title, "review", title, author, why)
        why = f"{method} match; title differs but first author matches (retitled version?)"
        return Match(sid, method, 100.0, "accept", title, author, why)
    return Match(sid, method, 100.0, "accept", title, author, f"{method} match")
