"""SHA-256 digests as the project records them: lowercase hex of a file's bytes or a text's UTF-8.

Why one module: the same digest is written by one stage and checked by another (a PDF's hash in
the store and the manifest, a manifest's output hashes when a build replaces its predecessor, a
prompt's hash as the key of evaluate's response cache and of the model stand-in); one definition
keeps them comparable. Files are read in 1 MiB blocks, so memory stays flat for large outputs.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

BLOCK_BYTES = 1 << 20


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def sha256_text(text: str) -> str:
    """Digest of ``text`` encoded as UTF-8 (prompts, cache keys)."""
    return sha256_bytes(text.encode("utf-8"))


def sha256_file(path: Path) -> str:
    """Digest of the file's bytes, read block by block."""
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(BLOCK_BYTES), b""):
            digest.update(block)
    return digest.hexdigest()


def file_entry(path: Path, name: str) -> dict:
    """``{"path", "bytes", "sha256"}`` with a caller-chosen, machine-independent ``name``: how
    manifests list their inputs and outputs."""
    return {"path": name, "bytes": Path(path).stat().st_size, "sha256": sha256_file(path)}
