"""The parse stage end to end on real corpus PDFs: store rows, chunks, reruns."""

from __future__ import annotations

import hashlib
from pathlib import Path

from sqlmodel import select

from reflong.db import Chunk, Paper, ParsedDoc, open_store, session_for
from reflong.ingest.parse_stage import ParseSettings, run_parse
from reflong.ingest.tokenizer import get_tokenizer


def add_papers(engine, pdfs: list[Path]) -> None:
    """Insert downloaded Paper rows for real PDFs, with their real sha256."""
    with session_for(engine) as s:
        for pdf in pdfs:
            sha = hashlib.sha256(pdf.read_bytes()).hexdigest()
            s.add(
                Paper(
                    arxiv_id=pdf.stem,
                    version=1,
                    title=pdf.stem,
                    pdf_path=str(pdf),
                    pdf_sha256=sha,
                    status="downloaded",
                )
            )
        s.commit()


def test_parse_stage_stores_text_and_chunks_and_resumes(db_path, corpus_dir):
    pdfs = [corpus_dir / "pdf" / f"{a}.pdf" for a in ("1706.03762", "1810.04805", "2212.08410")]
    engine = open_store(db_path)
    add_papers(engine, pdfs)
    report = run_parse(engine, ParseSettings(workers=2, chunk_tokens=500))
    assert (report.parsed, report.failed, report.without_references) == (3, 0, 0)
    tok = get_tokenizer("o200k_base")
    with session_for(engine) as s:
        docs = s.exec(select(ParsedDoc)).all()
        assert len(docs) == 3 and all(d.has_references and d.references_text for d in docs)
        chunks = s.exec(select(Chunk)).all()
        assert len(chunks) == report.chunks
        for c in chunks:
            assert tok.count(c.text) == c.n_tokens <= 500
    again = run_parse(engine, ParseSettings(workers=2, chunk_tokens=500))
    assert (again.parsed, again.skipped) == (0, 3)
