"""Reading Ref-Long JSON files and finding which files belong together.

Every file is a mapping ``{"i": [key, value]}``: prompts (value = prompt text), answers (value =
index list) and predictions (value = response text, as the release's inference script writes).
A configuration's name is its answers file name without ``_answers.json`` (``easy_30K``,
``multi_stars_hard_8K``); its prompts file is ``<config>.json`` (Paper's flat folder, A/F's
``before/`` or ``ori/``), its predictions file ``<config>.json`` in the predictions folder.

Documents in a prompt: every prompt is ``head + "0: {doc}\\n\\n" + "1: {doc}\\n\\n" ... + tail``
(``assemble/prompts.py``), so ``prompt_documents`` recovers each document's text by finding the
numbered blocks in order. Reading the prompt rather than the parquet rows means baselines work on
anything in Ref-Long's format, including the released A/F prompt files and other builders' output.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from reflong.common.errors import ReflongError

ANSWERS_SUFFIX = "_answers.json"
NOT_PROMPTS = {
    "manifest.json",
    "build_report.json",
    "generator.json",
    "run_manifest.json",
    "scores.json",
    "baselines.json",
}
# Nominal length label -> documents, for configurations whose prompts are not at hand.
PAPER_DOCS = {"30K": 8, "45K": 12, "60K": 16, "75K": 20}


def load_mapping(path: Path) -> dict[str, list]:
    """A Ref-Long JSON file, checked for the ``{"i": [key, value]}`` shape."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ReflongError(f"file not found: {path}") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ReflongError(
            f'{path} is not valid JSON ({exc}); expected Ref-Long\'s {{"i": [key, ...]}}'
        ) from None
    if not isinstance(data, dict) or not all(isinstance(v, list) and len(v) == 2 for v in data.values()):
        raise ReflongError(f'{path} is not a Ref-Long file: expected {{"i": [key, value], ...}}')
    return data


def task_order(mapping: dict) -> list[str]:
    """Task ids in numeric order ("2" before "10")."""
    return sorted(mapping, key=lambda k: (int(k) if k.isdigit() else 1 << 60, k))


def config_name(path: Path) -> str:
    name = Path(path).name
    if name.endswith(ANSWERS_SUFFIX):
        return name[: -len(ANSWERS_SUFFIX)]
    return name[: -len(".json")] if name.endswith(".json") else name


def answers_files(path: Path) -> list[Path]:
    path = Path(path)
    if path.is_file():
        return [path]
    if not path.is_dir():
        raise ReflongError(f"no such file or folder: {path}")
    found = sorted(path.rglob(f"*{ANSWERS_SUFFIX}"))
    if not found:
        raise ReflongError(f"no *{ANSWERS_SUFFIX} files under {path}")
    return found


def prompt_files(path: Path) -> list[Path]:
    """Prompt files: ``*.json`` that are not answers, manifests or reports."""
    path = Path(path)
    if path.is_file():
        return [path]
    if not path.is_dir():
        raise ReflongError(f"no such file or folder: {path}")
    # eval/ holds evaluation results (baselines, saved scores) and .cache/ run caches: never prompts.
    found = sorted(
        p
        for p in path.rglob("*.json")
        if not p.name.endswith(ANSWERS_SUFFIX)
        and p.name not in NOT_PROMPTS
        and not {".cache", "eval"} & set(p.relative_to(path).parts[:-1])
    )
    if not found:
        raise ReflongError(f"no prompt files (*.json) under {path}")
    return found


def find_partner(folder_or_file: Path | None, config: str, names: tuple[str, ...]) -> Path | None:
    """The file for ``config`` in a folder (searched recursively), or the file itself."""
    if folder_or_file is None:
        return None
    base = Path(folder_or_file)
    if base.is_file():
        return base
    for name in names:
        hits = sorted(base.rglob(name.format(config=config)))
        if hits:
            return hits[0]
    return None


def nominal_documents(config: str) -> int | None:
    """M from a configuration name when no prompt is at hand: Paper 30K/45K/60K/75K -> 8/12/16/20,
    A/F ``<n>K`` -> n (Ref-Long's M = K/1000), NBA 24K -> 20. None when the name says nothing."""
    m = re.search(r"(?:^|_)(\d+)K$", config)
    if not m:
        return None
    label = f"{m.group(1)}K"
    if config.startswith(("easy_", "hard_")):
        return PAPER_DOCS.get(label)
    if config == "24K":  # Ref-Long-NBA
        return 20
    return int(m.group(1))


