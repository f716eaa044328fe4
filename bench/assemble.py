"""Time and peak memory to assemble all 8 Paper configurations x 100 tasks from a built store.

    python bench/assemble.py [--papers 2000] [--work /tmp/reflong-bench-assemble]

The store is built once (synthetic arXiv with known ground truth -> local arXiv-protocol server ->
ingest -> parse -> cite -> resolve) and kept in --work, so reruns only measure assembly. The
assembly runs in a fresh child process, so its peak RSS is its own. Beside it, in the same run, a
floor: the same child only loading the inputs from the store. Targets (issue 5): under 60 s and
under 2 GB.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

CHILD = r"""
import json, resource, sys, time
from pathlib import Path
from reflong.db import open_store
from reflong.assemble.paper_build import PaperSettings
from reflong.assemble.paper_inputs import load_paper_inputs
from reflong.assemble.paper_stage import run_paper_build
db, window, out, mode = sys.argv[1:5]
engine = open_store(db)
t = time.perf_counter()
if mode == "load":
    inputs = load_paper_inputs(engine, window)
    info = {"keys": len(inputs.keys), "documents": len(inputs.docs)}
else:
    result = run_paper_build(engine, window, Path(out), PaperSettings())
    info = {"tasks": result.n_tasks, "line": result.line()}
info["seconds"] = time.perf_counter() - t
info["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps(info))
"""


def _build_store(work: Path, papers: int) -> tuple[Path, str]:
    from click.testing import CliRunner

    from reflong.cli import main
    from reflong.demo.generate import generate
    from reflong.demo.world import SynthConfig
    from reflong.servers.arxiv_server import ArxivServer

    db = work / "store.db"
    window = "2024-03:s1:p6:d6"
    if (work / "built.ok").exists():
        return db, window
    t = time.perf_counter()
    generate(work / "catalog", SynthConfig(papers=papers, seed=0, since="2024-03"))
    print(f"generated {papers} papers in {time.perf_counter() - t:.1f} s", flush=True)
    t = time.perf_counter()
    with ArxivServer(work / "catalog") as server:
        args = [
            "paper",
            "--since",
            "2024-03",
            "--pool-months",
            "6",
            "--distractor-months",
            "6",
            "--categories",
            "",
        ]
        args += ["--arxiv-url", server.url, "--delay", "0", "--db", str(db), "--cache", str(work / "cache")]
        args += ["--out", str(work / "first"), "--tasks", "1"]
        result = CliRunner().invoke(main, args, catch_exceptions=False)
    print(result.output.strip())
    print(f"store built (ingest, parse, cite, resolve) in {time.perf_counter() - t:.1f} s", flush=True)
    (work / "built.ok").write_text("ok\n")
    return db, window


def _child(db: Path, window: str, out: Path, mode: str) -> dict:
    proc = subprocess.run(
        [sys.executable, "-c", CHILD, str(db), window, str(out), mode],
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--papers", type=int, default=2000)
    ap.add_argument("--work", type=Path, default=Path("/tmp/reflong-bench-assemble"))
    args = ap.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    db, window = _build_store(args.work, args.papers)
    load = _child(db, window, args.work / "unused", "load")
    full = _child(db, window, args.work / "out", "assemble")
    print(f"inputs: {load['keys']} keys, {load['documents']} documents")
    print(f"load only (floor):      {load['seconds']:6.1f} s, peak RSS {load['peak_rss_mb']:7.0f} MB")
    print(f"assemble 8 x 100 tasks: {full['seconds']:6.1f} s, peak RSS {full['peak_rss_mb']:7.0f} MB")
    print(f"  {full['line']}")
    print(f"ratio assemble/load: {full['seconds'] / load['seconds']:.1f}x; targets: < 60 s, < 2048 MB")


if __name__ == "__main__":
    main()
