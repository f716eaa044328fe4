"""The interface every output format implements, and what a subset tells the formats.

A format writer writes one configuration (one released file family, e.g. ``easy_30K``) at a
time: ``open(out_dir, config)``, ``add(task)`` for each task as it is made, ``close()`` returning
the files it wrote, or ``abort()`` to remove whatever it wrote. Tasks stream past once, so a
writer holds what its format needs (a row group, counters), never the configuration: memory stays
flat in the number of tasks. ``ConfigWriter`` (``config_writer.py``) drives the formats listed in
``formats.FORMATS``; a subset only makes ``TaskRecord``s and an ``OutputSpec``.

Why ``abort`` also removes files already closed: the fan-out closes its writers one after the
other; if a later one fails (disk full), the earlier ones' finished files would describe a
configuration that is not there. A configuration is written whole or not at all.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO, Protocol

from reflong.assemble.records import TaskRecord
from reflong.common.atomic_files import PartFile

if TYPE_CHECKING:
    from datasets import Features

ANSWERS_DIR = "answers"  # the release's A/F layout: answers/<config>_answers.json


@dataclass(frozen=True)
class OutputSpec:
    """What a subset asks of every format; each format reads the fields it needs.

    ``prompt_dir``/``answers_dir``: folders of the Ref-Long JSON files (the release's A/F layout
    is ``before/`` or ``ori/`` + ``answers/``; ``"."`` for both gives a flat folder, as Paper).
    ``features``: the `datasets` schema of the parquet dataset (``dataset_features``); None when no
    dataset is wanted (``--no-dataset``). ``chat``: also write ``chat/<config>.jsonl``."""

    prompt_dir: str = "."
    answers_dir: str = ANSWERS_DIR
    features: Features | None = None
    chat: bool = False  # chat-format JSONL for fine-tuning (``--split train``, chat_jsonl.py)


class FormatWriter(Protocol):
    """One output format, one configuration at a time (see the module doc).

    Optional: ``min_bytes(task) -> int``, the bytes the format writes at least for a task; the
    fan-out's space check multiplies it by the configuration's task count (``config_writer``)."""

    def open(self, out_dir: Path, config: str) -> None:
        """Start ``config``'s files under ``out_dir`` (as ``.part`` files)."""

    def add(self, task: TaskRecord) -> None:
        """One task of the open configuration, in task order."""

    def close(self) -> list[Path]:
        """Finish the files, rename them into place and return them."""
        ...

    def abort(self) -> None:
        """Remove everything written for the configuration (``.part`` or finished); never raises
        for a missing file, and is safe before ``open`` or after ``close``."""


class Format(Protocol):
    """An entry of ``formats.FORMATS``: a writer class that decides from a subset's spec whether
    and how it writes (``None``: this format is not wanted, e.g. parquet under ``--no-dataset``)."""

    def for_spec(self, spec: OutputSpec) -> FormatWriter | None: ...


class StagedFiles:
    """The files one writer writes for one configuration, kept as ``.part`` until ``commit``.

    The bookkeeping every format needs for ``close``/``abort``: a format stages its paths (or
    opens them for binary writing here), then commits them all or discards them all."""

    def __init__(self) -> None:
        self._parts: list[PartFile] = []
        self._handles: list[BinaryIO] = []
        self._committed: list[Path] = []

    def stage(self, path: Path) -> Path:
        """The ``.part`` path to write for ``path`` (for writers that open the file themselves)."""
        part = PartFile(path)
        self._parts.append(part)
        return part.tmp

    def open(self, path: Path) -> BinaryIO:
        """``path``'s ``.part`` opened for writing bytes; closed by ``commit`` or ``discard``."""
        handle = self.stage(path).open("wb")
        self._handles.append(handle)
        return handle

    def commit(self) -> list[Path]:
        """Close the open files and rename every staged file into place, in staging order."""
        for handle in self._handles:  # a failing close leaves the lists whole for ``discard``
            handle.close()
        self._handles = []
        while self._parts:
            self._committed.append(self._parts[0].commit())
            self._parts.pop(0)
        return list(self._committed)

    def discard(self) -> None:
        """Remove every file of this writer, staged or already committed."""
        for handle in self._handles:
            with contextlib.suppress(OSError):
                handle.close()
        for part in self._parts:
            part.discard()
        for path in self._committed:
            with contextlib.suppress(OSError):
                path.unlink()
        self._handles, self._parts, self._committed = [], [], []
