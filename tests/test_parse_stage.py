"""The parse stage end to end: store rows, bad and hostile PDFs, crashes, reruns, the CLI.

Bad PDFs are generated here with PyMuPDF from a real corpus paper (never committed).
"""

from __future__ import annotations

import hashlib
import json
import multiprocessing as mp
import os
import threading
import time
from pathlib import Path

import pymupdf
import pytest
from click.testing import CliRunner
from sqlmodel import select

from reflong.cli import main
from reflong.common.tokenizer import get_tokenizer
from reflong.db import Chunk, Failure, Paper, ParsedDoc, open_store, session_for
from reflong.ingest.parse.pdf_text import PdfError, parse_pdf
from reflong.ingest.parse.stage import ParseSettings, run_parse

GOOD = ("1706.03762", "1810.04805", "2212.08410")


def add_papers(engine, pdfs: list[Path]) -> None:
    """Insert downloaded Paper rows for PDFs, with their real sha256."""
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


def nested_forms_pdf(path: Path, depth: int, visible: bool) -> Path:
    """A hostile PDF: form XObjects that each draw the one below ten times (10**depth draws).

    With ``visible`` the text lands on the page and the text layer balloons in memory; without,
    it is drawn off the page, so extraction only burns CPU (a "hang").
    """
    doc = pymupdf.open()
    page = doc.new_page()
    font = "<< /F1 << /Type /Font /Subtype /Type1 /BaseFont /Helvetica >> >>"
    prev = 0
    for k in range(depth + 1):
        xref = doc.get_new_xref()
        if k == 0:
            pos = "10 10" if visible else "-5000 -5000"
            res, stream = f"<< /Font {font} >>", f"BT /F1 8 Tf {pos} Td (hostile text) Tj ET"
        else:
            res, stream = f"<< /XObject << /X {prev} 0 R >> >>", "/X Do " * 10
        doc.update_object(
            xref, f"<< /Type /XObject /Subtype /Form /BBox [-9999 -9999 9999 9999] /Resources {res} >>"
        )
        doc.update_stream(xref, stream.encode())
        prev = xref
    doc.xref_set_key(page.xref, "Resources", f"<< /XObject << /Top {prev} 0 R >> >>")
    content = doc.get_new_xref()
    doc.update_object(content, "<<>>")
    doc.update_stream(content, b"/Top Do")
    doc.xref_set_key(page.xref, "Contents", f"{content} 0 R")
    doc.save(path)
    return path


