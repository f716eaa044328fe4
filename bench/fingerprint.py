"""Fingerprint every output of the standard builds, to show a refactor changed no byte.

    python bench/fingerprint.py --work /tmp/fp-before [--shared ../shared] [--skip-synthetic]

Runs, each in a fresh child process of the installed ``reflong-build``:
- ``demo`` (synthetic arXiv served on 127.0.0.1, the whole Paper pipeline through the real client);
- the Paper build on the real corpus (``paper --source ../shared/corpus``, the settings of the
  corpus end-to-end test);
- ``a`` and ``f`` with ``--preset reflong2025`` (the released A/F files), unless --skip-synthetic.

For each build it prints the number of output files and one sha256 over (path, file sha256) of all
of them, then one JSON line with every figure. Two runs of two trees (before and after a change)
give the same JSON exactly when every output is byte-identical. The store and PDF cache are not
outputs and are left out (SQLite pages carry timestamps of the run).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CORPUS_ARGS = [
    "--since", "2023-01", "--pool-months", "30", "--distractor-months", "12", "--categories", "",
    "--lengths", "15K:4,22K:6,30K:8", "--difficulty", "easy", "--tasks", "12", "--seed", "3",
]  # fmt: skip


def run_cli(args: list[str]) -> float:
    """Seconds one ``reflong-build`` run took in a child process (its output is discarded)."""
    code = "import sys; from reflong.cli import main; sys.argv = ['reflong-build', *sys.argv[1:]]; main()"
    start = time.perf_counter()
    subprocess.run([sys.executable, "-I", "-c", code, *args], check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def fingerprint(folder: Path) -> dict[str, object]:
    """File count and one sha256 over every file's relative path and content hash."""
    files = sorted(p for p in folder.rglob("*") if p.is_file())
    total = hashlib.sha256()
    for path in files:
        total.update(path.relative_to(folder).as_posix().encode() + b"\0")
        total.update(hashlib.sha256(path.read_bytes()).hexdigest().encode() + b"\n")
    return {"files": len(files), "sha256": total.hexdigest()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work", type=Path, required=True, help="empty folder for the builds")
    parser.add_argument("--shared", type=Path, default=REPO.parent / "shared")
    parser.add_argument("--skip-synthetic", action="store_true")
    args = parser.parse_args()
    work: Path = args.work.resolve()
    work.mkdir(parents=True, exist_ok=True)
    corpus, data = args.shared.resolve() / "corpus", args.shared.resolve() / "data"
    figures: dict[str, object] = {}

    seconds = run_cli(["-q", "demo", "--out", str(work / "demo")])
    figures["demo"] = {**fingerprint(work / "demo" / "paper"), "seconds": round(seconds, 1)}

    corpus_out = work / "corpus"
    seconds = run_cli(
        ["-q", "paper", "--source", str(corpus), *CORPUS_ARGS, "--seeds", str(corpus / "seeds.jsonl"),
         "--db", str(corpus_out / "store.db"), "--cache", str(corpus_out / "cache"),
         "--out", str(corpus_out / "out")]
    )  # fmt: skip
    figures["corpus"] = {**fingerprint(corpus_out / "out"), "seconds": round(seconds, 1)}

    if not args.skip_synthetic:
        for subset, option, source in (
            ("a", "--haystack", data / "pg_essays"),
            ("f", "--summhay", data / "summhay"),
        ):
            out = work / subset
            seconds = run_cli(
                ["-q", subset, "--preset", "reflong2025", option, str(source), "--out", str(out)]
            )
            figures[subset] = {**fingerprint(out), "seconds": round(seconds, 1)}

    for name, fig in figures.items():
        print(f"{name:8s} {fig['files']:4d} files  sha256 {fig['sha256']}  ({fig['seconds']} s)")
    print(json.dumps({k: {"files": v["files"], "sha256": v["sha256"]} for k, v in figures.items()}))


if __name__ == "__main__":
    sys.exit(main())
