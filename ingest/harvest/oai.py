"""Bulk metadata the way arXiv asks for it: OAI-PMH ``ListRecords``, arXivRaw, one committed page at a time.

arXiv's documented OAI-PMH endpoint is https://oaipmh.arxiv.org/oai (``--oai-url``; its own
setting, apart from ``--arxiv-url``, which serves the API and PDFs). Its server is
github.com/arXiv/oaipmh: the route is ``/oai`` only (``requests/routes.py``), so the legacy
``/oai2`` path appended to a base URL does not reach it. ``arXivRaw`` carries every version and its
date; datestamps are last-modification days, so a harvest ``from`` a day is a superset of what
changed since (new papers, new versions, withdrawals).

Before harvesting, ``identify`` asks ``verb=Identify``: an answer that is not OAI-PMH, or a
repository that is not arXiv's, stops the run in one line naming ``--oai-url``. Its
``earliestDatestamp`` (2005-09-16 at arXiv: ``data/oai_config.py``) bounds ``from``: arXiv's
server answers a ``from`` before it with ``badArgument`` ("start date too early",
``requests/data_queries.py``), so a window that starts earlier is harvested from that day
(``clamp_from``; no record has an earlier datestamp, so nothing is lost).

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
from the stored token, unless the token is past its ``expirationDate``. A token that cannot be
used (refused as ``badResumptionToken``, or expired) falls back to a new list ``from`` a day
(``fallback_from``), and which day depends on the order the server lists records in:

- arXiv's current server lists them in (modification time, id) order, so datestamps never go
  down along a list, but within a day the ids are not in order (a day's records are split across
  pages by modification time; each page shows its share sorted by id). Restarting "after the last
  id" would skip records; restarting ``from`` the datestamp of the last committed record (``from``
  is inclusive) asks that day again whole, and every later day: nothing is lost, and what is
  asked again is stored again unchanged (rows are upserted by id).
- the legacy export.arxiv.org/oai2 listed records in identifier order, with datestamps going up
  and down; there, records of any datestamp may still be ahead, so the only safe restart is the
  harvest's own ``from``.

Which order the server uses is read from the records themselves: ``harvest_state.datestamp_order``
stays true while every committed record's datestamp is no earlier than the one before it. arXiv's
current tokens never expire on the server (they hold the query and a skip count, and the server
checks only their form), but the skip count is only right while the list does not change, which is
why a stored token past its ``expirationDate`` (the next UTC midnight) is not used on a rerun.
``from`` is inclusive, so a refresh gets the records of the last harvested day again.

**Overlap** (issue 41): the skip count can also be wrong inside one harvest. A record already shown
on a page's last day that is modified before the next page is asked for moves to a later day; that
day then holds one record fewer and the next token's skip passes over a record not yet shown
(measured against arXiv's own list logic: 1 record of 503). Its datestamp lies inside the harvest's
range, so a refresh from where that harvest ended would never ask for it again. So a refresh starts
where the previous harvest started (``harvest_state.overlap_from``: the newest datestamp the store
had before it), asking its range once more; rows are upserted by id, so what is asked again is
stored unchanged, and what was passed over is found. The cost: each refresh lists two intervals
instead of one (OAI pages hold 2,500 records; PDFs and index answers are not asked again).

Nothing passes as complete that is not (issue 20): scythe parses with lxml's ``recover=True``, so a
page cut halfway would read as a shorter page without a token, i.e. the end of the list. So every
answer is first parsed strictly (``page_problem``); one that is not a well-formed OAI-PMH document is
retried under the shared policy like a 5xx, and when it keeps failing the run stops with one line,
its committed pages and token kept for the rerun. A list whose last page (empty token) leaves it
shorter than its ``completeListSize`` (cursor + records of the last page) is reported with a warning,
not a failure: the answer is well formed, there is no token left to retry with, and OAI-PMH lets a
list change while it is harvested (spec 3.5.1; records modified meanwhile move), so the count alone
proves no loss. The set is then not marked as covered, so the next run harvests it again whole.
arXiv's current server sends neither ``cursor`` nor ``completeListSize``: there is nothing to
compare against, and no warning.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime, timezone

import httpx2
import requests
from lxml import etree
from oaipmh_scythe import Scythe
from oaipmh_scythe.config import HTTPConfig, RetryConfig
from oaipmh_scythe.exceptions import BadResumptionToken, NoRecordsMatch, OAIPMHException
from oaipmh_scythe.iterator import OAIResponseIterator
from sqlmodel import Session

from reflong.common.errors import BlockedError, NetworkError, ReflongError, ServiceBusyError
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


class UnknownSetError(ReflongError):
    """The OAI-PMH server does not know a set the categories asked for (``badArgument``)."""


MAX_TOKEN_REFUSALS = 3  # badResumptionToken answers one harvest falls back from before it stops
DEFAULT_OAI_URL = "https://oaipmh.arxiv.org/oai"  # arXiv's documented endpoint (oai_config.py BASE_URL)


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
        with _oai_errors():
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


_NS = "{http://www.openarchives.org/OAI/2.0/}"


@dataclass(frozen=True)
class Repository:
    """What an OAI-PMH endpoint says of itself (``verb=Identify``)."""

    name: str
    base_url: str
    earliest: str  # earliestDatestamp, as a day (YYYY-MM-DD)
    granularity: str


def _oai_flag(exc: NetworkError) -> NetworkError:
    """The shared connection's one-line errors name ``--arxiv-url``; for OAI requests the setting
    to check is ``--oai-url``."""
    if isinstance(exc, (BlockedError, ServiceBusyError)):
        return exc
    message = str(exc).replace("--arxiv-url URL for a mirror", "--oai-url URL for another OAI-PMH endpoint")
    return NetworkError(message.replace("check --arxiv-url and --categories", "check --oai-url"))


@contextlib.contextmanager
def _oai_errors():
    try:
        yield
    except NetworkError as exc:
        raise _oai_flag(exc) from None


def identify(conn: ArxivConnection, endpoint: str) -> Repository:
    """Ask ``endpoint`` who it is; one clear line (``NetworkError``) when it is not arXiv's OAI-PMH.

    Refused: an answer that is not an OAI-PMH document (a web page, a 404: a wrong URL, or the
    legacy ``/oai2`` path on arXiv's current server, which serves ``/oai`` only), an OAI-PMH error
    instead of ``Identify``, an ``Identify`` without ``earliestDatestamp``, and a repository whose
    ``repositoryName`` does not name arXiv (arXiv's says "arXiv": ``templates/identify.xml``).
    """
    with _oai_errors():
        resp = conn.get(endpoint, "oai", params={"verb": "Identify"})
    problem = page_problem(resp)
    if problem is not None:
        raise NetworkError(
            f"{endpoint} is not an OAI-PMH endpoint ({problem}); check --oai-url "
            f"(arXiv's is {DEFAULT_OAI_URL})"
        )
    root = etree.fromstring(resp.content, _STRICT)
    error = root.find(f"{_NS}error")
    ident = root.find(f"{_NS}Identify")
    if ident is None:
        said = (
            f"error {error.get('code')}: {(error.text or '').strip()}" if error is not None else "no Identify"
        )
        raise NetworkError(
            f"{endpoint} did not answer Identify as an OAI-PMH repository does ({said}); check --oai-url "
            f"(arXiv's is {DEFAULT_OAI_URL})"
        )
    name = (ident.findtext(f"{_NS}repositoryName") or "").strip()
    earliest = (ident.findtext(f"{_NS}earliestDatestamp") or "").strip()[:10]
    if "arxiv" not in name.lower():
        raise NetworkError(
            f"{endpoint} is an OAI-PMH repository, but not arXiv's (it calls itself {name or 'nothing'!r}); "
            f"check --oai-url (arXiv's is {DEFAULT_OAI_URL})"
        )
    try:
        date.fromisoformat(earliest)
    except ValueError:
        raise NetworkError(
            f"{endpoint} gave no usable earliestDatestamp ({earliest or 'none'!r}) in its Identify answer; "
            "check --oai-url"
        ) from None
    return Repository(
        name=name,
        base_url=(ident.findtext(f"{_NS}baseURL") or "").strip(),
        earliest=earliest,
        granularity=(ident.findtext(f"{_NS}granularity") or "").strip(),
    )


def clamp_from(needed_from: str, repo: Repository) -> str:
    """``needed_from``, or the repository's earliest datestamp when the window starts before it.

    arXiv refuses an earlier ``from`` (``badArgument``); no record has an earlier datestamp, so
    the clamped harvest holds every record the window's would.
    """
    if needed_from >= repo.earliest:
        return needed_from
    log.info(
        "OAI-PMH: the windows start %s, before the repository's earliest datestamp %s (Identify); "
        "harvesting from %s, which holds every record",
        needed_from, repo.earliest, repo.earliest,
    )  # fmt: skip
    return repo.earliest


def fallback_from(state: HarvestState) -> str | None:
    """Where a harvest whose token cannot be used starts a new list (module docstring): the last
    committed datestamp when the records so far came in datestamp order, else the harvest's own
    ``from``."""
    if state.datestamp_order and state.last_datestamp:
        return state.last_datestamp
    return state.from_date


def datestamp_order(previous: str | None, datestamps: list[str | None]) -> tuple[bool, str | None]:
    """(whether ``datestamps`` never go down, starting after ``previous``; the last of them).

    True along a list of arXiv's current server (pages in modification-time order); false soon
    along one of the legacy server (identifier order, tests/data/real/export_arxiv_oai2)."""
    ordered = True
    for day in datestamps:
        if day:
            if previous is not None and day < previous:
                ordered = False
            previous = day
    return ordered, previous


def token_expired(expires: str | None, now: datetime | None = None) -> bool:
    """Whether a token's ``expirationDate`` (``YYYY-MM-DDThh:mm:ssZ``) has passed."""
    if not expires:
        return False
    try:
        when = datetime.fromisoformat(expires.strip().replace("Z", "+00:00"))
    except ValueError:
        return False
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    return (now or datetime.now(timezone.utc)) >= when


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


def plan_start(
    state: HarvestState, needed_from: str, now: datetime | None = None
) -> tuple[str | None, str | None, bool]:
    """(token, from, incremental) for the next harvest of this set.

    - unfinished harvest with a token that has not expired: go on from the token;
    - unfinished without one (killed before the second page, or its token expired): from
      ``fallback_from`` (the last committed datestamp, or its own ``from``);
    - finished harvest covering ``needed_from``: refresh from ``overlap_from``, the newest
      datestamp the store had before that harvest began (the harvest is asked for again from its
      start: module docstring, "overlap"); a store from before overlaps, from its ``from``;
    - otherwise (nothing yet, or an earlier start is needed): a full harvest from ``needed_from``.
    """
    if not state.completed and state.from_date is not None:
        if state.token and not token_expired(state.token_expires, now):
            return state.token, None, False
        return None, fallback_from(state), False
    if (
        state.completed
        and state.covered_from
        and state.covered_from <= needed_from
        and state.harvested_through
    ):
        return None, state.overlap_from or state.from_date or state.harvested_through, True
    return None, needed_from, False


def harvest_set(
    session: Session,
    conn: ArxivConnection,
    endpoint: str,
    set_spec: str,
    needed_from: str,
    on_page: Callable[[int], None] | None = None,
) -> HarvestReport:
    """Harvest (or resume, or refresh) one set of the OAI-PMH ``endpoint`` into ``arxiv_record``,
    committing every page. ``needed_from`` is no earlier than the repository's earliest datestamp
    (``clamp_from``)."""
    endpoint = endpoint.rstrip("/")
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
            state.last_datestamp, state.datestamp_order = None, True  # a new harvest
        elif state.token:
            log.warning(
                "OAI-PMH: the stored resumption token of set %s expired at %s (its expirationDate); "
                "harvesting again from=%s (%s)",
                set_spec or "(all)", state.token_expires, from_, _fallback_reason(state),
            )  # fmt: skip
            report.fallback = True
        state.completed = False
        state.token, state.token_expires = None, None
        touch(session, state)
        session.commit()
    scythe = PoliteScythe(endpoint, conn)
    newest = state.harvested_through
    # Records of the current list through the last page (cursor + page), and its announced size;
    # a list resumed from a stored token is counted from the first cursor it shows.
    seen: int | None = None if token else 0
    expected: int | None = None
    refusals = 0
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
                        "(badResumptionToken); check --oai-url"
                    ) from None
                refusals += 1
                from_ = fallback_from(state)
                if refusals > MAX_TOKEN_REFUSALS:
                    raise NetworkError(
                        f"the OAI-PMH server at {endpoint} refused {refusals} resumption tokens in one run "
                        f"(badResumptionToken); the pages so far are stored: rerun later to go on from {from_}"
                    ) from None
                log.warning(
                    "OAI-PMH resumption token refused (expired); falling back to from=%s (%s)",
                    from_, _fallback_reason(state),
                )  # fmt: skip
                report.fallback = True
                seen, expected = 0, None  # a new list
                token = None
                state.token, state.token_expires = None, None
                touch(session, state)
                session.commit()
    except NoRecordsMatch:
        log.info("OAI-PMH: no records match set=%s from=%s (nothing new)", set_spec or "(all)", from_)
    except OAIPMHException as exc:
        if set_spec and ("Set does not exist" in str(exc) or "too many levels" in str(exc)):
            # arXiv's answer for a set it does not know (retired or misspelt): nothing is stored,
            # and the set is not marked harvested, so no later run takes it as covered.
            raise UnknownSetError(
                f"arXiv's OAI-PMH server at {endpoint} has no set {set_spec!r} ({exc}): a retired or "
                "misspelt category in --categories; the sets are arXiv's archives (cs, math, "
                "physics:hep-th, ...), see https://arxiv.org/category_taxonomy"
            ) from None
        raise NetworkError(
            f"the OAI-PMH server at {endpoint} answered with an error: {type(exc).__name__}: {exc}; "
            "check --oai-url and --categories"
        ) from None
    state.completed = True
    state.token, state.token_expires = None, None
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
    # The next refresh starts where this harvest did, not where it ended: a record modified while
    # this harvest paged can have been passed over (stateless tokens), and its datestamp is in
    # this harvest's range, so only asking for the range again finds it.
    state.overlap_from = state.harvested_through or state.from_date
    state.harvested_through = newest or state.harvested_through or state.from_date
    touch(session, state)
    session.commit()
    return report


def _fallback_reason(state: HarvestState) -> str:
    if state.datestamp_order and state.last_datestamp:
        return "the last committed datestamp: the records came in datestamp order"
    if state.last_datestamp:
        return "the harvest's own from: the records came in identifier order, not by datestamp"
    return "the harvest's own from: no page was committed"


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
    state.token_expires = (next_token.expiration_date or None) if state.token else None
    ordered, state.last_datestamp = datestamp_order(state.last_datestamp, [r.datestamp for r in records])
    state.datestamp_order = state.datestamp_order and ordered  # once out of order, identifier order
    touch(session, state)
    session.commit()
    report.pages += 1
    report.records += len(records)
    report.bad += len(bad)
