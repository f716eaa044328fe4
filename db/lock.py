"""One writer per store: an OS file lock on ``<db>.lock``, held for a whole command.

Why a lock of our own on top of SQLite's: SQLite serialises single transactions, but a stage's
work spans many (read the pending papers, parse, write in batches, read back). Two runs
interleaving those transactions on one store re-parse and replace each other's rows
(``NoResultFound``), insert the same keys (``IntegrityError``) or wait out ``busy_timeout``
(``database is locked``). So every command that writes takes this lock first and keeps it to
the end; a second writer waits up to ``--wait-lock`` seconds and otherwise refuses in one line,
naming the run that holds it. Commands that only read (``stats``, ``edges``, ``refs``,
``report``, audit queue and export, Datasette) take no lock: WAL lets them read while a writer
writes.

``fcntl.flock`` locks belong to the open file and are released by the kernel when the process
ends in any way (``kill -9`` included), so a crashed run never leaves a stale lock. The file
itself stays (removing it would race with a run opening it) and holds the holder's pid, start
time and command, for the message.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import time
from collections.abc import Iterator
from datetime import datetime, timezone
from pathlib import Path

from reflong.common.errors import ReflongError


class StoreBusy(ReflongError):
    """Another run holds the store's writer lock."""


def lock_path(db_path: str | Path) -> Path:
    return Path(str(db_path) + ".lock")


def _holder(fd: int) -> str:
    try:
        info = json.loads(os.pread(fd, 4096, 0).decode("utf-8") or "{}")
    except (OSError, ValueError):
        info = {}
    if not info:
        return "another reflong-build run"
    return (
        f"another reflong-build run (pid {info.get('pid', '?')}, started {info.get('started', '?')}, "
        f"command {info.get('command', '?')})"
    )


@contextlib.contextmanager
def writer_lock(db_path: str | Path, command: str, wait_s: float = 0.0) -> Iterator[None]:
    """Hold the writer lock of the store at ``db_path`` for the duration of the block.

    Raises ``StoreBusy`` with one line when another run holds it past ``wait_s`` seconds. Not
    re-entrant: a second ``writer_lock`` on the same store, even in the same process, waits too.
    """
    path = lock_path(db_path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        deadline = time.monotonic() + max(0.0, wait_s)
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise StoreBusy(
                        f"{_holder(fd)} is writing to {db_path}; wait for it (or use --wait-lock SECONDS) "
                        "or use another --db"
                    ) from None
                time.sleep(0.2)
        started = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
        info = json.dumps({"pid": os.getpid(), "started": started, "command": command[:200]})
        os.ftruncate(fd, 0)
        os.pwrite(fd, info.encode("utf-8"), 0)
        try:
            yield
        finally:
            with contextlib.suppress(OSError):
                os.ftruncate(fd, 0)
    finally:
        os.close(fd)  # closing the file releases the lock
