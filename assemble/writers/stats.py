"""Per-configuration statistics for the card and the manifest, gathered as tasks stream past.

A writer of no file: it has the format interface (``open``/``add``/``close``/``abort``) so the
fan-out feeds it like the others, and ``close`` leaves the figures in ``stats``. It keeps counters
and one int per task, not the tasks.
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from reflong.assemble.records import TaskRecord


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


class StatsCollector:
    """``config_stats`` over a stream: the same figures, counters instead of the tasks."""

    def __init__(self) -> None:
        self.stats: ConfigStats | None = None

    def open(self, out_dir: Path, config: str) -> None:
        self.config = config
        self.stats = None
        self.setting = self.length = ""
        self.n = self.n_documents = 0
        self.keys: set[str] = set()
        self.sizes: Counter = Counter()
        self.prompt_tokens: list[int] = []  # one int per task (min/mean/max need no more, but
        self.docs: dict[str, int] = {}  # the mean must be the same float as before: keep the ints)

    def add(self, task: TaskRecord) -> None:
        if not self.n:
            self.setting, self.length, self.n_documents = task.setting, task.length, len(task.documents)
        self.n += 1
        self.keys.add(str(task.key))
        self.sizes[len(set(task.answer))] += 1
        self.prompt_tokens.append(task.prompt_tokens)
        for d in task.documents:
            self.docs[d.doc_id] = d.n_tokens

    def close(self) -> list[Path]:
        self.stats = ConfigStats(
            config=self.config,
            setting=self.setting,
            length=self.length,
            tasks=self.n,
            n_documents=self.n_documents,
            distinct_keys=len(self.keys),
            answer_sizes=dict(sorted(self.sizes.items())),
            prompt_tokens=_min_mean_max(self.prompt_tokens),
            document_tokens=_min_mean_max(self.docs.values()),
        )
        return []

    def abort(self) -> None:
        self.stats = None
