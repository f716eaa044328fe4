"""Reference lists through a GROBID server, as an alternative to the built-in splitter and parser.

The client is the GROBID project's own ``grobid-client-python`` (import ``grobid_client``), the one
its maintainers keep in step with the REST API; the PyPI name ``grobid-client`` is an unrelated,
generated client. We use its ``ping`` (GET /api/isalive) and ``process_pdf`` (multipart POST to
/api/processReferences or /api/processFulltextDocument, with its 503 retry) and parse the TEI
ourselves into the same ``ParsedEntry`` records the built-in parser produces, so resolution does
not care where a reference list came from.
"""

from __future__ import annotations

import logging
import re
from pathlib import Path

from lxml import etree

from reflong.citations.fields.entry_parse import ParsedEntry, find_arxiv_id, find_doi
from reflong.common.errors import NetworkError, ReflongError

TEI = "{http://www.tei-c.org/ns/1.0}"
SERVICES = {"references": "processReferences", "fulltext": "processFulltextDocument"}
# Seconds GROBID may take for one PDF. Its own processing takes a few seconds a paper; a minute
# covers a loaded server with a long paper, and a hung one costs no more than that per PDF.
DEFAULT_TIMEOUT_S = 60.0
# Timeouts in a row after which GROBID counts as stopped: /api/isalive only says its initialisation
# finished (GROBID's docs: a liveness probe), so a GROBID whose engines hang still answers "true"
# and would cost the whole timeout per PDF (60 s x 3,000 PDFs = 50 hours). One slow PDF is a
# timeout; three in a row, with no answer between them, is a GROBID that stopped answering.
MAX_CONSECUTIVE_TIMEOUTS = 3


