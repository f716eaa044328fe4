"""``manifest.json`` of an output folder: what was built, from what, into which files.

Why: a build must be reproducible and checkable (design invariant 5): the manifest records the
tool version, settings, every input and every output file with its sha256, and the per-config
statistics. It is deterministic (no timestamps or absolute paths, keys in fixed order), so the same
inputs and seed give a byte-identical manifest; a later build into the same folder reads it to
know which files it replaces (``outputs_ownership``).

Why an unfinished manifest: a build writes its files one after the other, so a kill (or a full
disk) between the first and the last leaves a folder holding part of a new build, maybe beside
part of the previous one. ``BuildInProgress`` writes ``manifest.json`` saying ``"finished":
false`` before the first output and replaces it with the real manifest as the very last step;
the previous build's files that describe a whole build (card, build report) are removed first,
so a folder looks finished only when it is. Readers ask ``unfinished_line`` and refuse in one line.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from reflong.assemble.writers.stats import ConfigStats
from reflong.common.atomic_files import write_atomic
from reflong.common.errors import ReflongError
from reflong.common.hashing import file_entry, sha256_file

MANIFEST_NAME = "manifest.json"


def write_manifest(
    out_dir: Path,
    command: str,
    settings: Mapping[str, object],
    inputs: Sequence[dict],
    outputs: Sequence[Path],
    stats: Sequence[ConfigStats] = (),
) -> Path:
    """``manifest.json``: tool and version, settings, inputs (name, bytes, sha256), every output
    file (relative path, bytes, sha256) and the per-configuration statistics."""
    from reflong import __version__

    out_dir = Path(out_dir)
    manifest = {
        "tool": "reflong-build",
        "version": __version__,
        "command": command,
        "settings": dict(settings),
        "inputs": list(inputs),
        "outputs": [file_entry(p, Path(p).relative_to(out_dir).as_posix()) for p in sorted(outputs)],
        "statistics": [s.as_json() for s in stats],
    }
    path = out_dir / MANIFEST_NAME
    write_atomic(path, (json.dumps(manifest, indent=2, ensure_ascii=False) + "\n").encode("utf-8"))
    return path


def _manifest_json(path: Path) -> dict | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and data.get("tool") == "reflong-build" else None


def unfinished_line(path: Path) -> str | None:
    """One line when ``path`` (a build's folder, a sub-folder such as A/F's ``answers/``, or a file
    in one) belongs to a build that did not finish; None otherwise (finished, or not a build)."""
    path = Path(path)
    folder = path if path.is_dir() else path.parent
    for candidate in (folder, folder.parent):
        data = _manifest_json(candidate / MANIFEST_NAME)
        if data is not None:
            if data.get("finished") is False:
                return (
                    f"{candidate}: the build written there did not finish (killed or failed while "
                    f"writing; {MANIFEST_NAME} says so): rerun its command ({data.get('command')}) "
                    "to complete it"
                )
            return None
    return None


class BuildInProgress:
    """One build's outputs in ``out_dir``, from before its first file to its manifest.

    ``with BuildInProgress(out_dir, command, claim.previous, summaries) as build:`` then
    ``build.add(files)`` as files are renamed into place and ``build.finish(...)`` to write the
    real manifest. On entry ``manifest.json`` says the build is unfinished and lists the previous
    build's files plus this build's so far (so a rerun after a kill still knows what to replace,
    ``outputs_ownership``), and the previous build's ``summaries`` (the card, build_report.json:
    files every build rewrites; only if unchanged since it wrote them) are removed. A failure that unwinds
    (disk full, Ctrl-C, a bug) removes this build's files; if none was written yet, the previous
    manifest and summaries are put back, so a refused build leaves the previous one as it was.
    A kill leaves the unfinished manifest, which every reader refuses (``unfinished_line``)."""

    def __init__(
        self,
        out_dir: Path,
        command: str,
        previous: Mapping[str, str | None],
        summaries: Iterable[str] = (),
    ) -> None:
        self.out_dir, self.command, self.previous = Path(out_dir), command, dict(previous)
        self.summaries = tuple(summaries)
        self.files: list[Path] = []
        self.done = False
        self._saved: dict[Path, bytes] = {}

    def __enter__(self) -> BuildInProgress:
        self.out_dir.mkdir(parents=True, exist_ok=True)
        manifest = self.out_dir / MANIFEST_NAME
        for path in [manifest, *(self.out_dir / name for name in self.summaries)]:
            rel = path.relative_to(self.out_dir).as_posix()
            if path.is_file() and (path == manifest or self._unchanged(rel, path)):
                self._saved[path] = path.read_bytes()
        self._mark()
        for path in self._saved:
            if path != manifest:
                path.unlink()
        return self

    def _unchanged(self, rel: str, path: Path) -> bool:
        if rel not in self.previous:
            return False
        sha = self.previous[rel]
        return sha is None or sha256_file(path) == sha

    def _mark(self) -> None:
        outputs = {rel: sha for rel, sha in self.previous.items()}
        for path in self.files:
            outputs[Path(path).relative_to(self.out_dir).as_posix()] = None  # this build's: replaced
        marker = {
            "tool": "reflong-build",
            "command": self.command,
            "finished": False,
            "note": "a build is writing this folder, or was and did not finish; rerun its command",
            "outputs": [{"path": rel, "sha256": sha} for rel, sha in sorted(outputs.items())],
        }
        write_atomic(self.out_dir / MANIFEST_NAME, (json.dumps(marker, indent=2) + "\n").encode("utf-8"))

    def add(self, files: Iterable[Path]) -> None:
        """Files of this build now in place (the unfinished manifest lists them at once)."""
        self.files += [Path(p) for p in files]
        self._mark()

    def finish(
        self,
        settings: Mapping[str, object],
        inputs: Sequence[dict],
        stats: Sequence[ConfigStats] = (),
    ) -> Path:
        """The real manifest over every file added: the build is finished from here on."""
        path = write_manifest(self.out_dir, self.command, settings, inputs, self.files, stats)
        self.done = True
        return path

    def __exit__(self, exc_type, exc, tb) -> bool:
        if exc_type is None or self.done:
            return False
        with contextlib.suppress(OSError):  # cleanup must not hide the failure being handled
            left_unfinished = self._undo()
            if left_unfinished and isinstance(exc, ReflongError):
                raise ReflongError(
                    f"{exc} ({self.out_dir} keeps the rest of the previous build, marked unfinished "
                    "until a build completes there)"
                ) from exc
        return False

    def _undo(self) -> bool:
        """Remove this build's files; True when part of the previous build stays, unfinished."""
        folders: set[Path] = set()
        for path in self.files:
            with contextlib.suppress(FileNotFoundError):
                path.unlink()
            folders.add(path.parent)
        root = self.out_dir.resolve()
        for folder in sorted(folders, key=lambda p: len(p.parts), reverse=True):
            folder = folder.resolve()
            while folder != root and folder.is_relative_to(root) and not any(folder.iterdir()):
                folder.rmdir()
                folder = folder.parent
        manifest = self.out_dir / MANIFEST_NAME
        if not self.files:  # nothing of the previous build was replaced: put it back as it was
            for path, data in self._saved.items():
                write_atomic(path, data)
            if manifest not in self._saved:
                manifest.unlink()
            return False
        if not self.previous:  # a first build: nothing of any build is left
            manifest.unlink()
            return False
        self.files = []  # the previous build's other files remain, as an unfinished build
        self._mark()
        return True
