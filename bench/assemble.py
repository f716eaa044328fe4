"""Time and peak memory to assemble all 8 Paper configurations x 100 tasks from a built store.

    python bench/assemble.py [--papers 2000] [--work /tmp/reflong-bench-assemble]
    python bench/assemble.py --subset a [--tasks 200]   # peak RSS at 1x and 10x tasks (issue 12)
    python bench/assemble.py --subset paper-scale [--tasks 100]   # the same for `paper` (issue 12)

With ``--subset a`` it builds Ref-Long-A (``reflong-build a``, essays from ../shared) at --tasks N
and 10 N, each in a fresh child process, and prints both peak RSS figures: with outputs streamed
task by task, memory is flat in the number of tasks. ``--subset paper-scale`` does the same for
``reflong-build paper --reuse-db`` on the demo's store (built once in --work by ``reflong-build
demo``): --tasks N and 10 N per configuration, 8 configurations each.

Children run as ``python -I`` from the work folder: a child must not import the checkout's
``reflong/`` folder (which has no ``db``) in place of the installed package.

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
from reflong.assemble.paper.build import PaperSettings
from reflong.assemble.paper.inputs import load_paper_inputs
from reflong.assemble.paper.stage import run_paper_build
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
        args += [
            "--arxiv-url",
            server.url,
            "--oai-url",
            server.oai_url,
            "--delay",
            "0",
            "--db",
            str(db),
            "--cache",
            str(work / "cache"),
        ]
        args += ["--out", str(work / "first"), "--tasks", "1"]
        result = CliRunner().invoke(main, args, catch_exceptions=False)
    print(result.output.strip())
    print(f"store built (ingest, parse, cite, resolve) in {time.perf_counter() - t:.1f} s", flush=True)
    (work / "built.ok").write_text("ok\n")
    return db, window


def _child(db: Path, window: str, out: Path, mode: str) -> dict:
    proc = subprocess.run(
        [sys.executable, "-I", "-c", CHILD, str(db), window, str(out), mode],
        capture_output=True,
        text=True,
        check=True,
        cwd=db.parent,  # not the repository: see the module docstring
    )
    return json.loads(proc.stdout.strip().splitlines()[-1])


A_CHILD = r"""
import json, resource, sys, time
from click.testing import CliRunner
from reflong.cli import main
import reflong.assemble.writers.parquet as parquet
if sys.argv[1] != "default":
    parquet.ROW_GROUP_BYTES = int(float(sys.argv[1]) * 2**20)
t = time.perf_counter()
result = CliRunner().invoke(main, ["a", *sys.argv[2:]], catch_exceptions=False)
assert result.exit_code == 0, result.output
print(json.dumps({
    "seconds": time.perf_counter() - t,
    "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
}))
"""


def _run_child(work: Path, code: str, row_group_mb: str, args: list[str], out: Path) -> dict:
    """Run one build child (``python -I`` from ``work``, never the repository) and read its figures."""
    proc = subprocess.run(
        [sys.executable, "-I", "-c", code, row_group_mb, *args],
        capture_output=True,
        text=True,
        check=True,
        cwd=work,
    )
    info = json.loads(proc.stdout.strip().splitlines()[-1])
    info["output_mb"] = sum(p.stat().st_size for p in out.rglob("*") if p.is_file()) / 2**20
    return info


def _a_child(work: Path, haystack: Path, tasks: int, lengths: str, row_group_mb: str) -> dict:
    out = work / f"a-{tasks}"
    args = ["--haystack", str(haystack), "--modes", "single", "--levels", "hard", "--lengths", lengths]
    args += ["--tasks", str(tasks), "--out", str(out)]
    return _run_child(work, A_CHILD, row_group_mb, args, out)


def bench_a(work: Path, tasks: int, lengths: str, row_group_mb: str) -> None:
    shared = Path(__file__).resolve().parents[1].parent / "shared"
    haystack = shared / "data" / "pg_essays"
    print(f"parquet row groups: {row_group_mb} MB" if row_group_mb != "default" else "row groups: default")
    one = _a_child(work, haystack, tasks, lengths, row_group_mb)
    ten = _a_child(work, haystack, 10 * tasks, lengths, row_group_mb)
    for n, r in ((tasks, one), (10 * tasks, ten)):
        print(
            f"a --lengths {lengths} --tasks {n:>6}: {r['seconds']:6.1f} s, peak RSS {r['peak_rss_mb']:6.0f} MB, "
            f"outputs {r['output_mb']:7.1f} MB"
        )
    print(
        f"10x tasks: outputs x{ten['output_mb'] / one['output_mb']:.1f}, "
        f"peak RSS x{ten['peak_rss_mb'] / one['peak_rss_mb']:.2f}"
    )


PAPER_CHILD = r"""
import json, resource, sys, time
from click.testing import CliRunner
from reflong.cli import main
import reflong.assemble.writers.parquet as parquet
if sys.argv[1] != "default":
    parquet.ROW_GROUP_BYTES = int(float(sys.argv[1]) * 2**20)
