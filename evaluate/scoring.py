"""Scoring predictions files against answers files: per file and overall.

A task's prediction is looked up by task id. A task with no prediction (a run that skipped it,
or stopped early) is scored as an empty, unparseable prediction and counted as ``missing``, so a
partial run can never look better than it is. A prediction whose key differs from the answers
file's key for the same id means the files do not belong together: that is an error, not a score.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from reflong.common.errors import ReflongError
from reflong.evaluate import files
from reflong.evaluate.metrics import Summary, TaskScore, score_task, summarize
from reflong.evaluate.parsing import parse_response

PREDICTION_NAMES = ("{config}.json", "{config}_predictions.json", "{config}_answers.json")


@dataclass(frozen=True)
class FileResult:
    name: str  # the answers file name
    config: str
    summary: Summary
    tasks: dict[str, TaskScore]


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


def documents_per_task(prompts_path: Path | None, config: str) -> dict[str, int] | int | None:
    """M per task from the prompts file when at hand, else from the configuration name."""
    if prompts_path is not None:
        prompts = files.load_mapping(prompts_path)
        return {tid: len(files.prompt_documents(text).documents) for tid, (_, text) in prompts.items()}
    return files.nominal_documents(config)


def score_paths(
    answers: Path, predictions: Path, prompts: Path | None = None, parser: str = "prompt"
) -> tuple[list[FileResult], Summary]:
    """Score every answers file under ``answers`` against its predictions file; see files.py for
    how they are paired. An answers file without predictions is an error (say which)."""
    results = []
    answers_list = files.answers_files(answers)
    for path in answers_list:
        config = files.config_name(path)
        # Scoring a folder against itself pairs each answers file with itself (a self-check);
        # otherwise a prompts file of the same name would be taken for the predictions.
        same = Path(predictions).resolve() == Path(answers).resolve()
        pred_path = path if same else files.find_partner(predictions, config, PREDICTION_NAMES)
        if pred_path is None:
            raise ReflongError(
                f"no predictions for {path.name} under {predictions} (looked for {config}.json)"
            )
        prompt_path = files.find_partner(prompts, config, ("{config}.json",)) if prompts else None
        tasks = score_mapping(
            files.load_mapping(path),
            files.load_mapping(pred_path),
            parser,
            documents_per_task(prompt_path, config),
            source=str(pred_path),
        )
        results.append(
            FileResult(_unique_name(path, answers, results), config, summarize(tasks.values()), tasks)
        )
    overall = summarize(s for r in results for s in r.tasks.values())
    return results, overall


def _unique_name(path: Path, root: Path, done: list[FileResult]) -> str:
    names = {r.name for r in done}
    if path.name not in names:
        return path.name
    root = Path(root)
    return path.relative_to(root).as_posix() if root.is_dir() else str(path)


def results_json(
    results: list[FileResult], overall: Summary, meta: Mapping[str, object] | None = None
) -> dict:
    """``{answers file name: figures, ..., "overall": figures}`` (plus ``"meta"`` when given)."""
    out: dict[str, object] = {r.name: {"config": r.config, **r.summary.as_json()} for r in results}
    out["overall"] = overall.as_json()
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
