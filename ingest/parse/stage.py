"""The parse stage: every downloaded, not-yet-parsed PDF -> ParsedDoc + chunks, in a process pool.

PDFs are untrusted input. Each worker process caps its own address space (``RLIMIT_AS``), and the
parent kills a worker whose document runs past the time limit; either way that one document is
recorded as failed (reason ``timeout``, ``memory-limit`` or ``crash``), a fresh worker takes its
place, and the run goes on. Results flow back to the parent, the only writer, which commits them
in batches: a crash loses at most the uncommitted batch, and a rerun parses only what is missing,
keyed by (PDF sha256, parser version) -- papers that share bytes share one parse.

Why a small pool of our own instead of ``concurrent.futures``: ``ProcessPoolExecutor`` cannot kill
one hung task, and one dead worker breaks the whole executor (every pending future fails).
"""

from __future__ import annotations

import contextlib
import ctypes
import multiprocessing as mp
import os
import resource
import signal
import sys
import time
import traceback
from collections import deque
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait

import pymupdf
from sqlalchemy.engine import Engine
from sqlmodel import select

from reflong.common.progress import ProgressFactory, null_progress
from reflong.common.tokenizer import get_tokenizer
from reflong.db.engine import session_for
from reflong.db.papers import Paper, clear_failure, record_failure
from reflong.db.text import Chunk, ParsedDoc
from reflong.ingest.parse.chunking import chunk_text
from reflong.ingest.parse.pdf_text import PARSER_VERSION, PdfError, parse_pdf
from reflong.ingest.parse.settings import ParseSettings

STAGE = "parse"
_PR_SET_PDEATHSIG = 1  # <linux/prctl.h>


@dataclass
class DocResult:
    """What a worker sends back for one PDF (plain data: it crosses a process boundary)."""

    sha256: str
    ok: bool
    n_pages: int = 0
    body: str = ""
    references: str = ""
    appendix: str = ""
    has_references: bool = False
    chunks: list[tuple[str, str, int]] = field(default_factory=list)  # (section, text, n_tokens)
    reason: str = ""
    message: str = ""


@dataclass
class ParseReport:
    parsed: int = 0
    failed: int = 0
    without_references: int = 0
    skipped: int = 0  # already parsed with this parser version
    rechunked: int = 0  # parsed earlier with another tokenizer or chunk size: chunks redone
    failures: dict[str, int] = field(default_factory=dict)
    pages: int = 0
    chunks: int = 0
    seconds: float = 0.0


def nothing_parsed(report: ParseReport) -> str | None:
    """Why a parse run that had PDFs to parse produced no text at all (non-zero exit), or None."""
    if report.failed and not report.parsed and not report.skipped:
        reasons = ", ".join(f"{k}={v}" for k, v in sorted(report.failures.items()))
        return (
            f"no PDF could be parsed: all {report.failed} failed ({reasons}); the reasons are recorded "
            "(`reflong-build stats`); `parse --retry-failed` tries them again"
        )
    return None


def parse_document(path: str, sha256: str, tokenizer: str, chunk_tokens: int) -> DocResult:
    """Parse one PDF and chunk its sections (runs inside a worker)."""
    try:
        parsed = parse_pdf(path)
    except PdfError as exc:
        return DocResult(sha256, False, reason=exc.reason, message=str(exc))
    except MemoryError:
        return DocResult(sha256, False, reason="memory-limit", message="worker memory cap reached")
    chunks = chunk_sections(parsed.body, parsed.appendix, parsed.references, tokenizer, chunk_tokens)
    return DocResult(
        sha256,
        True,
        n_pages=parsed.n_pages,
        body=parsed.body,
        references=parsed.references,
        appendix=parsed.appendix,
        has_references=parsed.has_references,
        chunks=chunks,
    )


