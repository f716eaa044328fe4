"""Chat-format JSON Lines for fine-tuning: ``chat/<config>.jsonl``, one task a line.

Why this shape: ``{"messages": [{"role": "system" | "user" | "assistant", "content": ...}]}`` is
what common fine-tuning tools read as a conversation (OpenAI's fine-tuning files, TRL's
``SFTTrainer`` with a ``messages`` column, Axolotl's ``chat_template`` datasets), so a training split
(``--split train``) is usable as written. The user turn is the task's prompt exactly as a test
build renders it; the assistant turn is the gold answer in the format the prompt asks for
(``Documents: {1, 3}``; Paper: ``Papers: {1, 3}``), which ``evaluate``'s parser reads back to the
same index set. Written only when a subset's spec asks for it (``OutputSpec.chat``), so a default
build's files are unchanged.
"""

from __future__ import annotations

import json
from pathlib import Path

from reflong.assemble.records import TaskRecord
from reflong.assemble.writers.base import OutputSpec, StagedFiles

CHAT_DIR = "chat"
# Characters that JSON leaves raw but line-based readers (str.splitlines, some JSONL loaders) take
# as line ends: escaped, so one task stays one line whatever its papers' text holds.
_LINE_BREAKS = {0x85: "\\u0085", 0x2028: "\\u2028", 0x2029: "\\u2029"}
SYSTEM_PROMPT = (
    "You read long collections of numbered documents carefully and answer questions about them "
    "exactly in the format the user asks for, without explanations."
)


def gold_answer(task: TaskRecord) -> str:
    """The answer as the prompt asks for it: the label, then the indexes in braces."""
    label = "Papers" if task.subset == "paper" else "Documents"
    return f"{label}: {{{', '.join(str(i) for i in sorted(task.answer))}}}"


def chat_line(task: TaskRecord) -> bytes:
    messages = [
        {"role": "system", "content": SYSTEM_PROMPT},
        {"role": "user", "content": task.prompt},
        {"role": "assistant", "content": gold_answer(task)},
    ]
    text = json.dumps({"messages": messages}, ensure_ascii=False).translate(_LINE_BREAKS)
    return (text + "\n").encode("utf-8")


class ChatJsonlWriter:
    """The chat JSONL file of one configuration, written as tasks arrive."""

    def __init__(self) -> None:
        self._files = StagedFiles()

    @classmethod
    def for_spec(cls, spec: OutputSpec) -> ChatJsonlWriter | None:
        return cls() if spec.chat else None

    def open(self, out_dir: Path, config: str) -> None:
        self._files = StagedFiles()
        self._fh = self._files.open(Path(out_dir) / CHAT_DIR / f"{config}.jsonl")

    def add(self, task: TaskRecord) -> None:
        self._fh.write(chat_line(task))

    @staticmethod
    def min_bytes(task: TaskRecord) -> int:
        return len(chat_line(task))

    def close(self) -> list[Path]:
        return self._files.commit()

    def abort(self) -> None:
        self._files.discard()
