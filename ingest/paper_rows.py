"""``PaperMeta`` <-> ``paper`` rows: the one mapping both ingest paths write with.

The arXiv path writes paper rows in bulk from the stored records (``plan.roles``), the local-catalog
path upserts them one by one (``ingest.stage``); both take their columns from ``paper_columns``, so
the same paper gives the same row whichever way it came. The reverse, ``meta_from_row``, is how a
window's pinned papers are read back for the PDF plan.
"""

from __future__ import annotations

import json

from reflong.db.papers import Paper
from reflong.ingest.metadata import PaperMeta

# The columns a metadata refresh may rewrite: never the key (arxiv_id, version), nor the status and
# PDF columns a download wrote.
METADATA_COLUMNS = (
    "title",
    "authors_json",
    "categories_json",
    "primary_category",
    "first_published",
    "version_date",
    "doi",
    "pdf_url",
    "source",
    "license",
)


def paper_columns(meta: PaperMeta, source: str) -> dict[str, object]:
    """The ``METADATA_COLUMNS`` of ``meta``'s row; ``source`` is where it came from (arxiv | local)."""
    return {
        "title": meta.title,
        "authors_json": json.dumps(meta.authors, ensure_ascii=False),
        "categories_json": json.dumps(meta.categories, ensure_ascii=False),
        "primary_category": meta.primary_category,
        "first_published": meta.first_published,
        "version_date": meta.version_date,
        "doi": meta.doi,
        "pdf_url": meta.pdf_url,
        "source": source,
        "license": meta.license,
    }


def meta_from_row(row: Paper) -> PaperMeta:
    """A stored paper row as ``PaperMeta`` (no comment or withdrawn flag: the row keeps neither)."""
    return PaperMeta(
        arxiv_id=row.arxiv_id,
        version=row.version,
        title=row.title,
        authors=json.loads(row.authors_json),
        categories=json.loads(row.categories_json),
        primary_category=row.primary_category,
        first_published=row.first_published,
        version_date=row.version_date,
        doi=row.doi,
        pdf_url=row.pdf_url,
        license=row.license,
    )
