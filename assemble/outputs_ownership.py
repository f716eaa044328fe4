"""Which files in an output folder belong to the build written there.

A build owns its outputs: rerunning into the same ``--out`` must not leave the previous build's
files beside the new ones (a consumer that globs ``answers/*.json`` would mix two builds). The
previous build's ``manifest.json`` lists exactly what it wrote; those files that the new build does
not write again are removed after the new build is complete, and nothing else is touched. A
``report.html`` counts as the previous build's only if it says it was written by
``reflong-build report`` (``REPORT_MARKER``): a report describes one build, so it is stale once
another build replaces it.

Why not write to a temporary folder and swap: ``--out`` may be a folder holding the user's own
files (a notebook, a git checkout of a dataset repo); a swap would move them or need to copy them.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from reflong.assemble.manifest import MANIFEST_NAME
from reflong.common.hashing import sha256_file

REPORT_NAME = "report.html"
# Written into the report's <head>; only a report carrying it is removed with its build.
REPORT_MARKER = '<meta name="generator" content="reflong-build report">'


@dataclass
class OutputsClaim:
    """The previous build's files in ``out_dir`` (relative path -> sha256 or None for the report)."""

    out_dir: Path
    previous: dict[str, str | None] = field(default_factory=dict)

    def finish(self, written: Iterable[Path]) -> list[str]:
        """Remove the previous build's files that this build did not write; return their paths.

        A listed file whose bytes changed since (someone edited it) is the user's now: kept."""
        root = self.out_dir.resolve()
        keep = {Path(p).resolve() for p in written} | {root / MANIFEST_NAME}
        removed: list[str] = []
        dirs: set[Path] = set()
        for rel, sha in sorted(self.previous.items()):
            path = (root / rel).resolve()
            if path in keep or not path.is_file() or not path.is_relative_to(root):
                continue
            if sha is not None and sha256_file(path) != sha:
                continue
            path.unlink()
            removed.append(rel)
            dirs.add(path.parent)
        for folder in sorted(dirs, key=lambda p: len(p.parts), reverse=True):
            while folder != root and folder.is_relative_to(root) and not any(folder.iterdir()):
                folder.rmdir()  # a folder only the old build used (e.g. ori/ after --question-last)
                folder = folder.parent
        return removed


def claim_outputs(out_dir: Path) -> OutputsClaim:
    """Read what the previous build in ``out_dir`` wrote, before this build overwrites its manifest."""
    out_dir = Path(out_dir)
    previous: dict[str, str | None] = {}
    manifest = out_dir / MANIFEST_NAME
    try:
        data = json.loads(manifest.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        data = None
    if isinstance(data, dict) and data.get("tool") == "reflong-build":
        for entry in data.get("outputs", []):
            if isinstance(entry, dict) and isinstance(entry.get("path"), str):
                previous[entry["path"]] = entry.get("sha256")
    report = out_dir / REPORT_NAME
    try:
        with open(report, encoding="utf-8", errors="replace") as fh:
            head = fh.read(4096)
    except OSError:
        head = ""
    if REPORT_MARKER in head:
        previous[REPORT_NAME] = None
    return OutputsClaim(out_dir, previous)


def removed_line(out_dir: Path, removed: list[str]) -> str:
    """One line for the CLI: what of the previous build was removed."""
    shown = ", ".join(removed[:5]) + (f", ... ({len(removed) - 5} more)" if len(removed) > 5 else "")
    return f"replaced the previous build in {out_dir}: removed {len(removed)} of its files no longer written ({shown})"
