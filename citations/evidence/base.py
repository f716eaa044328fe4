"""Typed evidence about one (reference, seed) pair: what each evidence module returns.

Why a type of its own: the decision (``decision/decide.py``) must read every kind of evidence the
same way, and an auditor must see why an edge got its band. Each item says what it is (``kind``),
how strongly it moves the title score (``strength``), whether it says the reference cites another
work (``veto``: no late rule may then accept the pair), and a ``reason`` the audit prints.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum


class Strength(Enum):
    """How a piece of evidence moves the title score (thresholds from ``Thresholds``)."""

    NOTE = "note"  # said, no effect on the score
    RAISE = "raise"  # to the accept threshold at least
    UNOPPOSED = "unopposed"  # to accept, when nothing holds the edge back (a variant title)
    PENALTY = "penalty"  # points off the title score
    HOLD = "hold"  # below accept: a person decides (review at best)
    DOUBT = "doubt"  # a HOLD printed after every note: what keeps the edge out of accept
    REJECT = "reject"  # below review: another work, kept as a near miss


HOLDS_BACK = frozenset({Strength.PENALTY, Strength.HOLD, Strength.DOUBT, Strength.REJECT})


@dataclass(frozen=True)
class Evidence:
    kind: str  # the module that read it ("sequel", "first_author", ...)
    strength: Strength
    reason: str = ""  # empty: a silent effect (its reason is said by another item)
    points: float = 0.0  # for PENALTY
    veto: bool = False  # the reference cites another work


def note(kind: str, reason: str) -> Evidence:
    return Evidence(kind, Strength.NOTE, reason)


def hold(kind: str, reason: str) -> Evidence:
    return Evidence(kind, Strength.HOLD, reason)


def doubt(kind: str, reason: str) -> Evidence:
    return Evidence(kind, Strength.DOUBT, reason)


def reject(kind: str, reason: str, veto: bool = False) -> Evidence:
    return Evidence(kind, Strength.REJECT, reason, veto=veto)


def raise_(kind: str, reason: str = "") -> Evidence:
    return Evidence(kind, Strength.RAISE, reason)
