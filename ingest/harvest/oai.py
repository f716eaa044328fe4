"""Bulk metadata the way arXiv asks for it: OAI-PMH ``ListRecords``, arXivRaw, one committed page at a time.

arXiv's OAI-PMH help page names ``/oai2`` as the route for bulk metadata, with ``arXivRaw``
carrying every version and its date; its datestamps are last-modification days, so a harvest
``from`` a day is a superset of what changed since (new papers, new versions, withdrawals).

The protocol client is ``oaipmh-scythe`` (request building, OAI error codes as exceptions,
``resumptionToken`` paging). Its HTTP layer is its own ``httpx2`` client with its own retry loop;
``PoliteScythe`` replaces only the one method that sends a request (``Scythe._request``) with a
call to the run's shared ``ArxivConnection`` (one ``requests`` session, the 3 s gate, backoff with
``Retry-After``, 403 and long-503 stops) and hands scythe an ``httpx2.Response`` built from the
answer. So OAI pages, API pages and PDFs queue at one gate on one connection pool, and there is one
retry policy, not two stacked ones (scythe's own is set to 0 retries). Overriding ``_request``
rather than wrapping the iteration keeps scythe's paging intact, while the gate sees every
request, including the ones scythe makes inside its iterator.

Paging is driven page by page (scythe's ``OAIResponseIterator``): each page's records and the
next token are committed together before the next page is asked for. A killed harvest resumes
from the stored token; an expired one (``badResumptionToken``) falls back to ``from`` = the
datestamp of the last committed record; a finished page is never asked for again. That fallback
assumes records come in datestamp order (the stand-in orders by datestamp, id); if a server did
not, records of earlier datestamps on later pages could be missed until the next full harvest.
``from`` is inclusive, so a refresh gets the records of the last harvested day again.

Nothing passes as complete that is not (issue 20): scythe parses with lxml's ``recover=True``, so a
page cut halfway would read as a shorter page without a token, i.e. the end of the list. So every
answer is first parsed strictly (``page_problem``); one that is not a well-formed OAI-PMH document is
retried under the shared policy like a 5xx, and when it keeps failing the run stops with one line,
its committed pages and token kept for the rerun. A list whose last page (empty token) leaves it
shorter than its ``completeListSize`` (cursor + records of the last page) is reported with a warning,
not a failure: the answer is well formed, there is no token left to retry with, and OAI-PMH lets a
list change while it is harvested (spec 3.5.1; records modified meanwhile move), so the count alone
proves no loss. The set is then not marked as covered, so the next run harvests it again whole.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable
from dataclasses import dataclass

import httpx2
import requests
from lxml import etree
from oaipmh_scythe import Scythe
from oaipmh_scythe.config import HTTPConfig, RetryConfig
from oaipmh_scythe.exceptions import BadResumptionToken, NoRecordsMatch, OAIPMHException
from oaipmh_scythe.iterator import OAIResponseIterator
from sqlmodel import Session

from reflong.common.errors import NetworkError
from reflong.db.harvest import HarvestState, state_for, touch
from reflong.db.papers import record_failure
from reflong.ingest.harvest.arxivraw import parse_page
from reflong.ingest.harvest.stored_records import store_records
from reflong.ingest.metadata import ArxivRecord
from reflong.ingest.netpolicy import ArxivConnection, user_agent

log = logging.getLogger(__name__)

PREFIX = "arXivRaw"

# arXiv's OAI sets: one per archive group; the physics archives are "physics:<archive>".
_PHYSICS = {
    "astro-ph", "cond-mat", "gr-qc", "hep-ex", "hep-lat", "hep-ph", "hep-th", "math-ph", "nlin",
    "nucl-ex", "nucl-th", "physics", "quant-ph",
}  # fmt: skip


def set_for(category: str) -> str:
    """The OAI set that holds a category: ``cs.CL`` -> ``cs``, ``hep-th`` -> ``physics:hep-th``."""
    archive = category.rstrip("*").split(".")[0].rstrip(".")
    return f"physics:{archive}" if archive in _PHYSICS else archive


def sets_for(categories: list[str] | tuple[str, ...]) -> list[str]:
    """The sets covering ``categories`` (sorted, unique); no categories: the whole repository ('')."""
    return sorted({set_for(c) for c in categories if c.strip()}) or [""]


def oai_endpoint(base_url: str) -> str:
    return base_url.rstrip("/") + "/oai2"


class PoliteScythe(Scythe):
    """A ``Scythe`` whose every request goes through the run's shared ``ArxivConnection``."""

    def __init__(self, endpoint: str, conn: ArxivConnection) -> None:
        super().__init__(
            endpoint,
            iterator=OAIResponseIterator,
            http_config=HTTPConfig(timeout=conn.policy.timeout, user_agent=user_agent()),
            retry_config=RetryConfig(max_retries=0),  # retries are the shared policy's, not scythe's
        )
        self.conn = conn

    def _request(self, query: dict[str, str]) -> httpx2.Response:
        resp = self.conn.get(self.endpoint, "oai", params=query, check=page_problem)
        return httpx2.Response(
            resp.status_code,
            headers={"content-type": resp.headers.get("Content-Type", "text/xml")},
            content=resp.content,
            request=httpx2.Request("GET", resp.url),
        )


