"""``ArxivRecord`` <-> ``arxiv_record`` rows, and storing a page of records (merged with what is stored).

Both metadata routes (OAI-PMH and the API) end here, so the store holds one row per paper with
every version either route has seen; roles and version pins are computed from these rows.
"""

from __future__ import annotations

import json

from sqlmodel import Session, select

from reflong.db.harvest import ArxivRecordRow, upsert_records
from reflong.ingest.metadata import ArxivRecord, PaperVersion


def record_row(record: ArxivRecord, via: str) -> dict:
    latest = record.latest
    return {
        "arxiv_id": record.arxiv_id,
        "title": record.title,
        "authors_json": json.dumps(record.authors, ensure_ascii=False),
        "categories_json": json.dumps(record.categories, ensure_ascii=False),
        "primary_category": record.primary_category,
        "first_published": record.first_published,
        "versions_json": record.versions_json(),
        "latest_version": latest.number if latest else 0,
        "versions_complete": record.complete,
        "comment": record.comment,
        "doi": record.doi,
        "abstract": record.abstract,
        "datestamp": record.datestamp,
        "withdrawn": record.withdrawn,
        "via": via,
    }


def record_from_row(row: ArxivRecordRow) -> ArxivRecord:
    versions = [
        PaperVersion(int(v["v"]), v.get("date"), bool(v.get("withdrawn")))
        for v in json.loads(row.versions_json)
    ]
    return ArxivRecord(
        arxiv_id=row.arxiv_id,
        title=row.title,
        authors=json.loads(row.authors_json),
        categories=json.loads(row.categories_json),
        versions=versions,
        comment=row.comment,
        doi=row.doi,
        abstract=row.abstract,
        datestamp=row.datestamp,
        deleted=bool(row.withdrawn) and not versions,
        complete=bool(row.versions_complete),
        first_date=row.first_published,
    )


def store_records(session: Session, records: list[ArxivRecord], via: str, merge: bool) -> None:
    """Upsert ``records`` (not committed). ``merge``: keep versions only the stored rows know.

    The OAI route sends every version, so its rows replace what is stored; an API page knows
    only v1 and the latest version, so it is merged with the stored row (id_list look-ups add
    the middle versions one by one).
    """
    if merge and records:
        ids = [r.arxiv_id for r in records]
        stored = {
            row.arxiv_id: record_from_row(row)
            for row in session.exec(select(ArxivRecordRow).where(ArxivRecordRow.arxiv_id.in_(ids)))
        }
        for record in records:
            if record.arxiv_id in stored:
                record.merge(stored[record.arxiv_id])
    upsert_records(session, [record_row(r, via) for r in records])
