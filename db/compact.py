"""Give a store's free pages back to the file system: ``reflong-build compact``.

Why a step of its own: rows a refresh drops (rejects under the near-miss floor, a list resolved
again) free their pages inside the file, and SQLite reuses them for later rows, so the file stops
growing but never shrinks. ``VACUUM`` rewrites the file without them.

Why it is kill-safe: in WAL mode ``VACUUM`` is one transaction that writes the new content to the
write-ahead log; the file itself changes only when a checkpoint copies a committed log back. A kill
before the commit leaves the old store (the log's uncommitted frames are ignored on the next
open), a kill after it leaves the new one (the next open replays the log). Either way every row is
there (sqlite.org/lang_vacuum.html, sqlite.org/wal.html). It needs free disk of about the store's
size for the log, checked before it starts. The caller holds the writer lock.
"""

from __future__ import annotations

import shutil
import sqlite3
from dataclasses import dataclass
from pathlib import Path

from reflong.common.errors import ReflongError


@dataclass(frozen=True)
class CompactReport:
    bytes_before: int
    bytes_after: int
    free_bytes_before: int
    ran: bool  # False when there was nothing to give back


def _pages(conn: sqlite3.Connection) -> tuple[int, int, int]:
    page = conn.execute("PRAGMA page_size").fetchone()[0]
    count = conn.execute("PRAGMA page_count").fetchone()[0]
    free = conn.execute("PRAGMA freelist_count").fetchone()[0]
    return page, count, free


def compact_store(path: Path, min_free_share: float = 0.0) -> CompactReport:
    """``VACUUM`` the store at ``path`` when its free pages are more than ``min_free_share`` of it."""
    path = Path(path)
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        conn.execute("PRAGMA busy_timeout=30000")
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # the file alone holds the store
        page, count, free = _pages(conn)
        before = page * count
        if free == 0 or free <= min_free_share * count:
            return CompactReport(before, before, page * free, False)
        needed = before - page * free + before // 10  # the new content in the log, and a margin
        available = shutil.disk_usage(path.parent).free
        if available < needed:
            raise ReflongError(
                f"compacting {path} needs about {needed / 1e6:.0f} MB free beside it for the log, "
                f"{available / 1e6:.0f} MB are; free space and rerun (the store is unchanged)"
            )
        conn.execute("VACUUM")
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        page, count, _ = _pages(conn)
        return CompactReport(before, page * count, page * free, True)
    except sqlite3.DatabaseError as exc:
        raise ReflongError(f"cannot compact {path}: {exc}; the store is unchanged") from None
    finally:
        conn.close()
