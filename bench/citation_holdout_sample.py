"""Print the entries of tests/data/real/citation_holdout to read for its label audit, using the
naive baseline ONLY (the set is held out: our resolver is not run on it while it is built).

    python bench/citation_holdout_sample.py disagreements [--data DIR]
    python bench/citation_holdout_sample.py sample [--n 100] [--seed 19] [--data DIR]
    python bench/citation_holdout_sample.py disagreements --data tests/data/real/citation_plos --split plos

``disagreements``: every entry where the naive baseline (bench/resolve_styles.py's ``naive``)
differs from the gold, as labelled or as audited, with the gold seed and the baseline's seed.
``sample``: a seeded random sample of the entries the baseline resolves as labelled and that have
no audit row, to estimate the label noise left where nothing disagrees. Each entry is printed
with its gold seed (title, first author, year); an entry without gold with the two nearest seed
titles, to check that no seed is the work it cites.
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

from rapidfuzz import fuzz, process
from resolve_styles import load_audit, load_set, naive

from reflong.citations.normalize import norm

DATA = Path(__file__).resolve().parents[1] / "tests" / "data" / "real" / "citation_holdout"
SPLIT = "holdout"


def _show(e: dict, seeds: dict, keys: list[str], titles: list[str], predicted: str | None) -> None:
    print(e["id"], e["style"], "|", e["raw"][:220])
    print("   title:", e["title"][:120])
    if e["gold"]:
        s = seeds[e["gold"]]
        print("   gold:", e["gold"], s.first_author, (s.published or "")[:4], "|", s.title[:110])
    else:
        near = process.extract(norm(e["title"]), titles, scorer=fuzz.token_set_ratio, limit=2)
        print(
            "   gold: null; nearest:",
            " || ".join(f"{keys[i]} {seeds[keys[i]].title[:60]}" for _, _, i in near),
        )
    if predicted != e["gold"]:
        s = seeds.get(predicted) if predicted else None
        print("   naive:", predicted, "|", s.title[:110] if s else "")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("what", choices=("disagreements", "sample"))
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument(
        "--split",
        default=SPLIT,
        help="the set's split (plos for tests/data/real/citation_plos, pmc for citation_pmc)",
    )
    ap.add_argument("--n", type=int, default=100)
    ap.add_argument("--seed", type=int, default=19)
    args = ap.parse_args(argv)
    try:
        seed_list, entries = load_set(args.data, args.split)
        audit = {r["id"]: r for r in load_audit(args.data)}
    except (OSError, ValueError) as exc:
        print(f"citation_holdout_sample: {exc}", file=sys.stderr)
        return 2
    seeds = {s.arxiv_id: s for s in seed_list}
    keys = list(seeds)
    titles = [norm(seeds[k].title) for k in keys]
    predicted = naive(seed_list, entries)
    if args.what == "disagreements":
        shown = 0
        for e, p in zip(entries, predicted, strict=True):
            row = audit.get(e["id"])
            audited = row["new"] if row and row["field"] == "gold" else e["gold"]
            if p == e["gold"] and p == audited:
                continue
            shown += 1
            _show(e, seeds, keys, titles, p)
            if row:
                print(
                    "   audit:", row["field"], row["old"], "->", row["new"], row["category"], "|", row["note"]
                )
        print(f"{shown} entries where the naive baseline differs from the gold", file=sys.stderr)
        return 0
    agreed = [e for e, p in zip(entries, predicted, strict=True) if p == e["gold"] and e["id"] not in audit]
    sample = sorted(random.Random(args.seed).sample(agreed, min(args.n, len(agreed))), key=lambda e: e["id"])
    print(f"{len(agreed)} agreed entries, {len(sample)} sampled (seed {args.seed})")
    for e in sample:
        _show(e, seeds, keys, titles, e["gold"])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
