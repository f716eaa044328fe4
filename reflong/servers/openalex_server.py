"""A local server that speaks the OpenAlex works API, serving a world's index view.

It answers what ``ingest/index/openalex.py`` asks of api.openalex.org, on 127.0.0.1, from a catalog
folder and the same index view the Semantic Scholar stand-in serves (``s2_index.jsonl`` from
``reflong.demo.citation_graph``: who cites whom, as an imperfect index sees it), so the two
providers can be compared on one world. Every catalog paper is a work with arXiv's DataCite DOI
(``https://doi.org/10.48550/arxiv.<id>``) and an arxiv.org location (``landing_page_url``
``http://arxiv.org/abs/<id>``, the form OpenAlex stores from arXiv's OAI records, as clients
record it live); a seeded quarter of the works nobody cites has no DOI (OpenAlex holds many arXiv
works so), their arXiv id only in ``locations``; citers outside arXiv have a publisher DOI and no
arXiv location.

Merged works (by default ``merged_share`` = a seeded quarter of the cited arXiv works): OpenAlex
clusters a preprint with its published version into one work ("https://doi.org/10.1364/PRJ.433188
and https://arxiv.org/abs/2102.11388 are two versions of the same paper, so they appear in OpenAlex
as one Work": ourresearch/openalex-docs, about-the-data/work.md; its data pipeline sorts a work's
locations published version first, ourresearch/openalex-walden, notebooks/end2end/CreateWorksBase).
Such a work carries the publisher's DOI (``doi`` and ``ids.doi``; here ``10.9999/merged.<id>``),
``type`` article, the journal location first and arXiv only among ``locations``: ``filter=doi:`` on
arXiv's DOI no longer finds it, ``filter=locations.landing_page_url:http://arxiv.org/abs/<id>``
does (a term filter on the exact URL: ourresearch/openalex-elastic-api, works/fields.py).

``GET /works`` with (https://docs.openalex.org/how-to-use-the-api/get-lists-of-entities):

- ``filter=doi:A|B|...``, ``filter=cites:W123``, ``filter=openalex:W1|W2``,
  ``filter=locations.landing_page_url:U1|U2`` (exact URLs; comma = AND, pipe = OR inside one
  filter). More than 100 values in one filter: 400 ("You can combine up to 100 values for a given
  filter", filter-entity-lists; ``MAX_IDS_IN_FILTER = 100`` and its message in OpenAlex's own
  server, ourresearch/openalex-elastic-api settings.py and core/filter.py); an unknown filter
  field: 400.
- ``per-page`` (or ``per_page``) 1 to 200, default 25, else 400 (paging: "any number between 1
  and 200"); ``page`` with ``per-page``: basic paging, only the first 10,000 results
  (page x per-page above 10,000: 400, "you'll need to use cursor paging"); ``cursor=*`` then
  ``meta.next_cursor``: cursor paging to the end; a page shorter than ``per-page`` has
  ``next_cursor`` null (OpenAlex's server gives no cursor when fewer hits than ``per_page`` came
  back: openalex-elastic-api, core/cursor.py ``get_cursor``), a full last page a cursor to an empty
  page with ``next_cursor`` null (paging); ``page`` and ``cursor`` together, or a cursor we did not
  issue: 400.
- soft timeouts: OpenAlex runs every list query with a 5 s Elasticsearch timeout that "returns
  partial results with timed_out=true rather than hard-cancelling", and says so in
  ``meta.timed_out: true`` (openalex-elastic-api, core/shared_view.py ``execute_search`` and
  ``format_meta``, 2026). Such a page is short, so it has no next cursor. Here on a fault only:
  ``faults=["citations:2:timed_out"]`` (``--fault KIND:N:timed_out``; KIND ``batch`` for
  ``doi:``, ``locations`` for ``locations.landing_page_url:``, ``citations`` for ``cites:``,
  ``works`` otherwise; N counts that kind's requests from 1, ``*`` every one) answers that
  request with the first half of its page, ``meta.timed_out`` true and no ``next_cursor``.
- ``select=a,b``: root-level fields only; a nested or unknown field: 400 (select-fields).
- ``meta``: ``count``, ``db_response_time_ms``, ``page``, ``per_page``, ``next_cursor``.

Limits (rate-limits-and-authentication; https://developers.openalex.org/api-reference/authentication):
at most ``per_second`` requests in any second per caller (default 100, the published limit), and
a daily budget in US dollars, $0.0001 a list call: $1 with an API key (``api_key=``), $0.01 without.
Over either: 429 with JSON ``{"error", "message"}``. Every list answer carries
``x-ratelimit-cost-usd``, ``x-ratelimit-remaining-usd`` and ``x-ratelimit-reset`` (seconds to the
budget's reset at midnight UTC): the docs (https://developers.openalex.org/api-reference/errors)
say only "check rate limit headers to see your remaining allowance"; these names are those
other clients report seeing on OpenAlex's answers. No ``Retry-After`` is sent: OpenAlex documents none.
An API key not in ``api_keys`` (when given): 403. ``mailto=`` is accepted (the polite pool).
``GET /_stats``: requests by kind (``batch`` for ``doi:``, ``locations`` for
``locations.landing_page_url:``, ``citations`` for ``cites:``) and status (the request counter;
not part of OpenAlex's protocol).

Run it:  python -m reflong.servers.openalex_server --catalog DIR [--index DIR/s2_index.jsonl] --port 8767
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import json
import re
import threading
import time
from collections import Counter, defaultdict, deque
from datetime import datetime, timedelta, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

from reflong.demo.citation_graph import INDEX_FILE
from reflong.ingest.catalog.reader import read_catalog
from reflong.servers.background import BackgroundServer, send_json

MAX_OR_VALUES = 100  # openalex-elastic-api settings.py MAX_IDS_IN_FILTER; docs: "up to 100 values"
MAX_PER_PAGE = 200
DEFAULT_PER_PAGE = 25
MAX_BASIC_PAGING = 10_000
LIST_COST_UNITS = 1  # one unit = $0.0001, the price of a list/filter call
KEYED_BUDGET_USD = 1.0
FREE_BUDGET_USD = 0.01
WORK_FIELDS = (
    "id",
    "doi",
    "title",
    "display_name",
    "publication_year",
    "publication_date",
    "ids",
    "cited_by_count",
    "locations",
    "primary_location",
    "type",
)
FILTERS = {"doi", "cites", "openalex", "ids.openalex", "locations.landing_page_url"}
MERGED_SHARE = 0.25  # cited arXiv works merged with a published version
FAULTS = {"timed_out"}
KINDS = {"batch", "locations", "citations", "works"}
ARXIV_SOURCE = {"id": "https://openalex.org/S4306400194", "display_name": "arXiv (Cornell University)"}


def openalex_id(key: str) -> str:
    """A ``W`` id in the shape of OpenAlex's (W + 10 digits), stable for a key."""
    n = int(hashlib.sha1(f"reflong-openalex:{key}".encode()).hexdigest()[:12], 16)
    return f"W{1_000_000_000 + n % 9_000_000_000}"


