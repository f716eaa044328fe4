"""Writers shared by every subset: Ref-Long JSON, a `datasets` parquet dataset, manifest (the card:
``assemble.dataset_card``).

Why here and generic: the A, F and Paper subsets must produce the same kinds of files, and a user
drops our JSON files where Ref-Long's evaluation expects theirs. The released files are exactly
``json.dumps(obj)`` with Python's defaults (``", "``/``": "`` separators, ``ensure_ascii=True``, no
trailing newline; checked on all 50 released files), so that is what ``reflong_json_bytes`` writes.

Everything is deterministic: no timestamps or absolute paths in any file, keys in fixed order, so
the same inputs and seed give byte-identical outputs (the manifest records every output's sha256).
Subsets add their own columns through ``TaskRecord.extra`` / ``DocumentRecord.extra`` and the
matching ``extra_features``.
"""

from __future__ import annotations

import hashlib
import json
import os
import statistics
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

MANIFEST_NAME = "manifest.json"
CARD_NAME = "README.md"
DATA_DIR = "data"
ANSWERS_DIR = "answers"


@dataclass(frozen=True)
class DocumentRecord:
    """One document as placed in a prompt (``index`` = its 0-based position)."""

    index: int
    doc_id: str
    n_tokens: int
    text: str
    extra: Mapping[str, object] = field(default_factory=dict)


@dataclass(frozen=True)
class TaskRecord:
    """One task of one configuration (a configuration = one released file, e.g. ``twitter_8K``).

    ``key`` is what the Ref-Long JSON holds (A: an int, others: a str); the dataset stores it as a
    string column."""

    config: str
    task_id: int
    subset: str
    setting: str
    length: str
    key: int | str
    documents: tuple[DocumentRecord, ...]
    answer: tuple[int, ...]
    prompt: str
    prompt_tokens: int
    layout: str = "before"
    extra: Mapping[str, object] = field(default_factory=dict)


# -- Ref-Long JSON -------------------------------------------------------------------------------


def reflong_json_bytes(mapping: Mapping[str, object]) -> bytes:
    """Bytes exactly as the released files: ``json.dumps`` defaults, no trailing newline."""
    return json.dumps(mapping).encode("ascii")


def prompts_mapping(tasks: Sequence[TaskRecord]) -> dict[str, list]:
    return {str(t.task_id): [t.key, t.prompt] for t in tasks}


def answers_mapping(tasks: Sequence[TaskRecord]) -> dict[str, list]:
    return {str(t.task_id): [t.key, list(t.answer)] for t in tasks}


def write_atomic(path: Path, data: bytes) -> None:
    """Write via a temporary file and rename, so an interrupted run never leaves half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".part")
    tmp.write_bytes(data)
    os.replace(tmp, path)


def write_reflong_files(
    out_dir: Path,
    config: str,
    tasks: Sequence[TaskRecord],
    prompt_dir: str = ".",
    answers_dir: str = ANSWERS_DIR,
) -> list[Path]:
    """``<prompt_dir>/<config>.json`` and ``<answers_dir>/<config>_answers.json``: the release's
    A/F layout is ``before/`` + ``answers/``; ``"."`` for both gives a flat folder (Paper)."""
    prompt_path = Path(out_dir) / prompt_dir / f"{config}.json"
    answers_path = Path(out_dir) / answers_dir / f"{config}_answers.json"
    write_atomic(prompt_path, reflong_json_bytes(prompts_mapping(tasks)))
    write_atomic(answers_path, reflong_json_bytes(answers_mapping(tasks)))
    return [prompt_path, answers_path]


# -- datasets / parquet --------------------------------------------------------------------------


def dataset_features(extra_features: Mapping[str, object] | None = None, extra_doc_features=None):
    """The `datasets` schema: the shared columns plus a subset's own (``extra_*``)."""
    from datasets import Features, List, Value

    doc = {
        "index": Value("int32"),
        "doc_id": Value("string"),
        "n_tokens": Value("int32"),
        "text": Value("string"),
        **(extra_doc_features or {}),
    }
    return Features(
        {
            "task_id": Value("int32"),
            "subset": Value("string"),
            "setting": Value("string"),
            "length": Value("string"),
            "n_documents": Value("int32"),
            "layout": Value("string"),
            "key": Value("string"),
            "documents": List(doc),
            "answer": List(Value("int32")),
            "prompt": Value("string"),
            "prompt_tokens": Value("int32"),
            **(extra_features or {}),
        }
    )


def task_row(task: TaskRecord) -> dict:
    return {
        "task_id": task.task_id,
        "subset": task.subset,
        "setting": task.setting,
        "length": task.length,
        "n_documents": len(task.documents),
        "layout": task.layout,
        "key": str(task.key),
        "documents": [
            {"index": d.index, "doc_id": d.doc_id, "n_tokens": d.n_tokens, "text": d.text, **d.extra}
            for d in task.documents
        ],
        "answer": list(task.answer),
        "prompt": task.prompt,
        "prompt_tokens": task.prompt_tokens,
        **task.extra,
    }


