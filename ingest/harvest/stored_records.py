"""``ArxivRecord`` <-> ``arxiv_record`` rows, and storing a page of records (merged with what is stored).

Both metadata routes (OAI-PMH and the API) end here, so the store holds one row per paper with
every version either route has seen; roles and version pins are computed from these rows.

Licences: arXivRaw names only the newest version's licence, and a harvest row replaces the stored
one, so each version's licence the store already knows is carried into the new row before it is
written (``versions_json`` keeps ``"license"`` per version; ``license`` is the newest version's).
A paper revised between two harvests thus keeps v1's licence from the first and gets v2's from
the second, which is how a distractor pinned to v1 can show its own licence.
"""

from __future__ import annotations

import dataclasses
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
        "datestamp": record.datestamp,
        "withdrawn": record.withdrawn,
        "via": via,
        "license": record.license,
    }


def record_from_row(row: ArxivRecordRow) -> ArxivRecord:
    versions = [
        PaperVersion(int(v["v"]), v.get("date"), bool(v.get("withdrawn")), v.get("license"))
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
        datestamp=row.datestamp,
        deleted=bool(row.withdrawn) and not versions,
        complete=bool(row.versions_complete),
        first_date=row.first_published,
    )


def carry_licenses(record: ArxivRecord, stored: ArxivRecord) -> None:
    """Give ``record``'s versions without a licence the one ``stored`` knows for that version."""
    known = {v.number: v.license for v in stored.versions if v.license}
    if known:
        record.versions = [
            dataclasses.replace(v, license=known[v.number]) if not v.license and v.number in known else v
            for v in record.versions
        ]


def store_records(session: Session, records: list[ArxivRecord], via: str, merge: bool) -> None:
    """Upsert ``records`` (not committed). ``merge``: keep versions only the stored rows know.

    The OAI route sends every version, so its rows replace what is stored; an API page knows
    only v1 and the latest version, so it is merged with the stored row (id_list look-ups add
    the middle versions one by one). Either way the licences the stored rows know for a version
    are kept (module doc).
    """
    if records:
        ids = [r.arxiv_id for r in records]
        # Read as plain rows (Core), not ORM objects: a long-lived session may hold an older copy
        # of a row in its identity map, written over since by the bulk upsert below.
        table = ArxivRecordRow.__table__
        stored = {
            row.arxiv_id: record_from_row(row)
            for row in session.connection().execute(select(table).where(table.c.arxiv_id.in_(ids)))
        }
        for record in records:
            old = stored.get(record.arxiv_id)
            if old is None:
                continue
            if merge:
                record.merge(old)
            carry_licenses(record, old)
    upsert_records(session, [record_row(r, via) for r in records])
