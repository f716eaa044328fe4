"""Ref-Long's metrics and error types for one task and for a set of tasks.

Per task, with gold set G and predicted set P (indexes, as sets: duplicates never count twice):

- ExAcc: 1 if P == G, else 0.
- precision = |P & G| / |P|, recall = |P & G| / |G|, F1 = 2PR / (P + R).
  Empty sets, explicitly: both empty -> precision = recall = F1 = 1 (nothing to find, nothing
  claimed: a perfect answer). P empty, G not -> precision 0, recall 0, F1 0. G empty, P not ->
  recall 1 (nothing was missed), precision 0, F1 0. Released tasks never have an empty G, so on
  them this agrees with the release's rule "F1 is 0 when either set is empty".
  With ``reflong2025=True`` the release's rule is used as is (both empty -> F1 0).
- Error types (the paper's error analysis): Type I = a correct document missed and nothing extra
  (G - P non-empty, P - G empty); Type II = an extra document and nothing missed; Type III = both.
  An unparseable response is scored as the empty prediction, so it is a Type I error (and is also
  counted on its own).

A file's figures are means over its tasks (macro), as the paper reports them; ``overall`` pools
every task of every file (each task weighs the same). Shares of error types are of all tasks and,
separately, of the wrong ones.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True)
class TaskScore:
    exact: bool
    precision: float
    recall: float
    f1: float
    error_type: str | None  # None (correct), "I", "II" or "III"
    parseable: bool = True
    out_of_range: int = 0
    missing: bool = False  # no prediction for this task at all


def score_task(
    gold: Iterable[int],
    predicted: Iterable[int],
    parseable: bool = True,
    out_of_range: int = 0,
    missing: bool = False,
    reflong2025: bool = False,
) -> TaskScore:
    """Score one task; see the module doc for the empty-set rules."""
    g, p = set(gold), set(predicted)
    hit = len(g & p)
    if reflong2025:
        precision = hit / len(p) if p else 0.0
        recall = hit / len(g) if g else 0.0
    else:
        precision = hit / len(p) if p else (1.0 if not g else 0.0)
        recall = hit / len(g) if g else 1.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    if reflong2025 and (not g or not p):
        f1 = 0.0
    missed, extra = bool(g - p), bool(p - g)
    error = "III" if missed and extra else "I" if missed else "II" if extra else None
    return TaskScore(g == p, precision, recall, f1, error, parseable, out_of_range, missing)


@dataclass(frozen=True)
class Summary:
    """Means and counts over a set of tasks."""

    n: int
    exacc: float
    f1: float
    precision: float
    recall: float
    type_i: int
    type_ii: int
    type_iii: int
    unparseable: int
    out_of_range: int
    missing: int

    def as_json(self, digits: int = 6) -> dict:
        wrong = self.type_i + self.type_ii + self.type_iii

        def share(k: int, of: int) -> float:
            return round(k / of, digits) if of else 0.0

        return {
            "n": self.n,
            "exacc": round(self.exacc, digits),
            "f1": round(self.f1, digits),
            "precision": round(self.precision, digits),
            "recall": round(self.recall, digits),
            "type_i": self.type_i,
            "type_ii": self.type_ii,
            "type_iii": self.type_iii,
            "type_i_share": share(self.type_i, self.n),
            "type_ii_share": share(self.type_ii, self.n),
            "type_iii_share": share(self.type_iii, self.n),
            "type_i_share_of_errors": share(self.type_i, wrong),
            "type_ii_share_of_errors": share(self.type_ii, wrong),
            "type_iii_share_of_errors": share(self.type_iii, wrong),
            "unparseable": self.unparseable,
            "out_of_range": self.out_of_range,
            "missing": self.missing,
        }


def summarize(scores: Iterable[TaskScore]) -> Summary:
    scores = list(scores)
    n = len(scores)

    def mean(values: Iterable[float]) -> float:
        return sum(values) / n if n else 0.0

    return Summary(
        n=n,
        exacc=mean(float(s.exact) for s in scores),
        f1=mean(s.f1 for s in scores),
        precision=mean(s.precision for s in scores),
        recall=mean(s.recall for s in scores),
        type_i=sum(s.error_type == "I" for s in scores),
        type_ii=sum(s.error_type == "II" for s in scores),
        type_iii=sum(s.error_type == "III" for s in scores),
        unparseable=sum(not s.parseable for s in scores),
        out_of_range=sum(s.out_of_range for s in scores),
        missing=sum(s.missing for s in scores),
    )