class GrobidError(ReflongError):
    """GROBID answered, but not with a usable TEI document for this PDF (recorded per paper)."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason


def _text(el) -> str:
    return re.sub(r"\s+", " ", "".join(el.itertext())).strip() if el is not None else ""


def _surname(pers) -> str:
    return _text(pers.find(f"{TEI}surname"))


def _compose_raw(authors: list[str], title: str, venue: str, year: str, idnos: list[str]) -> str:
    """A reference string in a common style, for TEI without ``<note type="raw_reference">``."""
    parts = []
    if authors:
        parts.append(", ".join(authors) + ".")
    if title:
        parts.append(title.rstrip(".") + ".")
    tail = ", ".join(p for p in (venue, year) if p)
    if tail:
        parts.append(tail + ".")
    parts.extend(idnos)
    return " ".join(parts)


def _bibl_to_entry(bibl) -> ParsedEntry:
    analytic = bibl.find(f"{TEI}analytic")
    monogr = bibl.find(f"{TEI}monogr")
    title = _text(analytic.find(f"{TEI}title")) if analytic is not None else ""
    venue = _text(monogr.find(f"{TEI}title")) if monogr is not None else ""
    if not title:
        title, venue = venue, ""
    authors_el = analytic if analytic is not None and analytic.find(f"{TEI}author") is not None else monogr
    people = []
    if authors_el is not None:
        for author in authors_el.findall(f"{TEI}author"):
            pers = author.find(f"{TEI}persName")
            if pers is not None:
                forenames = " ".join(_text(f) for f in pers.findall(f"{TEI}forename"))
                people.append((forenames, _surname(pers)))
            elif _text(author):
                people.append(("", _text(author)))
    date = bibl.find(f".//{TEI}imprint/{TEI}date")
    when = date.get("when", "") if date is not None else ""
    year = when[:4] if when[:4].isdigit() else ""
    idnos = {el.get("type", "").lower(): _text(el) for el in bibl.iter(f"{TEI}idno")}
    raw_note = next((n for n in bibl.iter(f"{TEI}note") if n.get("type") == "raw_reference"), None)
    id_strings = [f"arXiv:{idnos['arxiv'].removeprefix('arXiv:')}"] if idnos.get("arxiv") else []
    if idnos.get("doi"):
        id_strings.append(f"doi:{idnos['doi']}")
    raw = _text(raw_note) or _compose_raw(
        [f"{f} {s}".strip() for f, s in people], title, venue, year, id_strings
    )
    arxiv_id, arxiv_version = find_arxiv_id(" ".join(id_strings)) if id_strings else (None, None)
    if arxiv_id is None:
        arxiv_id, arxiv_version = find_arxiv_id(raw)
    return ParsedEntry(
        raw=raw,
        title=title or None,
        authors=[s.lower() for _, s in people if s][:60],
        year=int(year) if year else None,
        arxiv_id=arxiv_id,
        arxiv_version=arxiv_version,
        doi=(idnos.get("doi") or "").lower() or find_doi(raw),
    )


def parse_tei(tei: str | bytes) -> tuple[list[ParsedEntry], str]:
    """Bibliography entries of a GROBID TEI document (in listBibl order) and the GROBID version.

    A TEI without ``listBibl`` (e.g. header-only output) gives no entries; XML that does not parse
    raises ``GrobidError("bad-tei", ...)`` and XML that is not TEI (an HTML page with status 200)
    ``GrobidError("grobid-not-tei", ...)``: both are failures, retried on the next run.
    """
    data = tei.encode() if isinstance(tei, str) else tei
    try:
        root = etree.fromstring(data, parser=etree.XMLParser(resolve_entities=False, huge_tree=False))
    except etree.XMLSyntaxError as exc:
        raise GrobidError("bad-tei", f"GROBID returned XML that does not parse: {exc}") from None
    if root.tag not in (f"{TEI}TEI", f"{TEI}teiCorpus"):
        # Well-formed but not TEI: an HTML page from a proxy, a misrouted URL. Not "no references".
        raise GrobidError(
            "grobid-not-tei",
            f"GROBID's answer is not TEI (root element <{etree.QName(root).localname}>); "
            "check --grobid-url points at GROBID itself",
        )
    app = root.find(f".//{TEI}application[@ident='GROBID']")
    version = app.get("version", "unknown") if app is not None else "unknown"
    entries = [_bibl_to_entry(b) for lb in root.iter(f"{TEI}listBibl") for b in lb.iter(f"{TEI}biblStruct")]
    return entries, version


class GrobidReferences:
    """A live GROBID server, checked once, asked per PDF."""

    def __init__(self, url: str, service: str = "references", timeout: float = DEFAULT_TIMEOUT_S) -> None:
        from grobid_client.grobid_client import GrobidClient

        self.url = url.rstrip("/")
        self.service = SERVICES[service]
        self.timeout = timeout
        self.client = GrobidClient(grobid_server=self.url, timeout=timeout, check_server=False)
        # We report failures ourselves as one actionable line; keep the client's logger quiet.
        self.client.logger.setLevel(logging.CRITICAL)
        alive, status = self.alive()
        if not alive:
            why = f"HTTP {status}" if status else "no connection"
            raise NetworkError(
                f"GROBID at {self.url} is not alive (/api/isalive: {why}); start it (e.g. "
                "`docker run -p 8070:8070 grobid/grobid:0.8.1`), fix --grobid-url, or add --grobid-fallback "
                "to use the built-in parser"
            )

    def alive(self) -> tuple[bool, int | None]:
        """GET /api/isalive (the client's ``ping``): (alive, HTTP status or None without an answer)."""
        from grobid_client.grobid_client import ServerUnavailableException

        try:
            return self.client.ping()
        except ServerUnavailableException:
            return False, None

    def references(self, pdf_path: str | Path) -> tuple[list[ParsedEntry], str]:
        """Entries of one PDF; raises ``GrobidError`` when GROBID cannot process it."""
        path = Path(pdf_path)
        if not path.is_file():
            raise GrobidError("no-pdf", f"PDF not found at {path}")
        _, status, text = self.client.process_pdf(
            self.service,
            str(path),
            generate_ids=False,
            consolidate_header=False,
            consolidate_citations=False,
            include_raw_citations=True,
        )
        if status == 408 or (status != 200 and "timeout" in (text or "").lower()):
            # grobid_client maps requests' ReadTimeout to 408 "Request timeout: ..."
            raise GrobidError(
                "grobid-timeout",
                f"GROBID {self.service} did not answer within {self.timeout:g} s (--grobid-timeout)",
            )
        if status != 200:
            raise GrobidError(
                f"grobid-http-{status}", f"GROBID {self.service} failed ({status}): {text[:200]}"
            )
        return parse_tei(text or "")
