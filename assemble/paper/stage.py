"""The Paper assembly stage: store -> verified tasks -> outputs, recorded as a build.

Each run stores a ``Build`` row (tool version, settings, seed, window, report, output hashes) and
one ``BuildTask`` row per task, and compares itself with the previous build of the same window
and settings, so that a rebuild after audit verdicts says which tasks changed and why.
"""

from __future__ import annotations

import json
from array import array
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from sqlalchemy import insert
from sqlalchemy.engine import Engine
from sqlmodel import select

from reflong import __version__
from reflong.assemble.dataset_card import CardSection
from reflong.assemble.outputs_ownership import claim_outputs
from reflong.assemble.paper.build import (
    BuildReport,
    PaperSettings,
    PreparedPaper,
    RenderedTask,
    prepare_paper,
)
from reflong.assemble.paper.inputs import EntryGuardIndex, ResolverMatcher, load_paper_inputs
from reflong.assemble.paper.licensing import keep_licensed
from reflong.assemble.paper.outputs import write_paper_outputs
from reflong.assemble.paper.verify import Verifier
from reflong.assemble.split.exclude import HeldOut, note_paper_exclusions, without_papers
from reflong.assemble.writers.stats import ConfigStats
from reflong.citations.quality.index_agreement import stored_agreement
from reflong.citations.thresholds import resolver_identity
from reflong.common.errors import ReflongError
from reflong.common.hashing import sha256_file
from reflong.common.progress import ProgressFactory, null_progress
from reflong.db import Build, BuildTask, session_for

REPORT_NAME = "build_report.json"


@dataclass
class PaperBuildResult:
    build_id: int
    out_dir: Path
    n_tasks: int
    stats: list[ConfigStats]
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


ROW_BATCH = 1000  # task rows inserted per statement: the store's rows never sit in memory at once


def _task_rows(
    build_id: int, prepared: PreparedPaper, prompt_tokens: dict[tuple[str, str], array]
) -> Iterator[dict]:
    """One ``BuildTask`` row per task, in task order (difficulty, task, length), from the plans
    regenerated once more and the token counts the writers measured."""
    labels = [label for label, _ in prepared.settings.lengths]
    for difficulty in prepared.settings.difficulties:
        if not prepared.kept.get(difficulty):
            continue
        for i, plan in enumerate(prepared.plans(difficulty)):
            for label in labels:
                yield {
                    "build_id": build_id,
                    "difficulty": difficulty,
                    "length": label,
                    "task_index": plan.task_index,
                    "key_arxiv_id": plan.key.arxiv_id,
                    "key_title": plan.key.title,
                    "documents_json": json.dumps(list(plan.documents[label])),
                    "answer_json": json.dumps(list(plan.answers[label])),
                    "prompt_tokens": prompt_tokens[(difficulty, label)][i],
                    "verified": True,
                }


def _insert_rows(session, rows: Iterator[dict]) -> None:
    batch: list[dict] = []
    for row in rows:
        batch.append(row)
        if len(batch) >= ROW_BATCH:
            session.execute(insert(BuildTask), batch)
            batch = []
    if batch:
        session.execute(insert(BuildTask), batch)


def _stored_tasks(session, build_id: int) -> Iterator:
    """A build's task rows in (difficulty, length, task_index) order, streamed."""
    return iter(
        session.execute(
            select(
                BuildTask.difficulty,
                BuildTask.length,
                BuildTask.task_index,
                BuildTask.key_arxiv_id,
                BuildTask.documents_json,
                BuildTask.answer_json,
            )
            .where(BuildTask.build_id == build_id)
            .order_by(BuildTask.difficulty, BuildTask.length, BuildTask.task_index)
            .execution_options(yield_per=ROW_BATCH)
        )
    )


def _explain(refs: set[str], seed: str, verdicts: dict[tuple[str, str], tuple[str, str]]) -> str:
    """Documents, each with the audit verdict that moved it, when one did."""
    out = []
    for ref in sorted(refs):
        verdict = verdicts.get((ref, seed))
        out.append(f"{ref} (audit {verdict[0]}, {verdict[1]})" if verdict else ref)
    return ", ".join(out)


