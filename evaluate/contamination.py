"""The contamination view: a model's ExAcc and F1 by release, before and after its knowledge cutoff.

Why: a model whose training data holds the papers of a release may score well on it for the
wrong reason (Ref-Long's authors name this leakage as its Paper subset's weakness). A benchmark
that grows release by release can show it: releases after the model's cutoff are papers it cannot
have read, so a drop from the releases before to those after is leakage made visible.

Figures: per release, the mean ExAcc and F1 of its tasks; then the same over every task before and
every task after the cutoff, and the difference after - before with a 95% confidence interval from
a percentile bootstrap over tasks. The resampled unit is one task *with all its lengths* (the
tasks of easy_30K and easy_45K with the same id share their key and positives, so they are not
independent draws; resampling them apart would make the interval too narrow). Each side is
resampled separately (its own number of units), ``resamples`` times, from ``random.Random(seed)``,
so the interval is the same on every machine and Python version. The percentile bootstrap is a
dozen lines here; scipy (its ``stats.bootstrap``) would be a large dependency for them.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from reflong.evaluate.cutoffs import Cutoff
from reflong.evaluate.metrics import TaskScore

DEFAULT_RESAMPLES = 2000
LEVEL = 0.95


@dataclass(frozen=True)
class Side:
    """Tasks pooled on one side of the cutoff (or of one release)."""

    n: int
    exacc: float
    f1: float

    def as_json(self, digits: int = 6) -> dict:
        return {"n": self.n, "exacc": round(self.exacc, digits), "f1": round(self.f1, digits)}


@dataclass(frozen=True)
class ContaminationView:
    model: str
    cutoff: Cutoff | None
    releases: list[tuple[str, str | None, Side]]  # (release, "before" | "after" | None, figures)
    before: Side | None
    after: Side | None
    difference: dict[str, float] | None  # exacc, f1, and their CI bounds
    without_release: int
    resamples: int
    seed: int

    def as_json(self) -> dict:
        return {
            "model": self.model,
            "cutoff": self.cutoff.month if self.cutoff else None,
            "cutoff_source": self.cutoff.source if self.cutoff else None,
            "releases": [
                {"release": r, "side": side, **figures.as_json()} for r, side, figures in self.releases
            ],
            "before": self.before.as_json() if self.before else None,
            "after": self.after.as_json() if self.after else None,
            "difference": self.difference,
            "without_release": self.without_release,
            "bootstrap": {
                "resamples": self.resamples,
                "seed": self.seed,
                "level": LEVEL,
                "unit": "task id with all its lengths",
            },
        }


def side_of(release: str, cutoff: Cutoff | None) -> str | None:
    """ "after" when the release's month is later than the cutoff month, else "before"."""
    if cutoff is None:
        return None
    return "after" if release > cutoff.month else "before"


def _side(scores: Sequence[TaskScore]) -> Side:
    n = len(scores)
    return Side(n, sum(s.exact for s in scores) / n, sum(s.f1 for s in scores) / n)


def _unit_sums(units: Sequence[Sequence[TaskScore]]) -> list[tuple[int, float, float]]:
    return [(len(u), float(sum(s.exact for s in u)), sum(s.f1 for s in u)) for u in units]


def _resampled_means(rng: random.Random, sums: Sequence[tuple[int, float, float]]) -> tuple[float, float]:
    k = len(sums)
    n = exact = f1 = 0.0
    for _ in range(k):
        m, e, f = sums[int(rng.random() * k)]
        n, exact, f1 = n + m, exact + e, f1 + f
    return exact / n, f1 / n


def _percentile(sorted_values: Sequence[float], q: float) -> float:
    """The value at quantile ``q`` by linear interpolation between order statistics."""
    pos = q * (len(sorted_values) - 1)
    lo = int(pos)
    hi = min(lo + 1, len(sorted_values) - 1)
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * (pos - lo)


def bootstrap_difference(
    before: Sequence[Sequence[TaskScore]],
    after: Sequence[Sequence[TaskScore]],
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
) -> dict[str, float]:
    """after - before of mean ExAcc and F1, with percentile bootstrap bounds (see module doc)."""
    b_sums, a_sums = _unit_sums(before), _unit_sums(after)
    pooled_b = _side([s for u in before for s in u])
    pooled_a = _side([s for u in after for s in u])
    rng = random.Random(seed)
    d_exacc, d_f1 = [], []
    for _ in range(resamples):
        be, bf = _resampled_means(rng, b_sums)
        ae, af = _resampled_means(rng, a_sums)
        d_exacc.append(ae - be)
        d_f1.append(af - bf)
    d_exacc.sort()
    d_f1.sort()
    tail = (1 - LEVEL) / 2
    return {
        "exacc": round(pooled_a.exacc - pooled_b.exacc, 6),
        "exacc_ci_low": round(_percentile(d_exacc, tail), 6),
        "exacc_ci_high": round(_percentile(d_exacc, 1 - tail), 6),
        "f1": round(pooled_a.f1 - pooled_b.f1, 6),
        "f1_ci_low": round(_percentile(d_f1, tail), 6),
        "f1_ci_high": round(_percentile(d_f1, 1 - tail), 6),
    }


