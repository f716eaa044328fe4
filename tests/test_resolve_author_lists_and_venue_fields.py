"""Two shapes of reference the resolver used to miss, found in the real corpus (issue 12, item 12).

Both are checked end to end from the PDF: parse -> references section -> built-in splitter ->
entry parser -> resolver against ../shared/corpus/seeds.jsonl.
(a) 2407.01603 cites GPT-4's technical report with all ~280 authors: the 4,215-character entry was
    cut at 4,000 characters, before its title and arXiv id.
(b) 2204.02311 (PaLM) cites InstructGPT as "..., and Lowe, R. Training language models to follow
    instructions with human feedback. Preprint, 2022. URL https://cdn.openai.com/papers/Training_
    language_models_...": the parsed title was "Preprint, 2022" and the resolver aligned the seed
    title with the URL (field score 78.8: review, not accept).
"""

from __future__ import annotations

import json

import pytest

from reflong.citations.fields.entry_parse import parse_entry
from reflong.citations.fields.split import MAX_ENTRY_CHARS, split_references
from reflong.citations.resolve import SeedIndex, SeedTitle
from reflong.ingest.parse.pdf_text import parse_pdf


@pytest.fixture(scope="module")
def index(corpus_dir) -> SeedIndex:
    rows = [json.loads(line) for line in (corpus_dir / "seeds.jsonl").read_text().splitlines()]
    return SeedIndex(SeedTitle(r["arxiv_id"], r["title"], r["published"], r["first_author"]) for r in rows)


def _entries(corpus_dir, arxiv_id: str) -> list[str]:
    entries, _style = split_references(parse_pdf(corpus_dir / "pdf" / f"{arxiv_id}.pdf").references)
    return entries


def _accepted(index: SeedIndex, entries: list[str]) -> set[str]:
    return {m.seed_id for e in entries for m in index.resolve(e) if m.band == "accept"}


def test_entry_with_hundreds_of_authors_keeps_its_title_and_id(corpus_dir, index):
    entries = _entries(corpus_dir, "2407.01603")
    gpt4 = next(e for e in entries if e.startswith("OpenAI, Josh Achiam"))
    assert len(gpt4) <= MAX_ENTRY_CHARS
    assert "GPT-4 technical report" in gpt4 and "2303.08774" in gpt4
    assert parse_entry(gpt4).arxiv_id == "2303.08774"
    assert "2303.08774" in _accepted(index, entries)


def test_seed_title_before_a_venue_field_is_matched(corpus_dir, index):
    entries = _entries(corpus_dir, "2204.02311")
    entry = next(e for e in entries if e.startswith("Ouyang, L., Wu, J."))
    assert parse_entry(entry).title == "Training language models to follow instructions with human feedback"
    matches = index.resolve(entry)
    assert (matches[0].seed_id, matches[0].band, matches[0].score) == ("2203.02155", "accept", 100.0)
    assert "2203.02155" in _accepted(index, entries)
