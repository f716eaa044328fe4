"""The long Paper settings at full size, on the 2024-sized world's store; prints one JSON line.

    python bench/real_scale.py --scale 1 --work W        # first: the world and its store (W/run-1-real)
    python bench/long_settings.py --work W [--scale 1] [--lengths 128K,256K,512K,1M] [--tasks 100]

Runs ``reflong-build paper --since 2024-03 --reuse-db --lengths L --tasks N`` on the rehearsal's
store (``W/run-<scale>-real/store.db``; nothing is fetched: ``--reuse-db`` only assembles) into
``W/run-<scale>-real/out-long``, under ``/usr/bin/time -v`` (peak RSS: the largest single process,
GNU time's "Maximum resident set size"), while sampling the whole process tree's RSS every second
(the paper build's workers included: ``peak_tree_rss_mb``). Then reads the build's task rows from
the store (``build_task``: each task's documents and measured prompt tokens) and prints:

- ``wall_s``, ``peak_rss_mb``, ``peak_tree_rss_mb``, ``exit_code``;
- per setting (difficulty_length): ``tasks``, ``documents`` (M), prompt tokens min/max, the share
  of prompts within 0.5% of the label's tokens (``within_0_5pct``), the worst deviation;
- per setting, how much the tasks reuse the same papers: ``distinct_documents`` (papers, any
  version), ``reused_share`` (the share of those papers that appear in more than one task of the
  setting), ``slots_reused_share`` (the share of all document slots filled by such papers) and
  ``mean_tasks_per_document``.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sqlite3
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path

from reflong.common.length_labels import label_tokens
from reflong.demo.rehearsal import SINCE, RehearsalSettings

TOLERANCE = 0.005


def _tree_rss_kb(root: int) -> int:
    """Sum of VmRSS over ``root`` and its descendants (Linux /proc)."""
    children: dict[int, list[int]] = {}
    rss: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as fh:
                ppid = int(fh.read().rsplit(")", 1)[1].split()[1])
            with open(f"/proc/{entry}/status") as fh:
                m = re.search(r"^VmRSS:\s+(\d+)", fh.read(), re.M)
        except (OSError, IndexError, ValueError):
            continue
        children.setdefault(ppid, []).append(int(entry))
        rss[int(entry)] = int(m.group(1)) if m else 0
    total, stack = 0, [root]
    while stack:
        pid = stack.pop()
        total += rss.get(pid, 0)
        stack.extend(children.get(pid, []))
    return total


def run_build(run_dir: Path, out: Path, lengths: str, tasks: int) -> dict:
    """The paper build under /usr/bin/time -v; its output goes to stderr as it comes."""
    time_file = out.parent / "long_settings.time.txt"
    cmd = [
        "/usr/bin/time", "-v", "-o", str(time_file),
        sys.executable, "-I", "-c", "from reflong.cli import main; main(prog_name='reflong-build')",
        "paper", "--since", SINCE, "--reuse-db",
        "--db", str(run_dir / "store.db"), "--cache", str(run_dir / "cache"), "--out", str(out),
        "--lengths", lengths, "--tasks", str(tasks),
    ]  # fmt: skip
    print("$ " + " ".join(cmd[4:]), file=sys.stderr, flush=True)
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=sys.stderr, stderr=sys.stderr, stdin=subprocess.DEVNULL)
    peak_tree = [0]
    done = threading.Event()

    def sample() -> None:
        while not done.wait(1.0):
            peak_tree[0] = max(peak_tree[0], _tree_rss_kb(proc.pid))

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    code = proc.wait()
    done.set()
    sampler.join()
    wall = time.perf_counter() - t0
    report = time_file.read_text() if time_file.exists() else ""
    m = re.search(r"Maximum resident set size \(kbytes\): (\d+)", report)
    return {
        "exit_code": code,
        "wall_s": round(wall, 1),
        "peak_rss_mb": round(int(m.group(1)) / 1024, 1) if m else None,
        "peak_tree_rss_mb": round(peak_tree[0] / 1024, 1),
    }


def setting_figures(db: Path, out: Path) -> dict:
    """Per setting: tasks, M, prompt tokens vs label, and document reuse across the tasks."""
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        row = con.execute(
            "SELECT id FROM build WHERE out_dir IN (?, ?) ORDER BY id DESC LIMIT 1",
            (str(out), str(out.resolve())),
        ).fetchone()
        if row is None:
            return {}
        rows = con.execute(
            "SELECT difficulty, length, documents_json, prompt_tokens FROM build_task WHERE build_id = ? "
            "ORDER BY difficulty, length, task_index",
            (row[0],),
        ).fetchall()
    finally:
        con.close()
    by_setting: dict[str, list[tuple[list[str], int]]] = {}
    for difficulty, length, documents_json, prompt_tokens in rows:
        by_setting.setdefault(f"{difficulty}_{length}", []).append(
            (json.loads(documents_json), prompt_tokens)
        )
    figures = {}
    for name, tasks in sorted(
        by_setting.items(), key=lambda kv: (kv[0].split("_")[0], label_tokens(kv[0].split("_")[1]))
    ):
        nominal = label_tokens(name.split("_", 1)[1])
        deviations = [abs(tokens - nominal) / nominal for _, tokens in tasks]
        uses = Counter(doc.split(" ")[0] for docs, _ in tasks for doc in set(docs))
        reused = {doc for doc, n in uses.items() if n > 1}
        slots = sum(uses.values())
        figures[name] = {
            "tasks": len(tasks),
            "documents": len(tasks[0][0]),
            "prompt_tokens_min": min(t for _, t in tasks),
            "prompt_tokens_max": max(t for _, t in tasks),
            "within_0_5pct": round(sum(d <= TOLERANCE for d in deviations) / len(tasks), 4),
            "max_deviation": round(max(deviations), 5),
            "distinct_documents": len(uses),
            "reused_share": round(len(reused) / len(uses), 4),
            "slots_reused_share": round(sum(uses[d] for d in reused) / slots, 4),
            "mean_tasks_per_document": round(slots / len(uses), 2),
        }
    return figures


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--work", default="bench-real-scale", help="real_scale.py's --work")
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--lengths", default="128K,256K,512K,1M")
    ap.add_argument("--tasks", type=int, default=100)
    args = ap.parse_args()
    run_dir = Path(args.work).resolve() / RehearsalSettings(scale=args.scale).run_name
    if not (run_dir / "store.db").exists():
        sys.exit(f"error: no store at {run_dir / 'store.db'}: run bench/real_scale.py --scale {args.scale:g} "
                 f"--work {args.work} first")  # fmt: skip
    out = run_dir / "out-long"
    result = {"lengths": args.lengths, "tasks_per_setting": args.tasks, "store": str(run_dir / "store.db")}
    result.update(run_build(run_dir, out, args.lengths, args.tasks))
    result["settings"] = setting_figures(run_dir / "store.db", out)
    print(json.dumps(result, sort_keys=True))


if __name__ == "__main__":
    main()
