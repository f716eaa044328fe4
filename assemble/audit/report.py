"""One self-contained HTML page about a build: what a person checks before trusting a benchmark.

``collect_report`` reads the store (Build/BuildTask rows, citation edges, verdicts, the audit
queue) and the build's outputs folder into a plain ``ReportData``; ``render_report`` turns it into
HTML with inline SVG plots (no external assets, so the file can be mailed or attached to a
release). Every string that comes from a paper (titles, reference strings) goes through
``html.escape``; plots keep text as escaped SVG text.
"""

from __future__ import annotations

import json
import re
import statistics
from collections import Counter
from dataclasses import dataclass, field
from html import escape
from pathlib import Path

from sqlalchemy.engine import Engine
from sqlmodel import Session, func, select

from reflong.assemble.audit import plots
from reflong.assemble.audit.build_lookup import find_build
from reflong.assemble.audit.queue import KIND_ORDER, build_queue
from reflong.assemble.audit.report_eval import evaluation_section, load_evaluations
from reflong.assemble.outputs_ownership import REPORT_MARKER, REPORT_NAME
from reflong.common.atomic_files import atomic_target
from reflong.db.audits import apply_verdicts, verdicts_for
from reflong.db.builds import Build, BuildTask
from reflong.db.citations import Citation

QUEUE_SHOWN = 25
_DIFFICULTY_ORDER = {"easy": 0, "medium": 1, "hard": 2}


def setting_order(setting: str) -> tuple:
    """easy before hard, 30K before 45K (labels sort by their number, not as strings)."""
    difficulty, _, length = setting.rpartition("_")
    number = re.match(r"\d+", length)
    return (_DIFFICULTY_ORDER.get(difficulty, 9), difficulty, int(number.group()) if number else 0, length)


@dataclass
class SettingStats:
    setting: str
    prompt_tokens: list[int] = field(default_factory=list)
    answer_sizes: Counter = field(default_factory=Counter)

    @property
    def n_tasks(self) -> int:
        return len(self.prompt_tokens)

    def token_summary(self) -> dict[str, float]:
        t = self.prompt_tokens
        return {"min": min(t), "median": statistics.median(t), "mean": statistics.fmean(t), "max": max(t)}


@dataclass
class KeyStats:
    arxiv_id: str
    title: str
    positives: int  # distinct documents that are answers for this key, over all its tasks
    tasks: int


@dataclass
class ReportData:
    build: dict
    settings: dict[str, SettingStats]
    keys: list[KeyStats]
    reflong: dict[str, Counter] | None
    distractor_false_positives: list[dict]
    dropped_tasks: list[dict]
    outputs_check: dict[str, str]  # answers file -> "ok" | what differs
    edge_scores: dict[tuple[str, str], list[float]] = field(default_factory=dict)  # (method, band) -> scores
    edge_counts: dict[str, int] = field(default_factory=dict)  # effective band -> edges (verdicts applied)
    verdicts: dict[str, int] = field(default_factory=dict)  # verdict -> edges of this build's keys
    n_keys: int = 0  # keys of this build's tasks: the edges above are those pointing at them
    store_edges: int = 0  # every edge in the store, to any seed (what `reflong-build stats` counts)
    queue: dict[str, int] = field(default_factory=dict)  # audit queue kind -> rows
    queue_top: list = field(default_factory=list)  # the first QUEUE_SHOWN queue rows
    evaluations: list = field(default_factory=list)  # report_eval.EvalSeries read from OUT/eval/