def _share(key: str, salt: str = "nodoi") -> float:
    return int(hashlib.sha1(f"reflong-openalex-{salt}:{key}".encode()).hexdigest()[:8], 16) / 16**8


class _World:
    """Works of a catalog and its index view: by W id, by lower-cased DOI, and who cites whom."""

    def __init__(self, catalog_dir: Path, index_file: Path, merged_share: float = MERGED_SHARE) -> None:
        catalog = read_catalog(catalog_dir)
        rows = [json.loads(x) for x in index_file.read_text(encoding="utf-8").splitlines() if x]
        cited_by: dict[str, set[str]] = defaultdict(set)  # cited arXiv id -> citing W ids
        self.works: dict[str, dict] = {}
        for arxiv_id, p in sorted(catalog.papers.items()):
            self._add_arxiv_work(arxiv_id, p.title, p.first_published)
        for row in rows:
            citing = row["citing_arxiv"]
            if citing:
                wid = openalex_id(citing)
                if wid not in self.works:
                    self._add_arxiv_work(citing, row["title"], row["date"])
            else:
                wid = openalex_id(row["citing_key"])
                if wid not in self.works:
                    doi = f"https://doi.org/10.9999/{row['citing_key'][:12]}"
                    self.works[wid] = self._work(
                        wid, doi, row["title"], row["date"], [{"landing_page_url": doi}]
                    )
            cited_by[row["cited"]].add(wid)
        self.cited_by = {openalex_id(a): sorted(ws) for a, ws in cited_by.items()}
        for wid, work in self.works.items():
            work["cited_by_count"] = len(self.cited_by.get(wid, []))
            arxiv_id = work.pop("_arxiv", None)
            if work["cited_by_count"] == 0 and arxiv_id and _share(wid) < 0.25:
                work["doi"] = None  # an arXiv work without its DataCite DOI: found by location only
                work["ids"].pop("doi", None)
            elif work["cited_by_count"] and arxiv_id and _share(wid, "merged") < merged_share:
                self._merge_with_published_version(work, arxiv_id)
        self.by_doi: dict[str, list[str]] = defaultdict(list)
        self.by_landing_page: dict[str, list[str]] = defaultdict(list)
        for wid in sorted(self.works):
            doi = self.works[wid]["doi"]
            if doi:
                self.by_doi[_bare_doi(doi)].append(wid)
            for loc in self.works[wid]["locations"]:
                if loc.get("landing_page_url"):
                    self.by_landing_page[loc["landing_page_url"]].append(wid)

    @staticmethod
    def _merge_with_published_version(work: dict, arxiv_id: str) -> None:
        """The work as OpenAlex shows a preprint clustered with its journal version."""
        doi = f"https://doi.org/10.9999/merged.{arxiv_id}".lower()
        published = {
            "landing_page_url": doi,
            "pdf_url": None,
            "source": {"id": "https://openalex.org/S4999999999", "display_name": "Proceedings of a venue"},
            "version": "publishedVersion",
        }
        arxiv = dict(work["locations"][0], version="submittedVersion")
        work["doi"] = doi
        work["ids"]["doi"] = doi
        work["locations"] = [published, arxiv]
        work["primary_location"] = published
        work["type"] = "article"

    def _add_arxiv_work(self, arxiv_id: str, title: str | None, day: str | None) -> None:
        wid = openalex_id(arxiv_id)
        doi = f"https://doi.org/10.48550/arxiv.{arxiv_id}".lower()
        location = {
            "landing_page_url": f"http://arxiv.org/abs/{arxiv_id}",
            "pdf_url": f"https://arxiv.org/pdf/{arxiv_id}",
            "source": ARXIV_SOURCE,
        }
        self.works[wid] = self._work(wid, doi, title, day, [location]) | {"_arxiv": arxiv_id}

    @staticmethod
    def _work(wid: str, doi: str | None, title: str | None, day: str | None, locations: list[dict]) -> dict:
        ids = {"openalex": f"https://openalex.org/{wid}"} | ({"doi": doi} if doi else {})
        return {
            "id": f"https://openalex.org/{wid}",
            "doi": doi,
            "title": title,
            "display_name": title,
            "publication_year": int(day[:4]) if day else None,
            "publication_date": day,
            "ids": ids,
            "cited_by_count": 0,
            "locations": locations,
            "primary_location": locations[0] if locations else None,
            "type": "preprint" if locations and locations[0].get("source") == ARXIV_SOURCE else "article",
        }

    def match(self, attr: str, values: list[str]) -> set[str]:
        if attr == "doi":
            return {w for v in values for w in self.by_doi.get(_bare_doi(v), [])}
        if attr == "locations.landing_page_url":  # a term filter: the exact URL
            return {w for v in values for w in self.by_landing_page.get(v.strip(), [])}
        wids = {_short(v) for v in values}
        if attr == "cites":
            return {w for c in wids for w in self.cited_by.get(c, [])}
        return {w for w in wids if w in self.works}  # openalex / ids.openalex


