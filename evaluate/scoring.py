"""Scoring predictions files against answers files: per file and overall.

A task's prediction is looked up by task id. A task with no prediction (a run that skipped it,
or stopped early) is scored as an empty, unparseable prediction and counted as ``missing``, so a
partial run can never look better than it is. A run whose ``run_manifest.json`` names a ``scope``
(``reflong-build human``: an annotator answers the first N tasks of a setting) is scored on those
tasks only; a task of the scope without an answer is still missing.

Files that do not belong together give an error, not a score (``pairing_problem``): predictions
with a task id the answers lack, or another key for a task, or whose file name carries another
length label than the answers' (cumulative settings share their keys and task ids: easy_30K
predictions scored against easy_45K answers used to give ExAcc 0.01 and no word); prompts
(``--prompts``) with other task ids or keys, or with fewer documents than the answers name.
``score_paths`` leaves such a configuration out, scores the others and lists what it left out:
a user scoring many configurations of an expensive run gets every figure that is sound and every
bad pairing in one pass, and the CLI still exits non-zero so no script takes the table as complete.
Predictions naming documents beyond M in most tasks may be another setting's too, or a model's
invention: that is a warning.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from reflong.common.errors import ReflongError
from reflong.evaluate import files
from reflong.evaluate.metrics import Summary, TaskScore, score_task, summarize
from reflong.evaluate.parsing import parse_response

PREDICTION_NAMES = ("{config}.json", "{config}_predictions.json", "{config}_answers.json")

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class FileResult:
    name: str  # the answers file name
    config: str
    summary: Summary
    tasks: dict[str, TaskScore]
    path: Path | None = None  # the answers file (its build's dataset rows give each task's release)


@dataclass(frozen=True)
class NotScored:
    name: str  # the answers file name, as FileResult.name
    reason: str  # one line: both files and what differs


def score_mapping(
    answers: Mapping[str, list],
    predictions: Mapping[str, list],
    parser: str = "prompt",
    n_documents: Mapping[str, int] | int | None = None,
    source: str = "predictions",
) -> dict[str, TaskScore]:
    """Score every task of an answers mapping; ``n_documents`` per task id (or one for all)."""
    out: dict[str, TaskScore] = {}
    for tid in files.task_order(dict(answers)):
        key, gold = answers[tid]
        m = n_documents.get(tid) if isinstance(n_documents, Mapping) else n_documents
        pred = predictions.get(tid)
        if pred is None:
            out[tid] = score_task(
                gold, (), parseable=False, missing=True, reflong2025=parser == "reflong2025"
            )
            continue
        if pred[0] != key:
            raise ReflongError(
                f"{source}: task {tid} has key {str(pred[0])[:60]!r} but the answers say {str(key)[:60]!r}; "
                "are these predictions for another file?"
            )
        parsed = parse_response(pred[1], m, parser)
        out[tid] = score_task(
            gold,
            parsed.indexes,
            parseable=parsed.parseable,
            out_of_range=len(parsed.out_of_range),
            reflong2025=parser == "reflong2025",
        )
    return out


def documents_per_task(prompts: Mapping[str, list] | None, config: str) -> dict[str, int] | int | None:
    """M per task from the prompts file when at hand, else from the configuration name."""
    if prompts is not None:
        return {tid: len(files.prompt_documents(text).documents) for tid, (_, text) in prompts.items()}
    return files.nominal_documents(config)


def _key_text(key: object) -> str:
    return repr(str(key)[:60])


def _ids_problem(ids: Mapping[str, list], answers: Mapping[str, list], what: str) -> str | None:
    extra = [tid for tid in files.task_order(dict(ids)) if tid not in answers]
    if not extra:
        return None
    shown = ", ".join(repr(t) for t in extra[:3])
    return f"{what} have {len(ids)} tasks, {len(extra)} of them (e.g. {shown}) not in the answers' {len(answers)}"


def _key_problem(mapping: Mapping[str, list], answers: Mapping[str, list]) -> str | None:
    for tid in files.task_order(dict(answers)):
        if tid in mapping and mapping[tid][0] != answers[tid][0]:
            return f"task {tid} has key {_key_text(mapping[tid][0])} but the answers say {_key_text(answers[tid][0])}"
    return None


def pairing_problem(
    answers_path: Path, answers: Mapping[str, list], pred_path: Path, predictions: Mapping[str, list]
) -> str | None:
    """Why a predictions file does not belong to an answers file (one line), or None."""
    problem = None
    ours, theirs = files.length_label(pred_path), files.length_label(answers_path)
    if ours and theirs and ours != theirs:
        problem = (
            f"the predictions' file name says length {ours}, the answers' {theirs} (cumulative settings "
            "share their keys, so only the name tells them apart)"
        )
    problem = (
        problem or _ids_problem(predictions, answers, "the predictions") or _key_problem(predictions, answers)
    )
    return f"{pred_path} does not belong to {answers_path}: {problem}" if problem else None


def prompts_problem(
    answers_path: Path, answers: Mapping[str, list], prompt_path: Path, prompts: Mapping[str, list]
) -> str | None:
    """Why a prompts file does not belong to an answers file (one line), or None: other task ids or
    keys, or fewer documents in a task's prompt than its answers name."""
    problem = _ids_problem(prompts, answers, "the prompts") or _key_problem(prompts, answers)
    if problem is None:
        missing = [tid for tid in files.task_order(dict(answers)) if tid not in prompts]
        if missing:
            problem = f"the answers' task {missing[0]} has no prompt ({len(missing)} without one)"
    if problem is None:
        for tid, m in documents_per_task(prompts, "").items():
            named = [i for i in answers[tid][1] if isinstance(i, int) and i >= m]
            if named:
                problem = f"task {tid}'s prompt has {m} documents but the answers name document {max(named)}"
                break
    return f"{prompt_path} does not belong to {answers_path}: {problem}" if problem else None


