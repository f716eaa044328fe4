"""Ref-Long JSON: ``{"i": [key, prompt]}`` prompts and ``{"i": [key, [indexes]]}`` answers.

Why exactly these bytes: a user drops our files where Ref-Long's evaluation expects theirs. The
released files are ``json.dumps(obj)`` with Python's defaults (``", "``/``": "`` separators,
``ensure_ascii=True``, no trailing newline; checked on all 50 released files), so that is what
``reflong_json_bytes`` writes, and the streaming writer writes the same bytes item by item.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import BinaryIO

from reflong.assemble.records import TaskRecord
from reflong.assemble.writers.base import ANSWERS_DIR, OutputSpec, StagedFiles
from reflong.common.atomic_files import write_atomic


def reflong_json_bytes(mapping: Mapping[str, object]) -> bytes:
    """Bytes exactly as the released files: ``json.dumps`` defaults, no trailing newline."""
    return json.dumps(mapping).encode("ascii")


def prompt_item(task: TaskRecord) -> list:
    return [task.key, task.prompt]


def answer_item(task: TaskRecord) -> list:
    return [task.key, list(task.answer)]


def json_paths(
    out_dir: Path, config: str, prompt_dir: str = ".", answers_dir: str = ANSWERS_DIR
) -> tuple[Path, Path]:
    """``<prompt_dir>/<config>.json`` and ``<answers_dir>/<config>_answers.json`` under ``out_dir``."""
    out_dir = Path(out_dir)
    return out_dir / prompt_dir / f"{config}.json", out_dir / answers_dir / f"{config}_answers.json"


def prompt_file(spec: OutputSpec, config: str) -> str:
    """The prompts file of ``config`` relative to the output folder, as the card names it."""
    return Path(spec.prompt_dir, f"{config}.json").as_posix()


def write_reflong_files(
    out_dir: Path,
    config: str,
    tasks: Sequence[TaskRecord],
    prompt_dir: str = ".",
    answers_dir: str = ANSWERS_DIR,
) -> list[Path]:
    """Both files of one configuration from a whole list of tasks: the reference the streaming
    ``ReflongJsonWriter`` is tested against (builds use the stream)."""
    prompt_path, answers_path = json_paths(out_dir, config, prompt_dir, answers_dir)
    write_atomic(prompt_path, reflong_json_bytes({str(t.task_id): prompt_item(t) for t in tasks}))
    write_atomic(answers_path, reflong_json_bytes({str(t.task_id): answer_item(t) for t in tasks}))
    return [prompt_path, answers_path]


class _JsonMapWriter:
    """``json.dumps(mapping)`` written one item at a time: ``{"0": v, "1": w}``, same bytes."""

    def __init__(self, fh: BinaryIO) -> None:
        self.fh, self.first = fh, True
        fh.write(b"{")

    def add(self, key: str, value: object) -> None:
        self.fh.write((b"" if self.first else b", ") + reflong_json_bytes({key: value})[1:-1])
        self.first = False

    def close(self) -> None:
        self.fh.write(b"}")


class ReflongJsonWriter:
    """The prompts and answers files of one configuration, written as tasks arrive."""

    def __init__(self, prompt_dir: str = ".", answers_dir: str = ANSWERS_DIR) -> None:
        self.prompt_dir, self.answers_dir = prompt_dir, answers_dir
        self._files = StagedFiles()

    @classmethod
    def for_spec(cls, spec: OutputSpec) -> ReflongJsonWriter:
        return cls(spec.prompt_dir, spec.answers_dir)

    def open(self, out_dir: Path, config: str) -> None:
        self._files = StagedFiles()
        prompt_path, answers_path = json_paths(out_dir, config, self.prompt_dir, self.answers_dir)
        self._prompts = _JsonMapWriter(self._files.open(prompt_path))
        self._answers = _JsonMapWriter(self._files.open(answers_path))

    def add(self, task: TaskRecord) -> None:
        self._prompts.add(str(task.task_id), prompt_item(task))
        self._answers.add(str(task.task_id), answer_item(task))

    @staticmethod
    def min_bytes(task: TaskRecord) -> int:
        """The bytes ``add`` writes for ``task`` (the space check's estimate per task)."""
        key = str(task.task_id)
        prompt = reflong_json_bytes({key: prompt_item(task)})
        return len(prompt) + len(reflong_json_bytes({key: answer_item(task)}))

    def close(self) -> list[Path]:
        self._prompts.close()
        self._answers.close()
        return self._files.commit()

    def abort(self) -> None:
        self._files.discard()
