"""What the harnesses call in an export's ``utils.py``: load a config's samples, mark the ones over
a context limit, score a response.

This module is written into ``utils.py`` after the text of ``evaluate/parsing.py`` and
``evaluate/metrics.py`` (``standalone.py``), so it must use only the standard library and names
those modules define: the lines between the two ``package imports`` markers below are dropped in
the export, where ``parse_response`` and ``score_task`` are already defined above it.

Why over-context tasks are still in the dataset: a task that does not fit is scored 0 and
counted (``over_context``), as ``eval run --max-context N`` + ``eval score`` count a skipped task
as missing, never left out (a harness that dropped it would score a model on the easier tasks).
It is sent as a short stand-in prompt, so the endpoint never sees a prompt over its window (one
such prompt ends a whole lm-eval run), and its response is never read.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

# --- package imports (dropped in the export) ---
from reflong.evaluate.metrics import score_task
from reflong.evaluate.parsing import parse_response

# --- end of package imports ---

SYSTEM_PROMPT = "You are a helpful assistant."  # the runner's (evaluate/runner.py), as the release sends
OVER_CONTEXT_PROMPT = (
    "This task is over the evaluation's context limit and is scored 0 without reading the reply. "
    "Reply with: Papers: {}"
)
HERE = Path(__file__).resolve().parent  # the export folder, whatever the working directory


def load_samples(config: str, data_dir: Path | None = None) -> list[dict]:
    """``data/<config>.jsonl`` beside this file: one sample per line, in task order."""
    path = (data_dir or HERE / "data") / f"{config}.jsonl"
    with open(path, encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def fits(sample: dict, max_context: int | None) -> bool:
    """Whether the system and user messages fit ``max_context`` tokens (the runner's count)."""
    if max_context is None:
        return True
    return int(sample["metadata"]["context_tokens"]) <= int(max_context)


def score_response(target: list[int], n_documents: int, response: str | None, fit: bool = True) -> dict:
    """One task's metrics; an over-context task scores as a missing prediction, as in ``eval score``."""
    if fit:
        parsed = parse_response(response, n_documents, "prompt")
        task = score_task(target, parsed.indexes, parsed.parseable, len(parsed.out_of_range))
    else:
        task = score_task(target, (), parseable=False, missing=True)
    return {
        "exacc": float(task.exact),
        "f1": task.f1,
        "precision": task.precision,
        "recall": task.recall,
        "over_context": 0.0 if fit else 1.0,
        "exacc_fit": float(task.exact) if fit else None,
        "f1_fit": task.f1 if fit else None,
    }


def mean_of_fit(items: list) -> float:
    """The mean over the tasks that fit (None marks one that does not); NaN when none fits."""
    kept = [float(x) for x in items if x is not None]
    return sum(kept) / len(kept) if kept else math.nan


# lm-evaluation-harness: ``custom_dataset``, ``doc_to_text`` and ``process_results``.


def lm_eval_dataset(config: str, max_context: int | None = None, **_ignored):
    """The task's test split. lm-eval passes ``--metadata`` and ``dataset_kwargs`` here.

    The prompt is not a column: ``--log_samples`` writes every document whole beside the request,
    which holds the prompt already (a 75K-token prompt was logged twice). ``doc_to_text`` reads it
    from ``data/`` by the sample's id instead."""
    import datasets

    rows = []
    for sample in load_samples(config):
        meta = sample["metadata"]
        rows.append(
            {
                "id": sample["id"],
                "config": config,
                "target": json.dumps(sample["target"]),
                "answer": sample["target"],
                "n_documents": meta["n_documents"],
                "fits": fits(sample, max_context),
                "task_id": meta["task_id"],
                "key": meta["key"],
            }
        )
    return {"test": datasets.Dataset.from_list(rows)}


_PROMPTS: dict[str, dict[str, str]] = {}  # config -> sample id -> prompt, read once per config


def doc_to_text(doc: dict) -> str:
    """The prompt as built, byte for byte (no template in between), or the short stand-in for a
    task over the context limit."""
    if not doc["fits"]:
        return OVER_CONTEXT_PROMPT
    if doc["config"] not in _PROMPTS:
        _PROMPTS[doc["config"]] = {s["id"]: s["input"] for s in load_samples(doc["config"])}
    return _PROMPTS[doc["config"]][doc["id"]]


def process_results(doc: dict, results: list) -> dict:
    response = results[0] if results else None
    return score_response(list(doc["answer"]), int(doc["n_documents"]), response, bool(doc["fits"]))