def length_label(path: Path | str) -> str | None:
    """The nominal length a file's name carries: ``easy_30K_answers.json``, ``easy_30K.json`` and
    ``gpt4o_easy_30K_predictions.json`` -> ``30K``; None when the name carries none. (Compared as
    labels, not as ``nominal_documents``: a prefix such as ``gpt4o_`` would change that guess.)"""
    stem = config_name(Path(path))
    for suffix in ("_predictions", "_answers"):
        stem = stem.removesuffix(suffix)
    m = re.search(r"(?:^|_)(\d+)K$", stem, re.IGNORECASE)
    return f"{int(m.group(1))}K" if m else None


@dataclass(frozen=True)
class PromptDocs:
    head: str
    documents: tuple[str, ...]
    tail: str


def prompt_documents(prompt: str) -> PromptDocs:
    """Split a prompt into head, documents (in index order) and tail; see the module doc.

    Block ``i`` starts at ``"{i}: {"`` (after the head's blank line, or after block ``i-1``);
    the search for ``i+1`` starts past block ``i``'s start, so a document that happens to mention
    ``"5: {"`` cannot reorder the split. A prompt without blocks is an error."""
    starts: list[int] = []
    at = prompt.find("\n\n0: {")
    if at < 0:
        raise ReflongError("prompt has no numbered documents (expected '0: {...}' blocks after a blank line)")
    starts.append(at + 2)
    i = 1
    while True:
        nxt = prompt.find(f"}}\n\n{i}: {{", starts[-1])
        if nxt < 0:
            break
        starts.append(nxt + 3)
        i += 1
    docs = []
    for k, start in enumerate(starts):
        body_start = start + len(f"{k}: {{")
        if k + 1 < len(starts):
            end = starts[k + 1] - 3
        else:
            end = prompt.rfind("}\n\n")
            if end < body_start:
                end = len(prompt)
        docs.append(prompt[body_start:end])
    tail_start = prompt.rfind("}\n\n") + 3
    return PromptDocs(prompt[: starts[0]], tuple(docs), prompt[tail_start:])


RUN_MANIFEST = "run_manifest.json"


def _run_manifest(predictions: Path) -> dict:
    """The ``run_manifest.json`` beside a predictions file (or in a predictions folder), or {}."""
    predictions = Path(predictions)
    folder = predictions if predictions.is_dir() else predictions.parent
    try:
        data = json.loads((folder / RUN_MANIFEST).read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError, UnicodeDecodeError):
        return {}
    return data if isinstance(data, dict) else {}


def run_scope(predictions: Path, config: str) -> list[str] | None:
    """The task ids a run covers for ``config``, when its manifest names them (``reflong-build
    human``: an annotator answers the first N tasks of a setting, and is scored on those N, a missing
    answer among them still counting as missing); None for runs that cover the whole file."""
    scope = _run_manifest(predictions).get("scope")
    if not isinstance(scope, dict) or not isinstance(scope.get(config), list):
        return None
    return [str(tid) for tid in scope[config]]


def run_covers(predictions: Path, config: str) -> bool:
    """False when a run's manifest names the settings it covers (``scope``) and ``config`` is not
    one of them; True otherwise (runs without a scope cover every file they are paired with)."""
    scope = _run_manifest(predictions).get("scope")
    return not isinstance(scope, dict) or config in scope


def run_label(predictions: Path) -> str | None:
    """The name a human annotation run goes by beside models (``human:NAME``), from its manifest."""
    data = _run_manifest(predictions)
    return str(data["model"]) if data.get("command") == "human" and data.get("model") else None


def run_timing(predictions: Path) -> dict | None:
    """A human annotation run's time on task, pooled over its settings: answered tasks, mean and
    median seconds a task (Ref-Long reports 124 s); None for other runs."""
    data = _run_manifest(predictions)
    if data.get("command") != "human" or not isinstance(data.get("settings"), dict):
        return None
    per = [v for v in data["settings"].values() if isinstance(v, dict) and v.get("answered")]
    answered = sum(int(v["answered"]) for v in per)
    if not answered:
        return {"annotator": data.get("annotator"), "answered": 0}
    total = sum(float(v.get("seconds_total") or 0) for v in per)
    medians = [float(v["seconds_median"]) for v in per if v.get("seconds_median") is not None]
    return {
        "annotator": data.get("annotator"),
        "answered": answered,
        "seconds_mean": round(total / answered, 1),
        # pooled median is not recoverable from per-setting medians; one setting is the usual case
        "seconds_median": medians[0] if len(medians) == 1 else None,
    }
