"""Real paper lengths and what each document policy makes of them, on ../shared/corpus.

    python bench/doc_lengths.py [--corpus ../shared/corpus] [--synthetic 300] [--json]

Every corpus PDF goes through the project's own parse (``ingest.pdf_text.parse_pdf``, what the
parse stage stores) and the built-in reference splitter. Printed:

1. body tokens, reference-section tokens and entries per paper (o200k_base): min, quartiles,
   mean, max - the length model ``SynthConfig(lengths="real")`` is fitted to these;
2. per policy (whole at 5,000 = Ref-Long's rule and the old default; trim at 5,000; fit at the
   default 30K:8 budget), the share of papers usable as documents and the per-document token
   distribution, beside what Ref-Long says of its Paper documents;
3. the fit policy's re-verification on the corpus: the seeds (all 113 of seeds.jsonl) the resolver
   accepts on each paper's whole reference list versus on its fitted text - they must agree;
4. with ``--synthetic N``: the same three length figures measured on N papers of a synthetic arXiv
   generated with ``lengths="real"`` (rendered to PDF and parsed back the same way), side by side.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def dist(xs: list[int]) -> dict:
    from reflong.assemble.paper.build import token_distribution

    return token_distribution(xs)


def measure_texts(texts: dict[str, tuple[str, str]]) -> dict[str, list[int]]:
    """body tokens, reference tokens and entries for {id: (body, references)}."""
    from reflong.citations.fields.split import split_references
    from reflong.common.tokenizer import get_tokenizer

    tok = get_tokenizer("o200k_base")
    out: dict[str, list[int]] = {"body_tokens": [], "reference_tokens": [], "entries": []}
    for body, refs in texts.values():
        out["body_tokens"].append(tok.count(body))
        out["reference_tokens"].append(tok.count(refs))
        out["entries"].append(len(split_references(refs)[0]))
    return out


def parse_corpus(corpus: Path) -> dict[str, tuple[str, str]]:
    from reflong.ingest.parse.pdf_text import PdfError, parse_pdf

    texts = {}
    for line in (corpus / "papers.jsonl").read_text().splitlines():
        rec = json.loads(line)
        try:
            parsed = parse_pdf(corpus / rec["file"])
        except PdfError as exc:
            print(f"skip {rec['arxiv_id']}: {exc}", file=sys.stderr)
            continue
        texts[rec["arxiv_id"]] = (parsed.body.strip(), parsed.references.strip())
    return texts


def policies(corpus: Path, texts: dict[str, tuple[str, str]]) -> dict:
    from reflong.assemble.paper.build import PaperSettings, effective_budget
    from reflong.assemble.paper.documents import fit_document, fit_sampled
    from reflong.assemble.paper.inputs import EntryGuardIndex, ResolverMatcher
    from reflong.assemble.paper.model import KeyCandidate, PaperDoc
    from reflong.assemble.prompts import paper_template
    from reflong.common.tokenizer import get_tokenizer

    tok = get_tokenizer("o200k_base")
    seeds = [json.loads(x) for x in (corpus / "seeds.jsonl").read_text().splitlines()]
    keys = [KeyCandidate(s["arxiv_id"], s["title"], s["published"], ()) for s in seeds]
    guard = EntryGuardIndex(keys, {})
    matcher = ResolverMatcher(keys)
    budget = effective_budget(PaperSettings(), paper_template(), tok)
    docs = {k: PaperDoc(k, 1, None, None, None, b, r) for k, (b, r) in sorted(texts.items())}
    out: dict = {"papers": len(docs), "fit_budget_tokens": budget}
    runs = {
        "whole_5000": lambda d: fit_document(d, tok, 5000, False),
        "trim_5000": lambda d: fit_document(d, tok, 5000, True),
        f"trim_{budget}": lambda d: fit_document(d, tok, budget, True),
        f"fit_{budget}": lambda d: fit_sampled(d, tok, budget, 0, guard),
    }
    for name, run in runs.items():
        results = {k: run(d) for k, d in docs.items()}
        usable = {k: r.doc for k, r in results.items() if r.doc is not None}
        out[name] = {
            "usable": len(usable),
            "usable_share": round(len(usable) / len(docs), 4),
            "tokens": dist([d.n_tokens for d in usable.values()]),
            "left_out": {k: r.reason for k, r in results.items() if r.doc is None},
        }
        if name.startswith("fit"):
            sampled = [r for r in results.values() if r.entries]
            out[name]["reference_lists_sampled"] = len(sampled)
            out[name]["entries_kept_share_median"] = (
                round(statistics.median(r.entries_kept / r.entries for r in sampled), 3) if sampled else 1.0
            )
            agree = lost = gained = 0
            for k, d in usable.items():
                before, after = set(matcher(docs[k].references)), set(matcher(d.references))
                agree += before == after
                lost += len(before - after)
                gained += len(after - before)
            out[name]["reverification"] = {
                "papers_same_accepted_seeds": agree,
                "papers": len(usable),
                "citations_lost": lost,
                "citations_gained": gained,
            }
    out["reflong_paper"] = {
        "documents": "whole papers < 5,000 tokens (sec. 5.2); prompt files not released",
        "nominal_mean_tokens": 3750,
    }
    return out


def synthetic(n: int) -> dict[str, list[int]]:
    """Lengths of n papers of a synthetic arXiv with the real length model, parsed back from PDF."""
    from reflong.demo.document import compose
    from reflong.demo.generate import entries_for
    from reflong.demo.render import save_pdf
    from reflong.demo.world import SynthConfig, plan_world
    from reflong.ingest.parse.pdf_text import parse_pdf

    world = plan_world(SynthConfig(papers=max(n, 120), lengths="real"))
    texts = {}
    with tempfile.TemporaryDirectory() as tmp:
        for key in list(world.papers)[:n]:
            paper = world.papers[key]
            version = paper.versions[0]
            doc = compose(paper, version, entries_for(world, paper, version), world.works, world.config.seed)
            path = Path(tmp) / f"{key}.pdf"
            save_pdf(doc, paper.style, path)
            parsed = parse_pdf(path)
            texts[key] = (parsed.body.strip(), parsed.references.strip())
    return measure_texts(texts)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpus", type=Path, default=REPO.parent / "shared" / "corpus")
    ap.add_argument("--synthetic", type=int, default=0, help="also measure N synthetic real-length papers")
    ap.add_argument("--json", action="store_true", help="print one JSON object only")
    args = ap.parse_args()
    texts = parse_corpus(args.corpus)
    lengths = measure_texts(texts)
    result: dict = {"corpus_lengths": {k: dist(v) for k, v in lengths.items()}}
    result["policies"] = policies(args.corpus, texts)
    if args.synthetic:
        result["synthetic_real_lengths"] = {k: dist(v) for k, v in synthetic(args.synthetic).items()}
    if args.json:
        print(json.dumps(result, sort_keys=True))
        return
    cols = ("n", "min", "p25", "median", "mean", "p75", "max")
    print("per paper            " + " ".join(f"{c:>7}" for c in cols))
    for source in ("corpus_lengths", "synthetic_real_lengths"):
        for name, d in result.get(source, {}).items():
            label = f"{'corpus' if source == 'corpus_lengths' else 'synth'} {name}"
            print(f"{label:<21}" + " ".join(f"{d[c]:>7}" for c in cols))
    pol = result["policies"]
    print(f"\ndocuments from {pol['papers']} corpus papers (fit budget {pol['fit_budget_tokens']} tokens)")
    for name, p in pol.items():
        if not isinstance(p, dict) or "usable" not in p:
            continue
        d = p["tokens"]
        print(
            f"{name:<12} usable {p['usable']:>3} ({p['usable_share']:.0%})  tokens min {d['min']} "
            f"median {d['median']} mean {d['mean']} max {d['max']}"
        )
        if "reverification" in p:
            print(f"             re-verification: {p['reverification']}; "
                  f"reference lists sampled {p['reference_lists_sampled']}, "
                  f"median share of entries kept {p['entries_kept_share_median']}")  # fmt: skip
    print(f"Ref-Long Paper: {pol['reflong_paper']}")


if __name__ == "__main__":
    main()
