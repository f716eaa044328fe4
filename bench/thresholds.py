"""Precision/recall of accepted edges against the accept threshold, on the labelled corpus papers.

    python bench/thresholds.py [--labels ../shared/corpus/labels/dev.jsonl]

Builds a store from the labelled PDFs (parse -> cite, built-in parser), then resolves the stored
references in memory for each threshold and prints the curve, plus the highest score any
labelled near miss reaches: the default accept threshold (90) sits above every near miss and
below every true citation in this data, with margin on both sides.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path

from sqlmodel import Session

from reflong.citations.quality.label_accuracy import load_labels, pr_curve
from reflong.citations.resolve import SeedIndex, SeedTitle
from reflong.citations.stages.cite_stage import run_cite
from reflong.common.hashing import sha256_file
from reflong.db.engine import open_store
from reflong.db.papers import Paper
from reflong.ingest.parse.stage import ParseSettings, run_parse

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--labels", type=Path, default=CORPUS / "labels" / "dev.jsonl")
    ap.add_argument("--corpus", type=Path, default=CORPUS)
    args = ap.parse_args()
    labels = load_labels(args.labels)
    meta = {
        r["arxiv_id"]: r for r in map(json.loads, (args.corpus / "papers.jsonl").read_text().splitlines())
    }
    seeds = [
        SeedTitle(r["arxiv_id"], r["title"], r["published"], r["first_author"])
        for r in map(json.loads, (args.corpus / "seeds.jsonl").read_text().splitlines())
    ]
    with tempfile.TemporaryDirectory() as tmp:
        engine = open_store(Path(tmp) / "store.db")
        with Session(engine) as s:
            for lab in labels:
                pdf = args.corpus / meta[lab["paper"]]["file"]
                s.add(
                    Paper(
                        arxiv_id=lab["paper"],
                        title=meta[lab["paper"]]["title"],
                        pdf_path=str(pdf),
                        pdf_sha256=sha256_file(pdf),
                        status="downloaded",
                    )
                )
            s.commit()
        run_parse(engine, ParseSettings(workers=2))
        run_cite(engine)
        curve = pr_curve(engine, labels, seeds, [60, 70, 75, 80, 85, 88, 90, 92, 95, 98, 99.5])
    print("accept threshold  precision  recall")
    for accept, p, r in curve:
        print(f"{accept:>16.1f}  {p:>9.4f}  {r:>6.4f}")
    index = SeedIndex(seeds)
    near = [
        (
            max(
                (m.title_score for m in index.resolve(n["reference"]) if m.seed_id == n["seed"]), default=0.0
            ),
            n,
        )
        for lab in labels
        for n in lab["near_misses"]
    ]
    top, worst = max(near, key=lambda x: x[0])
    cites = [
        max((m.score for m in index.resolve(c["reference"]) if m.seed_id == c["seed"]), default=0.0)
        for lab in labels
        for c in lab["cites"]
    ]
    print(f"highest near-miss title score: {top:.1f} ({worst['seed']}: {worst['reference'][:90]})")
    print(f"lowest score of a labelled citing string for its seed: {min(cites):.1f}")


if __name__ == "__main__":
    main()
