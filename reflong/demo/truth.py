"""Read a synthetic catalog's known answer (truth.jsonl) in the shapes tests and benches need."""

from __future__ import annotations

import json
from pathlib import Path


def read_truth(folder: Path | str) -> dict[tuple[str, str], dict]:
    """{(arxiv_id, "vN"): truth record} for every paper version of the catalog in ``folder``."""
    path = Path(folder) / "truth.jsonl"
    records = (json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line)
    return {(r["paper"], r["version"]): r for r in records}


def cited_seeds(folder: Path | str) -> dict[tuple[str, str], set[str]]:
    """{(arxiv_id, "vN"): ids of the seeds that version's bibliography cites}."""
    return {k: {c["seed"] for c in r["cites"]} for k, r in read_truth(folder).items()}


def citers(folder: Path | str, role: str = "citing") -> dict[str, set[str]]:
    """{seed id: papers of ``role`` whose latest version cites it} (the positives of a key)."""
    latest: dict[str, dict] = {}
    for (paper, _v), rec in sorted(read_truth(folder).items(), key=lambda kv: (kv[0][0], int(kv[0][1][1:]))):
        latest[paper] = rec
    out: dict[str, set[str]] = {}
    for paper, rec in latest.items():
        if rec["role"] == role:
            for c in rec["cites"]:
                out.setdefault(c["seed"], set()).add(paper)
    return dict(sorted(out.items()))
