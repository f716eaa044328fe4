"""Print a seeded random sample of the entries of tests/data/real/citation_fresh that BOTH systems
(our resolver and the naive baseline) resolve as labelled, for reading: the label audit's check
of the agreed entries' noise rate (SOURCES.md there, "Label audit").

    python bench/resolve_styles.py --data tests/data/real/citation_fresh --splits fresh \\
        --corpus /nonexistent --misses /tmp/misses.jsonl
    python -m reflong.citations.quality.builders.fresh_sample --misses /tmp/misses.jsonl [--n 110] [--seed 19]

Agreed = not in the misses file and without an audit row. Each sampled entry is printed with its
gold seed (title, first author, year); an entry without gold with the two nearest seed titles,
to check that no seed is the work it cites.
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import sys
from pathlib import Path

from rapidfuzz import fuzz, process

from reflong.citations.fields.normalize import norm
from reflong.citations.quality.labelled_sets import REAL

DATA = REAL / "citation_fresh"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--misses", type=Path, required=True, help="resolve_styles.py --misses output")
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument("--n", type=int, default=110)
    ap.add_argument("--seed", type=int, default=19)
    args = ap.parse_args(argv)
    try:
        entries = [
            json.loads(x)
            for x in gzip.decompress((args.data / "entries.fresh.jsonl.gz").read_bytes()).splitlines()
        ]
        seeds = {
            s["arxiv_id"]: s
            for s in map(json.loads, (args.data / "seeds.fresh.jsonl").read_text("utf-8").splitlines())
        }
        missed = {json.loads(x)["id"] for x in args.misses.read_text("utf-8").splitlines()}
        audited = {json.loads(x)["id"] for x in (args.data / "audit.jsonl").read_text("utf-8").splitlines()}
    except (OSError, ValueError) as exc:
        print(f"builders.fresh_sample: {exc}", file=sys.stderr)
        return 2
    agreed = [e for e in entries if e["id"] not in missed and e["id"] not in audited]
    sample = sorted(random.Random(args.seed).sample(agreed, min(args.n, len(agreed))), key=lambda e: e["id"])
    keys = list(seeds)
    titles = [norm(seeds[k]["title"]) for k in keys]
    print(f"{len(agreed)} agreed entries, {len(sample)} sampled (seed {args.seed})")
    for e in sample:
        print(e["id"], e["raw"][:170])
        if e["gold"]:
            s = seeds[e["gold"]]
            print("   gold:", e["gold"], s["first_author"], (s["published"] or "")[:4], "|", s["title"][:100])
        else:
            near = process.extract(norm(e["title"]), titles, scorer=fuzz.token_set_ratio, limit=2)
            print(
                "   gold: null; nearest:",
                " || ".join(f"{keys[i]} {seeds[keys[i]]['title'][:60]}" for _, _, i in near),
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