def _warn_beyond_m(pred_path: Path, answers_path: Path, tasks: Mapping[str, TaskScore], m, gold_max) -> None:
    """Most predictions naming documents beyond M: perhaps another (longer) setting's predictions."""
    answered = [t for t in tasks.values() if not t.missing]
    beyond = sum(t.out_of_range > 0 for t in answered)
    if not answered or beyond * 2 <= len(answered):
        return
    if isinstance(m, int):
        if gold_max >= m:  # the name's M is not this build's (e.g. paper --lengths 30K:10): no claim
            return
        where = f"the {m} of {answers_path.name} (M from the file name)"
    else:
        where = "their prompts' documents"
    log.warning(
        f"{pred_path}: {beyond} of {len(answered)} predictions name documents beyond {where}: "
        "are they for a longer setting?"
    )


def score_paths(
    answers: Path, predictions: Path, prompts: Path | None = None, parser: str = "prompt"
) -> tuple[list[FileResult], Summary, list[NotScored]]:
    """Score every answers file under ``answers`` against its predictions file; see files.py for
    how they are paired. An answers file without predictions is an error (say which); a pair that
    does not belong together is left out and listed (see the module doc)."""
    results: list[FileResult] = []
    not_scored: list[NotScored] = []
    answers_list = files.answers_files(answers)
    for path in answers_list:
        config = files.config_name(path)
        # Scoring a folder against itself pairs each answers file with itself (a self-check);
        # otherwise a prompts file of the same name would be taken for the predictions.
        same = Path(predictions).resolve() == Path(answers).resolve()
        pred_path = path if same else files.find_partner(predictions, config, PREDICTION_NAMES)
        if pred_path is None and not files.run_covers(predictions, config):
            continue  # a human annotator's run covers the settings it was given, not the whole build
        if pred_path is None:
            raise ReflongError(
                f"no predictions for {path.name} under {predictions} (looked for {config}.json)"
            )
        prompt_path = files.find_partner(prompts, config, ("{config}.json",)) if prompts else None
        answer_map = files.load_mapping(path)
        pred_map = files.load_mapping(pred_path)
        scope = files.run_scope(pred_path, config)
        if scope is not None:  # a human annotator's N tasks: scored on those, not on the whole file
            outside = [tid for tid in scope if tid not in answer_map]
            if outside:
                name = _unique_name(path, answers, {r.name for r in results} | {n.name for n in not_scored})
                not_scored.append(
                    NotScored(
                        name,
                        f"{pred_path} does not belong to {path}: its run covers task {outside[0]!r}, "
                        f"which the answers lack ({len(outside)} such)",
                    )
                )
                continue
            answer_map = {tid: answer_map[tid] for tid in scope}
        prompt_map = files.load_mapping(prompt_path) if prompt_path is not None else None
        name = _unique_name(path, answers, {r.name for r in results} | {n.name for n in not_scored})
        problem = pairing_problem(path, answer_map, pred_path, pred_map)
        if problem is None and prompt_map is not None:
            problem = prompts_problem(path, answer_map, prompt_path, prompt_map)
        if problem is not None:
            not_scored.append(NotScored(name, problem))
            continue
        n_documents = documents_per_task(prompt_map, config)
        tasks = score_mapping(answer_map, pred_map, parser, n_documents, source=str(pred_path))
        gold_max = max((i for _, gold in answer_map.values() for i in gold if isinstance(i, int)), default=-1)
        _warn_beyond_m(pred_path, path, tasks, n_documents, gold_max)
        results.append(FileResult(name, config, summarize(tasks.values()), tasks, path))
    if not results and not not_scored:
        raise ReflongError(
            f"no answers file under {answers} is one of the settings the run in {predictions} covers "
            "(its run_manifest.json names them under 'scope')"
        )
    overall = summarize(s for r in results for s in r.tasks.values())
    return results, overall, not_scored


