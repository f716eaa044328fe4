"""The report's evaluation section: scores of models and baselines on this build, from files.

Why files: evaluation comes after assembly (docs/architecture.md: data flows ingest -> citations -> assemble
-> evaluate), so assemble must not import evaluate. Evaluate writes its results into the build's
outputs folder as JSON, and this module only reads them:

- ``OUT/eval/baselines.json``: written with the dataset card (``{"kinds": {kind: scores}}``);
- ``OUT/eval/<label>.json``: ``reflong-build eval score ... --save OUT/eval/<label>.json`` (one per
  model or parser; ``{"<config>_answers.json": figures, ..., "overall": figures, "meta": {...}}``).

Figures per configuration (difficulty x length) are ExAcc, mean F1 and the Type I/II/III shares of
the wrong answers. Where the Ref-Long paper published a figure for the same setting it is shown
beside ours (``PUBLISHED``).

Where a model's file holds a contamination view (``"contamination"``: its scores by release, each
release before or after the model's knowledge cutoff, after - before with a 95% bootstrap interval;
``evaluate/contamination.py``), a table and a plot show it, so a drop after the cutoff is seen at a
glance.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from html import escape
from pathlib import Path

EVAL_DIR = "eval"

#: Published results for the same settings: (subset, length label) -> [(who, ExAcc, F1)].
#: Ref-Long (ACL 2025), Ref-Long-Paper with M = 20 papers (75K): GPT-4o F1 71.13, ExAcc 17%.
#: The paper does not say whether that is the released easy or hard split.
PUBLISHED: dict[tuple[str, str], list[tuple[str, float, float]]] = {
    ("paper", "75K"): [("GPT-4o (Ref-Long paper, M=20)", 0.17, 0.7113)],
}


@dataclass
class EvalSeries:
    """One scored system (a model run or a baseline) over the build's configurations."""

    label: str
    source: str
    by_config: dict[str, dict] = field(default_factory=dict)
    overall: dict = field(default_factory=dict)
    meta: dict = field(default_factory=dict)  # what eval score kept: label, parser, human timing, agreement
    contamination: dict | None = None


def _series(label: str, source: str, scores: dict) -> EvalSeries:
    by_config = {}
    for name, figures in scores.items():
        if name in ("overall", "meta", "contamination") or not isinstance(figures, dict):
            continue
        config = figures.get("config") or name.removesuffix("_answers.json")
        by_config[config] = figures
    meta = scores.get("meta") if isinstance(scores.get("meta"), dict) else {}
    view = scores.get("contamination")
    view = view if isinstance(view, dict) and isinstance(view.get("releases"), list) else None
    return EvalSeries(label, source, by_config, scores.get("overall", {}), meta, view)


def load_evaluations(out_dir: str | Path | None) -> list[EvalSeries]:
    """Every evaluation result in ``OUT/eval/`` (baselines first, then models by label)."""
    if out_dir is None:
        return []
    folder = Path(out_dir) / EVAL_DIR
    if not folder.is_dir():
        return []
    baselines: list[EvalSeries] = []
    models: list[EvalSeries] = []
    for path in sorted(folder.glob("*.json")):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError):
            continue
        if not isinstance(data, dict):
            continue
        if isinstance(data.get("kinds"), dict):
            for kind, scores in data["kinds"].items():
                baselines.append(_series(f"baseline: {kind}", path.name, scores))
            continue
        meta = data.get("meta") or {}
        label = str(meta.get("label") or path.stem)
        if meta.get("parser") and meta["parser"] != "prompt":
            label += f" ({meta['parser']} parser)"
        models.append(_series(label, path.name, data))
    return models + baselines


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.1f}"


def _cell(figures: dict | None) -> str:
    if not figures:
        return "-"
    return f"{_pct(figures.get('exacc'))} / {_pct(figures.get('f1'))}"


def _published(subset: str, config: str) -> str:
    length = config.rsplit("_", 1)[-1]
    rows = PUBLISHED.get((subset, length), [])
    return "; ".join(f"{who}: {100 * ex:.1f} / {100 * f1:.2f}" for who, ex, f1 in rows) or "-"


def evaluation_section(series: list[EvalSeries], configs: list[str], subset: str) -> str:
    """HTML: ExAcc / F1 per configuration and system, published figures beside; error-type shares."""
    if not series:
        return (
            '<p class="none">No evaluation results in OUT/eval/ yet. Score a model with '
            "<code>reflong-build eval run</code> then <code>reflong-build eval score ... --save "
            "OUT/eval/MODEL.json</code>; builds write their baselines there.</p>"
        )
    seen = {c for s in series for c in s.by_config}
    ordered = [c for c in configs if c in seen] + sorted(seen - set(configs))
    head = "".join(f"<th>{escape(s.label)}</th>" for s in series)
    rows = []
    for config in ordered:
        cells = "".join(
            f'<td class="n" data-stat="eval:{escape(s.label)}:{escape(config)}">{_cell(s.by_config.get(config))}</td>'
            for s in series
        )
        rows.append(f"<tr><td>{escape(config)}</td>{cells}<td>{escape(_published(subset, config))}</td></tr>")
    overall = "".join(f'<td class="n">{_cell(s.overall)}</td>' for s in series)
    rows.append(f"<tr><td><b>overall</b></td>{overall}<td></td></tr>")
    table = (
        f"<table><thead><tr><th>setting</th>{head}<th>published (ExAcc / F1)</th></tr></thead>"
        f"<tbody>{''.join(rows)}</tbody></table>"
    )
    err_rows = []
    for s in series:
        o = s.overall
        wrong = sum(o.get(k, 0) for k in ("type_i", "type_ii", "type_iii"))
        shares = [
            f"{100 * o.get(k, 0) / wrong:.1f}% ({o.get(k, 0)})" if wrong else "-"
            for k in ("type_i", "type_ii", "type_iii")
        ]
        err_rows.append(
            f'<tr><td>{escape(s.label)}</td><td class="n">{o.get("n", 0)}</td><td class="n">{wrong}</td>'
            + "".join(
                f'<td class="n" data-stat="errors:{escape(s.label)}:{t}">{v}</td>'
                for t, v in zip(("I", "II", "III"), shares, strict=True)
            )
            + f'<td class="n">{o.get("unparseable", 0)}</td><td>{escape(s.source)}</td></tr>'
        )
    errors = (
        "<table><thead><tr><th>system</th><th>tasks</th><th>wrong</th><th>Type I (missed only)</th>"
        "<th>Type II (extra only)</th><th>Type III (both)</th><th>unparseable</th><th>file</th></tr></thead>"
        f"<tbody>{''.join(err_rows)}</tbody></table>"
    )
    note = (
        '<p class="sub">ExAcc / mean F1 in percent per setting (difficulty_length). Error types are '
        "shares of the wrong answers (Ref-Long's error analysis). Published figures are the paper's "
        "for the same length, on its own papers.</p>"
    )
    return note + table + errors + _people(series) + contamination_section(series)


