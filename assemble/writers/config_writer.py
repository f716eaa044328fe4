"""One configuration's task stream fanned out to every format writer, whole or not at all.

Why a fan-out: a subset makes each task once, and every format (and the statistics) takes it as
it is made, so no format needs the configuration in memory and a subset never names a format.
Files appear only when the block ends well (every writer writes ``.part`` files, renamed when it
closes); a failure anywhere, in the block or while closing, aborts every writer, which removes
its files, so no partial configuration is left.

Why a space check at the first task: a configuration's tasks are alike in size, so the first one
shows what the configuration needs at least (the formats that can tell, ``min_bytes``, times the
expected task count). When even that exceeds the free space, the configuration is refused in one
line before its files grow, instead of filling the disk. A write that still hits a full disk
(the estimate is a lower bound) becomes one ``ReflongError`` line naming the folder and the
configuration, after every writer removed its files.
"""

from __future__ import annotations

import contextlib
import errno
import shutil
from collections.abc import Sequence
from pathlib import Path

from reflong.assemble.records import TaskRecord
from reflong.assemble.writers.base import FormatWriter
from reflong.assemble.writers.stats import ConfigStats, StatsCollector
from reflong.common.errors import ReflongError

# A write that fails for want of room: disk full, quota, a file size limit (RLIMIT_FSIZE).
NO_ROOM = (errno.ENOSPC, errno.EDQUOT, errno.EFBIG)


class ConfigWriter:
    """``with ConfigWriter(out_dir, config, format_writers(spec)) as w: w.add(task) ...``; then
    ``w.files`` (in the writers' order) and ``w.stats`` (the statistics are always gathered: the
    card and the manifest need them). ``expected_tasks``: the configuration's task count, for the
    space check at its first task (None: no check)."""

    def __init__(
        self,
        out_dir: Path,
        config: str,
        writers: Sequence[FormatWriter],
        expected_tasks: int | None = None,
    ) -> None:
        self.out_dir, self.config, self.expected_tasks = Path(out_dir), config, expected_tasks
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
        if self.expected_tasks:
            self._check_space(task, self.expected_tasks)
            self.expected_tasks = None
        for writer in self.writers:
            writer.add(task)

    def _check_space(self, task: TaskRecord, n_tasks: int) -> None:
        per_task = sum(getattr(writer, "min_bytes", lambda t: 0)(task) for writer in self.writers)
        need, free = per_task * n_tasks, shutil.disk_usage(self.out_dir).free
        if need > free:
            raise ReflongError(
                f"not enough free disk space for {self.config} in {self.out_dir}: its {n_tasks} tasks need "
                f"at least {_size(need)} ({_size(per_task)} for its first one), {_size(free)} free; free "
                "disk space or give another --out, and rerun"
            )

    def __exit__(self, exc_type, exc, tb) -> bool:
        if exc_type is not None:
            self._abort()
            if isinstance(exc, OSError) and exc.errno in NO_ROOM:
                raise self._no_room(exc) from exc
            return False
        try:
            files = [path for writer in self.writers for path in writer.close()]
        except BaseException as failure:
            self._abort()
            if isinstance(failure, OSError) and failure.errno in NO_ROOM:
                raise self._no_room(failure) from failure
            raise
        self.files, self.stats = files, self._stats.stats
        return False

    def _no_room(self, exc: OSError) -> ReflongError:
        """One line for a write that found no room (pyarrow's own OSError carries the errno too)."""
        why = exc.strerror or str(exc)
        return ReflongError(
            f"{why} while writing {self.config} in {self.out_dir} (its files were removed); free disk "
            "space or give another --out, and rerun"
        )

    def _abort(self) -> None:
        for writer in self.writers:
            with contextlib.suppress(Exception):  # cleanup must not hide the failure being handled
                writer.abort()


def _size(n: int) -> str:
    return f"{n / 1e6:,.1f} MB" if n >= 1_000_000 else f"{n:,} bytes"
