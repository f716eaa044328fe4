"""The monthly cost of keeping the benchmark alive: a first release, then refreshes on a growing world.

    python bench/refresh.py [--scale 0.05] [--work DIR] [--releases 2024-03,2024-04,2024-05,2024-06]

The 2024-sized world (``reflong.demo.growing_world``: ``synth-catalog`` at --scale, a citation truth
for every seed window, the index's view of it) is grown month by month: before release M it is
written up to M + 6 (the last month of M's citing pool), and the arXiv and Semantic Scholar
stand-ins (``reflong.demo.rehearsal.StandIns``, keyed: 1 index request/s) are restarted on it on
the same ports, so the store's harvest goes on incrementally as it would against arXiv. For each
release: ``reflong-build refresh --dry-run`` (the plan: metadata, index and PDF requests, hours at
arXiv's rule), then ``reflong-build refresh`` (``--since`` only for the first), each in a child
process with defaults everywhere except the stand-ins' URLs, ``--delay 0`` and the folders, every
request counted at the stand-ins. Last, the newest release is refreshed again (``--since``): no
request, every file byte-identical.

Prints the runs' lines to stderr and one JSON line: per release the plan, the requests made (dry
run + run, by kind), planned vs made (and whether within 10%), hours at arXiv's 3 s rule and the
index's 1 request/s, tasks, wall seconds and peak RSS; then the rerun's requests and identity.
Folders under --work: ``world-<scale>/``, ``store.db``, ``cache/``, ``releases/``, ``logs/``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import socket
import sys
from pathlib import Path

from reflong.demo.growing_world import grow_world
from reflong.demo.rehearsal import CHILD_CODE, RehearsalSettings, StandIns, child_env, run_child
from reflong.ingest.plan.windows import add_months, parse_month

ARXIV_RULE_S, INDEX_RULE_S = 3.0, 1.0
PLAN = re.compile(
    r"refresh plan for release (\S+): (\d+) requests \(metadata (\d+), index (\d+) \(estimated (\d+)\), "
    r"PDFs (\d+) to fetch of (\d+), (\d+) cached\) = ([\d.]+) h"
)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _ports(work: Path) -> tuple[int, int]:
    """The stand-ins' ports, kept across reruns: the store's harvest state is keyed by endpoint."""
    path = work / "ports.json"
    if path.is_file():
        return tuple(json.loads(path.read_text()))
    ports = (_free_port(), _free_port())
    path.write_text(json.dumps(ports))
    return ports


def _tree(root: Path) -> dict[str, str]:
    return {
        p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def _echo(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def run(stand_ins: StandIns, work: Path, log: Path, args: list[str]) -> tuple[dict, object]:
    """One ``refresh`` in a child process; the requests the stand-ins answered meanwhile."""
    cmd = [
        sys.executable, "-I", "-c", CHILD_CODE, str(os.getpid()), "refresh",
        "--db", str(work / "store.db"), "--cache", str(work / "cache"), "--out", str(work / "releases"),
        "--delay", "0", *stand_ins.url_options(), *args,
    ]  # fmt: skip
    before = stand_ins.counts()
    child = run_child(cmd, child_env(), log, _echo)
    after = stand_ins.counts()
    if child.code != 0:
        raise SystemExit(f"refresh {' '.join(args)} exited {child.code}; see {log}")
    return {k: after[k] - before.get(k, 0) for k in after}, child


def hours(requests: dict) -> float:
    arxiv = requests["oai"] + requests["api"] + requests["pdf"]
    return (
        arxiv * ARXIV_RULE_S + (requests["index_batch"] + requests["index_citations"]) * INDEX_RULE_S
    ) / 3600


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--scale", type=float, default=0.05)
    ap.add_argument("--work", type=Path, default=Path("bench-refresh"))
    ap.add_argument("--releases", default="2024-03,2024-04,2024-05,2024-06")
    ap.add_argument("--pool-months", type=int, default=6)
    a = ap.parse_args()
    work = a.work.resolve()
    (work / "logs").mkdir(parents=True, exist_ok=True)
    world = work / f"world-{a.scale:g}"
    ports = _ports(work)
    settings = RehearsalSettings(scale=a.scale)
    out = {"scale": a.scale, "pool_months": a.pool_months, "releases": []}
    labels = [x.strip() for x in a.releases.split(",") if x.strip()]
    for i, label in enumerate(labels):
        until = f"{add_months(parse_month(label), a.pool_months):%Y-%m}"
        grown = grow_world(world, a.scale, until)
        _echo(f"world grown to {until}: {grown.papers} papers, {grown.true_pairs} true citations")
        since = ["--since", label] if i == 0 else []
        with StandIns(world, settings, echo=_echo, ports=ports) as stand_ins:
            dry, dry_child = run(
                stand_ins, work, work / "logs" / f"{label}-dry-run.log", [*since, "--dry-run"]
            )
            text = (work / "logs" / f"{label}-dry-run.log").read_text()
            m = PLAN.search(text)
            if not m or m[1] != label:
                raise SystemExit(f"no plan line for {label} in the dry run's log")
            made, child = run(stand_ins, work, work / "logs" / f"{label}.log", since)
        planned = {
            "metadata": int(m[3]),
            "index": int(m[4]),
            "index_estimated": int(m[5]),
            "pdfs": int(m[6]),
            "pdfs_in_plan": int(m[7]),
            "pdfs_cached": int(m[8]),
            "total": int(m[2]),
            "hours_at_rules": float(m[9]),
        }
        both = {k: dry[k] + made[k] for k in dry}
        total = sum(v for k, v in both.items() if k != "index_429")
        manifest = json.loads((work / "releases" / label / "release.json").read_text())
        out["releases"].append(
            {
                "release": label,
                "world_until": until,
                "world_papers": grown.papers,
                "plan": planned,
                "requests_dry_run": dry,
                "requests_run": made,
                "requests_total": total,
                "pdfs_fetched_vs_plan": [made["pdf"], planned["pdfs"]],
                "within_10pct": abs(total - planned["total"]) <= 0.1 * max(planned["total"], 1),
                "hours_at_rules": round(hours(both), 3),
                "tasks": sum(manifest["tasks"].values()),
                "new_keys": len(manifest["changes"]["keys_added"]),
                "wall_s": round(dry_child.seconds + child.seconds, 1),
                "peak_rss_mb": round(max(dry_child.peak_rss_mb, child.peak_rss_mb)),
            }
        )
        _echo(json.dumps(out["releases"][-1]))
    newest = labels[-1]
    before = _tree(work / "releases")
    with StandIns(world, settings, echo=_echo, ports=ports) as stand_ins:
        again, child = run(stand_ins, work, work / "logs" / f"{newest}-rerun.log", ["--since", newest])
    out["rerun"] = {
        "release": newest,
        "requests": sum(v for k, v in again.items() if k != "index_429"),
        "byte_identical": _tree(work / "releases") == before,
        "wall_s": round(child.seconds, 1),
    }
    print(json.dumps(out))


if __name__ == "__main__":
    main()