def _people(series: list[EvalSeries]) -> str:
    """Time on task and agreement of human annotators (``reflong-build human``), as Ref-Long
    reports its people: seconds a task beside the scores, and how often two annotators agree."""
    lines = []
    for s in series:
        human = s.meta.get("human") if isinstance(s.meta.get("human"), dict) else None
        parts = []
        if human and human.get("answered"):
            median = human.get("seconds_median")
            parts.append(
                f"{human['answered']} tasks answered, {human.get('seconds_mean', 0):.0f} s a task"
                + (f" (median {median:.0f} s)" if median is not None else "")
            )
        for pair in s.meta.get("agreement") or []:
            if (
                not isinstance(pair, dict)
                or not pair.get("shared_tasks")
                or s.label not in (pair.get("a"), pair.get("b"))
            ):
                continue  # pairs among the other annotators belong to their own rows
            other = pair.get("b") if pair.get("a") == s.label else pair.get("a")
            kappa = pair.get("cohen_kappa")
            parts.append(
                f"agreement with {escape(str(other))}: same answer on "
                f"{_pct(pair.get('same_answer_share'))}% of {pair['shared_tasks']} shared tasks, Cohen's kappa "
                + ("undefined" if kappa is None else f"{kappa:.2f}")
                + " per document"
            )
        if parts:
            lines.append(
                f'<li data-stat="people:{escape(s.label)}"><b>{escape(s.label)}</b>: {"; ".join(parts)}</li>'
            )
    if not lines:
        return ""
    return f'<p class="sub">People (reflong-build human):</p><ul>{"".join(lines)}</ul>'


def _interval(d: dict, key: str) -> str:
    return (
        f"{key.replace('exacc', 'ExAcc').replace('f1', 'F1')} {100 * d[key]:+.1f} "
        f"[{100 * d[key + '_ci_low']:+.1f}, {100 * d[key + '_ci_high']:+.1f}]"
    )


def contamination_section(series: list[EvalSeries]) -> str:
    """HTML: per model, ExAcc / F1 per release marked before or after its knowledge cutoff, the
    difference after - before with its 95% bootstrap interval, and a plot of all of them."""
    from reflong.assemble.audit import plots

    views = [(s.label, s.contamination) for s in series if s.contamination and s.contamination["releases"]]
    if not views:
        return ""
    rows = []
    for label, view in views:
        cutoff = view.get("cutoff") or "unknown"
        for r in view["releases"]:
            side = r.get("side") or "-"
            stat = f"contamination:{label}:{r['release']}"
            rows.append(
                f"<tr><td>{escape(label)}</td><td>{escape(str(cutoff))}</td><td>{escape(str(r['release']))}</td>"
                f'<td class="n" data-stat="{escape(stat)}">{escape(side)}: {_pct(r["exacc"])} / {_pct(r["f1"])} '
                f"({r['n']})</td></tr>"
            )
        d = view.get("difference")
        if d:
            text = f"{_interval(d, 'exacc')}; {_interval(d, 'f1')}"
        else:
            text = "no difference: a model needs releases on both sides of a known cutoff"
        rows.append(
            f"<tr><td>{escape(label)}</td><td>{escape(str(cutoff))}</td><td><b>after - before</b></td>"
            f'<td class="n" data-stat="{escape(f"contamination:{label}:difference")}">{escape(text)}</td></tr>'
        )
    table = (
        "<table><thead><tr><th>system</th><th>knowledge cutoff</th><th>release</th>"
        "<th>side: ExAcc / F1 (tasks)</th></tr></thead>"
        f"<tbody>{''.join(rows)}</tbody></table>"
    )
    figure = plots.scores_by_release(
        [
            {"label": label, "cutoff": view.get("cutoff"), "releases": view["releases"]}
            for label, view in views
        ],
        "fig-contamination",
    )
    note = (
        '<h3>Contamination: scores by release</h3><p class="sub">Each task\'s release is its month '
        "(the dataset row's release, else its key paper's month). Releases after a model's knowledge "
        "cutoff hold papers it cannot have read; a drop there suggests the earlier scores were helped "
        "by training data. Differences in percentage points with a 95% bootstrap interval over tasks.</p>"
    )
    return note + table + f'<div class="fig">{figure}</div>'