def _bare_doi(doi: str) -> str:
    return re.sub(r"^https?://(?:dx\.)?doi\.org/", "", doi.strip(), flags=re.IGNORECASE).lower()


def _short(value: str) -> str:
    return value.strip().rstrip("/").rsplit("/", 1)[-1].upper()


class _Limits:
    """Per caller: a sliding one-second window, and a daily budget in units of $0.0001."""

    def __init__(self, per_second: int, keyed_usd: float, free_usd: float) -> None:
        self.per_second = per_second
        self.budget = {True: round(keyed_usd * 10_000), False: round(free_usd * 10_000)}
        self.times: dict[str, deque] = defaultdict(deque)
        self.spent: Counter = Counter()
        self.day = ""
        self.lock = threading.Lock()

    def too_fast(self, caller: str) -> bool:
        now = time.monotonic()
        with self.lock:
            q = self.times[caller]
            while q and now - q[0] >= 1.0:
                q.popleft()
            if len(q) >= self.per_second:
                return True
            q.append(now)
            return False

    def charge(self, caller: str, keyed: bool) -> tuple[bool, float]:
        """(allowed, dollars remaining after this call); the budget resets at midnight UTC."""
        today = datetime.now(timezone.utc).date().isoformat()
        with self.lock:
            if today != self.day:
                self.day, self.spent = today, Counter()
            left = self.budget[keyed] - self.spent[caller]
            if left < LIST_COST_UNITS:
                return False, max(left, 0) / 10_000
            self.spent[caller] += LIST_COST_UNITS
            return True, (left - LIST_COST_UNITS) / 10_000