@pytest.fixture(scope="module")
def bad_pdfs(tmp_path_factory, corpus_dir) -> dict[str, Path]:
    """One PDF per kind of bad input, named by the failure reason it must produce."""
    out = tmp_path_factory.mktemp("bad")
    src = corpus_dir / "pdf" / "1706.03762.pdf"
    real = pymupdf.open(src)
    paths = {}
    paths["encrypted"] = out / "encrypted.pdf"
    real.save(paths["encrypted"], encryption=pymupdf.PDF_ENCRYPT_AES_256, user_pw="user", owner_pw="owner")
    scanned = pymupdf.open()
    page = scanned.new_page()
    page.insert_image(page.rect, pixmap=real[0].get_pixmap(dpi=40))
    paths["no-text-layer"] = out / "scanned.pdf"
    scanned.save(paths["no-text-layer"])
    data = src.read_bytes()
    paths["corrupt"] = out / "truncated.pdf"
    paths["corrupt"].write_bytes(data[: len(data) // 3])
    paths["zero-pages"] = out / "zero.pdf"
    paths["zero-pages"].write_bytes(
        b"%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n"
        b"2 0 obj<</Type/Pages/Kids[]/Count 0>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n"
    )
    return paths


def test_parse_pdf_classifies_bad_input(bad_pdfs):
    for reason, path in bad_pdfs.items():
        with pytest.raises(PdfError) as err:
            parse_pdf(path)
        assert err.value.reason == reason, (path.name, err.value)


def test_stage_records_bad_pdfs_and_keeps_going_then_resumes(db_path, corpus_dir, bad_pdfs):
    engine = open_store(db_path)
    good = [corpus_dir / "pdf" / f"{a}.pdf" for a in GOOD]
    add_papers(engine, [*good[:1], *bad_pdfs.values(), *good[1:]])
    report = run_parse(engine, ParseSettings(workers=2, chunk_tokens=500, batch_size=2))
    assert (report.parsed, report.failed, report.without_references) == (3, 4, 0)
    assert report.failures == {r: 1 for r in bad_pdfs}
    tok = get_tokenizer("o200k_base")
    with session_for(engine) as s:
        docs = s.exec(select(ParsedDoc)).all()
        assert sorted(d.status for d in docs) == ["failed"] * 4 + ["parsed"] * 3
        assert all(d.has_references and d.references_text for d in docs if d.status == "parsed")
        failures = {f.subject: f.reason for f in s.exec(select(Failure).where(Failure.stage == "parse"))}
        assert failures == {f"{p.stem}v1": reason for reason, p in bad_pdfs.items()}
        chunks = s.exec(select(Chunk)).all()
        assert len(chunks) == report.chunks > 3
        for c in chunks:
            assert tok.count(c.text) == c.n_tokens <= 500
        n_rows = len(docs), len(chunks)
    again = run_parse(engine, ParseSettings(workers=2, chunk_tokens=500))
    assert (again.parsed, again.failed, again.skipped) == (0, 0, 7)
    retry = run_parse(engine, ParseSettings(workers=1, chunk_tokens=500, retry_failed=True))
    assert (retry.parsed, retry.failed, retry.skipped) == (0, 4, 3)
    with session_for(engine) as s:
        assert (len(s.exec(select(ParsedDoc)).all()), len(s.exec(select(Chunk)).all())) == n_rows


def test_papers_sharing_a_pdf_share_one_parse(db_path, corpus_dir, tmp_path):
    engine = open_store(db_path)
    pdf = corpus_dir / "pdf" / "2212.08410.pdf"
    copy = tmp_path / "copy-of-2212.08410.pdf"
    copy.write_bytes(pdf.read_bytes())
    add_papers(engine, [pdf, copy])
    report = run_parse(engine, ParseSettings(workers=2))
    assert report.parsed == 1
    with session_for(engine) as s:
        assert len(s.exec(select(ParsedDoc)).all()) == 1


@pytest.mark.slow
def test_hung_pdf_is_stopped_by_the_time_limit(db_path, corpus_dir, tmp_path):
    engine = open_store(db_path)
    hang = nested_forms_pdf(tmp_path / "hang.pdf", depth=8, visible=False)  # minutes of CPU
    add_papers(engine, [hang, corpus_dir / "pdf" / "2212.08410.pdf"])
    t0 = time.monotonic()
    report = run_parse(engine, ParseSettings(workers=1, timeout_s=1.5))
    assert time.monotonic() - t0 < 30
    assert (report.parsed, report.failures) == (1, {"timeout": 1})
    assert mp.active_children() == []  # the hung worker was killed, the others stopped


@pytest.mark.slow
def test_ballooning_pdf_is_stopped_by_the_memory_cap(db_path, corpus_dir, tmp_path):
    engine = open_store(db_path)
    bomb = nested_forms_pdf(tmp_path / "bomb.pdf", depth=7, visible=True)  # 10M strings on the page
    add_papers(engine, [bomb, corpus_dir / "pdf" / "2212.08410.pdf"])
    report = run_parse(engine, ParseSettings(workers=2, memory_mb=100, timeout_s=60))
    assert (report.parsed, report.failures) == (1, {"memory-limit": 1})


def _has_open(pid: int | None, path: Path) -> bool:
    """Whether process ``pid`` holds ``path`` open (Linux /proc)."""
    try:
        fds = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        return False
    for fd in fds:
        try:
            if os.readlink(f"/proc/{pid}/fd/{fd}") == str(path):
                return True
        except OSError:
            continue
    return False


def test_worker_crash_loses_no_other_result(db_path, corpus_dir, tmp_path):
    engine = open_store(db_path)
    hang = nested_forms_pdf(tmp_path / "hang.pdf", depth=8, visible=False)
    good = [corpus_dir / "pdf" / f"{a}.pdf" for a in GOOD]
    add_papers(engine, [good[0], hang, *good[1:]])

    def kill_the_busy_worker() -> None:  # once the hostile PDF is being parsed, the worker "crashes"
        # Watch the workers' open files rather than sleep a fixed time: on a loaded machine the
        # worker may still be on a good PDF after any fixed delay (then the wrong PDF "crashes").
        deadline = time.monotonic() + 50
        while time.monotonic() < deadline:
            for child in mp.active_children():
                if _has_open(child.pid, hang):
                    child.kill()
                    return
            time.sleep(0.02)

    killer = threading.Thread(target=kill_the_busy_worker)
    killer.start()
    report = run_parse(engine, ParseSettings(workers=1, timeout_s=60, batch_size=1))
    killer.join()
    assert (report.parsed, report.failures) == (3, {"crash": 1})
    with session_for(engine) as s:
        assert s.exec(select(Failure.reason).where(Failure.subject == "hangv1")).one() == "crash"


def test_cli_parse_and_stats(db_path, corpus_dir):
    engine = open_store(db_path)
    add_papers(engine, [corpus_dir / "pdf" / f"{a}.pdf" for a in GOOD[:2]])
    runner = CliRunner()
    res = runner.invoke(main, ["parse", "--db", str(db_path), "--workers", "2", "--chunk-tokens", "800"])
    assert res.exit_code == 0, res.output
    assert "parsed 2 PDFs" in res.output and "failed 0" in res.output
    res = runner.invoke(main, ["stats", "--db", str(db_path), "--format", "json"])
    stats = json.loads(res.output)
    assert (stats["papers"], stats["parsed"], stats["failed"], stats["with_references"]) == (2, 2, 0, 2)
    assert stats["chunks"] > 4 and stats["chunk_tokens_max"] <= 800
    # Another chunk size: the stored text is chunked again, the PDFs are not parsed again.
    res = runner.invoke(
        main, ["parse", "--db", str(db_path), "--chunk-tokens", "300", "--tokenizer", "cl100k_base"]
    )
    assert res.exit_code == 0 and "parsed 0 PDFs" in res.output and "(2 re-chunked)" in res.output
    stats2 = json.loads(runner.invoke(main, ["stats", "--db", str(db_path), "--format", "json"]).output)
    assert stats2["chunks"] > stats["chunks"] and stats2["chunk_tokens_max"] <= 300
    tok = get_tokenizer("cl100k_base")
    with session_for(engine) as s:
        assert all(tok.count(c.text) == c.n_tokens for c in s.exec(select(Chunk)))
        assert {(d.tokenizer, d.chunk_tokens) for d in s.exec(select(ParsedDoc))} == {("cl100k_base", 300)}
    res = runner.invoke(main, ["parse", "--db", str(db_path), "--tokenizer", "no-such-tokenizer"])
    # a usage error, read with the options (issue 20, finding 8)
    assert res.exit_code == 2 and "Invalid value for '--tokenizer': unknown tokenizer" in res.output
