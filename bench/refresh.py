"""The monthly cost of keeping the benchmark alive: a first release, then refreshes on a growing world.

    python bench/refresh.py [--scale 0.05] [--work DIR] [--first 2024-03] [--count 12]
    python bench/refresh.py --releases 2024-03,2024-04          # an explicit list instead

The 2024-sized world (``reflong.demo.growing_world``: ``synth-catalog`` at --scale, a citation truth
for every seed window, the index's view of it) is grown month by month: before release M it is
written up to M + 6 (the last month of M's citing pool), and the arXiv and Semantic Scholar
stand-ins (``reflong.demo.rehearsal.StandIns``, keyed: 1 index request/s) are restarted on it on
the same ports, so the store's harvest goes on incrementally as it would against arXiv. For each
release: ``reflong-build refresh --dry-run`` (the plan: metadata, index and PDF requests, hours at
arXiv's rule), then ``reflong-build refresh`` (``--since`` only for the first), each in a child
process with defaults everywhere except the stand-ins' URLs, ``--delay 0`` and the folders, every
request counted at the stand-ins. Last, the newest release is refreshed again (``--since``): no
request, every file byte-identical (``--no-rerun`` leaves it out).

Resumes: each finished release's figures are kept in ``--work``'s ``progress.json`` (written
atomically after its release.json); rerun with the same ``--work`` (and --scale), it goes on from
the first release not finished, so 12 releases can span several sittings. A release whose
release.json exists but whose figures are missing (killed between the two) is measured again by
its own rerun (``--since``: no request).

Prints one line per release to stderr (wall time, peak RSS, store bytes, edges kept, requests by
kind) and, last, one JSON line: ``{"scale", "pool_months", "releases": [{"release", "wall_s",
"peak_rss_mb", "store_bytes", "edges", "edges_by_band", "requests_run", ...}], "rerun"}``.
Folders under --work: ``world-<scale>/``, ``store.db``, ``cache/``, ``releases/``, ``logs/``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import socket
import sqlite3
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


def store_figures(db: Path) -> dict:
    """The store's size on disk and its edges (all, and by band), read after a release."""
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as con:
        bands = dict(con.execute("SELECT band, COUNT(*) FROM citation GROUP BY band").fetchall())
    return {"store_bytes": db.stat().st_size, "edges": sum(bands.values()), "edges_by_band": bands}


def labels_of(a: argparse.Namespace) -> list[str]:
    """The releases to run: ``--releases`` when given, else ``--count`` months from ``--first``."""
    if a.releases:
        return [x.strip() for x in a.releases.split(",") if x.strip()]
    return [f"{add_months(parse_month(a.first), i):%Y-%m}" for i in range(a.count)]


def read_progress(work: Path, scale: float, pool_months: int) -> list[dict]:
    """The figures of the releases finished in earlier sittings (same scale and pool only)."""
    path = work / "progress.json"
    if not path.is_file():
        return []
    data = json.loads(path.read_text())
    if (data.get("scale"), data.get("pool_months")) != (scale, pool_months):
        raise SystemExit(
            f"{path} is of --scale {data.get('scale')} --pool-months {data.get('pool_months')}: use another --work"
        )
    return data["releases"]


def write_progress(work: Path, out: dict) -> None:
    tmp = work / "progress.json.tmp"
    tmp.write_text(json.dumps(out, indent=1))
    tmp.replace(work / "progress.json")


def release_line(r: dict) -> str:
    made = ", ".join(f"{k} {v}" for k, v in r["requests_run"].items() if v)
    return (
        f"release {r['release']}: wall {r['wall_s']:.0f} s, peak RSS {r['peak_rss_mb']} MB, store "
        f"{r['store_bytes'] / 1e6:.1f} MB, edges {r['edges']} ({r['edges_by_band']}), tasks {r['tasks']}; "
        f"requests {made or 'none'}"
    )


def one_release(
    work: Path,
    world: Path,
    settings: RehearsalSettings,
    ports,
    label: str,
    first: bool,
    scale: float,
    pool: int,
) -> dict:
    """Grow the world for ``label``, plan it (dry run), build it; its figures."""
    until = f"{add_months(parse_month(label), pool):%Y-%m}"
    grown = grow_world(world, scale, until)
    _echo(f"world grown to {until}: {grown.papers} papers, {grown.true_pairs} true citations")
    # the first release names its month; a release finished before its figures were kept is
    # rebuilt from the store (--since, no request); every other one is what cron would run
    finished = (work / "releases" / label / "release.json").is_file()
    since = ["--since", label] if first or finished else []
    with StandIns(world, settings, echo=_echo, ports=ports) as stand_ins:
        dry, dry_child = run(stand_ins, work, work / "logs" / f"{label}-dry-run.log", [*since, "--dry-run"])
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
    return {
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
        "wall_s_run": round(child.seconds, 1),
        "peak_rss_mb": round(max(dry_child.peak_rss_mb, child.peak_rss_mb)),
        **store_figures(work / "store.db"),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--scale", type=float, default=0.05)
    ap.add_argument("--work", type=Path, default=Path("bench-refresh"))
    ap.add_argument("--first", default="2024-03", help="the first release (default: %(default)s)")
    ap.add_argument(
        "--count", type=int, default=12, help="monthly releases from --first (default: %(default)s)"
    )
    ap.add_argument("--releases", default=None, help="an explicit comma-separated list instead")
    ap.add_argument("--pool-months", type=int, default=6)
    ap.add_argument(
        "--no-rerun", action="store_true", help="leave out the newest release's byte-identity rerun"
    )
    a = ap.parse_args()
    work = a.work.resolve()
    (work / "logs").mkdir(parents=True, exist_ok=True)
    world = work / f"world-{a.scale:g}"
    ports = _ports(work)
    settings = RehearsalSettings(scale=a.scale)
    labels = labels_of(a)
    done = {r["release"]: r for r in read_progress(work, a.scale, a.pool_months)}
    out = {"scale": a.scale, "pool_months": a.pool_months, "releases": []}
    for i, label in enumerate(labels):
        if label in done:
            out["releases"].append(done[label])
            _echo(f"release {label}: finished in an earlier sitting ({work / 'progress.json'})")
            continue
        figures = one_release(work, world, settings, ports, label, i == 0, a.scale, a.pool_months)
        out["releases"].append(figures)
        write_progress(work, _merged(done, out))
        done[label] = figures
        _echo(release_line(figures))
    if not a.no_rerun:
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


def _merged(done: dict[str, dict], out: dict) -> dict:
    """Every release measured so far, this sitting's and the earlier ones', oldest first."""
    releases = {**done, **{r["release"]: r for r in out["releases"]}}
    return {**out, "releases": [releases[k] for k in sorted(releases)]}


if __name__ == "__main__":
    main()
