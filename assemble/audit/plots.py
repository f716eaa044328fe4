"""Small, deterministic SVG plots for the build report (matplotlib, SVG backend, no pyplot).

Each function takes plain data and returns one ``<svg>`` element as a string, ready to inline in
HTML. Determinism (docs/architecture.md, invariant 5, applies to the report too): a fixed
``svg.hashsalt`` makes clip-path ids stable and ``metadata`` without Date/Creator drops the
timestamp and version, so a build gives the same bytes. Text stays text (``svg.fonttype = "none"``):
it is searchable, small, and matplotlib XML-escapes it, so a paper title containing markup cannot
become markup.
"""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence

import matplotlib
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

_RC = {
    "svg.hashsalt": "reflong-build-report",
    "svg.fonttype": "none",
    "font.size": 9,
    "axes.spines.top": False,
    "axes.spines.right": False,
}
OURS, THEIRS = "#3366aa", "#bbbbbb"
BAND_COLORS = {"accept": "#2a9d4a", "review": "#e0a020", "reject": "#c0392b"}


def to_svg(fig: Figure) -> str:
    """The figure as an inline ``<svg>`` element (XML prolog and DOCTYPE removed)."""
    buf = io.StringIO()
    with matplotlib.rc_context(_RC):
        fig.savefig(
            buf,
            format="svg",
            metadata={"Date": None, "Creator": None, "Format": None, "Type": None},
            bbox_inches="tight",
        )
    text = buf.getvalue()
    return text[text.index("<svg") :].strip()


def _figure(width: float, height: float) -> tuple[Figure, object]:
    with matplotlib.rc_context(_RC):
        fig = Figure(figsize=(width, height), layout="constrained")
        ax = fig.add_subplot()
    return fig, ax


def box_by_setting(values: Mapping[str, Sequence[int]], ylabel: str, gid: str) -> str:
    """One box (with every point) per setting, e.g. prompt tokens per difficulty/length."""
    with matplotlib.rc_context(_RC):
        fig, ax = _figure(max(4.0, 0.75 * len(values) + 1.5), 3.2)
        labels = list(values)
        data = [list(values[k]) for k in labels]
        ax.boxplot(data, tick_labels=labels, showfliers=False, widths=0.5)
        for i, points in enumerate(data, start=1):
            # Points spread deterministically across the box so overlapping values stay visible.
            n = max(len(points), 1)
            xs = [i - 0.18 + 0.36 * (j / n) for j in range(len(points))]
            ax.scatter(xs, points, s=5, color=OURS, alpha=0.5, linewidths=0)
        ax.set_ylabel(ylabel)
        ax.tick_params(axis="x", rotation=30)
        ax.grid(axis="y", alpha=0.3)
        fig.set_gid(gid)
        return to_svg(fig)