t = time.perf_counter()
result = CliRunner().invoke(main, ["paper", *sys.argv[2:]], catch_exceptions=False)
assert result.exit_code == 0, result.output
print(json.dumps({
    "seconds": time.perf_counter() - t,
    "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
}))
"""


def _demo_store(work: Path) -> Path:
    """The demo's store (synthetic arXiv -> ingest, parse, cite, resolve), built once in a child."""
    demo = work / "demo"
    if not (work / "demo.ok").exists():
        child = "import sys; from reflong.cli import main; main(sys.argv[1:])"
        subprocess.run([sys.executable, "-I", "-c", child, "demo", "--out", str(demo)], check=True, cwd=work)
        (work / "demo.ok").write_text("ok\n")
    return demo / "store.db"


def _paper_child(work: Path, db: Path, tasks: int, row_group_mb: str) -> dict:
    out = work / f"paper-{tasks}"
    args = ["--db", str(db), "--since", "2024-03", "--pool-months", "6", "--distractor-months", "6"]
    args += ["--seed", "0", "--reuse-db", "--tasks", str(tasks), "--out", str(out)]
    return _run_child(work, PAPER_CHILD, row_group_mb, args, out)


def bench_paper_scale(work: Path, tasks: int, row_group_mb: str) -> None:
    db = _demo_store(work)
    print(f"parquet row groups: {row_group_mb} MB" if row_group_mb != "default" else "row groups: default")
    one = _paper_child(work, db, tasks, row_group_mb)
    ten = _paper_child(work, db, 10 * tasks, row_group_mb)
    for n, r in ((tasks, one), (10 * tasks, ten)):
        print(
            f"paper --reuse-db --tasks {n:>6} (x8 configs): {r['seconds']:6.1f} s, "
            f"peak RSS {r['peak_rss_mb']:6.0f} MB, outputs {r['output_mb']:7.1f} MB"
        )
    print(
        f"10x tasks: outputs x{ten['output_mb'] / one['output_mb']:.1f}, "
        f"peak RSS x{ten['peak_rss_mb'] / one['peak_rss_mb']:.2f}"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--papers", type=int, default=2000)
    ap.add_argument("--work", type=Path, default=Path("/tmp/reflong-bench-assemble"))
    ap.add_argument("--subset", choices=["paper", "a", "paper-scale"], default="paper")
    ap.add_argument(
        "--tasks", type=int, help="--subset a / paper-scale: tasks at 1x, 10x runs too (default 200 / 100)"
    )
    ap.add_argument("--lengths", default="8K,16K", help="--subset a: lengths")
    ap.add_argument(
        "--row-group-mb",
        default="default",
        help="--subset a / paper-scale: parquet row-group size the writer buffers (default: 100 MB, as `datasets`)",
    )
    args = ap.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    if args.subset == "a":
        bench_a(args.work.resolve(), args.tasks or 200, args.lengths, args.row_group_mb)
        return
    if args.subset == "paper-scale":
        bench_paper_scale(args.work.resolve(), args.tasks or 100, args.row_group_mb)
        return
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
