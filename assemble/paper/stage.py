"""The Paper assembly stage: store -> verified tasks -> outputs, recorded as a build.

Each run stores a ``Build`` row (tool version, settings, seed, window, report, output hashes) and
one ``BuildTask`` row per task, and compares itself with the previous build of the same window
and settings, so that a rebuild after audit verdicts says which tasks changed and why.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from sqlalchemy.engine import Engine
from sqlmodel import select

from reflong import __version__
from reflong.assemble import outputs
from reflong.assemble.outputs_ownership import claim_outputs
from reflong.assemble.paper.build import BuildReport, PaperSettings, RenderedTask, assemble_paper
from reflong.assemble.paper.inputs import EntryGuardIndex, ResolverMatcher, load_paper_inputs
from reflong.assemble.paper.outputs import write_paper_outputs
from reflong.assemble.paper.verify import Verifier
from reflong.citations.index_agreement import stored_agreement
from reflong.db import Build, BuildTask, session_for
from reflong.errors import ReflongError
from reflong.progress import ProgressFactory, null_progress

REPORT_NAME = "build_report.json"


@dataclass
class PaperBuildResult:
    build_id: int
    out_dir: Path
    n_tasks: int
    stats: list[outputs.ConfigStats]
    report: BuildReport
    changes: list[str] = field(default_factory=list)  # vs the previous build with the same settings
    removed: list[str] = field(default_factory=list)  # the previous build's files in out_dir, removed

    def line(self) -> str:
        fp = len(self.report.distractor_false_positives)
        return (
            f"build {self.build_id}: {self.n_tasks} tasks in {len(self.stats)} files under {self.out_dir}; "
            f"keys {', '.join(f'{d} {len(k)}' for d, k in self.report.keys_used.items())}; "
            f"distractor false positives {fp}; dropped tasks {len(self.report.dropped_tasks)}"
        )


def _task_rows(build_id: int, tasks: list[RenderedTask]) -> list[BuildTask]:
    return [
        BuildTask(
            build_id=build_id,
            difficulty=t.difficulty,
            length=t.length,
            task_index=t.task_index,
            key_arxiv_id=t.key.arxiv_id,
            key_title=t.key.title,
            documents_json=json.dumps([d.ref for d in t.documents]),
            answer_json=json.dumps(list(t.answer)),
            prompt_tokens=t.prompt_tokens,
        )
        for t in tasks
    ]


def _explain(refs: set[str], seed: str, verdicts: dict[tuple[str, str], tuple[str, str]]) -> str:
    """Documents, each with the audit verdict that moved it, when one did."""
    out = []
    for ref in sorted(refs):
        verdict = verdicts.get((ref, seed))
        out.append(f"{ref} (audit {verdict[0]}, {verdict[1]})" if verdict else ref)
    return ", ".join(out)


def _describe_changes(
    old: list[BuildTask], new: list[BuildTask], verdicts: dict[tuple[str, str], tuple[str, str]]
) -> list[str]:
    """Human-readable differences between two builds' tasks (same settings and seed)."""
    before = {(t.difficulty, t.length, t.task_index): t for t in old}
    after = {(t.difficulty, t.length, t.task_index): t for t in new}
    changes = []
    for key in sorted(set(before) | set(after)):
        a, b = before.get(key), after.get(key)
        name = f"{key[0]}_{key[1]}#{key[2]}"
        if a is None:
            changes.append(f"{name}: new task (key {b.key_arxiv_id})")
        elif b is None:
            changes.append(f"{name}: task gone (key {a.key_arxiv_id})")
        elif a.key_arxiv_id != b.key_arxiv_id:
            changes.append(
                f"{name}: key {a.key_arxiv_id} -> {b.key_arxiv_id} (the set of usable keys changed)"
            )
        elif a.documents_json != b.documents_json or a.answer_json != b.answer_json:
            docs_a, docs_b = json.loads(a.documents_json), json.loads(b.documents_json)
            pos_a = {docs_a[i] for i in json.loads(a.answer_json)}
            pos_b = {docs_b[i] for i in json.loads(b.answer_json)}
            why = []
            if pos_b - pos_a:
                why.append("positives gained " + _explain(pos_b - pos_a, b.key_arxiv_id, verdicts))
            if pos_a - pos_b:
                why.append("positives lost " + _explain(pos_a - pos_b, b.key_arxiv_id, verdicts))
            changes.append(f"{name} (key {b.key_arxiv_id}): " + ("; ".join(why) or "negatives changed"))
    return changes