def _seconds_to_midnight() -> int:
    now = datetime.now(timezone.utc)
    midnight = datetime.combine(now.date() + timedelta(days=1), datetime.min.time(), timezone.utc)
    return int((midnight - now).total_seconds())


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    owner: OpenAlexServer


class _BadRequest(Exception):
    pass


class _Handler(BaseHTTPRequestHandler):
    server: _HTTPServer

    def log_message(self, *args) -> None:  # quiet
        pass

    def _send(self, status: int, payload, headers: dict | None = None) -> None:
        send_json(self, status, payload, headers)
        self.server.owner.counts[f"status:{status}"] += 1

    def do_GET(self) -> None:
        parts = urlsplit(self.path)
        owner = self.server.owner
        if parts.path == "/_stats":
            self._send(200, dict(owner.counts))
            return
        if parts.path.rstrip("/") != "/works":
            self._send(404, {"error": "Not found", "message": f"{parts.path} is not served here"})
            return
        query = {k: v[-1] for k, v in parse_qs(parts.query, keep_blank_values=True).items()}
        raw_filter = query.get("filter", "")
        kind = _kind(raw_filter)
        fault = owner.faults.next(kind)
        owner.counts[kind] += 1
        key = query.get("api_key") or None
        if key is not None and owner.api_keys is not None and key not in owner.api_keys:
            self._send(403, {"error": "Forbidden", "message": "Invalid API key"})
            return
        caller = key or "(no key)"
        if owner.limits.too_fast(caller):
            self._send(
                429,
                {
                    "error": "Rate limit exceeded",
                    "message": f"max {owner.limits.per_second} requests per second",
                },
            )
            return
        try:
            page = _list(owner.world, raw_filter, query, timed_out=fault == "timed_out")
        except _BadRequest as exc:
            self._send(400, {"error": "Invalid query parameters error.", "message": str(exc)})
            return
        allowed, remaining = owner.limits.charge(caller, key is not None)
        headers = {
            "x-ratelimit-cost-usd": "0.0001" if allowed else "0",
            "x-ratelimit-remaining-usd": f"{remaining:.4f}",
            "x-ratelimit-reset": str(_seconds_to_midnight()),
        }
        if not allowed:
            self._send(
                429,
                {
                    "error": "Rate limit exceeded",
                    "message": "daily budget used up; an API key gives $1 a day",
                },
                headers,
            )
            return
        self._send(200, page, headers)