_STRICT = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=True)
_ROOT = "{http://www.openarchives.org/OAI/2.0/}OAI-PMH"


def page_problem(resp: requests.Response) -> str | None:
    """What is wrong with an OAI-PMH answer's body (None: a well-formed OAI-PMH document)."""
    if not resp.content.strip():
        return "an empty answer, not well-formed XML"
    try:
        root = etree.fromstring(resp.content, _STRICT)
    except etree.XMLSyntaxError as exc:
        return f"not well-formed XML, cut or garbled: {getattr(exc, 'msg', None) or exc}"
    if root.tag != _ROOT:
        return f"not an OAI-PMH answer (root element {etree.QName(root).localname})"
    return None


def _as_int(value) -> int | None:
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


@dataclass
class HarvestReport:
    set_spec: str
    pages: int = 0
    records: int = 0
    bad: int = 0
    resumed: bool = False  # started from a stored token or datestamp
    fallback: bool = False  # an expired token made it fall back to the last datestamp
    incremental_from: str | None = None  # a refresh of a finished harvest, from this datestamp
    short: tuple[int, int] | None = None  # (records seen, completeListSize) of a list that ended early


def plan_start(state: HarvestState, needed_from: str) -> tuple[str | None, str | None, bool]:
    """(token, from, incremental) for the next harvest of this set.

    - unfinished harvest with a token: go on from the token;
    - unfinished without one (killed before the second page): from its own ``from`` again,
      or the last committed datestamp if a page was committed;
    - finished harvest covering ``needed_from``: refresh from ``harvested_through``;
    - otherwise (nothing yet, or an earlier start is needed): a full harvest from ``needed_from``.
    """
    if not state.completed and state.from_date is not None:
        if state.token:
            return state.token, None, False
        return None, state.last_datestamp or state.from_date, False
    if (
        state.completed
        and state.covered_from
        and state.covered_from <= needed_from
        and state.harvested_through
    ):
        return None, state.harvested_through, True
    return None, needed_from, False