def run_paper_build(
    engine: Engine,
    window: str,
    out_dir: Path,
    settings: PaperSettings,
    seed_ids: list[str] | None = None,
    progress: ProgressFactory = null_progress,
    card_sections: Sequence[outputs.CardSection] = (),
) -> PaperBuildResult:
    """Assemble every configuration from the store and write it to ``out_dir``.

    ``card_sections`` add sections to the dataset card (the CLI passes evaluate's baselines)."""
    inputs = load_paper_inputs(engine, window, seed_ids)
    if not inputs.keys:
        raise ReflongError(
            f"window {window} has no seed papers to use as keys: give --seeds FILE or a wider window"
        )
    verifier = Verifier(ResolverMatcher(inputs.keys), inputs.verdicts)
    guard = EntryGuardIndex(inputs.keys, inputs.seed_titles)
    tasks, report = assemble_paper(inputs, settings, verifier, guard=guard)
    with session_for(engine) as session:
        report.index_agreement = stored_agreement(session, window)
    if not tasks:
        reasons = "; ".join(f"{d}: {len(s)} keys skipped" for d, s in report.skipped_keys.items())
        docs = report.documents
        raise ReflongError(
            f"no task could be built from window {window} ({len(inputs.keys)} keys, {len(inputs.docs)} documents, "
            f"{docs.get('usable', 0)} usable under --doc-policy {settings.doc_policy}; {reasons}). "
            "Lower --min-positives, widen the windows, or use --doc-policy fit."
        )
    used = sorted({d.ref for t in tasks for d in t.documents})
    papers = [
        {
            "arxiv_id": inputs.docs[r].arxiv_id,
            "version": inputs.docs[r].version,
            "pdf_sha256": inputs.docs[r].pdf_sha256,
        }
        for r in used
    ]
    provenance = {"window": window, "seeds": "file" if seed_ids is not None else "window", "papers": papers}
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    claim = claim_outputs(out_dir)
    report_path = out_dir / REPORT_NAME
    outputs.write_atomic(
        report_path, (json.dumps(report.to_json(), indent=2, sort_keys=True) + "\n").encode()
    )
    files, stats, manifest = write_paper_outputs(
        out_dir,
        tasks,
        report,
        settings,
        provenance,
        extra_files=(report_path,),
        progress=progress,
        card_sections=card_sections,
    )
    removed = claim.finish(files)
    hashes = {p.relative_to(out_dir).as_posix(): outputs.sha256_file(p) for p in [*files, manifest]}
    settings_json = json.dumps(settings.to_json(), sort_keys=True)
    with session_for(engine) as session:
        previous = session.exec(
            select(Build)
            .where(Build.subset == "paper", Build.window == window, Build.settings_json == settings_json)
            .order_by(Build.id.desc())
        ).first()
        old_tasks = (
            session.exec(select(BuildTask).where(BuildTask.build_id == previous.id)).all() if previous else []
        )
        build = Build(
            tool_version=__version__,
            subset="paper",
            window=window,
            seed=settings.seed,
            settings_json=settings_json,
            out_dir=str(out_dir.resolve()),
            n_tasks=len(tasks),
            n_dropped=len(report.dropped_tasks),
            distractor_false_positives=len(report.distractor_false_positives),
            report_json=json.dumps(report.to_json(), sort_keys=True),
            outputs_json=json.dumps(hashes, sort_keys=True),
        )
        session.add(build)
        session.flush()
        rows = _task_rows(build.id, tasks)
        session.add_all(rows)
        session.commit()
        changes = _describe_changes(old_tasks, rows, inputs.verdicts) if previous else []
        build_id = build.id
    return PaperBuildResult(build_id, out_dir, len(tasks), stats, report, changes, removed)