def _kind(raw_filter: str) -> str:
    attrs = {part.split(":", 1)[0].strip().lower() for part in raw_filter.split(",") if part}
    if "cites" in attrs:
        return "citations"
    if "doi" in attrs:
        return "batch"
    return "locations" if "locations.landing_page_url" in attrs else "works"


class _Faults:
    """``KIND:N:FAULT`` rules: the N-th request of a kind (from 1; ``*`` every one) gets FAULT."""

    def __init__(self, specs: list[str] | None) -> None:
        self.rules: dict[tuple[str, int], str] = {}
        self.counts: Counter = Counter()
        self.lock = threading.Lock()
        for spec in specs or []:
            try:
                kind, number, fault = spec.split(":", 2)
                n = 0 if number == "*" else int(number)
            except ValueError:
                raise ValueError(
                    f"bad fault {spec!r}; expected KIND:N:FAULT such as citations:2:timed_out"
                ) from None
            if kind not in KINDS or fault not in FAULTS or n < 0:
                raise ValueError(f"bad fault {spec!r}; kinds {sorted(KINDS)}, faults {sorted(FAULTS)}")
            self.rules[(kind, n)] = fault

    def next(self, kind: str) -> str | None:
        with self.lock:
            self.counts[kind] += 1
            return self.rules.get((kind, self.counts[kind])) or self.rules.get((kind, 0))


def _int(query: dict, *names: str, default: int) -> int:
    for name in names:
        if name in query:
            try:
                return int(query[name])
            except ValueError:
                raise _BadRequest(f"{name} must be an integer") from None
    return default


