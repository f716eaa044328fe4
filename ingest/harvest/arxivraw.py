"""arXivRaw records (OAI-PMH ``metadataPrefix=arXivRaw``) read as ``ArxivRecord``s.

arXiv's OAI-PMH help page: "arXivRaw - arXiv specific metadata format which is very close the
internal format stored at arXiv. Includes version history." A record looks like::

    <record>
      <header>
        <identifier>oai:arXiv.org:2403.01234</identifier>
        <datestamp>2024-05-02</datestamp>          (last modification of the record, not v1's date)
        <setSpec>cs</setSpec>
      </header>
      <metadata>
        <arXivRaw xmlns="http://arxiv.org/OAI/arXivRaw/">
          <id>2403.01234</id>
          <version version="v1"><date>Mon, 4 Mar 2024 17:02:11 GMT</date><size>812kb</size>
            <source_type>D</source_type></version>
          <version version="v2">...</version>
          <title>...</title> <authors>A. One, B. Two and C. Three</authors>
          <categories>cs.CL cs.LG</categories>   (space separated, primary first)
          <comments>...</comments> <doi>...</doi> <abstract>...</abstract>
        </arXivRaw>
      </metadata>
    </record>

Withdrawals: arXiv withdraws a paper by announcing a new version that has no paper in it (a
withdrawal notice). The version history shows it, not the comment (which often carries only the
author's reason): such a version has size ``0kb`` or a source type flagged ``I`` (arXiv's
"ignore" source flag, used for withdrawn versions). A paper whose newest version is such a
notice is withdrawn; an older version that was itself withdrawn is never chosen as text.
"""

from __future__ import annotations

import re
from datetime import date
from email.utils import parsedate_to_datetime

from lxml import etree

from reflong.ingest.metadata import ArxivRecord, PaperVersion, clean_title, split_versioned_id

OAI_NS = "http://www.openarchives.org/OAI/2.0/"
RAW_NS = "http://arxiv.org/OAI/arXivRaw/"
_O = f"{{{OAI_NS}}}"

_SIZE_RE = re.compile(r"^\s*(\d+)\s*kb\s*$", re.I)


def parse_version_date(text: str | None) -> str | None:
    """``Mon, 2 Apr 2007 19:18:42 GMT`` (arXivRaw) or ``2007-04-02`` -> ``2007-04-02`` (UTC)."""
    text = (text or "").strip()
    if not text:
        return None
    if re.match(r"^\d{4}-\d{2}-\d{2}", text):
        try:
            return date.fromisoformat(text[:10]).isoformat()
        except ValueError:
            return None
    try:
        return parsedate_to_datetime(text).date().isoformat()
    except (TypeError, ValueError, IndexError):
        return None


def split_authors(text: str | None) -> list[str]:
    """arXivRaw's one author string (``A. One, B. Two and C. Three``) as a list of names."""
    text = " ".join((text or "").split())
    if not text:
        return []
    parts = re.split(r",\s*(?:and\s+)?|\s+and\s+", text)
    return [p.strip() for p in parts if p.strip()]


def _is_withdrawal(size: str | None, source_type: str | None) -> bool:
    m = _SIZE_RE.match(size or "")
    return bool(m and int(m.group(1)) == 0) or "I" in (source_type or "").strip().upper()


def _text(el: etree._Element | None) -> str | None:
    if el is None or el.text is None:
        return None
    value = " ".join(el.text.split())
    return value or None


def parse_record(record: etree._Element) -> ArxivRecord:
    """One OAI-PMH ``<record>`` with arXivRaw metadata; ValueError when it is not usable."""
    header = record.find(f"{_O}header")
    if header is None:
        raise ValueError("record without header")
    identifier = _text(header.find(f"{_O}identifier")) or ""
    raw_id = identifier.rsplit(":", 1)[-1] if identifier.startswith("oai:") else identifier
    datestamp = _text(header.find(f"{_O}datestamp"))
    datestamp = datestamp[:10] if datestamp else None
    deleted = header.get("status") == "deleted"
    meta = record.find(f"{_O}metadata")
    raw = None
    if meta is not None:
        raw = next((child for child in meta if isinstance(child.tag, str)), None)
    if raw is None:
        if not deleted:
            raise ValueError(f"{identifier}: record without arXivRaw metadata")
        arxiv_id = split_versioned_id(raw_id)[0]
        return ArxivRecord(arxiv_id, "", datestamp=datestamp, deleted=True)
    ns = raw.tag.split("}")[0] + "}" if raw.tag.startswith("{") else ""

    def field_text(name: str) -> str | None:
        return _text(raw.find(f"{ns}{name}"))

    arxiv_id = split_versioned_id(field_text("id") or raw_id)[0]
    versions = []
    for el in raw.findall(f"{ns}version"):
        label = (el.get("version") or "").strip()
        if not re.fullmatch(r"v\d+", label):
            continue
        versions.append(
            PaperVersion(
                int(label[1:]),
                parse_version_date(_text(el.find(f"{ns}date"))),
                _is_withdrawal(_text(el.find(f"{ns}size")), _text(el.find(f"{ns}source_type"))),
            )
        )
    versions.sort(key=lambda v: v.number)
    return ArxivRecord(
        arxiv_id=arxiv_id,
        title=clean_title(field_text("title")),
        authors=split_authors(field_text("authors")),
        categories=(field_text("categories") or "").split(),
        versions=versions,
        comment=field_text("comments"),
        doi=field_text("doi"),
        datestamp=datestamp,
        deleted=deleted,
    )


def parse_page(root: etree._Element) -> tuple[list[ArxivRecord], list[tuple[str, str]]]:
    """Every record of one ListRecords page, and (identifier, reason) for those that are unusable."""
    records, bad = [], []
    for el in root.iterfind(f".//{_O}record"):
        try:
            records.append(parse_record(el))
        except ValueError as exc:
            ident = el.findtext(f"{_O}header/{_O}identifier") or "?"
            bad.append((ident.strip(), str(exc)))
    return records, bad
