"""One configuration's task stream fanned out to every format writer, whole or not at all.

Why a fan-out: a subset makes each task once, and every format (and the statistics) takes it as
it is made, so no format needs the configuration in memory and a subset never names a format.
Files appear only when the block ends well (every writer writes ``.part`` files, renamed when it
closes); a failure anywhere, in the block or while closing, aborts every writer, which removes
its files, so no partial configuration is left.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from pathlib import Path

from reflong.assemble.records import TaskRecord
from reflong.assemble.writers.base import FormatWriter
from reflong.assemble.writers.stats import ConfigStats, StatsCollector


class ConfigWriter:
    """``with ConfigWriter(out_dir, config, format_writers(spec)) as w: w.add(task) ...``; then
    ``w.files`` (in the writers' order) and ``w.stats`` (the statistics are always gathered: the
    card and the manifest need them)."""

    def __init__(self, out_dir: Path, config: str, writers: Sequence[FormatWriter]) -> None:
        self.out_dir, self.config = Path(out_dir), config
        self._stats = StatsCollector()
        self.writers: list[FormatWriter] = [*writers, self._stats]
        self.files: list[Path] = []
        self.stats: ConfigStats | None = None

    def __enter__(self) -> ConfigWriter:
        try:
            for writer in self.writers:
                writer.open(self.out_dir, self.config)
        except BaseException:
            self._abort()
            raise
        return self

    def add(self, task: TaskRecord) -> None:
        for writer in self.writers:
            writer.add(task)

    def __exit__(self, exc_type, exc, tb) -> bool:
        if exc_type is not None:
            self._abort()
            return False
        try:
            files = [path for writer in self.writers for path in writer.close()]
        except BaseException:
            self._abort()
            raise
        self.files, self.stats = files, self._stats.stats
        return False

    def _abort(self) -> None:
        for writer in self.writers:
            with contextlib.suppress(Exception):  # cleanup must not hide the failure being handled
                writer.abort()
