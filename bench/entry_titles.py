"""How often the built-in entry parser finds the title, per citation style (one JSON line).

    python bench/entry_titles.py [--data DIR] [--splits dev,test]

On the real multi-style set (tests/data/real/citation_styles: each entry carries the title its
source project annotated), the share of entries whose ``parse_entry(raw).title`` is the annotated
title (``fuzz.ratio`` >= 90 on the normalised forms: a stray quote or a glued word is not a
miss). The title guess is what ``cite`` stores on each reference and what an arXiv-id match is
checked against, so styles where it fails (physics without title punctuation, comma author
lists, quoted titles) show here first.
"""

from __future__ import annotations

import argparse
import gzip
import json
from collections import Counter
from pathlib import Path

from rapidfuzz import fuzz

from reflong.citations.fields.entry_parse import parse_entry
from reflong.citations.fields.normalize import norm

DATA = Path(__file__).resolve().parents[1] / "tests" / "data" / "real" / "citation_styles"


def title_hits(path: Path) -> dict[str, float]:
    """Per style (and overall) share of entries whose parsed title is the annotated one."""
    hit: Counter[str] = Counter()
    seen: Counter[str] = Counter()
    for line in gzip.decompress(path.read_bytes()).decode("utf-8").splitlines():
        entry = json.loads(line)
        if not entry.get("title"):
            continue
        got = norm(parse_entry(entry["raw"]).title or "")
        ok = fuzz.ratio(norm(entry["title"]), got) >= 90
        for key in (entry["style"], "overall"):
            seen[key] += 1
            hit[key] += ok
    return {key: round(hit[key] / seen[key], 4) for key in sorted(seen)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument("--splits", default="dev,test")
    args = ap.parse_args()
    out = {split: title_hits(args.data / f"entries.{split}.jsonl.gz") for split in args.splits.split(",")}
    print(json.dumps(out, sort_keys=True))


if __name__ == "__main__":
    main()