def harvest_set(
    session: Session,
    conn: ArxivConnection,
    base_url: str,
    set_spec: str,
    needed_from: str,
    on_page: Callable[[int], None] | None = None,
) -> HarvestReport:
    """Harvest (or resume, or refresh) one set into ``arxiv_record``, committing every page."""
    endpoint = oai_endpoint(base_url)
    state = state_for(session, endpoint, set_spec, PREFIX)
    token, from_, incremental = plan_start(state, needed_from)
    report = HarvestReport(
        set_spec, resumed=not incremental and (token is not None or state.from_date is not None)
    )
    if incremental:
        report.incremental_from = from_
    if token is None:
        if not (state.from_date is not None and not state.completed):
            state.from_date = from_
            state.cursor, state.pages, state.records = 0, 0, 0
        state.completed = False
        state.token = None
        touch(session, state)
        session.commit()
    scythe = PoliteScythe(endpoint, conn)
    newest = state.harvested_through
    # Records of the current list through the last page (cursor + page), and its announced size;
    # a list resumed from a stored token is counted from the first cursor it shows.
    seen: int | None = None if token else 0
    expected: int | None = None
    try:
        while True:
            query = (
                {"verb": "ListRecords", "resumptionToken": token}
                if token
                else {"verb": "ListRecords", "metadataPrefix": PREFIX, "from": from_, "set": set_spec or None}
            )
            query = {k: v for k, v in query.items() if v is not None}
            log.info("OAI-PMH ListRecords %s", " ".join(f"{k}={v}" for k, v in query.items() if k != "verb"))
            try:
                pages = OAIResponseIterator(scythe, query)
                for response in pages:
                    records, bad = parse_page(response.xml)
                    next_token = pages.resumption_token
                    n = len(records) + len(bad)
                    cursor = _as_int(next_token.cursor) if next_token is not None else None
                    seen = cursor + n if cursor is not None else seen + n if seen is not None else None
                    if next_token is not None and _as_int(next_token.complete_list_size) is not None:
                        expected = _as_int(next_token.complete_list_size)
                    _commit_page(session, state, records, bad, next_token, report)
                    for r in records:
                        if r.datestamp and (newest is None or r.datestamp > newest):
                            newest = r.datestamp
                    if on_page is not None:
                        on_page(len(records))
                break
            except BadResumptionToken:
                if not token and not state.token:
                    raise NetworkError(
                        f"the OAI-PMH server at {endpoint} refused a harvest that used no token "
                        "(badResumptionToken); check --arxiv-url"
                    ) from None
                from_ = state.last_datestamp or state.from_date
                log.warning(
                    "OAI-PMH resumption token expired; falling back to from=%s (last committed datestamp)",
                    from_,
                )
                report.fallback = True
                seen, expected = 0, None  # a new list
                token = None
                state.token = None
                touch(session, state)
                session.commit()
    except NoRecordsMatch:
        log.info("OAI-PMH: no records match set=%s from=%s (nothing new)", set_spec or "(all)", from_)
    except OAIPMHException as exc:
        raise NetworkError(
            f"the OAI-PMH server at {endpoint} answered with an error: {type(exc).__name__}: {exc}; "
            "check --arxiv-url and --categories"
        ) from None
    state.completed = True
    state.token = None
    if expected is not None and seen is not None and seen < expected:
        report.short = (seen, expected)
        log.warning(
            "OAI-PMH list for set %s ended after %d of %d records (its completeListSize): the server "
            "closed it early or it changed during the harvest; the %d records are kept and the next "
            "run harvests this set again from %s",
            set_spec or "(all)", seen, expected, seen, needed_from,
        )  # fmt: skip
        state.covered_from = None  # not covered: the next run's plan_start asks for the whole set
    elif state.from_date and (state.covered_from is None or state.from_date < state.covered_from):
        state.covered_from = state.from_date
    state.harvested_through = newest or state.harvested_through or state.from_date
    touch(session, state)
    session.commit()
    return report


def _commit_page(
    session: Session,
    state: HarvestState,
    records: list[ArxivRecord],
    bad: list[tuple[str, str]],
    next_token,
    report: HarvestReport,
) -> None:
    """One page's records and the state that points past it, in one transaction."""
    store_records(session, records, "oai", merge=False)
    for ident, reason in bad:
        record_failure(session, "ingest", ident, "bad-record", reason)
    state.pages += 1
    state.records += len(records)
    state.token = next_token.token if next_token is not None and next_token.token else None
    if next_token is not None and next_token.cursor not in (None, ""):
        try:
            state.cursor = int(next_token.cursor)
        except ValueError:
            state.cursor += len(records)
    else:
        state.cursor += len(records)
    if next_token is not None and next_token.complete_list_size:
        with contextlib.suppress(ValueError):
            state.complete_list_size = int(next_token.complete_list_size)
    if records and records[-1].datestamp:
        state.last_datestamp = records[-1].datestamp
    touch(session, state)
    session.commit()
    report.pages += 1
    report.records += len(records)
    report.bad += len(bad)