def _describe_changes(
    old: Iterable, new: Iterable, verdicts: dict[tuple[str, str], tuple[str, str]]
) -> list[str]:
    """Human-readable differences between two builds' tasks (same settings and seed).

    ``old`` and ``new``: task rows sorted by (difficulty, length, task_index), merged as they come."""

    def keyed(rows: Iterable) -> Iterator[tuple[tuple, object]]:
        return (((t.difficulty, t.length, t.task_index), t) for t in rows)

    changes = []
    before, after = keyed(old), keyed(new)
    a_item, b_item = next(before, None), next(after, None)
    while a_item is not None or b_item is not None:
        if b_item is None or (a_item is not None and a_item[0] < b_item[0]):
            key, a, b = a_item[0], a_item[1], None
            a_item = next(before, None)
        elif a_item is None or b_item[0] < a_item[0]:
            key, a, b = b_item[0], None, b_item[1]
            b_item = next(after, None)
        else:
            key, a, b = a_item[0], a_item[1], b_item[1]
            a_item, b_item = next(before, None), next(after, None)
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
    card_sections: Sequence[CardSection] = (),
    held_out: HeldOut | None = None,
) -> PaperBuildResult:
    """Assemble every configuration from the store and write it to ``out_dir``.

    ``card_sections`` add sections to the dataset card (the CLI passes evaluate's baselines).
    ``held_out`` (``--split train --disjoint-from``): papers of a test build that this build must
    not show, as a key or as a document; recorded in the manifest and card."""
    inputs = load_paper_inputs(engine, window, seed_ids)
    inputs, licence_counts = keep_licensed(inputs, settings.licenses)
    if not inputs.keys and settings.licenses is not None:
        raise ReflongError(
            f"window {window} has no seed paper under the licences kept (--licenses "
            f"{','.join(settings.licenses)}); left out: {licence_counts['keys_left_out']}"
        )
    if held_out is not None:
        kept = without_papers(inputs, held_out.papers)
        note_paper_exclusions(held_out, inputs, kept)
        inputs = kept
    if settings.key_form == "abstract":
        from reflong.assemble.paper.abstracts import with_abstracts

        inputs.keys = with_abstracts(engine, inputs.keys)
    if not inputs.keys:
        raise ReflongError(
            f"window {window} has no seed papers to use as keys: give --seeds FILE or a wider window"
        )
    verifier = Verifier(ResolverMatcher(inputs.keys, inputs.resolver_seeds), inputs.verdicts)
    guard = EntryGuardIndex(inputs.keys, inputs.seed_titles, inputs.resolver_seeds)
    prepared = prepare_paper(inputs, settings, verifier, guard=guard)
    report = prepared.report
    report.licenses = licence_counts
    n_tasks = prepared.n_tasks
    with session_for(engine) as session:
        report.index_agreement = stored_agreement(session, window)
    if not n_tasks:
        reasons = "; ".join(f"{d}: {len(s)} keys skipped" for d, s in report.skipped_keys.items())
        docs = report.documents
        raise ReflongError(
            f"no task could be built from window {window} ({len(inputs.keys)} keys, {len(inputs.docs)} documents, "
            f"{docs.get('usable', 0)} usable under --doc-policy {settings.doc_policy}; {reasons}). "
            + (
                no_task_advice(settings.doc_policy, settings.min_positives)
                if held_out is None
                else f"The --disjoint-from build took {held_out.excluded.get('keys', 0)} keys and "
                f"{held_out.excluded.get('documents', 0)} documents of this window: train on another window "
                "(--since) or make the test build smaller (--tasks)."
            )
        )
    used = sorted(prepared.used)
    papers = [
        {
            "arxiv_id": inputs.docs[r].arxiv_id,
            "version": inputs.docs[r].version,
            "pdf_sha256": inputs.docs[r].pdf_sha256,
            "license": inputs.docs[r].license,
        }
        for r in used
    ]
    provenance = {
        "window": window,
        "seeds": "file" if seed_ids is not None else "window",
        "resolver": resolver_identity(),
        "papers": papers,
    }
    if held_out is not None:
        provenance["disjoint_from"] = held_out.record
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    claim = claim_outputs(out_dir)
    report_path = out_dir / REPORT_NAME  # written last, before the manifest: see BuildInProgress
    report_bytes = (json.dumps(report.to_json(), indent=2, sort_keys=True) + "\n").encode()
    prompt_tokens: dict[tuple[str, str], array] = {}

    def measured(difficulty: str, label: str) -> Iterator[RenderedTask]:
        counts = prompt_tokens.setdefault((difficulty, label), array("q"))
        for task in prepared.tasks(difficulty, label):
            counts.append(task.prompt_tokens)  # the only per-task figure kept (for the task rows)
            yield task

    configs = [(f"{d}_{label}", measured(d, label)) for d, label in prepared.configs()]
    files, stats, manifest = write_paper_outputs(
        out_dir,
        configs,
        report,
        settings,
        provenance,
        extra_files={report_path: report_bytes},
        progress=progress,
        card_sections=card_sections,
        previous=claim.previous,
        key_licenses={k.arxiv_id: k.license for k in inputs.keys},
        n_tasks={f"{d}_{label}": prepared.kept[d] for d, label in prepared.configs()},
    )
    removed = claim.finish(files)
    hashes = {p.relative_to(out_dir).as_posix(): sha256_file(p) for p in [*files, manifest]}
    settings_json = json.dumps(settings.to_json(), sort_keys=True)
    with session_for(engine) as session:
        previous = session.exec(
            select(Build)
            .where(Build.subset == "paper", Build.window == window, Build.settings_json == settings_json)
            .order_by(Build.id.desc())
        ).first()
        build = Build(
            tool_version=__version__,
            subset="paper",
            window=window,
            seed=settings.seed,
            settings_json=settings_json,
            out_dir=str(out_dir.resolve()),
            n_tasks=n_tasks,
            n_dropped=len(report.dropped_tasks),
            distractor_false_positives=len(report.distractor_false_positives),
            report_json=json.dumps(report.to_json(), sort_keys=True),
            outputs_json=json.dumps(hashes, sort_keys=True),
        )
        session.add(build)
        session.flush()
        build_id = build.id
        _insert_rows(session, _task_rows(build_id, prepared, prompt_tokens))
        changes = (
            _describe_changes(
                _stored_tasks(session, previous.id), _stored_tasks(session, build_id), inputs.verdicts
            )
            if previous
            else []
        )
        session.commit()
    return PaperBuildResult(build_id, out_dir, n_tasks, stats, report, changes, removed)


def no_task_advice(doc_policy: str, min_positives: int) -> str:
    """What to change when a window gives no task, naming only options that would change something:
    advice to use a value already in force sent a user round in circles (``--doc-policy fit``
    advised to a fit build)."""
    steps = []
    if min_positives > 1:
        steps.append("lower --min-positives")
    steps.append("widen the windows")
    if doc_policy != "fit":
        steps.append("use --doc-policy fit")
    text = " or ".join(steps) if len(steps) < 3 else ", ".join(steps[:-1]) + ", or " + steps[-1]
    return text[0].upper() + text[1:] + "."
