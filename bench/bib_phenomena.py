"""The share of each bibliography phenomenon: the real corpus beside the 2024 world's rendered PDFs.

    python bench/bib_phenomena.py [--corpus ../shared/corpus] [--scale 0.02] [--citers 150] [--clean]

Both sides go through the same reading and the same classifier (``reflong.demo.bib_phenomena``):

* entries: every bibliography entry ``parse_pdf`` + ``split_reference_entries`` find, in the 55
  corpus PDFs and in PDFs the on-demand stand-in renders for --citers citing papers of a
  2024 world at --scale (written under --work once and reused);
* cited titles: entries citing a known work against its current arXiv title (the corpus labels'
  cites and seed ids; the world's seed citations of those citers, as printed).

``--clean`` renders the entries as before the messy worlds (every title verbatim), for the
comparison. Prints one line per population, then one JSON line {"corpus", "world", "settings"}.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

from reflong.citations.fields.split import split_reference_entries
from reflong.demo.bib_phenomena import (
    ENTRY_PHENOMENA,
    TITLE_PHENOMENA,
    entry_phenomena,
    shares,
    title_phenomena,
)
from reflong.demo.catalog2024 import write_catalog
from reflong.demo.citation_graph import TRUTH_FILE, read_truth_pairs, write_world_index
from reflong.demo.on_demand import OnDemandPdfs
from reflong.demo.phenomena_shares import corpus_shares
from reflong.ingest.catalog.reader import read_catalog
from reflong.ingest.parse.pdf_text import parse_pdf


def world_shares_rendered(world: Path, n_citers: int, messy: bool) -> dict:
    """Render n_citers citing papers' PDFs, read them as the pipeline does, classify."""
    catalog = read_catalog(world)
    pdfs = OnDemandPdfs(catalog, world / TRUTH_FILE, lengths="real", messy=messy)
    citers = sorted({c for c, _ in read_truth_pairs(world / TRUTH_FILE)})
    step = max(1, len(citers) // n_citers)
    read, cited = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for citing in citers[::step][:n_citers]:
            number = catalog.papers[citing].latest.number
            path = Path(tmp) / f"{citing}.pdf"
            path.write_bytes(pdfs(citing, number))
            entries, _style = split_reference_entries(parse_pdf(path).references)
            read += [e.text for e in entries]
            printed, _ = pdfs.entries(citing, number)
            cited += [(e.text, catalog.papers[e.key].title) for e in printed if e.key in catalog.papers]
    return {
        "entries": shares((entry_phenomena(t) for t in read), ENTRY_PHENOMENA),
        "cited_titles": shares((title_phenomena(e, t) for e, t in cited), TITLE_PHENOMENA),
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpus", default=str(Path(__file__).resolve().parents[1].parent / "shared" / "corpus"))
    ap.add_argument("--scale", type=float, default=0.02)
    ap.add_argument("--citers", type=int, default=150)
    ap.add_argument("--work", default="bench-bib-phenomena")
    ap.add_argument("--clean", action="store_true", help="entries as before the messy worlds")
    args = ap.parse_args()
    t0 = time.perf_counter()
    world = Path(args.work).resolve() / f"world-{args.scale:g}"
    if not (world / TRUTH_FILE).is_file():
        print(f"writing the 2024 world x {args.scale:g} to {world} ...", flush=True)
        write_catalog(world, scale=args.scale)
        write_world_index(world, since="2024-03")
    corpus = Path(args.corpus)
    result = {
        "corpus": corpus_shares(corpus) if (corpus / "pdf").is_dir() else None,
        "world": world_shares_rendered(world, args.citers, messy=not args.clean),
        "settings": {"scale": args.scale, "citers": args.citers, "messy": not args.clean},
    }
    for population in ("entries", "cited_titles"):
        w, c = result["world"][population], (result["corpus"] or {}).get(population, {})
        cells = [f"{k} {w[k]:.4f}/{c[k]:.4f}" if k in c else f"{k} {w[k]:.4f}/?" for k in w if k != "n"]
        print(f"{population} (world/corpus, n {w['n']}/{c.get('n', '?')}): {', '.join(cells)}")
    result["seconds"] = round(time.perf_counter() - t0, 1)
    print(json.dumps(result, sort_keys=True))


if __name__ == "__main__":
    main()
