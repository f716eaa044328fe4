"""Resolver vs the naive baseline on real reference strings of many citation styles.

    python bench/resolve_styles.py [--data DIR] [--corpus DIR] [--splits dev,test | --all]
                                   [--jobs N] [--limit N] [--no-naive] [--no-ours] [--misses FILE]
                                   [--profile default|books]

``--all`` scores every labelled set below in one run (one process per set, ``--jobs`` at a time),
each from its own folder; that is how the figures of docs/parse-and-citations.md's "Where the
resolver stands" table are made. The other real sets are scored with ``--splits S`` (the folder
``tests/data/real/citation_S`` unless ``--data`` names another): tests/data/real/citation_fresh
(LinkedBooks, ``fresh``), citation_holdout (SciELO, ``holdout``), citation_plos (PLOS, ``plos``)
and citation_pmc (PDF-extracted strings of 1,943 PMC journals, ``pmc``). Each was built with the
naive baseline only, scored once with our resolver while held out (fresh with resolve-10, SciELO
resolve-11, PLOS resolve-12, PMC resolve-13), and is a dev set since its misses were read (see
their SOURCES.md). citation_pmc_test (``pmc_test``) is the PMC set's first test split (another
sixth of the same file's DOIs, no work shared with ``pmc``): scored once by the lead, its misses
read since. The later test splits, each built and audited with the naive baseline only, leaving out
every work and string of every earlier set, and scored once by the lead (a dev set after it):
citation_pmc_test2 (``pmc_test2``, a third sixth of the PMC file, resolve-15), citation_fresh_test
(``fresh_test``, a ninth of the works of LinkedBooks' training file, resolve-15),
citation_fresh_test2 (``fresh_test2``, another ninth, resolve-16), citation_pmc_test3
(``pmc_test3``, a fourth sixth, resolve-16) and citation_fresh_test3 (``fresh_test3``, a third
ninth, resolve-17), citation_fresh_test4 (``fresh_test4``, a fourth ninth, resolve-18) and
citation_pmc_test4 (``pmc_test4``, a fifth sixth, resolve-18), built side by side, and
citation_fresh_test5 (``fresh_test5``, a fifth ninth, resolve-19), and citation_pmc_test5
(``pmc_test5``, the last sixth, built at resolve-21).
``--no-ours`` scores the naive baseline only, to check a new set's conversion without looking at
the resolver.

Prints ONE JSON line: for each split of tests/data/real/citation_styles (dev: tune on it; test:
held out) and for the corpus labels (../shared/corpus/labels, when present), precision, recall
and F1 per style and overall, for

- ``ours``: the pipeline's decision for each raw string, through ``citations.match`` (the
  built-in parse, then ``SeedIndex.resolve`` with the default thresholds), counted at the accept
  band;
- ``naive``: rapidfuzz ``fuzz.partial_ratio(seed title, raw string) >= 90`` on the lower-cased
  strings, the best-scoring seed of each entry (the first seed in id order on a tie).

Counting is per entry: an accepted seed equal to the gold seed is a true positive; any other
accepted seed is a false positive (and, if the entry has a gold seed, also a false negative);
an entry with a gold seed and no accepted seed is a false negative. Entries whose gold is null
cite a work that is not in the seed list: any accept on them is a false positive.

The naive baseline (citations/quality/naive_scan.py) is scored exactly: an exact q-gram filter
only skips pairs that cannot reach 90.

Seeds as arXiv prints them: every arXiv record names a first author and a date, while a seed of
these sets may have neither (a work cited by its title only, an annotated "author" that is OCR
debris). ``complete_seed_recall`` beside the audited figures counts recall on the gold pairs whose
seed names both, so a set's recall can be read for the seeds the pipeline really resolves against
as well as for all of them.

Labels: ``ours`` and ``naive`` of each split are scored against the labels as the sources give
them; ``audited`` beside them scores the SAME decisions after the set's label audit
(``audit.jsonl``: rules on the source markup plus hand errata, see the set's SOURCES.md), which
re-golds a few entries and leaves out the ones whose labels cannot be told. Both are printed so
that the audit hides nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from reflong.citations.match import EntryDecision
from reflong.citations.quality.labelled_sets import (
    SPLITS,
    accepted,
    apply_audit,
    complete_seed_recall,
    folder_of,
    load_audit,
    load_corpus_labels,
    load_set,
    score,
)
from reflong.citations.quality.labelled_sets import decide as ours
from reflong.citations.quality.naive_scan import naive
from reflong.citations.resolve import SeedTitle
from reflong.citations.thresholds import DEFAULT_PROFILE, PROFILES

REPO = Path(__file__).resolve().parents[1]
DATA = REPO / "tests" / "data" / "real" / "citation_styles"
CORPUS = REPO.parent / "shared" / "corpus"
# fresh: tests/data/real/citation_fresh (dev since resolve-11); holdout: citation_holdout (held out);
# plos: citation_plos (scored once with resolve-12, a dev set since); pmc: citation_pmc (scored once with resolve-13, a dev set since)
# pmc_test: citation_pmc_test, the PMC set's first test split (scored once by the lead, read since)
# pmc_test2, pmc_test3: citation_pmc_test2/3, the PMC set's second and third test splits
# fresh_test, fresh_test2: citation_fresh_test/2, LinkedBooks' test splits (its training file)
# (each scored once by the lead, a dev set since)
# fresh_test3: citation_fresh_test3, LinkedBooks' third test split (scored once with resolve-17)
# fresh_test4, pmc_test4: citation_fresh_test4 and citation_pmc_test4, LinkedBooks' fourth and the
# PMC set's fourth test split (each scored once with resolve-18, a dev set since)
# fresh_test5: citation_fresh_test5, LinkedBooks' fifth test split (scored once with resolve-19)
# pmc_test5: citation_pmc_test5, the PMC set's fifth and last test split (built at resolve-21)


def data_of(split: str, data: Path | None = None) -> Path:
    """The folder a split is read from: ``data`` when given, else the multi-style set for dev and
    test and ``tests/data/real/citation_<split>`` for every other split."""
    return data if data is not None else folder_of(split, REPO / "tests" / "data" / "real")


def misses(
    name: str,
    seeds: list[SeedTitle],
    entries: list[dict],
    decisions: list[EntryDecision],
    base: list | None,
    audit: dict[str, dict] | None = None,
) -> list[dict]:
    """Every entry either system got wrong (as labelled or as audited), with the evidence and
    the entry's audit row: for reading, not for scoring."""
    titles = {s.arxiv_id: s.title for s in seeds}
    audit = audit or {}
    out = []
    for i, (e, d) in enumerate(zip(entries, decisions, strict=True)):
        mine = d.seed if d.decision == "accept" else None
        theirs = base[i] if base is not None else e["gold"]
        row = audit.get(e["id"])
        golds = {e["gold"]} | ({row["new"]} if row and row["field"] == "gold" else set())
        if all(mine == g and theirs == g for g in golds):
            continue
        best = d.matches[0] if d.matches else None
        out.append(
            {
                "set": name,
                "id": e["id"],
                "style": e["style"],
                "source": e.get("source"),
                "raw": e["raw"],
                "gold": e["gold"],
                "gold_title": titles.get(e["gold"]) if e["gold"] else None,
                "ours": mine,
                "ours_title": titles.get(mine) if mine else None,
                "ours_decision": d.decision,
                "ours_best": best.seed_id if best else None,
                "ours_score": best.score if best else None,
                "ours_reason": best.reason if best else None,
                "parsed_title": d.parsed.title,
                "naive": base[i] if base is not None else None,
                # the gold as audited (null also when left out: see ``audit``), and the audit row
                "audited_gold": (row["new"] if row["field"] == "gold" else None) if row else e["gold"],
                "audit": row,
            }
        )
    return out