def size_distributions(
    ours: Mapping[str, Mapping[int, int]],
    theirs: Mapping[str, Mapping[int, int]] | None,
    gid: str,
) -> str:
    """Answer-set sizes as a share of each setting's tasks (builds and Ref-Long differ in task
    counts, so shares compare and counts would not), one panel per setting, Ref-Long beside ours."""
    settings = list(ours) or list(theirs or {})
    cols = min(4, max(1, len(settings)))
    rows = (len(settings) + cols - 1) // cols
    with matplotlib.rc_context(_RC):
        fig = Figure(figsize=(2.3 * cols + 0.5, 2.0 * rows + 0.6), layout="constrained")
        axes = fig.subplots(rows, cols, squeeze=False, sharey=True)
        for idx, setting in enumerate(settings):
            ax = axes[idx // cols][idx % cols]
            mine = ours.get(setting, {})
            other = (theirs or {}).get(setting, {})
            sizes = sorted(set(mine) | set(other))
            n_mine, n_other = max(sum(mine.values()), 1), max(sum(other.values()), 1)
            width = 0.4 if theirs else 0.7
            ax.bar(
                [s - (width / 2 if theirs else 0) for s in sizes],
                [100 * mine.get(s, 0) / n_mine for s in sizes],
                width,
                color=OURS,
                label="this build",
            )
            if theirs:
                ax.bar(
                    [s + width / 2 for s in sizes],
                    [100 * other.get(s, 0) / n_other for s in sizes],
                    width,
                    color=THEIRS,
                    label="Ref-Long",
                )
            ax.set_title(setting)
            ax.set_xticks(sizes)
            ax.grid(axis="y", alpha=0.3)
        for idx in range(len(settings), rows * cols):
            axes[idx // cols][idx % cols].set_visible(False)
        for r in range(rows):
            axes[r][0].set_ylabel("% of tasks")
        fig.supxlabel("answer-set size (documents citing the key)")
        if theirs:
            handles, labels = axes[0][0].get_legend_handles_labels()
            fig.legend(handles, labels, loc="lower center", bbox_to_anchor=(0.5, 1.0), ncols=2, frameon=False)
        fig.set_gid(gid)
        return to_svg(fig)


def horizontal_bars(labels: Sequence[str], values: Sequence[int], xlabel: str, gid: str) -> str:
    """One bar per label (e.g. positives per key); labels are shortened to stay readable."""
    short = [label if len(label) <= 60 else label[:57] + "..." for label in labels]
    with matplotlib.rc_context(_RC):
        fig, ax = _figure(7.5, 0.6 + 0.22 * max(len(labels), 1))
        ys = list(range(len(labels)))[::-1]
        ax.barh(ys, values, color=OURS, height=0.7)
        ax.set_yticks(ys, short)
        for y, v in zip(ys, values, strict=True):
            ax.text(v, y, f" {v}", va="center", fontsize=7)
        ax.set_xlabel(xlabel)
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.grid(axis="x", alpha=0.3)
        fig.set_gid(gid)
        return to_svg(fig)


def scores_by_method_and_band(points: Mapping[tuple[str, str], Sequence[float]], gid: str) -> str:
    """Edge scores as stacked histograms, one panel per method, stacked by band.

    Histograms rather than dots: most scores sit at exactly 100 (id matches), which a strip plot
    draws as one dot; bars show how many there are and where the review band begins."""
    methods = sorted({m for m, _ in points})
    all_scores = [s for v in points.values() for s in v]
    lo = min(50.0, 5 * (min(all_scores, default=50.0) // 5))
    edges = [lo + 2.5 * i for i in range(int((100.5 - lo) / 2.5) + 1)]
    if edges[-1] < 100.5:
        edges.append(edges[-1] + 2.5)
    with matplotlib.rc_context(_RC):
        fig = Figure(figsize=(3.0 * len(methods) + 0.6, 2.6), layout="constrained")
        axes = fig.subplots(1, len(methods), squeeze=False, sharey=True)[0]
        for ax, method in zip(axes, methods, strict=True):
            data = [list(points.get((method, band), ())) for band in BAND_COLORS]
            ax.hist(data, bins=edges, stacked=True, color=list(BAND_COLORS.values()), label=list(BAND_COLORS))
            ax.set_title(method)
            ax.set_xlabel("score")
            ax.grid(axis="y", alpha=0.3)
            ax.yaxis.set_major_locator(MaxNLocator(integer=True))
        axes[0].set_ylabel("edges")
        handles, labels = axes[0].get_legend_handles_labels()
        fig.legend(handles, labels, loc="lower center", bbox_to_anchor=(0.5, 1.0), ncols=3, frameon=False)
        fig.set_gid(gid)
        return to_svg(fig)


AFTER, BEFORE = OURS, "#999999"


def scores_by_release(models: Sequence[Mapping], gid: str) -> str:
    """One panel per model: ExAcc and F1 (percent) per release, releases after the model's
    knowledge cutoff in colour and those before in grey, a dashed line at the cutoff. ``models``:
    ``{"label", "cutoff", "releases": [{"release", "side", "exacc", "f1"}]}`` (eval score's view)."""
    cols = min(3, max(1, len(models)))
    rows = (len(models) + cols - 1) // cols
    with matplotlib.rc_context(_RC):
        fig = Figure(figsize=(3.4 * cols + 0.4, 2.6 * rows + 0.5), layout="constrained")
        axes = fig.subplots(rows, cols, squeeze=False, sharey=True)
        for idx, model in enumerate(models):
            ax = axes[idx // cols][idx % cols]
            releases = list(model["releases"])
            xs = list(range(len(releases)))
            for key, marker, style in (("exacc", "o", "-"), ("f1", "s", ":")):
                ys = [100 * r[key] for r in releases]
                ax.plot(
                    xs, ys, style, color="#444444", linewidth=0.8, label="ExAcc" if key == "exacc" else "F1"
                )
                colors = [AFTER if r.get("side") == "after" else BEFORE for r in releases]
                ax.scatter(xs, ys, c=colors, marker=marker, s=22, zorder=3)
            sides = [r.get("side") for r in releases]
            if "before" in sides and "after" in sides:
                edge = sides.index("after") - 0.5
                ax.axvline(edge, color=AFTER, linestyle="--", linewidth=0.8)
                ax.text(edge, 102, f" cutoff {model.get('cutoff')}", fontsize=7, color=AFTER, va="bottom")
            ax.set_xticks(xs, [r["release"] for r in releases], rotation=30)
            ax.set_ylim(0, 110)
            cutoff = model.get("cutoff")
            ax.set_title(
                f"{model['label']} (cutoff {cutoff})" if cutoff else f"{model['label']} (cutoff unknown)"
            )
            ax.grid(axis="y", alpha=0.3)
        for idx in range(len(models), rows * cols):
            axes[idx // cols][idx % cols].set_visible(False)
        for r in range(rows):
            axes[r][0].set_ylabel("% (grey: before cutoff)")
        handles, labels = axes[0][0].get_legend_handles_labels()
        fig.legend(handles, labels, loc="lower center", bbox_to_anchor=(0.5, 1.0), ncols=2, frameon=False)
        fig.set_gid(gid)
        return to_svg(fig)
