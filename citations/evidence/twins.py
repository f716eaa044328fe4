"""Another arXiv paper with the seed's exact title (``candidates/title_twins``).

Why: two arXiv papers can share a title; a reference naming the other paper's first author cites
that one (reject), and one naming neither first author is a doubt for a person (review).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from reflong.citations.evidence import author_evidence as ae
from reflong.citations.evidence.base import Evidence, hold, reject

if TYPE_CHECKING:
    from reflong.citations.evidence.pair import Pair


def read(pair: Pair, provisional: float) -> list[Evidence]:
    if pair.author == "match" or not pair.twins or pair.title_score < pair.t.review:
        return []
    words, start = pair.ref.words, pair.lay.start
    named = [
        tid for tid, phrase, last in pair.twins if ae.legacy_verdict(phrase, last, words, start) == "match"
    ]
    if named:
        return [
            reject(
                "title_twins", f"names the first author of {named[0]}, another arXiv paper with this title"
            )
        ]
    return [hold("title_twins", f"{pair.twins[0][0]} has this title too and neither first author is named")]
