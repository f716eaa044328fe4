"""The ``cite`` stage: every parsed paper's references section -> stored, parsed reference entries.

Incremental: a paper whose reference list was built from the same parse (parsed_doc id, parser
version) with the same splitter - or by GROBID from the same PDF - is skipped. A paper whose
references cannot be read gets a ``failure`` row with a reason (``no-references-section``,
``no-entries``, ``too-many-entries``, ``grobid-http-500``, ``grobid-not-tei``, ``grobid-timeout``...)
and the run goes on. A GROBID failure stores no list, so the next run asks again; a list stored
``empty`` is asked again with ``retry_failed`` (``cite --retry-failed``).

A GROBID that stops answering (``MAX_CONSECUTIVE_TIMEOUTS`` timeouts in a row) stops the stage with
one line (``NetworkError``); the lists stored so far stay and a rerun resumes with the papers left.
With ``grobid_fallback`` the rest of the run uses the built-in parser instead, with one warning.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass, field

from sqlalchemy import delete, func
from sqlalchemy.engine import Engine
from sqlmodel import Session, select

from reflong.citations.fields.entry_parse import ParsedEntry, parse_entry
from reflong.citations.fields.split import SPLITTER_VERSION, split_references
from reflong.common.errors import NetworkError
from reflong.common.progress import ProgressFactory, null_progress
from reflong.db.citations import Citation, Reference, ReferenceList
from reflong.db.papers import Paper, clear_failure, record_failure, utcnow
from reflong.db.text import ParsedDoc

log = logging.getLogger(__name__)

STAGE = "cite"
MAX_ENTRIES = 3000  # more is a garbled section (or a book); keep the first ones and say so


@dataclass
class CiteReport:
    papers: int = 0
    cited: int = 0
    skipped: int = 0
    failed: int = 0
    references: int = 0
    by_parser: dict[str, int] = field(default_factory=dict)


@dataclass
class _Work:
    arxiv_id: str
    version: int
    pdf_sha256: str | None
    pdf_path: str | None
    parsed_doc_id: int | None
    parser_version: str | None
    references_text: str
    has_references: bool


def _subject(arxiv_id: str, version: int) -> str:
    return f"{arxiv_id}v{version}" if version else arxiv_id


def _pending(session: Session) -> list[_Work]:
    """Papers with a successful parse (latest parse per PDF), in id order for determinism."""
    latest = (
        select(ParsedDoc.pdf_sha256, func.max(ParsedDoc.id).label("pid"))
        .where(ParsedDoc.status == "parsed")
        .group_by(ParsedDoc.pdf_sha256)
        .subquery()
    )
    rows = session.exec(
        select(
            Paper.arxiv_id,
            Paper.version,
            Paper.pdf_sha256,
            Paper.pdf_path,
            ParsedDoc.id,
            ParsedDoc.parser_version,
            ParsedDoc.has_references,
        )
        .join(latest, latest.c.pdf_sha256 == Paper.pdf_sha256)
        .join(ParsedDoc, ParsedDoc.id == latest.c.pid)
        .order_by(Paper.arxiv_id, Paper.version)
    ).all()
    # Texts are read one paper at a time, only for papers that need work (stores get large).
    return [_Work(a, v, sha, path, pid, pv, "", bool(has)) for a, v, sha, path, pid, pv, has in rows]


def _references_text(session: Session, parsed_doc_id: int | None) -> str:
    if parsed_doc_id is None:
        return ""
    return session.exec(select(ParsedDoc.references_text).where(ParsedDoc.id == parsed_doc_id)).one() or ""


def store_entries(
    session: Session,
    arxiv_id: str,
    version: int,
    entries: list[ParsedEntry],
    parser: str,
    source_key: str,
    pdf_sha256: str | None,
    status: str = "ok",
    error: str | None = None,
) -> ReferenceList:
    """Replace a paper's reference list (rows keyed by order, 1-based) and mark it unresolved.

    Edges whose evidence is gone (no entry at that order any more, or a different string there)
    are dropped now; edges on unchanged entries stay until resolution updates them in place."""
    session.exec(delete(Reference).where(Reference.arxiv_id == arxiv_id, Reference.version == version))
    for edge in session.exec(
        select(Citation).where(Citation.citing_arxiv_id == arxiv_id, Citation.citing_version == version)
    ).all():
        if edge.ref_order > len(entries) or entries[edge.ref_order - 1].raw != edge.reference:
            session.delete(edge)
    for order, e in enumerate(entries, start=1):
        session.add(
            Reference(
                arxiv_id=arxiv_id,
                version=version,
                order=order,
                raw=e.raw,
                title=e.title,
                authors_json=json.dumps(e.authors, ensure_ascii=False),
                year=e.year,
                ref_arxiv_id=e.arxiv_id,
                ref_arxiv_version=e.arxiv_version,
                doi=e.doi,
                parser=parser,
            )
        )
    rl = session.exec(
        select(ReferenceList).where(ReferenceList.arxiv_id == arxiv_id, ReferenceList.version == version)
    ).first() or ReferenceList(arxiv_id=arxiv_id, version=version, parser=parser)
    rl.pdf_sha256, rl.source_key, rl.parser = pdf_sha256, source_key, parser
    rl.n_references, rl.status, rl.error = len(entries), status, error
    rl.resolved_seq, rl.resolver, rl.updated_at = 0, "", utcnow()
    session.add(rl)
    return rl


def builtin_entries(references_text: str) -> tuple[list[ParsedEntry], str | None, str]:
    """Split and parse; returns (entries, failure reason or None, message)."""
    texts, style = split_references(references_text)
    if not texts:
        return [], "no-entries", "references section has no recognisable entries"
    reason, message = None, f"{len(texts)} entries ({style})"
    if len(texts) > MAX_ENTRIES:
        reason, message = "too-many-entries", f"{len(texts)} entries; kept the first {MAX_ENTRIES}"
        texts = texts[:MAX_ENTRIES]
    return [parse_entry(t) for t in texts], reason, message


def _max_timeouts() -> int:
    from reflong.citations.fields.grobid import MAX_CONSECUTIVE_TIMEOUTS

    return MAX_CONSECUTIVE_TIMEOUTS


def _stopped_line(grobid, timeouts: int, report: CiteReport) -> str:
    """What happened, with what /api/isalive says now (GROBID's liveness probe, asked again)."""
    alive, status = grobid.alive()
    probe = "still answers true" if alive else f"HTTP {status}" if status else "no answer either"
    return (
        f"GROBID at {grobid.url} stopped answering: {timeouts} PDFs in a row got no answer within "
        f"{grobid.timeout:g} s (--grobid-timeout; /api/isalive {probe})"
    )


def run_cite(
    engine: Engine,
    grobid_url: str | None = None,
    grobid_fallback: bool = False,
    grobid_service: str = "references",
    progress: ProgressFactory = null_progress,
    retry_failed: bool = False,
    grobid_timeout: float | None = None,
) -> CiteReport:
    """Build the reference list of every parsed paper that does not have an up-to-date one.

    ``retry_failed`` also redoes lists stored ``empty`` (no entries found) from the same input:
    a GROBID that was misbehaving, or a splitter that has since improved, may find them now.
    Failures that stored no list at all (GROBID errors) are retried on every run anyway.
    """
    report = CiteReport()
    grobid = _open_grobid(grobid_url, grobid_fallback, grobid_service, grobid_timeout)
    builtin_parser = f"builtin-{SPLITTER_VERSION}"
    with Session(engine) as session:
        work = _pending(session)
        existing = {(r.arxiv_id, r.version): r for r in session.exec(select(ReferenceList)).all()}
        report.papers = len(work)
        with progress(total=len(work), desc="cite", unit="paper") as bar:
            for w in work:
                bar.update(1)
                key_builtin = f"{builtin_parser}:parsed_doc={w.parsed_doc_id}:{w.parser_version}"
                key_grobid = f"grobid:{w.pdf_sha256}:{grobid_service}"
                wanted = key_grobid if grobid.client else key_builtin
                old = existing.get((w.arxiv_id, w.version))
                if old is not None and old.source_key == wanted and not (retry_failed and old.status != "ok"):
                    report.skipped += 1
                    continue
                read = _Read([], builtin_parser, key_builtin)
                if grobid.client is not None:
                    read = grobid.read(session, w, key_grobid, read, report)
                    if read is None:
                        continue  # the failure is recorded; the paper is retried on the next run
                if read.parser == builtin_parser:
                    read.entries, read.reason, read.message = _builtin_read(session, w)
                _store(session, w, read, report)
    return report


@dataclass
class _Read:
    """What one paper's references section gave: its entries, the parser and input key that
    gave them, and why there are none (``reason``, a failure kind) when there are none."""

    entries: list[ParsedEntry]
    parser: str
    key: str
    reason: str | None = None
    message: str = ""


@dataclass
class _Grobid:
    """GROBID for one cite run: the client (None: the built-in parser reads), whether the
    built-in parser stands in when it fails, and how many timeouts it gave in a row."""

    client: object | None
    service: str
    fallback: bool
    timeouts_in_a_row: int = 0

    def read(self, session: Session, w: _Work, key: str, builtin: _Read, report: CiteReport) -> _Read | None:
        """One paper read by GROBID; a failure without the fallback is recorded and None
        returned; with it, ``builtin`` (the built-in parser's read, still to be made) is.
        Too many timeouts in a row stop the run (without the fallback) or GROBID (with it)."""
        from reflong.citations.fields.grobid import GrobidError

        subject = _subject(w.arxiv_id, w.version)
        try:
            entries, version = self.client.references(w.pdf_path or "")
        except GrobidError as exc:
            self.timeouts_in_a_row = self.timeouts_in_a_row + 1 if exc.reason == "grobid-timeout" else 0
            if self.timeouts_in_a_row >= _max_timeouts():
                self._too_many_timeouts(session, subject, exc, report)
            if not self.fallback:
                record_failure(session, STAGE, subject, exc.reason, str(exc))
                report.failed += 1
                session.commit()
                return None
            return builtin
        self.timeouts_in_a_row = 0
        read = _Read(entries, f"grobid-{version}", key)
        if not entries:
            read.reason, read.message = "no-entries", "GROBID found no bibliography entries"
        return read

    def _too_many_timeouts(self, session: Session, subject: str, exc: Exception, report: CiteReport) -> None:
        stopped = _stopped_line(self.client, self.timeouts_in_a_row, report)
        if not self.fallback:
            record_failure(session, STAGE, subject, exc.reason, str(exc))
            report.failed += 1
            session.commit()
            raise NetworkError(
                f"{stopped}; the cite stage stopped with {report.cited + report.skipped} of "
                f"{report.papers} papers done, their reference lists kept: restart GROBID "
                "(or raise --grobid-timeout) and rerun the same command to resume"
            ) from None
        log.warning("%s; the built-in parser reads the remaining papers", stopped)
        self.client = None


def _open_grobid(url: str | None, fallback: bool, service: str, timeout: float | None) -> _Grobid:
    """GROBID's client when a URL is given and it answers (or the built-in parser, with the
    fallback, when it does not)."""
    if not url:
        return _Grobid(None, service, fallback)
    from reflong.citations.fields.grobid import GrobidReferences

    try:
        kwargs = {"timeout": timeout} if timeout else {}
        return _Grobid(GrobidReferences(url, service=service, **kwargs), service, fallback)
    except NetworkError:
        if not fallback:
            raise
        return _Grobid(None, service, fallback)


def _builtin_read(session: Session, w: _Work) -> tuple[list[ParsedEntry], str | None, str]:
    """The built-in splitter's entries of the paper's references section, or why there are none."""
    w.references_text = _references_text(session, w.parsed_doc_id)
    if not w.has_references and not w.references_text.strip():
        return [], "no-references-section", "parse found no references section"
    return builtin_entries(w.references_text)


def _store(session: Session, w: _Work, read: _Read, report: CiteReport) -> None:
    """One paper's reference list stored (ok or empty), its failure recorded or cleared."""
    status = "ok" if read.entries else "empty"
    message = read.message if read.reason else None
    store_entries(
        session, w.arxiv_id, w.version, read.entries, read.parser, read.key, w.pdf_sha256, status, message
    )
    subject = _subject(w.arxiv_id, w.version)
    if read.reason:
        record_failure(session, STAGE, subject, read.reason, read.message)
    else:
        clear_failure(session, STAGE, subject)
    report.failed += bool(read.reason)
    report.cited += 1
    report.references += len(read.entries)
    report.by_parser[read.parser] = report.by_parser.get(read.parser, 0) + 1
    session.commit()
