"""``manifest.json`` of an output folder: what was built, from what, into which files.

Why: a build must be reproducible and checkable (design invariant 5): the manifest records the
tool version, settings, every input and every output file with its sha256, and the per-config
statistics. It is deterministic (no timestamps or absolute paths, keys in fixed order), so the same
inputs and seed give a byte-identical manifest; a later build into the same folder reads it to
know which files it replaces (``outputs_ownership``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path

from reflong.assemble.writers.stats import ConfigStats
from reflong.common.atomic_files import write_atomic
from reflong.common.hashing import file_entry

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