def _ref_long_sizes(folder: Path) -> dict[str, Counter]:
    """Answer-set sizes per setting from Ref-Long-style ``{setting}_answers.json`` files."""
    out: dict[str, Counter] = {}
    for path in sorted(folder.glob("*_answers.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        # Answers are sets (the NBA files repeat indexes), so sizes count distinct documents.
        out[path.name[: -len("_answers.json")]] = Counter(len(set(v[1])) for v in data.values())
    return out


def _check_outputs(build: Build, tasks: list[BuildTask]) -> dict[str, str]:
    """Do the answers files in the outputs folder say what the store says?"""
    if not build.out_dir or not Path(build.out_dir).is_dir():
        return {}
    expected: dict[str, dict[str, list]] = {}
    for t in tasks:
        expected.setdefault(f"{t.difficulty}_{t.length}", {})[str(t.task_index)] = [
            t.key_title,
            json.loads(t.answer_json),
        ]
    out: dict[str, str] = {}
    for setting in sorted(expected, key=setting_order):
        # `paper` writes answers/{setting}_answers.json; a flat Ref-Long-style folder works too.
        name = f"{setting}_answers.json"
        path = next(
            (p for p in (Path(build.out_dir) / "answers" / name, Path(build.out_dir) / name) if p.is_file()),
            Path(build.out_dir) / "answers" / name,
        )
        if not path.is_file():
            out[path.name] = "missing"
            continue
        found = json.loads(path.read_text(encoding="utf-8"))
        differ = sorted(
            (i for i in set(found) | set(expected[setting]) if found.get(i) != expected[setting].get(i)),
            key=lambda i: int(i) if i.isdigit() else -1,
        )
        out[path.name] = (
            "ok" if not differ else f"{len(differ)} tasks differ from the store (first: {differ[0]})"
        )
    return out


def collect_report(
    engine: Engine,
    build_id: int | None = None,
    out_dir: str | Path | None = None,
    compare: Path | None = None,
) -> ReportData:
    with Session(engine) as session:
        build = find_build(session, build_id, out_dir)
        tasks = session.exec(
            select(BuildTask)
            .where(BuildTask.build_id == build.id)
            .order_by(BuildTask.difficulty, BuildTask.length, BuildTask.task_index)
        ).all()
        keys = sorted({t.key_arxiv_id for t in tasks})
        edges = session.exec(select(Citation).where(Citation.seed_arxiv_id.in_(keys))).all()
        store_edges = session.exec(select(func.count()).select_from(Citation)).one()
        verdicts = verdicts_for(session)
    report = json.loads(build.report_json or "{}")
    edge_scores: dict[tuple[str, str], list[float]] = {}
    for e in edges:
        edge_scores.setdefault((e.method, e.band), []).append(float(e.score))
    decided = apply_verdicts(edges, verdicts)
    edge_counts = dict(sorted(Counter(d.band for d in decided).items()))
    verdict_counts = dict(sorted(Counter(d.verdict.verdict for d in decided if d.verdict).items()))
    queue_rows = build_queue(engine, build.id)
    queue = Counter(r.kind for r in queue_rows)
    settings: dict[str, SettingStats] = {}
    key_docs: dict[str, set[str]] = {}
    key_tasks: dict[str, set[tuple[str, int]]] = {}
    titles: dict[str, str] = {}
    for t in tasks:
        setting = f"{t.difficulty}_{t.length}"
        stats = settings.setdefault(setting, SettingStats(setting))
        answer = json.loads(t.answer_json)
        documents = json.loads(t.documents_json)
        stats.prompt_tokens.append(t.prompt_tokens)
        stats.answer_sizes[len(set(answer))] += 1
        titles[t.key_arxiv_id] = t.key_title
        key_docs.setdefault(t.key_arxiv_id, set()).update(documents[i] for i in answer)
        key_tasks.setdefault(t.key_arxiv_id, set()).add((t.difficulty, t.task_index))
    keys = sorted(
        (KeyStats(k, titles[k], len(key_docs[k]), len(key_tasks[k])) for k in titles),
        key=lambda k: (-k.positives, -k.tasks, k.arxiv_id),
    )
    return ReportData(
        build={
            "id": build.id,
            "created_at": build.created_at,
            "tool_version": build.tool_version,
            "subset": build.subset,
            "window": build.window,
            "seed": build.seed,
            "settings": json.loads(build.settings_json or "{}"),
            "out_dir": build.out_dir,
            "n_tasks": build.n_tasks,
            "n_dropped": build.n_dropped,
        },
        settings=dict(sorted(settings.items(), key=lambda kv: setting_order(kv[0]))),
        keys=keys,
        reflong=_ref_long_sizes(compare) if compare is not None else None,
        distractor_false_positives=list(report.get("distractor_false_positives", [])),
        dropped_tasks=list(report.get("dropped_tasks", [])),
        outputs_check=_check_outputs(build, tasks),
        edge_scores={k: sorted(v) for k, v in sorted(edge_scores.items())},
        edge_counts=edge_counts,
        n_keys=len(keys),
        store_edges=store_edges,
        verdicts=verdict_counts,
        queue={kind: queue[kind] for kind in KIND_ORDER if queue[kind]},
        queue_top=queue_rows[:QUEUE_SHOWN],
        evaluations=load_evaluations(out_dir or build.out_dir),
    )


# ---------------------------------------------------------------- rendering

_CSS = """
body{font:14px/1.45 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:0;color:#222;background:#fafafa}
main{max-width:1100px;margin:0 auto;padding:24px}
h1{font-size:22px;margin:0 0 4px} h2{font-size:17px;margin:28px 0 8px;border-bottom:1px solid #ddd;padding-bottom:4px}
.sub{color:#666;margin-bottom:16px}
.cards{display:flex;flex-wrap:wrap;gap:10px}
.card{background:#fff;border:1px solid #ddd;border-radius:6px;padding:8px 12px;min-width:110px}
.card b{display:block;font-size:22px} .card.warn b{color:#c0392b}
figure{margin:8px 0;background:#fff;border:1px solid #e4e4e4;border-radius:6px;padding:8px;overflow-x:auto}
figure svg{max-width:100%;height:auto}
table{border-collapse:collapse;background:#fff;font-size:13px;margin:6px 0}
th,td{border:1px solid #ddd;padding:3px 8px;text-align:left;vertical-align:top}
td.n{text-align:right;font-variant-numeric:tabular-nums}
td.ref{max-width:520px;font-size:12px;color:#444}
td.ref:nth-child(2){white-space:nowrap}
.none{color:#777;font-style:italic}
details{margin:6px 0}
pre{white-space:pre-wrap;word-break:break-word;background:#fff;border:1px solid #e4e4e4;padding:8px}
"""


def _fmt(value: float) -> str:
    return f"{value:,.0f}" if float(value).is_integer() else f"{value:,.1f}"


def _table(headers: list[str], rows: list[list[str]], stat_ids: list[list[str | None]] | None = None) -> str:
    """An HTML table; cells are escaped here, numbers right-aligned, ``data-stat`` ids for checks."""
    head = "".join(f"<th>{escape(h)}</th>" for h in headers)
    body = []
    for r, row in enumerate(rows):
        cells = []
        for c, cell in enumerate(row):
            text = str(cell)
            attrs = ' class="n"' if re.fullmatch(r"[\d,.\-]+", text) else ""
            sid = stat_ids[r][c] if stat_ids else None
            if sid:
                attrs += f' data-stat="{escape(sid)}"'
            cells.append(f"<td{attrs}>{escape(text)}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


def _card(label: str, value: object, stat: str, warn: bool = False) -> str:
    cls = "card warn" if warn else "card"
    return f'<div class="{cls}"><b data-stat="{escape(stat)}">{escape(str(value))}</b>{escape(label)}</div>'


def _none(text: str) -> str:
    return f'<p class="none">{escape(text)}</p>'


def _tokens_section(data: ReportData) -> str:
    if not data.settings:
        return _none("This build has no tasks.")
    figure = plots.box_by_setting(
        {s: v.prompt_tokens for s, v in data.settings.items()}, "prompt tokens", "fig-prompt-tokens"
    )
    rows, ids = [], []
    for s, v in data.settings.items():
        summary = v.token_summary()
        rows.append([s, str(v.n_tasks)] + [_fmt(summary[k]) for k in ("min", "median", "mean", "max")])
        ids.append([None, f"tasks:{s}"] + [f"tokens_{k}:{s}" for k in ("min", "median", "mean", "max")])
    table = _table(["setting", "tasks", "min", "median", "mean", "max"], rows, ids)
    return f"<figure>{figure}</figure>{table}"


def _answers_section(data: ReportData) -> str:
    if not data.settings:
        return _none("This build has no tasks.")
    ours = {s: v.answer_sizes for s, v in data.settings.items()}
    theirs = None
    if data.reflong is not None:
        theirs = {s: data.reflong[s] for s in ours if s in data.reflong}
    figure = plots.size_distributions(ours, theirs, "fig-answer-sizes")
    sizes = sorted({n for c in ours.values() for n in c} | {n for c in (theirs or {}).values() for n in c})
    headers = ["setting"] + [f"{n} docs" for n in sizes]
    rows, ids = [], []
    for s, counts in ours.items():
        row = [s] + [str(counts.get(n, 0)) for n in sizes]
        if theirs is not None and s in theirs:
            row = [s] + [f"{counts.get(n, 0)} / {theirs[s].get(n, 0)}" for n in sizes]
        rows.append(row)
        ids.append([None] + [f"answer_size_{n}:{s}" for n in sizes])
    note = ""
    if theirs is not None:
        note = "<p>Plot: share of each setting's tasks. Cells: task counts, <i>this build / Ref-Long released</i>.</p>"
        missing = sorted(set(ours) - set(theirs), key=setting_order)
        if missing:
            note += _none(f"No Ref-Long answers to compare for: {', '.join(missing)}.")
    return f"<figure>{figure}</figure>{note}{_table(headers, rows, ids)}"


def _keys_section(data: ReportData) -> str:
    if not data.keys:
        return _none("No keys.")
    figure = plots.horizontal_bars(
        [k.title for k in data.keys],
        [k.positives for k in data.keys],
        "positives (citing documents)",
        "fig-keys",
    )
    rows = [[k.arxiv_id, k.title, str(k.positives), str(k.tasks)] for k in data.keys]
    ids = [[None, None, f"positives:{k.arxiv_id}", f"key_tasks:{k.arxiv_id}"] for k in data.keys]
    table = _table(["seed", "key (title)", "positives", "tasks"], rows, ids)
    return f"<figure>{figure}</figure><details><summary>Table</summary>{table}</details>"


def _fp_section(data: ReportData) -> str:
    fps = data.distractor_false_positives
    intro = (
        "<p>A distractor's text predates the key, so a resolver hit from it is wrong by construction "
        "(docs/architecture.md, invariant 3). These documents were kept out of the tasks.</p>"
    )
    if not fps:
        return intro + _none("No distractor false positives in this build.")
    rows = [
        [
            str(f.get("seed", "")),
            str(f.get("paper", "")),
            str(f.get("reference", "")),
            _fmt(f.get("score", 0)),
        ]
        for f in fps
    ]
    return intro + _table(["seed", "distractor", "reference string", "score"], rows)


def _edges_section(data: ReportData) -> str:
    if not data.edge_scores:
        return _none(
            f"No citation edges point at this build's keys (the store holds {data.store_edges} edges "
            "to other seeds: `reflong-build stats`)."
        )
    figure = plots.scores_by_method_and_band(data.edge_scores, "fig-edge-scores")
    methods = sorted({m for m, _ in data.edge_scores})
    bands = ["accept", "review", "reject"]
    rows, ids = [], []
    for m in methods:
        rows.append([m] + [str(len(data.edge_scores.get((m, b), []))) for b in bands])
        ids.append([None] + [f"edges:{m}:{b}" for b in bands])
    table = _table(["method", *bands], rows, ids)
    decided = ", ".join(f"{n} {band}" for band, n in data.edge_counts.items())
    verdicts = ", ".join(f"{n} {v}" for v, n in data.verdicts.items()) or "none yet"
    in_build = sum(len(v) for v in data.edge_scores.values())
    note = (
        f"<p>Only the {in_build} edges to this build's {data.n_keys} keys are counted here; the store "
        f"holds {data.store_edges} edges to every seed (`reflong-build stats`). "
        "Resolver bands as stored (before verdicts). With verdicts applied, as builds use them: "
        f"{escape(decided)}. Verdicts on these edges: {escape(verdicts)}.</p>"
    )
    return f"<figure>{figure}</figure>{note}{table}"


def _clip(text: str, limit: int = 320) -> str:
    """Long author lists push the title out of sight, so the middle goes (the full string is in
    `audit --format jsonl`): the head names the first authors, the tail holds title and venue."""
    return text if len(text) <= limit else text[: limit // 3] + " … " + text[-(2 * limit) // 3 :]


def _queue_section(data: ReportData) -> str:
    intro = (
        "<p>Rows of <code>reflong-build audit --build-id ID</code>, most doubtful first; "
        "<code>audit export --csv FILE</code> writes them as a review sheet.</p>"
    )
    if not data.queue:
        return intro + _none("Nothing to review.")
    rows = [[kind, str(n)] for kind, n in data.queue.items()]
    ids = [[None, f"queue:{kind}"] for kind in data.queue]
    top = [
        [
            r.kind,
            r.key,
            r.citing_title or r.seed_title,
            r.method,
            "" if r.score is None else f"{r.score:.1f}",
            _clip(r.reference),
        ]
        for r in data.queue_top
    ]
    shown = f"The first {len(top)} rows" if len(top) < sum(data.queue.values()) else "All rows"
    detail = _table(["kind", "key", "citing paper (or seed)", "method", "score", "reference string"], top)
    detail = detail.replace("<td>", '<td class="ref">')
    return (
        intro
        + _table(["kind", "rows"], rows, ids)
        + f"<details open><summary>{escape(shown)}</summary>{detail}</details>"
    )


def _dropped_section(data: ReportData) -> str:
    if not data.dropped_tasks:
        return _none("No task failed re-verification on its final texts.")
    rows = [
        [str(d.get("difficulty", "")), str(d.get("task", "")), "; ".join(map(str, d.get("why", [])))]
        for d in data.dropped_tasks
    ]
    return _table(["difficulty", "task", "why"], rows)


def _outputs_section(data: ReportData) -> str:
    if not data.outputs_check:
        return _none("The outputs folder is not available here, so the answers files were not compared.")
    rows = [[name, status] for name, status in data.outputs_check.items()]
    return _table(["answers file", "agrees with the store"], rows)


def render_report(data: ReportData) -> str:
    b = data.build
    n_settings = len(data.settings)
    fp = len(data.distractor_false_positives)
    cards = "".join(
        [
            _card("tasks", sum(v.n_tasks for v in data.settings.values()), "tasks_total"),
            _card("settings", n_settings, "settings"),
            _card("keys", len(data.keys), "keys"),
            _card("dropped tasks", len(data.dropped_tasks), "dropped_tasks", warn=bool(data.dropped_tasks)),
            _card("distractor false positives", fp, "distractor_false_positives", warn=bool(fp)),
            _card("review queue", sum(data.queue.values()), "review_queue", warn=bool(data.queue)),
        ]
    )
    settings_table = _table(
        ["setting", "value"], [[k, json.dumps(v)] for k, v in sorted(b["settings"].items())]
    )
    sub = (
        f"build {escape(str(b['id']))} &middot; {escape(str(b['created_at']))} &middot; reflong-build "
        f"{escape(str(b['tool_version']))} &middot; subset {escape(str(b['subset']))} &middot; "
        f"window {escape(str(b['window'] or '-'))} &middot; seed {escape(str(b['seed']))}"
    )
    sections = [
        ("Prompt tokens per setting", _tokens_section(data)),
        ("Answer-set sizes per setting", _answers_section(data)),
        ("Positives per key", _keys_section(data)),
        ("Edge scores by band and method", _edges_section(data)),
        ("Distractor false positives", _fp_section(data)),
        ("Review queue", _queue_section(data)),
        ("Tasks dropped by re-verification", _dropped_section(data)),
        ("Outputs", _outputs_section(data)),
        (
            "Evaluation: models and baselines",
            evaluation_section(data.evaluations, list(data.settings), str(b["subset"])),
        ),
    ]
    body = "".join(f"<h2>{escape(title)}</h2>{html}" for title, html in sections)
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        f"{REPORT_MARKER}"
        f"<title>reflong-build report: build {escape(str(b['id']))}</title>"
        f"<style>{_CSS}</style></head><body><main>"
        f'<h1>Build report</h1><div class="sub">{sub}</div>'
        f'<div class="cards">{cards}</div>'
        f"{body}"
        f"<h2>Settings</h2>{settings_table}"
        f'<p class="sub">Outputs: {escape(b["out_dir"] or "-")}</p>'
        "</main></body></html>\n"
    )


def write_report(data: ReportData, out_dir: Path) -> Path:
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / REPORT_NAME
    html = render_report(data)
    with atomic_target(path) as tmp:  # a reader never sees half a report; a failure leaves none
        tmp.write_text(html, encoding="utf-8")
    return path
