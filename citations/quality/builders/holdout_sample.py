"""Print the entries of tests/data/real/citation_holdout to read for its label audit, using the
naive baseline ONLY (the set is held out: our resolver is not run on it while it is built).

    python -m reflong.citations.quality.builders.holdout_sample disagreements [--data DIR]
    python -m reflong.citations.quality.builders.holdout_sample sample [--n 100] [--seed 19] [--data DIR]
    python -m reflong.citations.quality.builders.holdout_sample disagreements --data tests/data/real/citation_plos --split plos
    python -m reflong.citations.quality.builders.holdout_sample scan --data tests/data/real/citation_pmc_test --split pmc_test

``disagreements``: every entry where the naive baseline (bench/resolve_styles.py's ``naive``)
differs from the gold, as labelled or as audited, with the gold seed and the baseline's seed.
``sample``: a seeded random sample of the entries the baseline resolves as labelled and that have
no audit row, to estimate the label noise left where nothing disagrees. ``scan``: the strings
whose shape alone may hide a label fault, neither system run: two years in parentheses, over
``LONG`` characters, or a second author list after the labelled title (more than one reference,
as PDF extraction joins them), or the labelled title printed right after a word (a record that
lost the title's first words, set in italics: "Helicobacter pylori infection and ..." labelled
"infection and ..."). Each entry is printed
with its gold seed (title, first author, year); an entry without gold with the two nearest seed
titles, to check that no seed is the work it cites.
"""

from __future__ import annotations

import argparse
import random
import re
import sys
from pathlib import Path

from rapidfuzz import fuzz, process

from reflong.citations.fields.normalize import norm
from reflong.citations.quality.builders.holdout import title_start
from reflong.citations.quality.labelled_sets import REAL, load_audit, load_set
from reflong.citations.quality.naive_scan import naive

DATA = REAL / "citation_holdout"
SPLIT = "holdout"
# A string longer than this is read whole (the longest single references are author lists of
# genome consortia; two references joined by GROBID are often this long too)
LONG = 420
_PAREN_YEAR = re.compile(r"\((?:1[6-9]|20)\d\d[a-z]?\)")
# Two authors in a row, as a reference list starts: "Surname AB, Surname CD" (Vancouver) or
# "Surname, A. B., & Surname, C." (APA); after the title they begin a second reference.
_VANCOUVER_AUTHOR = r"\b[A-Z][\w'\u00c0-\u024f-]+ [A-Z]{1,3}\b"
_APA_AUTHOR = r"\b[A-Z][\w'\u00c0-\u024f-]+, (?:[A-Z]\.[ -]?){1,3}"
_AUTHOR_LIST = re.compile(
    rf"(?:{_VANCOUVER_AUTHOR}|{_APA_AUTHOR}),\s*(?:&\s*|and\s+)?(?:{_VANCOUVER_AUTHOR}|{_APA_AUTHOR})"
)


# What may stand right before a title with no punctuation between: "et al", "and", "In", a year
# ("Atoda, K. 1951 The larva ...")
_BEFORE_A_TITLE = re.compile(r"(?:\bet al|\band|\bIn|(?:1[6-9]|20)\d\d[a-z]?)$")


def shape_flags(raw: str, title: str) -> list[str]:
    """Why a string's label may be wrong, from its shape (empty: nothing in it says so)."""
    flags = []
    if len(_PAREN_YEAR.findall(raw)) >= 2:
        flags.append("two_years")
    if len(raw) > LONG:
        flags.append("long")
    at = title_start(raw, title)
    if at >= 0 and _AUTHOR_LIST.search(raw, at + len(title)):
        flags.append("authors_after_title")
    verbatim = raw.lower().find(title.lower())  # a fuzzy place may start inside the title's word
    before = raw[:verbatim].rstrip() if verbatim > 0 else ""
    if before[-1:].isalnum() and not _BEFORE_A_TITLE.search(before):
        flags.append("title_after_word")
    return flags


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
    ap.add_argument("what", choices=("disagreements", "sample", "scan"))
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
        print(f"builders.holdout_sample: {exc}", file=sys.stderr)
        return 2
    seeds = {s.arxiv_id: s for s in seed_list}
    keys = list(seeds)
    titles = [norm(seeds[k].title) for k in keys]
    if args.what == "scan":
        shown = 0
        for e in entries:
            flags = shape_flags(e["raw"], e["title"])
            if not flags:
                continue
            shown += 1
            row = audit.get(e["id"])
            print(e["id"], ",".join(flags), "|", e["raw"])
            if row:
                print("   audit:", row["field"], row["old"], "->", row["new"], row["category"])
        print(f"{shown} entries whose shape may hide a label fault", file=sys.stderr)
        return 0
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