def evaluate(
    seeds: list[SeedTitle],
    entries: list[dict],
    with_naive: bool = True,
    name: str = "",
    audit: list[dict] | None = None,
    with_ours: bool = True,
    profile: str = DEFAULT_PROFILE,
) -> dict:
    """Both systems on one set of entries, with the set's counts (and, in ``_misses``, the
    entries either got wrong); with ``audit`` rows, the same decisions scored as audited too.
    Without ``with_ours`` the resolver is not run (its figures are null, no misses listed), so a
    held-out set's conversion can be checked with the baseline alone."""
    t0 = time.perf_counter()
    decisions = ours(seeds, entries, profile) if with_ours else None
    mine_all = accepted(decisions) if decisions is not None else None
    t1 = time.perf_counter()
    base = naive(seeds, entries) if with_naive else None
    t2 = time.perf_counter()
    audited = None
    if audit is not None:
        rows = {r["id"]: r for r in audit}
        kept = apply_audit(entries, audit)
        keep = {e["id"] for e in kept}
        mine = (
            [p for e, p in zip(entries, mine_all, strict=True) if e["id"] in keep]
            if mine_all is not None
            else None
        )
        theirs = (
            [p for e, p in zip(entries, base, strict=True) if e["id"] in keep] if base is not None else None
        )
        here = [r for r in audit if r["id"] in {e["id"] for e in entries}]
        audited = {
            "entries": len(kept),
            "gold_pairs": sum(e["gold"] is not None for e in kept),
            "left_out": sum(r["field"] == "scored" for r in here),
            "regolded": sum(r["field"] == "gold" for r in here),
            "ours": score(kept, mine) if mine is not None else None,
            "naive": score(kept, theirs) if theirs is not None else None,
            "complete_seed_recall": {
                "ours": complete_seed_recall(seeds, kept, mine) if mine is not None else None,
                "naive": complete_seed_recall(seeds, kept, theirs) if theirs is not None else None,
            },
        }
    else:
        rows = {}
    return {
        "entries": len(entries),
        "gold_pairs": sum(e["gold"] is not None for e in entries),
        "seeds": len(seeds),
        "styles": dict(sorted(Counter(e["style"] for e in entries).items())),
        "ours": score(entries, mine_all) if mine_all is not None else None,
        "naive": score(entries, base) if base is not None else None,
        "labels": "ours/naive: as labelled; audited: the same decisions after audit.jsonl",
        "audited": audited,
        "seconds": {
            "ours": round(t1 - t0, 1) if with_ours else None,
            "naive": round(t2 - t1, 1) if with_naive else None,
        },
        "_misses": misses(name, seeds, entries, decisions, base, rows) if decisions is not None else [],
    }


