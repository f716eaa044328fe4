"""The share of each bibliography phenomenon, on the real corpus and on a rehearsal's world.

Both sides are measured the same way (``reflong.demo.bib_phenomena``), so the synthetic world's
shares can be held beside the real ones:

* entry phenomena over every entry as the pipeline reads it: the corpus PDFs through
  ``parse_pdf`` + ``split_reference_entries``; a rehearsal's PDFs from its store's ``reference``
  rows (the same reading, done by the run);
* title phenomena over entries that cite a known work, compared with its current arXiv title: the
  corpus labels' cites plus every corpus entry naming a seed's arXiv id; the world's entries for
  the seeds its truth says each read paper cites, as the stand-in printed them.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from reflong.demo.bib_phenomena import (
    ENTRY_PHENOMENA,
    TITLE_PHENOMENA,
    entry_phenomena,
    shares,
    title_phenomena,
)


def corpus_entries(corpus: Path) -> list[tuple[str, str]]:
    """(paper, entry text) of every bibliography entry the project's reader finds in the PDFs."""
    from reflong.citations.fields.split import split_reference_entries
    from reflong.common.errors import ReflongError
    from reflong.ingest.parse.pdf_text import parse_pdf

    out = []
    for pdf in sorted((corpus / "pdf").glob("*.pdf")):
        try:
            parsed = parse_pdf(pdf)
        except ReflongError:
            continue
        entries, _style = split_reference_entries(parsed.references)
        out.extend((pdf.stem, e.text) for e in entries)
    return out


def corpus_cited(corpus: Path, entries: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """(entry text, seed title) of the corpus entries citing a seed: the labels' cites, then every
    entry naming a seed's arXiv id (one per citing paper and seed)."""
    from reflong.citations.fields.entry_parse import find_arxiv_id

    seeds = {}
    for line in (corpus / "seeds.jsonl").read_text(encoding="utf-8").splitlines():
        if line:
            rec = json.loads(line)
            seeds[rec["arxiv_id"]] = rec["title"]
    pairs: dict[tuple[str, str], str] = {}
    for line in (corpus / "labels" / "dev.jsonl").read_text(encoding="utf-8").splitlines():
        if line:
            rec = json.loads(line)
            for c in rec["cites"]:
                pairs[(rec["paper"], c["seed"])] = c["reference"]
    for paper, text in entries:
        found = find_arxiv_id(text)
        aid = found[0] if isinstance(found, tuple) else found
        if aid in seeds and aid != paper:
            pairs.setdefault((paper, aid), text)
    return [(text, seeds[seed]) for (_paper, seed), text in sorted(pairs.items())]


def corpus_shares(corpus: Path | str) -> dict:
    """{"entries": shares of ENTRY_PHENOMENA, "cited_titles": shares of TITLE_PHENOMENA}."""
    corpus = Path(corpus)
    entries = corpus_entries(corpus)
    cited = corpus_cited(corpus, entries)
    return {
        "entries": shares((entry_phenomena(t) for _, t in entries), ENTRY_PHENOMENA),
        "cited_titles": shares((title_phenomena(e, t) for e, t in cited), TITLE_PHENOMENA),
    }


def world_shares(run_dir: Path | str, world: Path | str, lengths: str = "real", messy: bool = True) -> dict:
    """The same shares for a rehearsal: its store's read entries, and the entries the stand-in
    printed for the seeds cited by every paper version the run read (``messy``: as the stand-in
    printed them; False for a run made before entries went wrong)."""
    from reflong.demo.citation_graph import TRUTH_FILE
    from reflong.demo.on_demand import OnDemandPdfs
    from reflong.ingest.catalog.reader import read_catalog

    db = Path(run_dir) / "store.db"
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        raw = [r[0] for r in con.execute("select raw from reference")]
        lists = con.execute("select arxiv_id, version from reference_list where status = 'ok'").fetchall()
    finally:
        con.close()
    catalog = read_catalog(Path(world))
    pdfs = OnDemandPdfs(catalog, Path(world) / TRUTH_FILE, lengths=lengths, messy=messy)
    cited = []
    for arxiv_id, version in sorted(lists):
        printed = pdfs.entries(arxiv_id, version)
        for e in printed[0] if printed else []:
            if e.key in catalog.papers:
                cited.append((e.text, catalog.papers[e.key].title))
    return {
        "entries": shares((entry_phenomena(t) for t in raw), ENTRY_PHENOMENA),
        "cited_titles": shares((title_phenomena(e, t) for e, t in cited), TITLE_PHENOMENA),
    }