def _list(world: _World, raw_filter: str, query: dict, timed_out: bool = False) -> dict:
    """The answer to one list request, or ``_BadRequest`` with OpenAlex's kind of message.

    ``timed_out``: the soft timeout fired: half the page, ``meta.timed_out``, no next cursor."""
    matched: set[str] | None = None
    for part in filter(None, raw_filter.split(",")):
        attr, sep, value = part.partition(":")
        attr = attr.strip().lower()
        if not sep or attr not in FILTERS:
            raise _BadRequest(f"{attr} is not a valid field. Valid fields: {', '.join(sorted(FILTERS))}")
        values = [v for v in value.split("|") if v]
        if len(values) > MAX_OR_VALUES:
            raise _BadRequest(
                f"Maximum number of values exceeded for {attr}. Decrease values to {MAX_OR_VALUES} or below."
            )
        hits = world.match(attr, values)
        matched = hits if matched is None else matched & hits
    ids = sorted(world.works if matched is None else matched)
    per_page = _int(query, "per-page", "per_page", default=DEFAULT_PER_PAGE)
    if not 1 <= per_page <= MAX_PER_PAGE:
        raise _BadRequest(f"per-page parameter must be between 1 and {MAX_PER_PAGE}")
    select = [f for f in query.get("select", "").split(",") if f]
    bad = [f for f in select if f not in WORK_FIELDS]
    if bad:
        raise _BadRequest(f"{bad[0]} is not a valid select field. Valid fields: {', '.join(WORK_FIELDS)}")
    cursor = query.get("cursor")
    if cursor is not None and "page" in query:
        raise _BadRequest("cannot use page parameter with cursor pagination")
    if cursor is None:
        page = _int(query, "page", default=1)
        if page < 1:
            raise _BadRequest("page must be 1 or more")
        if page * per_page > MAX_BASIC_PAGING:
            raise _BadRequest(
                f"Maximum results size of {MAX_BASIC_PAGING:,} records is exceeded. Cursor pagination is "
                "required for records beyond 10,000. See: https://docs.openalex.org/how-to-use-the-api/"
                "get-lists-of-entities/paging#cursor-paging"
            )
        start = (page - 1) * per_page
    else:
        start = _decode_cursor(cursor, raw_filter)
    chunk = ids[start : start + per_page]
    if timed_out:
        chunk = chunk[: len(chunk) // 2]
    meta = {
        "count": len(ids),
        "db_response_time_ms": 5000 if timed_out else 1,
        "page": None if cursor else page,
        "per_page": per_page,
    }
    if timed_out:
        meta["timed_out"] = True
    if cursor is not None:
        full = len(chunk) == per_page  # a short page has no next cursor (core/cursor.py)
        meta["next_cursor"] = _encode_cursor(start + len(chunk), raw_filter) if full else None
    results = []
    for wid in chunk:
        work = world.works[wid]
        results.append({k: work[k] for k in select} if select else dict(work))
    return {"meta": meta, "results": results, "group_by": []}


def _encode_cursor(offset: int, raw_filter: str) -> str:
    tag = hashlib.sha1(raw_filter.encode()).hexdigest()[:8]
    return base64.urlsafe_b64encode(json.dumps([offset, tag]).encode()).decode()


def _decode_cursor(cursor: str, raw_filter: str) -> int:
    if cursor == "*":
        return 0
    try:
        offset, tag = json.loads(base64.urlsafe_b64decode(cursor.encode()))
    except (ValueError, TypeError):
        raise _BadRequest("invalid cursor value") from None
    if tag != hashlib.sha1(raw_filter.encode()).hexdigest()[:8] or not isinstance(offset, int) or offset < 0:
        raise _BadRequest("invalid cursor value (it belongs to another query)")
    return offset


class OpenAlexServer(BackgroundServer):
    """The server in a background thread: ``with OpenAlexServer(catalog_dir) as srv: srv.url``."""

    thread_name = "openalex-server"

    def __init__(
        self,
        catalog_dir: str | Path,
        index_file: str | Path | None = None,
        host: str = "127.0.0.1",
        port: int = 0,
        per_second: int = 100,
        keyed_usd: float = KEYED_BUDGET_USD,
        free_usd: float = FREE_BUDGET_USD,
        api_keys: set[str] | None = None,
        merged_share: float = MERGED_SHARE,
        faults: list[str] | None = None,
    ) -> None:
        catalog_dir = Path(catalog_dir)
        self.world = _World(
            catalog_dir, Path(index_file) if index_file else catalog_dir / INDEX_FILE, merged_share
        )
        self.limits = _Limits(per_second, keyed_usd, free_usd)
        self.faults = _Faults(faults)
        self.api_keys = api_keys
        self.counts: Counter = Counter()
        self._httpd = _HTTPServer((host, port), _Handler)
        self._httpd.owner = self
        self._thread: threading.Thread | None = None


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(
        prog="python -m reflong.servers.openalex_server", description=__doc__.split("\n")[0]
    )
    ap.add_argument("--catalog", required=True, help="catalog folder (papers.jsonl)")
    ap.add_argument("--index", default=None, help=f"index view file [default: CATALOG/{INDEX_FILE}]")
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=8767, help="0: any free port")
    ap.add_argument("--per-second", type=int, default=100, help="requests per second per caller")
    ap.add_argument("--free-usd", type=float, default=FREE_BUDGET_USD, help="daily budget without a key")
    ap.add_argument("--keyed-usd", type=float, default=KEYED_BUDGET_USD, help="daily budget with a key")
    ap.add_argument(
        "--merged-share", type=float, default=MERGED_SHARE, help="cited works merged with a published version"
    )
    ap.add_argument(
        "--fault", action="append", default=[], metavar="KIND:N:FAULT", help="e.g. citations:*:timed_out"
    )
    args = ap.parse_args(argv)
    server = OpenAlexServer(
        args.catalog,
        args.index,
        args.host,
        args.port,
        args.per_second,
        args.keyed_usd,
        args.free_usd,
        merged_share=args.merged_share,
        faults=args.fault,
    )
    print(f"OpenAlex-protocol server for {args.catalog} at {server.url}", flush=True)
    server.serve_until_interrupted()


if __name__ == "__main__":
    main()