def chunk_sections(
    body: str, appendix: str, references: str, tokenizer: str, chunk_tokens: int
) -> list[tuple[str, str, int]]:
    """(section, text, n_tokens) chunks in the paper's order: body, references, then appendix."""
    tok = get_tokenizer(tokenizer)
    out: list[tuple[str, str, int]] = []
    for section, text in (("body", body), ("references", references), ("appendix", appendix)):
        # References hold one entry per line: lines are the paragraphs the chunker may cut between.
        sep = "\n" if section == "references" else "\n\n"
        chunks = chunk_text(text, tok, chunk_tokens, section=section, paragraph_sep=sep)
        out += [(c.section, c.text, c.n_tokens) for c in chunks]
    return out


# --- workers --------------------------------------------------------------------------------


def _vm_bytes() -> int:
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("VmSize:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def _die_with_parent(parent_pid: int) -> None:
    """Ask the kernel to SIGKILL this worker when its parent dies (Linux ``PR_SET_PDEATHSIG``).

    Without it a ``kill -9`` of ``parse``/``paper`` leaves workers blocked on their pipe forever:
    with fork, every later worker inherits the parent's end of the earlier workers' pipes, so no
    worker ever sees EOF. Elsewhere the worker polls its parent id between documents instead.
    """
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent_pid:  # the parent died before the request above took effect
        os._exit(1)


def _recv_or_orphaned(conn: Connection, parent_pid: int):
    """The next task; exits when the parent is gone (the portable fallback of PDEATHSIG)."""
    while not conn.poll(1.0):
        if os.getppid() != parent_pid:
            os._exit(1)
    return conn.recv()


def _worker_main(
    conn: Connection, memory_mb: int, tokenizer: str, chunk_tokens: int, parent_pid: int | None = None
) -> None:
    """Worker loop: cap memory, then parse whatever the parent sends until it sends None."""
    parent_pid = parent_pid or os.getppid()
    _die_with_parent(parent_pid)
    get_tokenizer(tokenizer)  # load the vocabulary once per worker, before the cap applies
    pymupdf.TOOLS.mupdf_display_errors(False)  # failures are recorded, not printed per PDF
    if memory_mb > 0:
        limit = _vm_bytes() + memory_mb * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    while True:
        try:
            task = _recv_or_orphaned(conn, parent_pid)
        except EOFError:
            return
        if task is None:
            return
        path, sha = task
        try:
            result = parse_document(path, sha, tokenizer, chunk_tokens)
        except MemoryError:
            result = DocResult(sha, False, reason="memory-limit", message="worker memory cap reached")
        except Exception as exc:  # a bug or a MuPDF failure we did not classify: record, go on
            last = traceback.format_exception_only(type(exc), exc)[-1].strip()
            result = DocResult(sha, False, reason="parser-error", message=last[:500])
        conn.send(result)


def _mp_context():
    # fork: workers start in milliseconds (a killed worker is replaced mid-run); spawn elsewhere.
    return mp.get_context("fork" if "fork" in mp.get_all_start_methods() else "spawn")


class _Worker:
    def __init__(self, settings: ParseSettings):
        ctx = _mp_context()
        self.conn, child = ctx.Pipe()
        self.proc = ctx.Process(
            target=_worker_main,
            args=(child, settings.memory_mb, settings.tokenizer, settings.chunk_tokens, os.getpid()),
            daemon=True,
        )
        self.proc.start()
        child.close()
        self.task: tuple[str, str] | None = None
        self.started = 0.0

    def give(self, task: tuple[str, str]) -> None:
        self.task, self.started = task, time.monotonic()
        self.conn.send(task)

    def kill(self) -> None:
        if self.proc.is_alive():
            self.proc.kill()
        self.proc.join(5)
        self.conn.close()

    def stop(self) -> None:
        with contextlib.suppress(OSError):
            self.conn.send(None)
        self.proc.join(5)
        if self.proc.is_alive():
            self.proc.kill()
            self.proc.join(5)
        self.conn.close()


def run_pool(tasks: list[tuple[str, str]], settings: ParseSettings):
    """Yield a DocResult for every (path, sha256) task; hung or crashed workers are replaced."""
    queue = deque(tasks)
    n_workers = max(1, min(settings.workers, len(tasks)))
    workers = [_Worker(settings) for _ in range(n_workers)] if tasks else []
    try:
        for w in workers:
            if queue:
                w.give(queue.popleft())
        while any(w.task for w in workers):
            busy = [w for w in workers if w.task]
            ready = wait([w.conn for w in busy] + [w.proc.sentinel for w in busy], timeout=0.25)
            now = time.monotonic()
            for i, w in enumerate(workers):
                if not w.task:
                    continue
                result = None
                if w.conn in ready:
                    try:
                        result = w.conn.recv()
                    except (EOFError, OSError):
                        result = None
                if result is not None:
                    w.task = None
                    yield result
                    if queue:
                        w.give(queue.popleft())
                    continue
                died = w.proc.sentinel in ready or not w.proc.is_alive()
                timed_out = now - w.started > settings.timeout_s
                if died or timed_out:
                    _, sha = w.task
                    w.kill()
                    if timed_out and not died:
                        reason = "timeout"
                        message = f"parsing took longer than {settings.timeout_s:g} s; worker stopped"
                    else:
                        reason = "crash"
                        message = f"worker died (exit code {w.proc.exitcode}) while parsing"
                    yield DocResult(sha, False, reason=reason, message=message)
                    workers[i] = _Worker(settings)
                    if queue:
                        workers[i].give(queue.popleft())
    finally:
        for w in workers:
            w.stop()


# --- the stage ------------------------------------------------------------------------------


def _subject(paper: Paper) -> str:
    return f"{paper.arxiv_id}v{paper.version}" if paper.version else paper.arxiv_id


def pending_papers(engine: Engine, retry_failed: bool = False) -> tuple[dict[str, list[Paper]], int]:
    """Downloaded papers grouped by PDF sha256, minus those parsed with this parser version."""
    with session_for(engine) as session:
        papers = session.exec(
            select(Paper)
            .where(Paper.status == "downloaded", Paper.pdf_path.is_not(None), Paper.pdf_sha256.is_not(None))
            .order_by(Paper.id)
        ).all()
        done_q = select(ParsedDoc.pdf_sha256, ParsedDoc.status).where(
            ParsedDoc.parser_version == PARSER_VERSION
        )
        done = {sha for sha, status in session.exec(done_q).all() if status == "parsed" or not retry_failed}
    groups: dict[str, list[Paper]] = {}
    skipped = 0
    for p in papers:
        if p.pdf_sha256 in done:
            skipped += 1
            continue
        groups.setdefault(p.pdf_sha256, []).append(p)
    return groups, skipped


def _write_batch(engine: Engine, batch: list[DocResult], groups: dict[str, list[Paper]], settings) -> None:
    tok_name = get_tokenizer(settings.tokenizer).name
    with session_for(engine) as session:
        for r in batch:
            old = session.exec(
                select(ParsedDoc).where(
                    ParsedDoc.pdf_sha256 == r.sha256, ParsedDoc.parser_version == PARSER_VERSION
                )
            ).first()
            if old is not None:  # a failed parse being retried
                for c in session.exec(select(Chunk).where(Chunk.parsed_doc_id == old.id)).all():
                    session.delete(c)
                session.delete(old)
                session.flush()
            doc = ParsedDoc(
                pdf_sha256=r.sha256,
                parser_version=PARSER_VERSION,
                n_pages=r.n_pages,
                body_text=r.body,
                references_text=r.references,
                appendix_text=r.appendix,
                has_references=r.has_references,
                status="parsed" if r.ok else "failed",
                error=None if r.ok else f"{r.reason}: {r.message}",
                tokenizer=tok_name if r.ok else "",
                chunk_tokens=settings.chunk_tokens if r.ok else 0,
                n_tokens=sum(n for _, _, n in r.chunks),
            )
            session.add(doc)
            session.flush()
            session.add_all(
                Chunk(parsed_doc_id=doc.id, order=i, section=sec, text=text, n_tokens=n)
                for i, (sec, text, n) in enumerate(r.chunks)
            )
            for paper in groups.get(r.sha256, []):
                if r.ok:
                    clear_failure(session, STAGE, _subject(paper))
                else:
                    record_failure(session, STAGE, _subject(paper), r.reason, r.message)
        session.commit()


def run_parse(
    engine: Engine, settings: ParseSettings | None = None, progress: ProgressFactory = null_progress
) -> ParseReport:
    """Parse every pending paper; returns counts for the CLI summary."""
    settings = settings or ParseSettings()
    get_tokenizer(settings.tokenizer)  # fail fast on a bad --tokenizer, before any worker starts
    t0 = time.perf_counter()
    groups, skipped = pending_papers(engine, settings.retry_failed)
    report = ParseReport(skipped=skipped)
    tasks = [(ps[0].pdf_path, sha) for sha, ps in groups.items()]
    missing = [(path, sha) for path, sha in tasks if not os.path.isfile(path)]
    batch: list[DocResult] = [
        DocResult(sha, False, reason="missing-file", message=f"PDF not found: {path}")
        for path, sha in missing
    ]
    # Largest files first: the pool then ends on small ones instead of one worker finishing a
    # long PDF alone (longest-processing-time-first scheduling).
    tasks = sorted((t for t in tasks if t not in missing), key=lambda t: (-os.path.getsize(t[0]), t[1]))
    last_write = time.monotonic()
    with progress(total=len(groups), desc="parse", unit="pdf") as bar:
        bar.update(len(batch))
        try:
            for result in run_pool(tasks, settings):
                batch.append(result)
                bar.update()
                if len(batch) >= settings.batch_size or time.monotonic() - last_write > 5:
                    _write_batch(engine, batch, groups, settings)
                    _tally(report, batch)
                    batch, last_write = [], time.monotonic()
        finally:  # also on Ctrl-C: what was parsed is kept, a rerun does the rest
            if batch:
                _write_batch(engine, batch, groups, settings)
                _tally(report, batch)
    report.rechunked = rechunk_stale(engine, settings)
    report.seconds = time.perf_counter() - t0
    return report


def rechunk_stale(engine: Engine, settings: ParseSettings) -> int:
    """Re-chunk parses made with another tokenizer or chunk size, from their stored text.

    The text does not depend on those settings, so the PDF is not parsed again.
    """
    tok_name = get_tokenizer(settings.tokenizer).name
    with session_for(engine) as session:
        stale = session.exec(
            select(ParsedDoc).where(
                ParsedDoc.parser_version == PARSER_VERSION,
                ParsedDoc.status == "parsed",
                (ParsedDoc.tokenizer != tok_name) | (ParsedDoc.chunk_tokens != settings.chunk_tokens),
            )
        ).all()
        for doc in stale:
            for c in session.exec(select(Chunk).where(Chunk.parsed_doc_id == doc.id)).all():
                session.delete(c)
            session.flush()
            chunks = chunk_sections(
                doc.body_text,
                doc.appendix_text,
                doc.references_text,
                settings.tokenizer,
                settings.chunk_tokens,
            )
            session.add_all(
                Chunk(parsed_doc_id=doc.id, order=i, section=sec, text=text, n_tokens=n)
                for i, (sec, text, n) in enumerate(chunks)
            )
            doc.tokenizer, doc.chunk_tokens = tok_name, settings.chunk_tokens
            doc.n_tokens = sum(n for _, _, n in chunks)
            session.add(doc)
        session.commit()
    return len(stale)


def _tally(report: ParseReport, batch: list[DocResult]) -> None:
    for r in batch:
        if r.ok:
            report.parsed += 1
            report.pages += r.n_pages
            report.chunks += len(r.chunks)
            report.without_references += not r.has_references
        else:
            report.failed += 1
            report.failures[r.reason] = report.failures.get(r.reason, 0) + 1
