"""The default `reflong-build paper --since 2024-03` against a 2024-sized world, end to end.

    python bench/real_scale.py [--scale 1.0] [--work DIR] [--lengths real|demo] [--dry-run-only]
                               [--kill-after S[,S2...]] [--index s2|openalex]

With --kill-after S[,S2...] a second store is built beside the measured one: SIGKILLed after S
seconds, rerun (and killed again after S2 seconds of the rerun, ...), run to the end, and compared byte for byte with the measured run's outputs (``identical_after_kill``);
``after_kill`` gives the PDFs the killed+resumed pair fetched, how many paths were asked twice,
how many of those repeats were Range resumes, and how many were the request in flight at a kill
(the last PDF asked before it: cut before its bytes reached ``.partial/``, so asked again whole).

The world: ``synth-catalog`` (metadata-only arXiv at 2024's volume x --scale), its citation truth
and an imperfect index view (``synth-index``: 3% missing, 1% spurious, non-arXiv citers), served by
the arXiv stand-in (OAI-PMH + API; PDFs of the papers actually fetched rendered on demand from the
truth, ``reflong.demo.on_demand``; --lengths real, the default, sizes them by the corpus length
model of ``synth-arxiv --lengths real``, demo gives the demo's ~3.5K tokens) and the Semantic
Scholar stand-in (keyed: 1 request/s, so the index's published rate is what the run waits), or with
``--index openalex`` the OpenAlex stand-in on the same index view (keyed: $1 a day; the client's
0.11 s gate). The run uses defaults everywhere except the stand-ins' URLs and ``--delay 0``; it
runs in a child process (peak RSS, SIGKILL).

Prints a plan line, then as the last line a JSON object with the fields the issue names:
requests, pdfs_fetched, keys, tasks (by setting), answer_precision, answer_recall (final answers vs
the world's truth), index_agreement, peak_rss_mb, wall_s, projected_hours (arXiv 3 s a request,
the index 1 s for S2, 0.11 s for OpenAlex), identical_after_kill (null unless --kill-after), usable_share (fetched pool and
distractor papers that became documents under the token budget), and dry_run_estimate vs
requests_after_plan. What it cannot measure yet is said in a "not_measured" field.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import requests

from reflong.demo.catalog2024 import write_catalog
from reflong.demo.citation_graph import TRUTH_FILE, read_truth_pairs, write_world_index
from reflong.demo.on_demand import OnDemandPdfs
from reflong.servers.arxiv_server import ArxivServer
from reflong.servers.openalex_server import OpenAlexServer
from reflong.servers.s2_server import S2Server

SINCE = "2024-03"
ARXIV_DELAY = 3.0
INDEX_DELAY = {"s2": 1.0, "openalex": 0.11}  # S2: 1 request/s with a key; OpenAlex: our gate


def world(work: Path, scale: float) -> Path:
    out = work / f"world-{scale:g}"
    if not (out / "papers.jsonl").is_file():
        s = write_catalog(out, scale=scale)
        print(f"world: {s.papers} papers in {s.seconds:.0f} s", flush=True)
    if not (out / TRUTH_FILE).is_file():
        _, _, n_truth, n_index = write_world_index(out, since=SINCE)
        print(f"world: {n_truth} true citations, {n_index} index rows", flush=True)
    return out


def run(cmd: list[str], env: dict, kill_after: float | None = None) -> tuple[int, float, str]:
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if kill_after is not None:
        try:
            out, _ = proc.communicate(timeout=kill_after)
        except subprocess.TimeoutExpired:
            proc.send_signal(signal.SIGKILL)
            out, _ = proc.communicate()
    else:
        out, _ = proc.communicate()
    return proc.returncode, time.perf_counter() - t0, out


def stats(ax: ArxivServer, s2: S2Server | OpenAlexServer) -> dict:
    a = requests.get(ax.url + "/_stats").json()
    b = requests.get(s2.url + "/_stats").json()
    by_kind = a.get("by_kind", a)
    return {
        "oai": by_kind.get("oai", 0),
        "api": by_kind.get("api", 0),
        "pdf": by_kind.get("pdf", 0),
        "index_batch": b.get("batch", 0),
        "index_citations": b.get("citations", 0),
        "index_429": b.get("status:429", 0),
    }


def diff(after: dict, before: dict) -> dict:
    return {k: after[k] - before.get(k, 0) for k in after}


def answers_vs_truth(db: Path, truth: set[tuple[str, str]]) -> tuple[float | None, float | None]:
    con = sqlite3.connect(db)
    build = con.execute("select max(id) from build").fetchone()[0]
    tp = answered = relevant = 0
    for key, docs_json, answer_json in con.execute(
        "select key_arxiv_id, documents_json, answer_json from build_task where build_id = ?", (build,)
    ):
        docs = [d.rsplit("v", 1)[0] for d in json.loads(docs_json)]
        answer = set(json.loads(answer_json))
        cites = {i for i, d in enumerate(docs) if (d, key) in truth}
        tp += len(answer & cites)
        answered += len(answer)
        relevant += len(cites)
    return (round(tp / answered, 4) if answered else None, round(tp / relevant, 4) if relevant else None)


def output_hashes(out: Path) -> dict:
    from reflong.common.hashing import sha256_file

    return {p.name: sha256_file(p) for p in sorted(out.glob("*.json")) if p.name not in ("manifest.json",)}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--work", default="bench-real-scale")
    ap.add_argument("--dry-run-only", action="store_true")
    ap.add_argument("--lengths", choices=("real", "demo"), default="real", help="on-demand PDF length model")
    ap.add_argument(
        "--kill-after",
        type=lambda v: [float(x) for x in v.split(",")],
        default=None,
        help="S[,S2...]: SIGKILL a second store's run after S s, rerun (killed again after S2 s...), finish",
    )
    ap.add_argument("--index", choices=("s2", "openalex"), default="s2", help="the citation index stand-in")
    args = ap.parse_args()
    work = Path(args.work).resolve()
    work.mkdir(parents=True, exist_ok=True)
    w = world(work, args.scale)
    suffix = "" if args.index == "s2" else f"-{args.index}"  # S2's folders keep their old names
    run_dir = work / f"run-{args.scale:g}-{args.lengths}{suffix}"
    # keyed: 1 request/s at the S2 stand-in; $1 a day (10,000 list requests) at the OpenAlex one
    env = dict(os.environ, S2_API_KEY="bench-key", OPENALEX_API_KEY="bench-key")
    not_measured = []
    index_server = S2Server(w) if args.index == "s2" else OpenAlexServer(w)
    with ArxivServer(w) as ax, index_server as s2:
        ax.pdf_source = OnDemandPdfs(ax.catalog, w / TRUTH_FILE, lengths=args.lengths)
        base = [
            sys.executable,
            "-I",  # the installed package, never a checkout's reflong/ found through the cwd
            "-c",
            "from reflong.cli import main; main()",
            "paper",
            "--since",
            SINCE,
            "--arxiv-url",
            ax.url,
            "--oai-url",
            ax.oai_url,
        ]
        if args.index == "s2":
            base += ["--s2-url", s2.url]
        else:
            base += ["--citation-index", "openalex", "--openalex-url", s2.url]
        base += ["--delay", "0", "--db", str(run_dir / "store.db")]
        base += ["--cache", str(run_dir / "cache"), "--out", str(run_dir / "out")]
        before = stats(ax, s2)
        code, dry_s, dry_out = run([*base, "--dry-run"], env)
        print(dry_out[-3000:], flush=True)
        if code != 0:
            raise SystemExit(f"dry run failed ({code})")
        dry = diff(stats(ax, s2), before)
        index_line = next(x for x in dry_out.splitlines() if x.strip().startswith("index:"))
        pdf_line = next(x for x in dry_out.splitlines() if x.strip().startswith("PDFs:"))
        index_estimate = int(index_line.split("estimated ")[1].split(";")[0])
        pdfs_planned = int(pdf_line.split("= ")[1].split()[0])
        result: dict = {
            "scale": args.scale,
            "index": args.index,
            "lengths": args.lengths,
            "dry_run_s": round(dry_s, 1),
            "dry_run_requests": dry,
        }
        result["dry_run_estimate"] = {"index": index_estimate, "pdfs": pdfs_planned}
        if args.dry_run_only:
            print(json.dumps(result, sort_keys=True))
            return
        before = stats(ax, s2)
        identical = None
        code, wall, out = run(base, env)
        print(out[-4000:], flush=True)
        if code != 0:
            raise SystemExit(f"run failed ({code})")
        rss_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        real = diff(stats(ax, s2), before)
        if args.kill_after is not None:
            # The measured run above is uninterrupted; a second store is killed mid-run, rerun,
            # and must end with the same outputs having asked for nothing twice.
            killed = work / f"killed-{args.scale:g}-{args.lengths}{suffix}"
            cmd = [x.replace(str(run_dir), str(killed)) for x in base]
            before_kill = stats(ax, s2)
            log_start = len(ax.faults.log)
            kill_marks = []  # log length at each SIGKILL: the last PDF asked before it was in flight
            for after in args.kill_after:
                code, _, _ = run(cmd, env, kill_after=after)
                kill_marks.append(len(ax.faults.log))
                print(f"killed after {after:g} s (exit {code})", flush=True)
            code, resume_s, _ = run(cmd, env)
            twice = diff(stats(ax, s2), before_kill)
            # Which PDF requests of the killed store repeated a path, and whether the repeat was a
            # Range resume of the download in flight at the SIGKILL (its bytes kept in .partial/).
            seen: dict[str, int] = {}
            resumes = 0
            for _, kind, path, _, range_header in ax.faults.log[log_start:]:
                if kind == "pdf":
                    seen[path] = seen.get(path, 0) + 1
                    resumes += seen[path] > 1 and bool(range_header)
            repeated = sum(n - 1 for n in seen.values())
            in_flight = set()
            for mark in kill_marks:
                last_pdf = next(
                    (e[2] for e in reversed(ax.faults.log[log_start:mark]) if e[1] == "pdf"), None
                )
                if last_pdf is not None and seen.get(last_pdf, 0) > 1:
                    in_flight.add(last_pdf)
            identical = code == 0 and output_hashes(killed / "out") == output_hashes(run_dir / "out")
            result["after_kill"] = {
                "resume_s": round(resume_s, 1),
                "pdfs_fetched": twice["pdf"],
                "fetched_twice": twice["pdf"] - real["pdf"],
                "repeated_pdf_requests": repeated,
                "of_which_range_resumes": resumes,
                "of_which_in_flight_at_a_kill": len(in_flight),
                "index_requests": twice["index_batch"] + twice["index_citations"],
            }
        else:
            not_measured.append("identical_after_kill (give --kill-after S)")
    report = json.loads((run_dir / "out" / "build_report.json").read_text())
    con = sqlite3.connect(run_dir / "store.db")
    keys = con.execute("select count(*) from index_key").fetchone()[0]
    fetched_docs = con.execute(
        "select count(*) from plan_pick k join paper_role r on r.arxiv_id = k.arxiv_id and r.window = k.window "
        "join paper p on p.arxiv_id = r.arxiv_id and p.version = r.version where p.status = 'downloaded'"
    ).fetchone()[0]
    tasks = {}
    for f in sorted((run_dir / "out").glob("*_*K.json")):
        tasks[f.stem] = len(json.loads(f.read_text()))
    precision, recall = answers_vs_truth(run_dir / "store.db", read_truth_pairs(w / TRUTH_FILE))
    arxiv_requests = real["oai"] + real["api"] + real["pdf"] + dry["oai"] + dry["api"]
    index_requests = sum(dry[k] + real[k] for k in ("index_batch", "index_citations"))
    result.update(
        {
            "requests": {k: dry[k] + real[k] for k in dry},
            "pdfs_fetched": real["pdf"],
            "keys": {"index": keys, **{d: len(v) for d, v in report.get("keys_used", {}).items()}},
            "tasks": tasks,
            "answer_precision": precision,
            "answer_recall": recall,
            "index_agreement": report.get("index_agreement", {}),
            "peak_rss_mb": round(rss_mb, 1),
            "wall_s": round(wall + dry_s, 1),
            "projected_hours": round(
                (arxiv_requests * ARXIV_DELAY + index_requests * INDEX_DELAY[args.index]) / 3600, 2
            ),
            "identical_after_kill": identical,
            "usable_share": round(1 - len(report.get("excluded_docs", {})) / fetched_docs, 4)
            if fetched_docs
            else None,
            "requests_after_plan": {
                "index": dry["index_batch"] + dry["index_citations"],
                "pdfs": real["pdf"],
            },
            "not_measured": not_measured
            + (
                ["per-paper lengths are the demo's ~3.5K tokens (--lengths demo)"]
                if args.lengths == "demo"
                else []
            ),
        }
    )
    print(json.dumps(result, sort_keys=True))


if __name__ == "__main__":
    main()