def score_split(job: tuple[str, Path, int | None, bool, bool, str]) -> tuple[str, dict, list[dict]]:
    """One split scored (a process of its own under ``--all``): its figures and its misses."""
    split, data, limit, with_naive, with_ours, profile = job
    seeds, entries = load_set(data, split, limit)
    print(f"{split}: {len(entries)} entries x {len(seeds)} seeds ...", file=sys.stderr, flush=True)
    result = evaluate(seeds, entries, with_naive, split, load_audit(data), with_ours, profile)
    return split, result, result.pop("_misses")


def summary_line(split: str, result: dict) -> str:
    """One human line per split for stderr: audited P/R of both systems and their complete-seed
    recall, ours / naive (the JSON line on stdout holds every figure)."""

    def pr(fig: dict | None) -> str:
        return f"P {fig['overall']['precision']:.4f} R {fig['overall']['recall']:.4f}" if fig else "-"

    figures = result["audited"] or result
    complete = figures.get("complete_seed_recall") or {}
    mine, theirs = complete.get("ours"), complete.get("naive")
    tail = ""
    if mine or theirs:
        pairs = (mine or theirs)["pairs"]
        both = " / ".join(f"{x['recall']:.4f}" if x else "-" for x in (mine, theirs))
        tail = f"; complete seeds R {both} ({pairs} pairs)"
    return f"{split:12s} ours {pr(figures['ours'])}  naive {pr(figures['naive'])}{tail}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument(
        "--data",
        type=Path,
        default=None,
        help="the folder to read the splits from (default: tests/data/real/citation_styles for dev "
        "and test, tests/data/real/citation_<split> for any other split)",
    )
    ap.add_argument("--corpus", type=Path, default=CORPUS, help="../shared/corpus; skipped when absent")
    ap.add_argument(
        "--splits",
        default="dev,test",
        help=(
            "comma-separated: dev and test of the multi-style set, or one of the other sets by name "
            f"({', '.join(SPLITS[2:])}; each read from tests/data/real/citation_<name>) "
            "(default: %(default)s)"
        ),
    )
    ap.add_argument(
        "--all",
        action="store_true",
        help="every labelled set (all the splits above, each from its own folder) in one run",
    )
    ap.add_argument(
        "--jobs",
        type=int,
        default=os.cpu_count() or 1,
        help="splits scored at once, one process each (default: the CPU count, %(default)s)",
    )
    ap.add_argument("--limit", type=int, default=None, help="only the first N entries of each split")
    ap.add_argument(
        "--profile",
        choices=PROFILES,
        default=DEFAULT_PROFILE,
        help="the resolver's rule set (default: arXiv seeds; books: also books, chapters, footnotes)",
    )
    ap.add_argument("--no-naive", action="store_true", help="skip the baseline (fast; its figures are null)")
    ap.add_argument(
        "--no-ours",
        action="store_true",
        help="skip our resolver (its figures are null): check a held-out set with the baseline only",
    )
    ap.add_argument(
        "--misses",
        type=Path,
        default=None,
        help="write every entry either system got wrong (JSON lines) here",
    )
    args = ap.parse_args(argv)
    if args.jobs < 1:
        print(f"--jobs: at least 1, not {args.jobs}", file=sys.stderr)
        return 2
    if args.all and args.data is not None:
        print("--all reads every set from its own folder: leave out --data", file=sys.stderr)
        return 2
    splits = list(SPLITS) if args.all else [s.strip() for s in args.splits.split(",") if s.strip()]
    jobs = []
    for split in splits:
        if split not in SPLITS:
            print(f"--splits: unknown split {split!r} ({', '.join(SPLITS)})", file=sys.stderr)
            return 2
        data = data_of(split, args.data)
        if not (data / f"seeds.{split}.jsonl").is_file():
            print(f"--splits: {data} has no {split} split (seeds.{split}.jsonl)", file=sys.stderr)
            return 2
        jobs.append((split, data, args.limit, not args.no_naive, not args.no_ours, args.profile))
    folders = {job[1] for job in jobs}
    shown = folders.pop() if len(folders) == 1 else DATA.parent  # one set's folder, or all of them
    result: dict = {"set": str(shown.relative_to(REPO) if shown.is_relative_to(REPO) else shown)}
    wrong: list[dict] = []
    if len(jobs) > 1 and args.jobs > 1:
        with ProcessPoolExecutor(max_workers=min(args.jobs, len(jobs))) as pool:
            done = list(pool.map(score_split, jobs))  # in the order asked: the output is stable
    else:
        done = [score_split(job) for job in jobs]
    for split, figures, missed in done:
        result[split] = figures
        wrong += missed
    if (args.corpus / "labels" / "dev.jsonl").is_file():
        seeds, entries = load_corpus_labels(args.corpus)
        result["corpus_labels"] = evaluate(
            seeds,
            entries,
            not args.no_naive,
            "corpus_labels",
            with_ours=not args.no_ours,
            profile=args.profile,
        )
        wrong += result["corpus_labels"].pop("_misses")
    else:
        result["corpus_labels"] = None
    for split, figures, _ in done:
        print(summary_line(split, figures), file=sys.stderr)
    if result["corpus_labels"] is not None:
        print(summary_line("corpus", result["corpus_labels"]), file=sys.stderr)
    if args.misses:
        with open(args.misses, "w", encoding="utf-8") as fh:
            for row in wrong:
                fh.write(json.dumps(row, ensure_ascii=False) + "\n")
    print(json.dumps(result, sort_keys=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
