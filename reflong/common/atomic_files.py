"""Files that appear whole or not at all.

Why: a run can stop at any byte (disk full, Ctrl-C, a bug). A reader, a resumed run or the next
build must never take half a file for a finished one. So every output is written to
``<name>.part`` beside its final path and renamed into place only once it is complete
(``os.replace`` is atomic on one file system); a failure removes the ``.part``. Every stage writes
its outputs this way, so it lives here rather than in the stage that needed it first.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path


class PartFile:
    """``path`` staged as ``<name>.part``: ``commit`` renames it into place, ``discard`` removes it.

    For writers whose life is not one ``with`` block (a stream opened, fed, then closed);
    ``atomic_target`` is the same thing as a context manager."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.tmp = self.path.with_name(self.path.name + ".part")

    def commit(self) -> Path:
        os.replace(self.tmp, self.path)
        return self.path

    def discard(self) -> None:
        with contextlib.suppress(OSError):
            self.tmp.unlink()


@contextlib.contextmanager
def atomic_target(path: Path) -> Iterator[Path]:
    """A temporary path (``<name>.part``) to write; renamed to ``path`` when the block ends well,
    removed when it fails (disk full, Ctrl-C, a bug): a run never leaves half a file or a
    ``.part`` behind, and a reader never sees a partial output."""
    part = PartFile(path)
    try:
        yield part.tmp
        part.commit()
    except OSError as exc:
        part.discard()
        if exc.filename is None:  # a write's own error names no file: name the one being written
            raise OSError(exc.errno, exc.strerror or str(exc), str(path)) from exc
        raise
    except BaseException:
        part.discard()
        raise


def write_atomic(path: Path, data: bytes) -> None:
    """Write via a temporary file and rename, so an interrupted run never leaves half a file."""
    with atomic_target(path) as tmp:
        tmp.write_bytes(data)