def _unit(config: str, task_id: str) -> tuple[str, str]:
    """A task with all its lengths: the configuration without its length label, and the id."""
    setting = config.rsplit("_", 1)[0] if "_" in config else config
    return setting, task_id


def _folder(name: str) -> str:
    """The folder part of a file's name (scored folders of several builds name files by path)."""
    return name.rsplit("/", 1)[0] if "/" in name else ""


def contamination_view(
    model: str,
    scored: Sequence[tuple[str, str, Mapping[str, TaskScore]]],
    releases: Mapping[str, Mapping[str, str]],
    cutoff: Cutoff | None,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
) -> ContaminationView | None:
    """The view for one model: ``scored`` is (file name, config, {task id: score}) per answers
    file, ``releases`` {file name: {task id: release}}. None when no task has a release."""
    by_release: dict[str, list[TaskScore]] = {}
    units: dict[str, dict[tuple[str, str], list[TaskScore]]] = {"before": {}, "after": {}}
    without = 0
    for name, config, tasks in scored:
        known = releases.get(name, {})
        for tid, score in tasks.items():
            release = known.get(tid)
            if release is None:
                without += 1
                continue
            by_release.setdefault(release, []).append(score)
            side = side_of(release, cutoff)
            if side is not None:
                units[side].setdefault((*_unit(config, tid), release, _folder(name)), []).append(score)
    if not by_release:
        return None
    rows = [(r, side_of(r, cutoff), _side(by_release[r])) for r in sorted(by_release)]
    before_units = [units["before"][k] for k in sorted(units["before"])]
    after_units = [units["after"][k] for k in sorted(units["after"])]
    before = _side([s for u in before_units for s in u]) if before_units else None
    after = _side([s for u in after_units for s in u]) if after_units else None
    difference = (
        bootstrap_difference(before_units, after_units, resamples, seed) if before and after else None
    )
    return ContaminationView(model, cutoff, rows, before, after, difference, without, resamples, seed)


def view_text(view: ContaminationView) -> str:
    """Plain text for ``eval score``: the releases, each side, the difference with its interval."""
    if view.cutoff is None:
        head = (
            f"contamination view: model {view.model!r} has no known knowledge cutoff (give --cutoff YYYY-MM "
            "or a line in --cutoffs FILE); releases only"
        )
    else:
        source = f" ({view.cutoff.source})" if view.cutoff.source else ""
        head = f"contamination view: model {view.model!r}, knowledge cutoff {view.cutoff.month}{source}"
    lines = [head, f"{'release':<9} {'side':<7} {'n':>5} {'ExAcc':>6} {'F1':>6}"]
    for release, side, f in view.releases:
        lines.append(f"{release:<9} {side or '-':<7} {f.n:>5} {f.exacc:>6.3f} {f.f1:>6.3f}")
    for name, f in (("before", view.before), ("after", view.after)):
        if f is not None:
            lines.append(f"{'all ' + name:<17} {f.n:>5} {f.exacc:>6.3f} {f.f1:>6.3f}")
    d = view.difference
    if d is not None:
        lines.append(
            f"after - before: ExAcc {d['exacc']:+.3f} [95% CI {d['exacc_ci_low']:+.3f}, {d['exacc_ci_high']:+.3f}], "
            f"F1 {d['f1']:+.3f} [95% CI {d['f1_ci_low']:+.3f}, {d['f1_ci_high']:+.3f}] "
            f"(bootstrap over tasks, {view.resamples} resamples, seed {view.seed})"
        )
    elif view.cutoff is not None:
        missing = "after" if view.after is None else "before"
        lines.append(f"no release {missing} the cutoff: no difference to show")
    if view.without_release:
        lines.append(
            f"{view.without_release} scored tasks have no release (no dataset row beside their answers)"
        )
    return "\n".join(lines)


def view_for_results(
    results: Sequence, model: str, cutoff: Cutoff | None, resamples: int = DEFAULT_RESAMPLES, seed: int = 0
) -> ContaminationView | None:
    """The view for scored answers files (``scoring.FileResult``), releases read from each file's
    dataset rows (``releases.task_releases``); None when no task has a release."""
    from reflong.evaluate.releases import task_releases

    releases = {r.name: task_releases(r.path, r.config) for r in results if r.path is not None}
    scored = [(r.name, r.config, r.tasks) for r in results]
    return contamination_view(model, scored, releases, cutoff, resamples, seed)
