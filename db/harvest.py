"""What the metadata harvest has stored: every harvested paper's record, and where each harvest is.

``arxiv_record`` holds one row per paper with its whole version history (arXivRaw) exactly as
harvested; roles and version pins are computed from these rows, never from memory, so a killed
run loses nothing that was committed and a refresh only adds what changed.

``harvest_state`` holds one row per harvest: for OAI-PMH one per (endpoint, set, prefix), with
the resumption token (and its expirationDate) and cursor of the next page, the datestamp of the
last committed record and whether the records so far came in datestamp order (together, the
fallback ``from`` when a token has expired), the span already covered and up to which
datestamp (``harvested_through``, the next refresh's ``from``); for the API one per window query,
with the ``start`` of the next page. Every page's records and its state change share one commit.
"""

from __future__ import annotations

from sqlalchemy import UniqueConstraint
from sqlalchemy.dialects.sqlite import insert
from sqlmodel import Field, Session, SQLModel, select

from reflong.db.papers import utcnow


class ArxivRecordRow(SQLModel, table=True):
    __tablename__ = "arxiv_record"

    arxiv_id: str = Field(primary_key=True, description="arXiv id without version")
    title: str = ""
    authors_json: str = "[]"
    categories_json: str = Field(default="[]", description="JSON list, primary category first")
    primary_category: str | None = None
    first_published: str | None = Field(default=None, index=True, description="date of v1, YYYY-MM-DD")
    versions_json: str = Field(
        default="[]",
        description='[{"v": 1, "date": "2024-03-04", "withdrawn": false, "license": URL?}, ...] ascending',
    )
    latest_version: int = 0
    versions_complete: bool = Field(default=True, description="false: API record, middle versions unknown")
    comment: str | None = None
    doi: str | None = None
    abstract: str | None = Field(default=None, description="as arXiv gives it, whitespace collapsed")
    datestamp: str | None = Field(default=None, description="OAI-PMH datestamp (last modification)")
    withdrawn: bool = Field(default=False, description="the newest version is a withdrawal notice")
    via: str = Field(default="oai", description="oai | api: the route that stored this row last")
    license: str | None = Field(
        default=None,
        description="licence URL of the newest version (arXivRaw <license>); each version's is in versions_json",
    )


class HarvestState(SQLModel, table=True):
    __tablename__ = "harvest_state"
    __table_args__ = (UniqueConstraint("endpoint", "set_spec", "prefix"),)

    id: int | None = Field(default=None, primary_key=True)
    endpoint: str = Field(description="OAI-PMH endpoint (…/oai) or API query URL (…/api/query)")
    set_spec: str = Field(default="", description="OAI set (cs, math, …) or, for the API, the query")
    prefix: str = Field(default="arXivRaw", description="metadataPrefix, or 'api'")
    from_date: str | None = Field(default=None, description="from of the harvest in progress / last one")
    until_date: str | None = None
    token: str | None = Field(default=None, description="resumption token of the next page (OAI)")
    token_expires: str | None = Field(
        default=None, description="the token's expirationDate (OAI); a stored token past it is not used"
    )
    cursor: int = Field(default=0, description="records before the next page (OAI cursor, API start)")
    complete_list_size: int | None = None
    last_datestamp: str | None = Field(default=None, description="datestamp of the last committed record")
    datestamp_order: bool = Field(
        default=True,
        description="OAI: every record of this harvest so far came in datestamp order (arXiv's current "
        "server); false for identifier order (the legacy server): a lost token then restarts from from_date",
    )
    covered_from: str | None = Field(default=None, description="earliest from of a finished harvest")
    harvested_through: str | None = Field(default=None, description="newest datestamp harvested")
    overlap_from: str | None = Field(
        default=None,
        description="OAI: where the next refresh starts, the newest datestamp before the last finished "
        "harvest began; a record whose datestamp moved while that harvest paged is asked for again",
    )
    completed: bool = False
    split: bool = Field(default=False, description="API: over the result cap, asked in smaller parts")
    pages: int = 0
    records: int = 0
    updated_at: str = Field(default_factory=utcnow)


_RECORD_COLUMNS = [c.name for c in ArxivRecordRow.__table__.columns]


def upsert_records(session: Session, rows: list[dict]) -> None:
    """Insert or replace many ``arxiv_record`` rows in one statement (a page at a time)."""
    if not rows:
        return
    table = ArxivRecordRow.__table__
    stmt = insert(table)
    update = {c: stmt.excluded[c] for c in _RECORD_COLUMNS if c != "arxiv_id"}
    session.connection().execute(stmt.on_conflict_do_update(index_elements=["arxiv_id"], set_=update), rows)


def get_state(session: Session, endpoint: str, set_spec: str, prefix: str) -> HarvestState | None:
    return session.exec(
        select(HarvestState).where(
            HarvestState.endpoint == endpoint,
            HarvestState.set_spec == set_spec,
            HarvestState.prefix == prefix,
        )
    ).first()


def state_for(session: Session, endpoint: str, set_spec: str, prefix: str) -> HarvestState:
    """The state row of this harvest, created (not yet committed) if there is none."""
    row = get_state(session, endpoint, set_spec, prefix)
    if row is None:
        row = HarvestState(endpoint=endpoint, set_spec=set_spec, prefix=prefix)
        session.add(row)
    return row


def touch(session: Session, row: HarvestState) -> None:
    row.updated_at = utcnow()
    session.add(row)
