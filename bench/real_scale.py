"""The default `reflong-build paper --since 2024-03` against a 2024-sized world, end to end.

    python bench/real_scale.py [--scale 1.0] [--work DIR] [--lengths real|demo] [--dry-run-only]
                               [--kill-after S[,S2...]] [--index s2|openalex]

The rehearsal itself is the product's (``reflong.demo.rehearsal``, also ``reflong-build demo
--world 2024``): the world (``synth-catalog`` at 2024's volume x --scale, its citation truth and an
imperfect index view), the arXiv stand-in (OAI-PMH + API; PDFs rendered on demand from the truth,
at the corpus length model with --lengths real, the default, or the demo's ~3.5K tokens) and the
Semantic Scholar stand-in (keyed: 1 request/s) or, with ``--index openalex``, the OpenAlex one
(keyed: $1 a day; the client's 0.11 s gate); the run uses defaults everywhere except the stand-ins'
URLs and ``--delay 0``, in a child process (peak RSS, SIGKILL). Folders under --work as before:
``world-<scale>/`` and ``run-<scale>-<lengths>[-openalex]/``; a rerun resumes (or reprints).

This script adds the kill trial: with --kill-after S[,S2...] a second store is built beside the
measured one: SIGKILLed after S seconds, rerun (and killed again after S2 seconds of the rerun, ...),
run to the end, and compared byte for byte with the measured run's outputs
(``identical_after_kill``); ``after_kill`` gives the PDFs the killed+resumed pair fetched, how many
paths were asked twice, how many of those repeats were Range resumes, and how many were the request
in flight at a kill (the last PDF asked before it: cut before its bytes reached ``.partial/``, so
asked again whole).

Prints the runs' lines, then as the last line a JSON object with the fields the issue names:
requests, pdfs_fetched, keys, tasks (by setting), answer_precision, answer_recall (final answers vs
the world's truth), index_agreement, peak_rss_mb, wall_s, projected_hours (arXiv 3 s a request,
the index 1 s for S2, 0.11 s for OpenAlex), identical_after_kill (null unless --kill-after),
usable_share (fetched pool and distractor papers that became documents under the token budget),
and dry_run_estimate vs requests_after_plan. What it cannot measure yet is said in "not_measured".

``phenomena``: the share of each bibliography phenomenon (``reflong.demo.bib_phenomena``) in the
run's references (``world``: entries as the run read them; titles of the seed citations as the
stand-in printed them) beside the real corpus's (``corpus``: ../shared/corpus, or --corpus; null
with a reason when it is not there). ``unprovable_pairs``: true citations whose entry is venue-only
(no title, id or DOI), counted neither way in answer_precision/answer_recall. ``text_edges``: the
resolver's accepted edges against the seed citations each read PDF prints (edge_precision,
edge_recall; ``reflong.demo.edge_truth``): the answers hide a miss the index knows of (the document
is left out of the task as unclear), the edges do not.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from reflong.demo.edge_truth import text_edges_vs_truth
from reflong.demo.phenomena_shares import corpus_shares, world_shares
from reflong.demo.rehearsal import (
    RehearsalSettings,
    StandIns,
    output_hashes,
    rehearse,
    run_child,
)


def kill_trial(work: Path, settings: RehearsalSettings, kill_after: list[float]):
    """The ``after_run`` hook: a second store killed mid-run, rerun, compared with the measured one."""

    def after_run(stand_ins: StandIns, base: list[str], env: dict, result: dict) -> dict:
        run_dir = Path(result["run_dir"])
        killed = work / run_dir.name.replace("run-", "killed-", 1)
        cmd = [x.replace(str(run_dir), str(killed)) for x in base]
        ax = stand_ins.arxiv
        before_kill = stand_ins.counts()
        log_start = len(ax.faults.log)
        kill_marks = []  # log length at each SIGKILL: the last PDF asked before it was in flight
        for after in kill_after:
            child = run_child(cmd, env, killed / "run.log", print, kill_after=after)
            kill_marks.append(len(ax.faults.log))
            print(f"killed after {after:g} s (exit {child.code})", flush=True)
        resumed = run_child(cmd, env, killed / "run.log", print)
        twice = {k: v - before_kill[k] for k, v in stand_ins.counts().items()}
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
            last_pdf = next((e[2] for e in reversed(ax.faults.log[log_start:mark]) if e[1] == "pdf"), None)
            if last_pdf is not None and seen.get(last_pdf, 0) > 1:
                in_flight.add(last_pdf)
        identical = resumed.code == 0 and output_hashes(killed / "out") == output_hashes(run_dir / "out")
        return {
            "identical_after_kill": identical,
            "after_kill": {
                "resume_s": round(resumed.seconds, 1),
                "pdfs_fetched": twice["pdf"],
                "fetched_twice": twice["pdf"] - result["pdfs_fetched"],
                "repeated_pdf_requests": repeated,
                "of_which_range_resumes": resumes,
                "of_which_in_flight_at_a_kill": len(in_flight),
                "index_requests": twice["index_batch"] + twice["index_citations"],
            },
        }

    return after_run


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
    ap.add_argument(
        "--corpus",
        default=str(Path(__file__).resolve().parents[1].parent / "shared" / "corpus"),
        help="the real corpus whose bibliography phenomena are printed beside the world's",
    )
    args = ap.parse_args()
    work = Path(args.work).resolve()
    settings = RehearsalSettings(scale=args.scale, index=args.index, lengths=args.lengths)
    after_run = None
    if args.kill_after is not None and not args.dry_run_only:
        after_run = kill_trial(work, settings, args.kill_after)
    result = rehearse(
        work,
        settings,
        echo=lambda line: print(line, flush=True),
        dry_run_only=args.dry_run_only,
        after_run=after_run,
    )
    if not args.dry_run_only and args.kill_after is None:
        result["identical_after_kill"] = None
        result["not_measured"] = [*result["not_measured"], "identical_after_kill (give --kill-after S)"]
    if not args.dry_run_only:
        world = work / f"world-{args.scale:g}"
        result["phenomena"] = phenomena(Path(result["run_dir"]), world, args)
        result["text_edges"] = text_edges_vs_truth(Path(result["run_dir"]), world, args.lengths)
    print(json.dumps(result, sort_keys=True))


def phenomena(run_dir: Path, world: Path, args: argparse.Namespace) -> dict:
    """The world's phenomenon shares beside the corpus's, and one printed line per population."""
    corpus = Path(args.corpus)
    out = {"world": world_shares(run_dir, world, args.lengths), "corpus": None}
    if (corpus / "pdf").is_dir():
        out["corpus"] = corpus_shares(corpus)
    else:
        out["corpus_missing"] = f"no corpus at {corpus} (give --corpus)"
    for population in ("entries", "cited_titles"):
        w, c = out["world"][population], (out["corpus"] or {}).get(population, {})
        cells = [f"{k} {w[k]:.4f}/{c[k]:.4f}" if k in c else f"{k} {w[k]:.4f}/?" for k in w if k != "n"]
        print(f"phenomena in {population} (world/corpus, n {w['n']}/{c.get('n', '?')}): {', '.join(cells)}")
    return out


if __name__ == "__main__":
    main()
