"""Speed of the synthetic arXiv generator and statistics of what it writes.

    python bench/synth_arxiv.py [--papers 2000] [--jobs 2] [--sample 300]

Prints: plan time, end-to-end papers/s and PDFs/s with 1 process and with --jobs processes (the
ratio is the figure to compare: the machine is shared, absolute times are noisy), CPU ms per PDF,
MiB written, and tokens per paper (o200k_base, on the text PyMuPDF extracts from the PDFs) over a
sample. Also the rendering path chosen (own line breaking, one content stream per page, Base-14
fonts) against PyMuPDF's Story/HTML layout of the same documents: CPU per PDF and bytes per PDF.
"""

from __future__ import annotations

import argparse
import html
import io
import json
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

import pymupdf

from reflong.common.tokenizer import get_tokenizer
from reflong.demo.document import Document, compose
from reflong.demo.generate import entries_for, generate
from reflong.demo.render import BOTTOM, COL_W, GAP, MARGIN_X, PAGE_H, PAGE_W, TOP, render_pdf
from reflong.demo.world import SynthConfig, plan_world


def _cpu() -> float:
    """CPU seconds of this process and its finished children (pool workers): the machine is shared,
    so wall time alone says little."""
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def story_pdf(doc: Document) -> bytes:
    """The same document through PyMuPDF's Story (HTML/CSS layout) in two columns, for comparison."""
    parts = [f"<h1>{html.escape(doc.title)}</h1><p>{html.escape(', '.join(doc.authors))}</p>"]
    tags = {"heading": "h2", "subheading": "h3", "para": "p", "ref": "p class=r"}
    for b in doc.blocks:
        text = html.escape(f"{b.label} {b.text}".strip())
        parts.append(f"<{tags[b.kind]}>{text}</{tags[b.kind].split()[0]}>")
    css = (
        "body{font-family:serif;font-size:9.5pt} h1{font-size:14pt} h2{font-size:10.5pt} p.r{font-size:8.5pt}"
    )
    story = pymupdf.Story(html="".join(parts), user_css=css)
    buf = io.BytesIO()
    writer = pymupdf.DocumentWriter(buf)
    mediabox = pymupdf.Rect(0, 0, PAGE_W, PAGE_H)

    def rectfn(rect_num: int, filled: object) -> tuple:
        col = rect_num % 2
        x = MARGIN_X + col * (COL_W + GAP)
        return (mediabox if col == 0 else None), pymupdf.Rect(x, TOP, x + COL_W, BOTTOM), None

    story.write(writer, rectfn)
    writer.close()
    return buf.getvalue()


def compare_paths(n: int) -> None:
    world = plan_world(SynthConfig(papers=max(n, 12), seed=0))
    docs = [
        (compose(p, p.versions[0], entries_for(world, p, p.versions[0]), world.works, 0), p.style)
        for p in list(world.papers.values())[:n]
    ]
    figures = {}
    for name, fn in (
        ("own layout", lambda d, s: render_pdf(d, s)),
        ("Story/HTML", lambda d, s: story_pdf(d)),
    ):
        t = time.process_time()
        size = sum(len(fn(d, s)) for d, s in docs)
        figures[name] = ((time.process_time() - t) / len(docs), size / len(docs))
        print(
            f"{name}: {1000 * figures[name][0]:.1f} ms CPU per PDF, {figures[name][1] / 1024:.0f} KiB per PDF"
        )
    own, story = figures["own layout"], figures["Story/HTML"]
    print(f"Story/HTML vs own layout: {story[0] / own[0]:.2f}x CPU, {story[1] / own[1]:.0f}x bytes")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--papers", type=int, default=2000)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--sample", type=int, default=300, help="PDFs to extract for token statistics")
    ap.add_argument("--compare", type=int, default=40, help="documents for the rendering-path comparison")
    args = ap.parse_args()
    compare_paths(args.compare)
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
