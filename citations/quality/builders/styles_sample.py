"""The seeded sample of entries both systems agree on, for reading (the audit's noise estimate).

    python -m reflong.citations.quality.builders.styles_sample MISSES_FILE [--n 100] [--seed 19]

MISSES_FILE is what ``bench/resolve_styles.py --misses`` wrote (every entry either system got
wrong, as labelled). The entries NOT in it are the ones our resolver and the naive baseline both
decided as the label says; reading a seeded random sample of them per split estimates the label
noise the audit cannot find by reading disagreements (SOURCES.md reports the rate). Prints one
line per sampled entry: id, gold seed and its title, the raw string.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

from reflong.citations.quality.labelled_sets import REAL, load_set

DATA = REAL / "citation_styles"


def agreed_sample(misses: Path, n: int, seed: int) -> list[tuple[dict, str | None]]:
    """``n`` entries per split that neither system got wrong, drawn with ``seed``."""
    wrong = {json.loads(line)["id"] for line in misses.read_text(encoding="utf-8").splitlines()}
    out = []
    for split in ("dev", "test"):
        seeds, entries = load_set(DATA, split)
        titles = {s.arxiv_id: s.title for s in seeds}
        agreed = [e for e in entries if e["id"] not in wrong]
        for e in random.Random(f"{seed}:{split}").sample(agreed, n):
            out.append((e, titles.get(e["gold"]) if e["gold"] else None))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("misses", type=Path, help="the file bench/resolve_styles.py --misses wrote")
    ap.add_argument("--n", type=int, default=100, help="entries per split (default: %(default)s)")
    ap.add_argument("--seed", type=int, default=19, help="sampling seed (default: %(default)s)")
    args = ap.parse_args(argv)
    if not args.misses.is_file():
        print(f"builders.styles_sample: no misses file {args.misses}", file=sys.stderr)
        return 2
    for e, title in agreed_sample(args.misses, args.n, args.seed):
        print(
            json.dumps(
                {"id": e["id"], "split": e["split"], "gold": e["gold"], "gold_title": title, "raw": e["raw"]},
                ensure_ascii=False,
            )
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
