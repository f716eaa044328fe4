"""Speed of the synthetic arXiv generator and statistics of what it writes.

    python bench/synth_arxiv.py [--papers 2000] [--jobs 2] [--sample 300]

Prints: plan time, end-to-end papers/s and PDFs/s with 1 process and with --jobs processes (the
ratio is the figure to compare: the machine is shared, absolute times are noisy), MiB written,
and tokens per paper (o200k_base, on the text PyMuPDF extracts from the PDFs) over a sample.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

import pymupdf

from reflong.demo.generate import generate
from reflong.demo.world import SynthConfig, plan_world
from reflong.ingest.tokenizer import get_tokenizer


def _cpu() -> float:
    """CPU seconds of this process and its finished children (pool workers): the machine is shared,
    so wall time alone says little."""
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--papers", type=int, default=2000)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--sample", type=int, default=300, help="PDFs to extract for token statistics")
    args = ap.parse_args()
    cfg = SynthConfig(papers=args.papers, seed=0)

    t = time.perf_counter()
    plan_world(cfg)
    print(f"plan {args.papers} papers: {time.perf_counter() - t:.2f} s")

    runs = {}
    with tempfile.TemporaryDirectory() as tmp:
        for jobs in sorted({1, args.jobs}):
            out = Path(tmp) / f"j{jobs}"
            cpu0 = _cpu()
            s = generate(out, cfg, jobs=jobs)
            cpu = _cpu() - cpu0
            runs[jobs] = s.seconds
            mib = sum(p.stat().st_size for p in out.rglob("*") if p.is_file()) / 2**20
            print(
                f"jobs={jobs}: {s.papers} papers, {s.pdfs} PDFs in {s.seconds:.1f} s = "
                f"{s.papers / s.seconds:.0f} papers/s, {s.pdfs / s.seconds:.0f} PDFs/s, {mib:.1f} MiB; "
                f"CPU {cpu:.1f} s = {1000 * cpu / s.pdfs:.1f} ms per PDF"
            )
        if len(runs) > 1:
            print(f"speed-up jobs={args.jobs} vs jobs=1: {runs[1] / runs[args.jobs]:.2f}x")

        tok = get_tokenizer("o200k_base")
        truth = [json.loads(line) for line in (out / "truth.jsonl").read_text().splitlines()]
        step = max(1, len(truth) // args.sample)
        counts, pages, entries = [], [], []
        for rec in truth[::step]:
            with pymupdf.open(out / rec["file"]) as pdf:
                counts.append(tok.count("".join(p.get_text() for p in pdf)))
                pages.append(pdf.page_count)
            entries.append(rec["n_references"])
        q = statistics.quantiles(counts, n=10)
        print(
            f"tokens per PDF (o200k_base, n={len(counts)}): mean {statistics.mean(counts):.0f}, "
            f"min {min(counts)}, p10 {q[0]:.0f}, median {statistics.median(counts):.0f}, p90 {q[-1]:.0f}, "
            f"max {max(counts)}; over 5000: {sum(c >= 5000 for c in counts)}"
        )
        print(
            f"pages per PDF: mean {statistics.mean(pages):.1f}; references per PDF: mean "
            f"{statistics.mean(entries):.1f}"
        )
        gen = json.loads((out / "generator.json").read_text())
        print("counts:", json.dumps(gen["counts"]))
        citers: dict[str, set[str]] = {}
        for rec in truth:
            if rec["role"] == "citing":
                for c in rec["cites"]:
                    citers.setdefault(c["seed"], set()).add(rec["paper"])
        sizes = [len(v) for v in citers.values()]
        print(
            f"seeds with 2-5 citing papers (easy keys): {sum(2 <= n <= 5 for n in sizes)}, "
            f"with 4-5 (hard keys): {sum(4 <= n <= 5 for n in sizes)}, "
            f"families: {len(gen['families'])}, "
            f"near-miss notes: {sum(len(r['near_misses']) for r in truth)}"
        )
    sys.stdout.flush()


if __name__ == "__main__":
    main()