def _unique_name(path: Path, root: Path, names: set[str]) -> str:
    if path.name not in names:
        return path.name
    root = Path(root)
    return path.relative_to(root).as_posix() if root.is_dir() else str(path)


def results_json(
    results: list[FileResult],
    overall: Summary,
    meta: Mapping[str, object] | None = None,
    contamination: Mapping[str, object] | None = None,
) -> dict:
    """``{answers file name: figures, ..., "overall": figures}`` (plus ``"contamination"``, the
    view by release of evaluate/contamination.py, and ``"meta"`` when given)."""
    out: dict[str, object] = {r.name: {"config": r.config, **r.summary.as_json()} for r in results}
    out["overall"] = overall.as_json()
    if contamination:
        out["contamination"] = dict(contamination)
    if meta:
        out["meta"] = dict(meta)
    return out


def results_table(results: list[FileResult], overall: Summary) -> str:
    """A plain-text table: one row per file and the overall row."""
    head = ("file", "n", "ExAcc", "F1", "P", "R", "I", "II", "III", "unparsed", "oor", "missing")
    rows = [head]
    for name, s in [*((r.name, r.summary) for r in results), ("overall", overall)]:
        rows.append(
            (
                name,
                str(s.n),
                f"{s.exacc:.3f}",
                f"{s.f1:.3f}",
                f"{s.precision:.3f}",
                f"{s.recall:.3f}",
                str(s.type_i),
                str(s.type_ii),
                str(s.type_iii),
                str(s.unparseable),
                str(s.out_of_range),
                str(s.missing),
            )
        )
    widths = [max(len(r[i]) for r in rows) for i in range(len(head))]
    lines = [
        "  ".join(
            c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths, strict=True))
        )
        for r in rows
    ]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def dumps(obj: object) -> str:
    return json.dumps(obj, indent=2, ensure_ascii=False, sort_keys=False)
