"""Evidence -> one band and its reason: the only place a score is moved.

Why one function: the resolver used to edit its score in place through 300 lines, each rule
capping or lifting it where it stood, so a rule's effect depended on the rules before it. Here the
order is fixed and said once:

    score = min(max(title score, raises) - penalties, holds)

A RAISE lifts to the accept threshold; a PENALTY takes points off; a HOLD or DOUBT caps just below
accept (a person decides), a REJECT just below review (another work). An UNOPPOSED raise (a title
printed differently, with its first author and a near year) lifts to accept only where no
evidence holds the edge back. The reason lists the notes in the order they were read, then the
doubts: what raised the score, then what keeps it out of accept.
"""

from __future__ import annotations

from dataclasses import dataclass

from reflong.citations.evidence.base import Evidence, Strength
from reflong.citations.thresholds import Thresholds

_BELOW = 0.01  # a held score stands just below its threshold


@dataclass(frozen=True)
class Verdict:
    score: float
    band: str  # accept | review | reject
    notes: list[str]
    veto: str  # the reason of the first veto, or ""

    @property
    def reason(self) -> str:
        return "; ".join(self.notes)


def score_of(base: float, evidence: list[Evidence], t: Thresholds, unopposed: bool = True) -> float:
    """The score the evidence gives a title scoring ``base`` (the module doc's formula);
    ``unopposed=False`` leaves UNOPPOSED raises out (the score the other evidence gives)."""
    raised = held = rejected = lift = False
    points = 0.0
    for e in evidence:  # one pass, identity tests: this runs for every pair the index proposes
        s = e.strength
        if s is Strength.RAISE:
            raised = True
        elif s is Strength.PENALTY:
            points += e.points
        elif s is Strength.HOLD or s is Strength.DOUBT:
            held = True
        elif s is Strength.REJECT:
            rejected = True
        elif s is Strength.UNOPPOSED:
            lift = True
    score = max(base, t.accept) if raised else base
    score -= points
    if held:
        score = min(score, t.accept - _BELOW)
    if rejected:
        score = min(score, t.review - _BELOW)
    opposed = held or rejected or points > 0
    if unopposed and lift and not opposed and t.variant <= score < t.accept:
        score = t.accept
    return score


def decide(base: float, evidence: list[Evidence], t: Thresholds) -> Verdict:
    """The band, score and reason the evidence gives a title scoring ``base``."""
    score = score_of(base, evidence, t)
    lifted = score_of(base, evidence, t, unopposed=False) != score
    notes = [
        e.reason
        for e in evidence
        if e.reason and e.strength is not Strength.DOUBT and (e.strength is not Strength.UNOPPOSED or lifted)
    ]
    notes += [e.reason for e in evidence if e.reason and e.strength is Strength.DOUBT]
    band = "accept" if score >= t.accept else "review" if score >= t.review else "reject"
    veto = next((e.reason for e in evidence if e.veto), "")
    return Verdict(score, band, notes, veto)
