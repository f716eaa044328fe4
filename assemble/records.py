"""A task as every subset hands it to the writers: the one type between sampling and the files.

Why one record for A, F and Paper: every output format (Ref-Long JSON, the parquet dataset, the
card's statistics, an evaluation section) reads the same fields, so a subset makes records and
never knows which formats are written. Subsets add their own columns through ``TaskRecord.extra``
/ ``DocumentRecord.extra`` (and the matching parquet features).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field


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
