"""Every kind of evidence the resolver weighs about a titled pair, in the order it is read.

A new kind of evidence is one module with a ``read(pair, provisional)`` function and one line
here. ``provisional`` is the score the evidence read before it gives (doubts and the variant
raise aside): the few readers that weigh it (an earlier version counts only for a title already
accepted) read it, the rest ignore it. A gate keeps a reader that can only hold an edge back off
the pairs it could not change: that saves its time and changes no band.

The readings every module shares (the title's place, the first-author verdict, the years) are
read before these, in ``evidence/pair.py``; the id-match decision is ``decision/id_match.py``'s.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from reflong.citations.evidence import (
    author_verdict,
    containers,
    name_tokens,
    predates,
    printed_ids,
    printings,
    sequel,
    short_title_first,
    twins,
    variant_title,
)
from reflong.citations.evidence.base import Evidence, Strength
from reflong.citations.evidence.pair import Pair

Gate = Callable[[Pair, float, list[Evidence]], bool]
ScoreOf = Callable[[float, list[Evidence]], float]


def near_accept(pair: Pair, provisional: float, so_far: list[Evidence]) -> bool:
    """The edge scores in the variant band or above: a doubt could still change its band."""
    return provisional >= pair.t.variant


def could_accept(pair: Pair, provisional: float, so_far: list[Evidence]) -> bool:
    """The edge is accepted, or the variant rule could accept it: only then can a container
    doubt change its band."""
    return provisional >= pair.t.accept or variant_title.eligible(pair, provisional, so_far)


@dataclass(frozen=True)
class Reader:
    kind: str
    read: Callable[[Pair, float, list[Evidence]], list[Evidence]]
    gate: Gate | None = None
    weighs_score: bool = False  # reads the provisional score (else it gets the title score)


def _plain(
    read: Callable[[Pair, float], list[Evidence]],
) -> Callable[[Pair, float, list[Evidence]], list[Evidence]]:
    return lambda pair, provisional, so_far: read(pair, provisional)


READERS: tuple[Reader, ...] = (
    Reader("short_title_first", _plain(short_title_first.read)),
    Reader("printed_ids", _plain(printed_ids.read)),
    Reader("sequel", _plain(sequel.read)),
    Reader("name_tokens", _plain(name_tokens.read)),
    Reader("predates", _plain(predates.read), weighs_score=True),
    Reader("author_verdict", _plain(author_verdict.read)),
    Reader("twins", _plain(twins.read)),
    Reader("printings", _plain(printings.read), gate=near_accept, weighs_score=True),
    Reader("containers", _plain(containers.read), gate=could_accept, weighs_score=True),
    Reader("variant_title", variant_title.read, weighs_score=True),
)


def gather(pair: Pair, score_of: ScoreOf) -> list[Evidence]:
    """The pair's evidence: its readings', then every reader's, in registry order.
    ``score_of(base, evidence)``: the decision's score without the variant raise."""
    evidence = list(pair.evidence)
    for reader in READERS:
        # The provisional score only where a reader weighs it: it is the bulk of the cost else.
        provisional = (
            score_of(pair.title_score, [e for e in evidence if e.strength is not Strength.DOUBT])
            if reader.weighs_score
            else pair.title_score
        )
        if reader.gate is None or reader.gate(pair, provisional, evidence):
            evidence += reader.read(pair, provisional, evidence)
    return evidence
