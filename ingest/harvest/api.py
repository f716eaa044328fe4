"""The arXiv API route (``--metadata api``, and look-ups by id), within the API's documented limits.

The API user manual: at most 2,000 results per call (``max_results``), and no query returns more
than 30,000 results however it is paged. So a window query is asked whole first; if its
``totalResults`` is over the cap it is split in two at a day boundary (within one day, at a
minute: ``submittedDate`` has minute precision) and each half is asked again, recursively. The
probe page of a query under the cap is its first page, so a split costs one request per level,
and a quiet window costs no split at all. Every page is committed with the ``start`` of the next
(``harvest_state``, one row per query), so a killed run resumes at the page it was on and a
finished query is not asked again. ``id_list`` look-ups go in chunks of at most 200 ids (a
10,000-id list is a URL real servers refuse with 414).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta

import arxiv
from sqlmodel import Session, select

from reflong.common.errors import NetworkError
from reflong.db.harvest import ArxivRecordRow, state_for, touch
from reflong.ingest.harvest.arxiv_client import API_RESULT_CAP, ID_LIST_CHUNK, PoliteArxivClient
from reflong.ingest.harvest.stored_records import record_from_row, store_records
from reflong.ingest.metadata import ArxivRecord, PaperVersion, clean_title, is_withdrawn, split_versioned_id

log = logging.getLogger(__name__)


@dataclass
class ApiReport:
    queries: int = 0  # queries asked (probes of split windows included)
    splits: int = 0
    pages: int = 0
    records: int = 0
    max_total: int = 0  # the largest totalResults of a query that was paged (must be <= cap)


def result_to_record(result: arxiv.Result) -> ArxivRecord:
    """An API entry as a record: v1's date (``published``) and this version's (``updated``)."""
    arxiv_id, number = split_versioned_id(result.get_short_id())
    published = result.published.date().isoformat()
    comment = result.comment or None
    withdrawn = is_withdrawn(comment)  # the only signal the API gives
    versions = []
    if number >= 1:
        if number > 1:
            versions.append(PaperVersion(1, published))
        versions.append(PaperVersion(number, result.updated.date().isoformat(), withdrawn))
    top = versions[-1].number if versions else 0
    return ArxivRecord(
        arxiv_id=arxiv_id,
        title=clean_title(result.title),
        authors=[a.name for a in result.authors],
        categories=_categories(result),
        versions=versions,
        comment=comment,
        doi=result.doi or None,
        abstract=clean_title(result.summary) or None,
        complete=top >= 1 and {v.number for v in versions} == set(range(1, top + 1)),
        first_date=published,
    )


def _categories(result: arxiv.Result) -> list[str]:
    cats = list(result.categories)
    primary = result.primary_category or None
    if primary and primary in cats:
        cats.remove(primary)
    return ([primary] if primary else []) + cats


def _clause(lo: datetime, hi: datetime) -> str:
    return f"submittedDate:[{lo:%Y%m%d%H%M} TO {hi:%Y%m%d%H%M}]"


def window_query(lo: datetime, hi: datetime, categories: list[str]) -> str:
    dates = _clause(lo, hi)
    if not categories:
        return dates
    return "(" + " OR ".join(f"cat:{c}" for c in categories) + f") AND {dates}"


def _halves(lo: datetime, hi: datetime) -> tuple[tuple[datetime, datetime], tuple[datetime, datetime]]:
    """Split at a day boundary when the range spans days, else at a minute."""
    days = (hi.date() - lo.date()).days
    if days >= 1:
        mid = datetime.combine(lo.date() + timedelta(days=(days + 1) // 2), time(0, 0))
    else:
        minutes = int((hi - lo).total_seconds() // 60)
        if minutes < 1:
            raise NetworkError(
                f"more than the API's result cap in one minute ({lo:%Y-%m-%d %H:%M}); "
                "use the default --metadata oai"
            )
        mid = lo + timedelta(minutes=(minutes + 1) // 2)
    return (lo, mid - timedelta(minutes=1)), (mid, hi)


def _closed(until: str | None, harvested_at: str) -> bool:
    """A query harvested at least two days after its window ended: no new paper can join it.

    (arXiv announces a submission within a day or two; a window still open when it was
    harvested is asked again on the next run, from its first page.)
    """
    if not until:
        return False
    end = date.fromisoformat(until[:10]) + timedelta(days=2)
    return harvested_at[:10] > end.isoformat()


def harvest_window(
    session: Session,
    client: PoliteArxivClient,
    start: date,
    end: date,
    categories: list[str],
    cap: int = API_RESULT_CAP,
    on_page: Callable[[int], None] | None = None,
) -> ApiReport:
    """Every paper first submitted in ``[start, end)`` into ``arxiv_record``, page by committed page."""
    report = ApiReport()
    endpoint = client.base_url + "/api/query"
    lo = datetime.combine(start, time(0, 0))
    hi = datetime.combine(end - timedelta(days=1), time(23, 59))

    def run(lo: datetime, hi: datetime) -> None:
        query = window_query(lo, hi, categories)
        state = state_for(session, endpoint, query, "api")
        if state.split:
            for a, b in _halves(lo, hi):
                run(a, b)
            return
        if state.completed and _closed(state.until_date, state.updated_at):
            return
        if state.completed:  # harvested while its window was still open: ask it again, whole
            state.completed, state.cursor = False, 0
        search = arxiv.Search(
            query=query, sort_by=arxiv.SortCriterion.SubmittedDate, sort_order=arxiv.SortOrder.Ascending
        )
        state.from_date, state.until_date = f"{lo:%Y-%m-%dT%H:%M}", f"{hi:%Y-%m-%dT%H:%M}"
        while True:
            feed = client.page(search, state.cursor)
            report.queries += state.cursor == 0
            total = feed.header.total_results
            if total > cap:
                log.info("API query over the %d-result cap (%d results): splitting %s", cap, total, query)
                report.splits += 1
                state.split = True
                touch(session, state)
                session.commit()
                for a, b in _halves(lo, hi):
                    run(a, b)
                return
            report.max_total = max(report.max_total, total)
            records = [result_to_record(r) for r in feed.results]
            store_records(session, records, "api", merge=True)
            state.cursor += len(feed.results)
            state.pages += 1
            state.records += len(records)
            state.complete_list_size = total
            state.completed = state.cursor >= total or not feed.results
            touch(session, state)
            session.commit()
            report.pages += 1
            report.records += len(records)
            if on_page is not None:
                on_page(len(records))
            if state.completed:
                return

    run(lo, hi)
    return report


def lookup_versions(
    session: Session,
    client: PoliteArxivClient,
    versioned_ids: list[str],
    on_page: Callable[[int], None] | None,
) -> int:
    """Ask for exactly these versions (``2401.00001v2``), 200 ids a request, each chunk committed."""
    found = 0
    for i in range(0, len(versioned_ids), ID_LIST_CHUNK):
        chunk = versioned_ids[i : i + ID_LIST_CHUNK]
        search = arxiv.Search(id_list=chunk, max_results=len(chunk))
        feed = client.page(search, 0, len(chunk))
        records = [result_to_record(r) for r in feed.results]
        stored = {
            row.arxiv_id: record_from_row(row)
            for row in session.exec(
                select(ArxivRecordRow).where(ArxivRecordRow.arxiv_id.in_([r.arxiv_id for r in records]))
            )
        }
        merged = []
        for record in records:  # a versioned look-up adds one version's date to the stored record
            base = stored.get(record.arxiv_id)
            if base is None:
                merged.append(record)
            else:
                base.merge(record)
                merged.append(base)
        store_records(session, merged, "api", merge=False)
        session.commit()
        found += len(records)
        if on_page is not None:
            on_page(len(records))
    return found
