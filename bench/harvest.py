"""Metadata at arXiv's real scale: harvest a 2024-sized synthetic arXiv through the stand-in.

    python bench/harvest.py [--quick] [--work DIR] [--keep]

1. ``reflong-build synth-catalog`` writes a metadata-only catalog with 2024's volumes for cs.CL +
   cs.LG + cs.AI (scale 1) and four times that (scale 4), and a copy grown by a month (to 2024-10).
2. The arXiv stand-in serves it in this process (no 3 s rule, no delay: ``min_interval`` 0).
3. ``reflong-build ingest --since 2024-03 --no-pdfs`` (defaults: OAI-PMH, cs.CL,cs.LG,cs.AI) runs
   as a child process; its peak RSS is its own ``VmHWM`` (see ``run_child``). Printed:
   requests by kind (the server's counter), records stored per role, wall time, the minutes the
   same requests take at arXiv's one request per 3 s, and peak RSS at scale 1 and 4.
4. Three runs are SIGKILLed at 1/4, 1/2 and 3/4 of the pages (seen on the server's counter) and
   rerun to completion: each store must equal the uninterrupted one (row counts + a content hash),
   and no finished page may be asked twice (the server's log of resumption tokens; only the
   page in flight at the kill, whose token the store still holds, may come again).
5. The store is refreshed against the grown catalog: the requests it takes, and the records asked.
6. ``--metadata api`` on the same catalog: completes under the 30,000-result cap, no 414.

The last line is one JSON object with every figure. ``--quick`` skips scale 4 and kills once.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

from reflong.servers.arxiv_server import ArxivServer

# -I: the child imports the installed package, never a checkout's reflong/ found through the cwd.
CLI = [sys.executable, "-I", "-c", "from reflong.cli import main; main()"]
INGEST = ["ingest", "--since", "2024-03", "--no-pdfs", "--delay", "0", "--timeout", "120"]


def synth(out: Path, scale: int, until: str) -> float:
    """Generate a catalog (deterministic: one already in a kept ``--work`` folder is reused)."""
    if (out / "papers.jsonl").is_file() and (out / "generator.json").is_file():
        return 0.0
    began = time.monotonic()
    cmd = [*CLI, "synth-catalog", "--out", str(out), "--scale", str(scale), "--until", until]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    return time.monotonic() - began


def _hwm_mb(pid: int) -> float | None:
    """Peak RSS so far of a live process (``VmHWM``), or None once it is gone."""
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except (FileNotFoundError, ProcessLookupError, PermissionError, ValueError):
        return None
    return None


def run_child(args: list[str], kill_when=None) -> dict:
    """Run ``reflong-build args`` as a child; SIGKILL it once ``kill_when()`` is true.

    Peak RSS is the child's own ``VmHWM`` (sampled every 10 ms until it exits; it only grows).
    Not ``ru_maxrss`` from ``wait4``/``RUSAGE_CHILDREN``: Linux carries the parent's high-water
    mark across fork+exec into the child's ``maxrss``, and this process holds the stand-in's
    catalog (hundreds of MB at scale 4), which would be reported as the child's peak.
    """
    began = time.monotonic()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        proc = subprocess.Popen([*CLI, *args], stdout=out, stderr=err)
        killed, peak = False, 0.0
        while True:
            hwm = _hwm_mb(proc.pid)
            pid, status, _usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if hwm is not None:
                peak = max(peak, hwm)
            if kill_when is not None and not killed and kill_when():
                os.kill(proc.pid, signal.SIGKILL)
                killed = True
            time.sleep(0.01)
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        return {
            "wall_s": time.monotonic() - began,
            "code": proc.returncode,
            "killed": killed,
            "rss_mb": peak,
            "stdout": out.read().decode(),
            "stderr": err.read().decode(),
        }


def digest(db: Path) -> dict:
    """Row counts and one content hash of the tables the ingest writes (no timestamps, no row ids)."""
    con = sqlite3.connect(db)
    h = hashlib.sha256()
    counts = {}
    for table, cols in (
        ("arxiv_record", "*"),
        (
            "paper",
            "arxiv_id, version, title, authors_json, categories_json, first_published, version_date, pdf_url",
        ),
        ("paper_role", "window, arxiv_id, role, version"),
        ("failure", "stage, subject, reason, message"),
    ):
        counts[table] = 0
        for row in con.execute(f"select {cols} from {table} order by 1, 2, 3"):
            counts[table] += 1
            h.update(json.dumps(row).encode())
    con.close()
    return {"rows": counts, "sha256": h.hexdigest()}


def roles(db: Path) -> dict[str, int]:
    con = sqlite3.connect(db)
    out = dict(con.execute("select role, count(*) from paper_role group by role order by role"))
    con.close()
    return out


def oai_log(srv: ArxivServer, since: int = 0) -> list[dict]:
    return [
        {k: v[-1] for k, v in parse_qs(urlsplit(path).query).items()}
        for _t, kind, path, *_ in srv.faults.log[since:]
        if kind == "oai"
    ]


def kind_counts(srv: ArxivServer, before: dict) -> dict:
    now = srv.stats.snapshot()["by_kind"]
    return {k: now.get(k, 0) - before.get(k, 0) for k in sorted(now) if now.get(k, 0) - before.get(k, 0)}


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="scale 1 only, one kill point")
    ap.add_argument(
        "--work", type=Path, default=None, help="working folder, kept (catalogs there are reused)"
    )
    ap.add_argument("--keep", action="store_true", help="keep the working folder")
    args = ap.parse_args(argv)
    work = args.work or Path(tempfile.mkdtemp(prefix="bench-harvest-"))
    work.mkdir(parents=True, exist_ok=True)
    result: dict = {}
    try:
        _bench(work, args.quick, result)
    finally:
        if not args.keep and args.work is None:
            shutil.rmtree(work, ignore_errors=True)
    print(json.dumps(result, sort_keys=True))


def _bench(work: Path, quick: bool, result: dict) -> None:
    scales = [1] if quick else [1, 4]
    cats = {}
    for scale in scales:
        cats[scale] = work / f"cat{scale}"
        took = synth(cats[scale], scale, "2024-09")
        print(f"catalog scale {scale}: generated in {took:.1f} s", flush=True)
    grown = work / "cat1-grown"
    synth(grown, 1, "2024-10")

    peak = {}
    with ArxivServer(cats[1]) as srv:
        port = srv._httpd.server_address[1]
        url, oai = srv.url, srv.oai_url
        # -- the uninterrupted run ---------------------------------------------------------------
        before = srv.stats.snapshot()["by_kind"]
        whole = work / "whole.db"
        run = run_child([*INGEST, "--arxiv-url", url, "--oai-url", oai, "--db", str(whole)])
        assert run["code"] == 0, f"ingest failed ({run['code']})"
        requests = kind_counts(srv, before)
        pages = requests.get("oai", 0)
        peak["1x"] = round(run["rss_mb"], 1)
        result.update(
            requests=requests,
            records=roles(whole),
            records_harvested=digest(whole)["rows"]["arxiv_record"],
            wall_s=round(run["wall_s"], 1),
            projected_minutes_at_3s=round(sum(requests.values()) * 3 / 60, 1),
        )
        print(
            f"scale 1: {requests} requests, roles {result['records']}, "
            f"{result['records_harvested']} records stored, wall {run['wall_s']:.1f} s, "
            f"{result['projected_minutes_at_3s']} min at 3 s a request, peak RSS {peak['1x']} MB",
            flush=True,
        )
        reference = digest(whole)

        # -- SIGKILL at three points, rerun each to completion ------------------------------------
        identical, finished_pages_asked_twice, kills = True, 0, []
        for fraction in [0.5] if quick else [0.25, 0.5, 0.75]:
            db = work / f"kill{int(fraction * 100)}.db"
            mark = len(srv.faults.log)
            target = max(1, int(pages * fraction))
            killed = run_child(
                [*INGEST, "--arxiv-url", url, "--oai-url", oai, "--db", str(db)],
                kill_when=lambda mark=mark, target=target: len(oai_log(srv, mark)) >= target,
            )
            con = sqlite3.connect(db)
            in_flight = con.execute("select token from harvest_state").fetchone()
            con.close()
            asked_before_kill = len(oai_log(srv, mark))
            rerun = run_child([*INGEST, "--arxiv-url", url, "--oai-url", oai, "--db", str(db)])
            assert rerun["code"] == 0, rerun["stderr"][-500:]
            tokens = [q.get("resumptionToken") for q in oai_log(srv, mark) if q.get("resumptionToken")]
            repeated = {t for t in tokens if tokens.count(t) > 1}
            twice = len(repeated - {in_flight[0] if in_flight else None})
            same = digest(db) == reference
            identical &= same
            finished_pages_asked_twice += twice
            kills.append(
                {
                    "at": fraction,
                    "asked_before_kill": asked_before_kill,
                    "killed": killed["killed"],
                    "identical": same,
                    "finished_pages_asked_twice": twice,
                }
            )
            print(f"kill at {fraction:.0%} of {pages} pages: {kills[-1]}", flush=True)
        result.update(
            identical_after_kills=identical and all(k["killed"] for k in kills),
            finished_pages_asked_twice=finished_pages_asked_twice,
            kills=kills,
        )

        # -- the API route on the same catalog ----------------------------------------------------
        before = srv.stats.snapshot()
        api_db = work / "api.db"
        api = run_child([*INGEST, "--metadata", "api", "--arxiv-url", url, "--db", str(api_db)])
        after = srv.stats.snapshot()
        statuses = {s: n - before["by_status"].get(s, 0) for s, n in after["by_status"].items()}
        con = sqlite3.connect(api_db)
        max_total = con.execute(
            "select max(complete_list_size) from harvest_state where prefix = 'api' and not split"
        ).fetchone()[0]
        splits = con.execute("select count(*) from harvest_state where prefix = 'api' and split").fetchone()[
            0
        ]
        con.close()
        api_requests = kind_counts(srv, before["by_kind"])
        result.update(
            api_path_ok=api["code"] == 0 and not statuses.get("414") and (max_total or 0) <= 30000,
            api_path={
                "exit_code": api["code"],
                "requests": api_requests,
                "statuses": {s: n for s, n in statuses.items() if n},
                "largest_query_paged": max_total,
                "queries_split": splits,
                "records": roles(api_db),
                "wall_s": round(api["wall_s"], 1),
            },
        )
        print(f"API route: {result['api_path']}", flush=True)

    # -- a month later: the grown catalog on the same endpoint ------------------------------------
    refresh_db = work / "refresh.db"
    shutil.copy(whole, refresh_db)
    con = sqlite3.connect(refresh_db)
    through = con.execute("select harvested_through from harvest_state").fetchone()[0]
    con.close()
    with ArxivServer(grown, port=port) as srv:
        run = run_child([*INGEST, "--arxiv-url", srv.url, "--oai-url", srv.oai_url, "--db", str(refresh_db)])
        assert run["code"] == 0, run["stderr"][-500:]
        refresh_requests = kind_counts(srv, {})
        asked_from = [q.get("from") for q in oai_log(srv) if q.get("from")]
    con = sqlite3.connect(refresh_db)
    asked_records = con.execute("select records from harvest_state").fetchone()[0]
    changed = con.execute("select count(*) from arxiv_record where datestamp >= ?", (through,)).fetchone()[0]
    con.close()
    result.update(
        refresh_requests=sum(refresh_requests.values()),
        refresh={
            "from": asked_from[:1],
            "requests": refresh_requests,
            "records_asked": asked_records,
            "records_new_or_changed_since": changed,
            "records": roles(refresh_db),
            "wall_s": round(run["wall_s"], 1),
        },
    )
    print(f"refresh a month later: {result['refresh']}", flush=True)

    # -- scale 4: peak RSS must stay flat -----------------------------------------------------------
    if 4 in cats:
        with ArxivServer(cats[4]) as srv:
            run = run_child(
                [*INGEST, "--arxiv-url", srv.url, "--oai-url", srv.oai_url, "--db", str(work / "x4.db")]
            )
            assert run["code"] == 0
            req4 = kind_counts(srv, {})
        peak["4x"] = round(run["rss_mb"], 1)
        result["scale4"] = {
            "requests": req4,
            "records": roles(work / "x4.db"),
            "wall_s": round(run["wall_s"], 1),
            "projected_minutes_at_3s": round(sum(req4.values()) * 3 / 60, 1),
        }
        print(f"scale 4: {result['scale4']}, peak RSS {peak['4x']} MB", flush=True)
    else:
        peak["4x"] = None
    result["peak_rss_mb"] = peak


if __name__ == "__main__":
    main()