def write_parquet(out_dir: Path, config: str, tasks: Sequence[TaskRecord], features) -> Path:
    """``data/<config>.parquet``, one row per task, via `datasets` (its schema travels along).

    The Dataset gets a fixed fingerprint: `datasets` would otherwise pickle-hash the whole table
    just to name a cache entry we never use (40% of the write time)."""
    from datasets import Dataset, DatasetInfo
    from datasets.table import InMemoryTable
    from datasets.utils.logging import disable_progress_bar

    disable_progress_bar()  # the CLI shows its own bars; datasets' would interleave with them
    path = Path(out_dir) / DATA_DIR / f"{config}.parquet"
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".part")
    table = InMemoryTable.from_pylist([task_row(t) for t in tasks], schema=features.arrow_schema)
    dataset = Dataset(table, info=DatasetInfo(features=features), fingerprint=f"reflong-{config}")
    dataset.to_parquet(str(tmp))
    os.replace(tmp, path)
    return path


class CardSection(Protocol):
    """An extra section of the dataset card, fed each configuration's tasks as they are written.

    Why a protocol: later stages (evaluate's baselines) put figures in the card without assemble
    importing them; the CLI wires them in. ``render`` runs once, before the card is written, and
    returns the section's markdown and any files it wrote (listed in the manifest like every
    output), so the card and manifest are written once and stay consistent."""

    def add(self, config: str, tasks: Sequence[TaskRecord]) -> None: ...

    def render(self, out_dir: Path) -> tuple[str, list[Path]]: ...


# -- statistics and the dataset card --------------------------------------------------------------


@dataclass(frozen=True)
class ConfigStats:
    """What the card reports for one configuration."""

    config: str
    setting: str
    length: str
    tasks: int
    n_documents: int
    distinct_keys: int
    answer_sizes: dict[int, int]
    prompt_tokens: tuple[int, float, int]
    document_tokens: tuple[int, float, int]

    @property
    def mean_answer_size(self) -> float:
        total = sum(self.answer_sizes.values())
        return sum(size * n for size, n in self.answer_sizes.items()) / total if total else 0.0

    def as_json(self) -> dict:
        return {
            "config": self.config,
            "setting": self.setting,
            "length": self.length,
            "tasks": self.tasks,
            "n_documents": self.n_documents,
            "distinct_keys": self.distinct_keys,
            "answer_sizes": {str(k): v for k, v in sorted(self.answer_sizes.items())},
            "mean_answer_size": round(self.mean_answer_size, 2),
            "prompt_tokens": {
                "min": self.prompt_tokens[0],
                "mean": self.prompt_tokens[1],
                "max": self.prompt_tokens[2],
            },
            "document_tokens": {
                "min": self.document_tokens[0],
                "mean": self.document_tokens[1],
                "max": self.document_tokens[2],
            },
        }


def _min_mean_max(values: Iterable[int]) -> tuple[int, float, int]:
    values = list(values)
    if not values:
        return (0, 0.0, 0)
    return (min(values), round(statistics.fmean(values), 1), max(values))


def config_stats(config: str, tasks: Sequence[TaskRecord]) -> ConfigStats:
    """Answer-set sizes (distinct indexes), distinct keys and token ranges of one configuration.

    Document tokens are over the distinct documents (by ``doc_id``) the configuration uses."""
    docs = {d.doc_id: d.n_tokens for t in tasks for d in t.documents}
    return ConfigStats(
        config=config,
        setting=tasks[0].setting if tasks else "",
        length=tasks[0].length if tasks else "",
        tasks=len(tasks),
        n_documents=len(tasks[0].documents) if tasks else 0,
        distinct_keys=len({str(t.key) for t in tasks}),
        answer_sizes=dict(sorted(Counter(len(set(t.answer)) for t in tasks).items())),
        prompt_tokens=_min_mean_max(t.prompt_tokens for t in tasks),
        document_tokens=_min_mean_max(docs.values()),
    )


# -- manifest ------------------------------------------------------------------------------------


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def file_entry(path: Path, name: str) -> dict:
    """``{"path", "bytes", "sha256"}`` with a caller-chosen, machine-independent ``name``."""
    return {"path": name, "bytes": Path(path).stat().st_size, "sha256": sha256_file(path)}


def write_manifest(
    out_dir: Path,
    command: str,
    settings: Mapping[str, object],
    inputs: Sequence[dict],
    outputs: Sequence[Path],
    stats: Sequence[ConfigStats] = (),
) -> Path:
    """``manifest.json``: tool and version, settings, inputs (name, bytes, sha256), every output
    file (relative path, bytes, sha256) and the per-configuration statistics."""
    from reflong import __version__

    out_dir = Path(out_dir)
    manifest = {
        "tool": "reflong-build",
        "version": __version__,
        "command": command,
        "settings": dict(settings),
        "inputs": list(inputs),
        "outputs": [file_entry(p, Path(p).relative_to(out_dir).as_posix()) for p in sorted(outputs)],
        "statistics": [s.as_json() for s in stats],
    }
    path = out_dir / MANIFEST_NAME
    write_atomic(path, (json.dumps(manifest, indent=2, ensure_ascii=False) + "\n").encode("utf-8"))
    return path
