"""OAI-PMH 2.0 for the arXiv stand-in: what arXiv's OAI-PMH servers answer, over a local catalog.

Mounted by ``arxiv_server.py`` at ``/oai``, speaking as arXiv's current server does (the one at
the documented endpoint https://oaipmh.arxiv.org/oai, github.com/arXiv/oaipmh), and at ``/oai2``
as the legacy export.arxiv.org/oai2 did; ``OaiRepository`` says where each differs (order,
paging, tokens, earliest datestamp) and cites the sources. What both speak, and where from:

- Verbs ``Identify``, ``ListMetadataFormats``, ``ListSets``, ``ListIdentifiers``, ``ListRecords``,
  ``GetRecord``; errors ``badVerb``, ``badArgument``, ``cannotDisseminateFormat``,
  ``idDoesNotExist``, ``noRecordsMatch``, ``badResumptionToken`` (OAI-PMH 2.0 spec, sections 3.6
  and 4; openarchives.org/OAI/openarchivesprotocol.html). ``resumptionToken`` is exclusive: with
  it, only ``verb`` may be given (spec 4.5; arXiv's oaipmh ``_list_data`` checks the same).
- Granularity ``YYYY-MM-DD``, ``deletedRecord`` persistent (arXiv's ``oai_config.py``:
  GRANULARITY='YYYY-MM-DD', DELETED_RECORD='persistent'). A finer
  ``from``/``until`` is a ``badArgument`` (spec 3.3.1).
- **Datestamps are last-modified days**, not submission days (arXiv's OAI help page,
  info.arxiv.org/help/oa: "the datestamp ... is the last modification time of that record ...
  The OAI-PMH interface does not support selective harvesting based on submission date"). A
  record's datestamp here is the catalog's ``datestamp`` field or else the date of its newest
  version (a new version or a withdrawal moves it), so a harvest ``from`` a day is a superset of
  what changed; the harvester filters by first-version date itself. ``from``/``until`` are
  inclusive (spec 3.3.1).
- **Sets** (arXiv's help page: each archive is a set, e.g. ``cs``, ``math``, physics archives as
  ``physics:hep-th``; arXiv's oaipmh ``create_set_list.make_set_str``: groups ``cs``, archives
  ``cs:cs``, categories ``cs:cs:CL``, ``stat:stat:ML``, ``physics:astro-ph:GA``). All three forms
  are accepted; a record is in a set when any of its categories (primary or cross-list) is, so
  ``set=cs`` also returns a stat.ML paper cross-listed to cs.LG. Headers carry one ``setSpec`` per
  category (category form).
- **Unknown sets** (arXiv's oaipmh ``requests/data_queries.py`` ``_parse_set``; the taxonomy of
  arxiv-base, ``arxiv_taxonomy.py``): a set arXiv does not know, retired or misspelt (``cmp-lg``,
  ``cs:cs:XX``, ``math:hep-th``), is ``badArgument`` "Set does not exist" on the current server,
  never ``noRecordsMatch``; a set that exists but holds nothing in the range is ``noRecordsMatch``.
- **Formats**: ``arXivRaw`` (namespace http://arxiv.org/OAI/arXivRaw/, arXiv's help page:
  "very close the internal format ... Includes version history") and ``oai_dc``. The arXivRaw
  element order follows arXiv's ``record_formats.xml`` template: id, submitter, one ``version``
  per version (``date`` in RFC 822 form "Mon, 01 Apr 2024 17:03:12 GMT", ``size`` as "123kb",
  optional ``source_type``), title, authors (one string, as submitted), categories
  (space-separated, primary first), comments, doi, license, abstract. Only the latest version of
  an item is exposed, carrying the whole version history (help page: "Item = Article").
- **Withdrawals** (arXiv's oaipmh ``serializers/create_records.py``; real records in
  tests/data/real/arxiv_oaipmh): arXiv withdraws a paper by announcing a new version that holds
  only a withdrawal notice. Its source format is ``withdrawn``, which arXiv's server prints as
  source type ``I`` (arxiv-base ``SourceFlag.ignore``: "Withdrawn ... No paper available"), and
  its size ``42 // 1024`` = ``0kb``; so the withdrawal version here is ``<size>0kb</size>`` with
  ``<source_type>I</source_type>``, and ``comments`` is the author's reason as the catalog gives
  it (which need not contain the word "withdrawn"). Older withdrawals have no ``I``, only ``0kb``
  and a comment saying so (0906.3336v2): shown for half the withdrawals whose comment says
  "withdrawn" (``_old_style_withdrawal``).
- **Sizes and source types**: ``0kb`` is also what a live version shows when its source is under
  1 KB or its size is missing (2310.08262v1, 2305.11452v1): one live version in
  ``MISSING_SIZE_ONE_IN`` (40) shows it. Live versions carry ``D`` (pdfLaTeX) or ``AD``
  (ancillary files) for some papers, as real ones do.
- **Authors** as submitted, affiliations and all (``raw_authors``): about a quarter of the papers
  show bracketed or numbered affiliations, or "A, B, and C"; names with accents in TeX.
- **Paging**: ``page_size`` records per ``ListRecords`` response (default: the implementation's,
  2,500 now, 1,000 for the legacy server); the rest of the paging rules are the implementation's
  (``OaiRepository``).
- **Flow control**: arXiv answers 503 with ``Retry-After`` (help page: "arXiv uses 503
  Retry-After replies to implement flow control"; spec 3.5); the server injects it through the
  ``FaultPlan`` (``oai:N:503``).

The index is built once at load (records in the implementation's order; category sets interned),
and a page of the current order is a bisect plus a slice, so a 270K-record catalog answers a page
in tens of milliseconds.
"""

from __future__ import annotations

import base64
import bisect
import hashlib
import json
import threading
import time
import unicodedata
import zlib
from collections import OrderedDict
from dataclasses import dataclass
from datetime import date, datetime, timedelta, timezone
from urllib.parse import parse_qs, quote, unquote, urlencode

from lxml import etree as ET

from reflong.common.arxiv_taxonomy import set_error
from reflong.ingest.catalog.reader import Catalog, CatalogPaper, CatalogVersion
from reflong.ingest.metadata import is_withdrawn

OAI = "http://www.openarchives.org/OAI/2.0/"
XSI = "http://www.w3.org/2001/XMLSchema-instance"
RAW = "http://arxiv.org/OAI/arXivRaw/"
OAI_DC = "http://www.openarchives.org/OAI/2.0/oai_dc/"
DC = "http://purl.org/dc/elements/1.1/"
ID_PREFIX = "oai:arXiv.org:"

FORMATS = {
    "arXivRaw": ("http://arxiv.org/OAI/arXivRaw.xsd", RAW),
    "oai_dc": ("http://www.openarchives.org/OAI/2.0/oai_dc.xsd", OAI_DC),
}
# Licences (``<license>``, after ``<doi>``: the newest version's licence URL, as arXiv's
# record_formats.xml prints ``current_meta.license``; the URLs are those of the recorded answers in
# tests/data/real/arxiv_oaipmh). A catalog record's own ``license`` is served as it is; a record
# without one gets a licence from this mix, chosen by a hash of its id (stable, and independent of
# any world's random stream). The mix is our estimate for recent cs papers, not a measured figure:
# mostly arXiv's non-exclusive licence, about a quarter CC BY, a few of the others. (The recorded
# answers, mostly older papers, are 472 of 494 non-exclusive.)
LICENSE_MIX = (
    ("http://arxiv.org/licenses/nonexclusive-distrib/1.0/", 64),
    ("http://creativecommons.org/licenses/by/4.0/", 26),
    ("http://creativecommons.org/licenses/by-sa/4.0/", 3),
    ("http://creativecommons.org/licenses/by-nc-sa/4.0/", 3),
    ("http://creativecommons.org/licenses/by-nc-nd/4.0/", 2),
    ("http://creativecommons.org/publicdomain/zero/1.0/", 2),
)


def mixed_license(arxiv_id: str) -> str:
    """A licence from ``LICENSE_MIX`` for a record that names none, by a hash of its id."""
    x = zlib.crc32(f"license:{arxiv_id}".encode()) % sum(w for _, w in LICENSE_MIX)
    for url, weight in LICENSE_MIX:
        x -= weight
        if x < 0:
            return url
    return LICENSE_MIX[-1][0]


# The two implementations the stand-in speaks (``OaiRepository``): arXiv's current server (the
# default, at /oai) and the legacy export.arxiv.org/oai2 (at /oai2).
CURRENT, LEGACY = "current", "legacy"
IMPLEMENTATIONS = (CURRENT, LEGACY)
EARLIEST_DATESTAMP = "2005-09-16"  # arXiv's oaipmh data/oai_config.py EARLIEST_DATE
RECORDS_LIMIT, IDENTIFIERS_LIMIT = 2500, 20000  # arXiv's oaipmh config.py Settings
LEGACY_RECORDS_LIMIT, LEGACY_IDENTIFIERS_LIMIT = 1000, 10000

# arXiv's groups: an archive's group is its own name except the physics archives (arXiv taxonomy).
_OWN_GROUP = {"cs", "math", "stat", "eess", "econ", "q-bio", "q-fin"}
_DAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


class OaiError(Exception):
    """An OAI-PMH protocol error, answered with HTTP 200 and ``<error code=...>`` (spec 3.6)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


def category_sets(category: str) -> tuple[str, ...]:
    """The set specs a category belongs to: group, group:archive, group:archive:SUBJECT.

    ``cs.CL`` -> cs, cs:cs, cs:cs:CL; ``hep-th`` -> physics, physics:hep-th;
    ``astro-ph.GA`` -> physics, physics:astro-ph, physics:astro-ph:GA.
    """
    archive, _, subject = category.partition(".")
    group = archive if archive in _OWN_GROUP else "physics"
    specs = [group, f"{group}:{archive}"]
    if subject:
        specs.append(f"{group}:{archive}:{subject}")
    return tuple(specs)


def category_spec(category: str) -> str:
    """The most specific set spec of a category (what a record header lists)."""
    return category_sets(category)[-1]


def rfc822(day: str, seed: str) -> str:
    """``2024-04-01`` -> ``Mon, 01 Apr 2024 17:03:12 GMT``; the time of day is a stable hash of ``seed``.

    The catalog keeps days only; arXiv shows submission times, so a deterministic time stands in.
    Day and month names are English whatever the locale, as in arXiv's output.
    """
    d = date.fromisoformat(day)
    secs = zlib.crc32(seed.encode()) % 86400
    return (
        f"{_DAYS[d.weekday()]}, {d.day:02d} {_MONTHS[d.month - 1]} {d.year} "
        f"{secs // 3600:02d}:{secs // 60 % 60:02d}:{secs % 60:02d} GMT"
    )


def authors_string(authors: list[str]) -> str:
    """The plain form of arXivRaw's authors field: "A, B and C"."""
    if len(authors) <= 1:
        return "".join(authors)
    return ", ".join(authors[:-1]) + " and " + authors[-1]


# arXivRaw's <authors> is the string the submitter typed, served as is (arXiv's oaipmh,
# templates/record_formats.xml: ``<authors>{{record.current_meta.authors}}</authors>``). Real rows
# of arXiv's own test database (tests/data/real/arxiv_oaipmh) show the forms reproduced here:
# affiliations in brackets after a name, holding commas, "and" and brackets of their own
# ("C. Neri (Lloyds Banking Group, London, UK) and L. Schneider (...)", 0903.4542; "Roberto Lineros
# (University of Torino and INFN/Torino)", 0907.4433), numbered affiliations listed at the end
# ("A (1), B (2) and C (1) ((1) U.L.B., (2) ECE)", 1004.3715), a comma before the last "and"
# (1010.3617) and TeX accents ("Fr\'ed\'eric Lagouti\`ere", 0712.3217). 37 of those 510 author
# strings carry brackets; the stand-in decorates about one paper in four, so small test catalogs
# meet every form. The names themselves are the catalog's, which is what a harvest must recover.
_AFFILIATIONS = (
    "University of Torino and INFN, Torino, Italy",
    "Lloyds Banking Group, London, UK",
    "Dept. of Physics (DIFI), University of Genova",
    "Center for Development of Advanced Computing (C-DAC) Pune, India",
    'MPI for Intelligent Systems, T\\"ubingen',
    "LJLL",
)
_TEX_MARKS = {
    "\u0301": "'",
    "\u0300": "`",
    "\u0302": "^",
    "\u0308": '"',
    "\u0303": "~",
    "\u0327": "c",
    "\u030c": "v",
}
_TEX_LETTERS = {"ł": "{\\l}", "Ł": "{\\L}", "ø": "{\\o}", "Ø": "{\\O}", "ß": "{\\ss}", "æ": "{\\ae}"}


def tex_name(name: str) -> str:
    """A name as submitters type it in TeX: ``Lagoutière`` -> ``Lagouti\\`ere``, ``Stanisława`` ->
    ``Stanis{\\l}awa``, ``François`` -> ``Fran\\c{c}ois``; letters with no TeX form stay as they are."""
    out: list[str] = []
    for ch in unicodedata.normalize("NFD", name):
        if ch in _TEX_MARKS and out and out[-1].isalpha():
            mark = _TEX_MARKS[ch]
            out[-1] = f"\\{mark}{{{out[-1]}}}" if mark.isalpha() else f"\\{mark}{out[-1]}"
        else:
            out.append(_TEX_LETTERS.get(ch, ch))
    return unicodedata.normalize("NFC", "".join(out))


def raw_authors(paper: CatalogPaper) -> str:
    """The catalog's authors as a submitter would have typed them (a stable choice per paper):
    plain for most, with bracketed affiliations after names, or with numbered affiliations."""
    names = [tex_name(a) for a in paper.authors]
    if not names:
        return ""
    h = zlib.crc32(f"authors:{paper.arxiv_id}".encode())
    style, pick = h % 8, h // 8
    if style == 1:  # affiliations after some names, the last one always
        names = [
            f"{n} ({_AFFILIATIONS[(pick + i) % len(_AFFILIATIONS)]})" if i % 2 or i == len(names) - 1 else n
            for i, n in enumerate(names)
        ]
    elif style == 2 and len(names) > 1:  # numbered, listed at the end in brackets
        numbers = [1 + (pick + i) % 2 for i in range(len(names))]
        listed = ", ".join(
            f"({k}) {_AFFILIATIONS[(pick + k) % len(_AFFILIATIONS)]}" for k in sorted(set(numbers))
        )
        names = [f"{n} ({k})" for n, k in zip(names, numbers, strict=True)]
        return f"{authors_string(names)} ({listed})"
    if style == 3 and len(names) > 2:  # "A, B, and C"
        return ", ".join(names[:-1]) + ", and " + names[-1]
    return authors_string(names)


def _day(value: str, name: str) -> str:
    if len(value) != 10:
        raise OaiError("badArgument", f"{name}={value!r}: this repository's granularity is YYYY-MM-DD")
    try:
        return date.fromisoformat(value).isoformat()
    except ValueError:
        raise OaiError("badArgument", f"{name}={value!r} is not a date YYYY-MM-DD") from None


@dataclass(frozen=True)
class _Query:
    verb: str
    prefix: str
    from_: str | None
    until: str | None
    set_spec: str | None


def _modtime_seconds(arxiv_id: str, day: str) -> int:
    """Seconds into ``day`` of a record's last modification: a stable hash (the catalog keeps days).

    arXiv's current server orders a list by ``(modtime, paper_id)`` with ``modtime`` in seconds, so
    within a day the order is not the id order; this stands in for the time of day.
    """
    return zlib.crc32(f"{arxiv_id}|{day}".encode()) % 86400


def _next_utc_midnight(now: float) -> str:
    """``expirationDate`` of arXiv's current tokens (``ResToken.expires``): the next 00:00 UTC."""
    day = datetime.fromtimestamp(now, timezone.utc).date() + timedelta(days=1)
    return f"{day.isoformat()}T00:00:00Z"


def current_token(params: dict[str, str], skip: int) -> str:
    """A resumption token of arXiv's current server: its query and a skip count, URL-encoded twice.

    arXiv's oaipmh ``processors/resume.py`` (``ResToken.to_token``): ``quote(urlencode(params))``
    with ``skip`` appended after the query's own arguments; nothing is stored on the server.
    """
    return quote(urlencode({**params, "skip": skip}))


def read_current_token(token: str) -> tuple[dict[str, str], int]:
    """(query, skip) of a current-server token (``ResToken.from_token``); badResumptionToken if it
    is not one: no ``verb``, no numeric ``skip``, or not decodable."""
    try:
        params = {k: v[0] for k, v in parse_qs(unquote(token), strict_parsing=True).items()}
        skip = params.pop("skip", "")
        if "verb" not in params or not skip.isdigit():
            raise ValueError(token)
        return params, int(skip)
    except (ValueError, UnicodeDecodeError):
        raise OaiError("badResumptionToken", "Token decoding failed or format is invalid.") from None


class OaiRepository:
    """The OAI-PMH view of a catalog as one of arXiv's two implementations answers it.

    ``impl="current"`` (the default; ``/oai``): arXiv's current server, github.com/arXiv/oaipmh
    at commit 27ad99e3e37ab7919869bd3d4cd24449dea78135 (MIT), the code behind
    https://oaipmh.arxiv.org/oai; its answers recorded from that code are in
    tests/data/real/arxiv_oaipmh_paging (SOURCES.md there):

    - ``earliestDatestamp`` 2005-09-16 (``data/oai_config.py`` ``EARLIEST_DATE``: "earliest modtime
      of a current version of a paper, there are ~90K with this value"): a record last modified
      before it carries that datestamp, and ``from`` earlier than it is ``badArgument`` "start date
      too early" (``requests/data_queries.py`` ``list_data``); no ``from`` means from that day;
      ``until`` after tomorrow is ``badArgument`` "until date too late"; ``until`` defaults to today;
    - records in ``(modtime, paper_id)`` order (``processors/db.py`` ``get_list_data``), pages of
      ``RECORDS_LIMIT`` = 2,500 records (``config.py`` ``Settings``; ``IDENTIFIERS_LIMIT`` 20,000
      for ListIdentifiers), each page shown sorted by (datestamp day, id) (``Header.__lt__``);
    - stateless tokens (``processors/fetch_list.py``, ``processors/resume.py``): the query plus a
      ``skip`` count, URL-encoded; when a page's records (and the one after it) all share a day,
      the next token is the same query with ``skip`` + limit; otherwise ``from`` becomes the day of
      the record after the page and ``skip`` the number of that day's records already shown. No
      ``cursor``, no ``completeListSize``; ``expirationDate`` is the next UTC midnight, but a token
      is never refused for its age (``from_token`` checks only its form); a list that fits one page
      has no ``resumptionToken``, the last page of a resumed list an empty ``<resumptionToken/>``;
      a token that does not decode is ``badResumptionToken``.

    ``impl="legacy"`` (``/oai2``): what export.arxiv.org/oai2 answered: pages of 1,000
    (ListIdentifiers 10,000; academia.stackexchange.com/q/38969), records in identifier order (a
    recorded 2015 page, tests/data/real/export_arxiv_oai2: 0704.0471 of 2014-11-18, 0704.0716 of
    2014-12-22, 0704.0874 of 2014-11-21), tokens held by the server with ``cursor``,
    ``completeListSize`` and ``expirationDate``, refused once ``token_ttl`` seconds old or after
    a restart (``badResumptionToken``, "noDataForResultSet - may have expired" in
    github.com/mattbierbaum/arxiv-public-datasets issue 26); earliest datestamp the catalog's.
    """

    def __init__(
        self,
        catalog: Catalog,
        base_url: str,
        page_size: int | None = None,
        id_page_size: int | None = None,
        token_ttl: float = 3600.0,
        clock=time.time,
        impl: str = CURRENT,
    ) -> None:
        if impl not in IMPLEMENTATIONS:
            raise ValueError(f"impl {impl!r}: one of {', '.join(IMPLEMENTATIONS)}")
        self.catalog = catalog
        self.base_url = base_url
        self.impl = impl
        current = impl == CURRENT
        self.page_size = page_size or (RECORDS_LIMIT if current else LEGACY_RECORDS_LIMIT)
        self.id_page_size = id_page_size or (IDENTIFIERS_LIMIT if current else LEGACY_IDENTIFIERS_LIMIT)
        self.token_ttl = token_ttl
        self.clock = clock
        # Records without any date have no datestamp and cannot be harvested (arXiv has none such).
        stamps = {aid: p.modified for aid, p in catalog.papers.items() if p.modified}
        if current:
            stamps = {aid: max(day, EARLIEST_DATESTAMP) for aid, day in stamps.items()}
            self.earliest = EARLIEST_DATESTAMP
        else:
            self.earliest = min(stamps.values(), default="2007-04-02")
        self._cache: OrderedDict[tuple, tuple[list[int], list[str]]] = OrderedDict()
        self._lock = threading.Lock()
        self._index(stamps)
        # Legacy tokens name their query and carry the issue time; the secret makes them
        # unforgeable and makes a token from another server instance (a restart) unknown.
        self._secret = hashlib.sha256(f"{id(self)}:{time.time_ns()}".encode()).hexdigest()[:16]

    def _index(self, stamps: dict[str, str]) -> None:
        """Order the records as this implementation lists them, with their sets."""
        if self.impl == CURRENT:
            order = sorted(stamps, key=lambda aid: (stamps[aid], _modtime_seconds(aid, stamps[aid]), aid))
        else:
            order = sorted(stamps)
        interned: dict[tuple[str, ...], frozenset[str]] = {}
        sets: list[frozenset[str]] = []
        for aid in order:
            cats = tuple(self.catalog.papers[aid].categories)
            if cats not in interned:
                interned[cats] = frozenset(s for c in cats for s in category_sets(c))
            sets.append(interned[cats])
        with self._lock:
            self._stamp_of, self._ids, self._sets = stamps, order, sets
            self._stamps = [stamps[aid] for aid in order]
            self._cache.clear()

    def touch(self, arxiv_id: str, day: str) -> None:
        """The record was modified on ``day`` (a new version, a withdrawal, a metadata fix): its
        datestamp moves there, as arXiv's does, and every list from now on shows it at its new place."""
        self._index({**self._stamp_of, arxiv_id: day})

    def move_a_shown_record(self, query_string: str) -> str | None:
        """The ``oai:N:move`` fault: before answering a resumed page, a record the list has already
        shown on the token's ``from`` day is modified today, so that day now holds one record fewer
        and the token's ``skip`` (stateless: the query plus an offset) passes over one record not yet
        shown. This is how a datestamp moving during a multi-page harvest loses a record on arXiv's
        current server (its ``processors/resume.py`` tokens). Returns the moved id, or None when the
        request carries no such token."""
        token = {k: v[-1] for k, v in parse_qs(query_string).items()}.get("resumptionToken")
        if not token:
            return None
        try:
            args, skip = read_current_token(token)
        except OaiError:
            return None
        if skip == 0 or "from" not in args:
            return None
        today = datetime.fromtimestamp(self.clock(), timezone.utc).date().isoformat()
        selected, stamps = self._selection(args.get("until") or today, args.get("set") or None)
        first = bisect.bisect_left(stamps, args["from"])
        if first >= len(selected) or stamps[first] != args["from"] or args["from"] >= today:
            return None
        moved = self._ids[selected[first]]
        self.touch(moved, today)
        return moved

    # ----------------------------------------------------------------------------------------
    # request dispatch
    # ----------------------------------------------------------------------------------------
    def handle(self, query_string: str, force_expired: bool = False) -> bytes:
        """The XML answer to one request (always HTTP 200: OAI errors are in the body).

        ``force_expired``: answer a request that carries a token as if the token had expired
        (the ``oai:N:expire`` fault), whatever its age.
        """
        raw = parse_qs(query_string, keep_blank_values=True)
        args = {k: v[-1] for k, v in raw.items()}
        verb = args.get("verb", "")
        try:
            if any(len(v) > 1 for v in raw.values()):
                raise OaiError("badArgument", "an argument is repeated")
            handler = {
                "Identify": self._identify,
                "ListMetadataFormats": self._list_formats,
                "ListSets": self._list_sets,
                "ListRecords": self._list if self.impl == LEGACY else self._list_current,
                "ListIdentifiers": self._list if self.impl == LEGACY else self._list_current,
                "GetRecord": self._get_record,
            }.get(verb)
            if handler is None:
                raise OaiError("badVerb", f"illegal verb {verb!r}" if verb else "no verb given")
            if force_expired and "resumptionToken" in args:
                raise OaiError(
                    "badResumptionToken", "the resumptionToken has expired; harvest again from a date"
                )
            root, body = self._envelope(args, verb)
            handler(args, body)
        except OaiError as exc:
            root, _ = self._envelope(args if exc.code not in ("badVerb", "badArgument") else {}, None)
            ET.SubElement(root, f"{{{OAI}}}error", code=exc.code).text = str(exc)
        return ET.tostring(root, xml_declaration=True, encoding="UTF-8")

    def _envelope(self, args: dict[str, str], verb: str | None) -> tuple[ET.Element, ET.Element | None]:
        root = ET.Element(f"{{{OAI}}}OAI-PMH", nsmap={None: OAI, "xsi": XSI})
        root.set(
            f"{{{XSI}}}schemaLocation",
            f"{OAI} http://www.openarchives.org/OAI/2.0/OAI-PMH.xsd",
        )
        now = datetime.fromtimestamp(self.clock(), timezone.utc)
        ET.SubElement(root, f"{{{OAI}}}responseDate").text = now.strftime("%Y-%m-%dT%H:%M:%SZ")
        request = ET.SubElement(root, f"{{{OAI}}}request")
        for key in ("verb", "identifier", "metadataPrefix", "from", "until", "set", "resumptionToken"):
            if key in args:
                request.set(key, args[key])
        request.text = f"{self.base_url}"
        return root, (ET.SubElement(root, f"{{{OAI}}}{verb}") if verb else None)

    @staticmethod
    def _only(args: dict[str, str], allowed: set[str], required: set[str] = frozenset()) -> None:
        extra = set(args) - allowed - {"verb"}
        if extra:
            raise OaiError("badArgument", f"illegal argument(s): {', '.join(sorted(extra))}")
        missing = required - set(args)
        if missing:
            raise OaiError("badArgument", f"missing required argument(s): {', '.join(sorted(missing))}")

    # ----------------------------------------------------------------------------------------
    # verbs
    # ----------------------------------------------------------------------------------------
    def _identify(self, args: dict[str, str], body: ET.Element) -> None:
        """Identify as arXiv's ``templates/identify.xml`` fills it (``repositoryName`` arXiv)."""
        self._only(args, set())
        for tag, text in (
            ("repositoryName", "arXiv"),
            ("baseURL", self.base_url),
            ("protocolVersion", "2.0"),
            ("adminEmail", "help@arxiv.org"),
            ("earliestDatestamp", self.earliest),
            ("deletedRecord", "persistent"),
            ("granularity", "YYYY-MM-DD"),
        ):
            ET.SubElement(body, f"{{{OAI}}}{tag}").text = text

    def _list_formats(self, args: dict[str, str], body: ET.Element) -> None:
        self._only(args, {"identifier"})
        if "identifier" in args:
            self._paper(args["identifier"])
        for prefix, (schema, namespace) in FORMATS.items():
            fmt = ET.SubElement(body, f"{{{OAI}}}metadataFormat")
            ET.SubElement(fmt, f"{{{OAI}}}metadataPrefix").text = prefix
            ET.SubElement(fmt, f"{{{OAI}}}schema").text = schema
            ET.SubElement(fmt, f"{{{OAI}}}metadataNamespace").text = namespace

    def _list_sets(self, args: dict[str, str], body: ET.Element) -> None:
        self._only(args, {"resumptionToken"})
        if "resumptionToken" in args:
            raise OaiError("badResumptionToken", "ListSets is never split; no token is valid")
        specs = sorted({s for sets in set(self._sets) for s in sets})
        for spec in specs:
            item = ET.SubElement(body, f"{{{OAI}}}set")
            ET.SubElement(item, f"{{{OAI}}}setSpec").text = spec
            ET.SubElement(item, f"{{{OAI}}}setName").text = spec.split(":")[-1]

    def _get_record(self, args: dict[str, str], body: ET.Element) -> None:
        self._only(args, {"identifier", "metadataPrefix"}, {"identifier", "metadataPrefix"})
        prefix = self._prefix(args["metadataPrefix"])
        paper = self._paper(args["identifier"])
        self._record(body, paper, prefix, header_only=False)

    def _list_current(self, args: dict[str, str], body: ET.Element) -> None:
        """ListRecords/ListIdentifiers as arXiv's current server answers (see the class docstring)."""
        verb = args["verb"]
        had_token = "resumptionToken" in args
        skip = 0
        if had_token:
            self._only(args, {"resumptionToken"})
            args, skip = read_current_token(args["resumptionToken"])
            if args["verb"] != verb:
                raise OaiError("badResumptionToken", "token from different verb")
        self._only(args, {"metadataPrefix", "from", "until", "set"}, {"metadataPrefix"})
        prefix = self._prefix(args["metadataPrefix"])
        if args.get("set") and (problem := set_error(args["set"])):
            raise OaiError("badArgument", problem)  # arXiv's _parse_set: never an empty list
        today = datetime.fromtimestamp(self.clock(), timezone.utc).date()
        lo = _day(args["from"], "from") if "from" in args else self.earliest
        hi = _day(args["until"], "until") if "until" in args else today.isoformat()
        if lo > hi:
            raise OaiError("badArgument", "until date must be greater than or equal to from date")
        if lo < self.earliest:
            raise OaiError("badArgument", "start date too early")
        if hi > (today + timedelta(days=1)).isoformat():
            raise OaiError("badArgument", "until date too late")
        limit = self.page_size if verb == "ListRecords" else self.id_page_size
        selected, stamps = self._selection(hi, args.get("set") or None)
        start = bisect.bisect_left(stamps, lo) + skip
        page = selected[start : start + limit + 1]  # one more, to see whether a token is needed
        if not page:
            raise OaiError("noRecordsMatch", "no record matches these arguments")
        token_text: str | None = "" if had_token else None  # "": an empty token ends a resumed list
        if len(page) > limit:
            last_day, first_day = self._stamps[page[limit]], self._stamps[page[0]]
            query = {
                "verb": verb,
                **{k: args[k] for k in ("metadataPrefix", "from", "until", "set") if k in args},
            }
            if last_day == first_day:
                token_text = current_token(query, skip + limit)
            else:
                shown = sum(1 for i in page[:limit] if self._stamps[i] == last_day)
                token_text = current_token({**query, "from": last_day}, shown)
            page = page[:limit]
        for index in sorted(page, key=lambda i: (self._stamps[i], self._ids[i])):
            paper = self.catalog.papers[self._ids[index]]
            self._record(body, paper, prefix, header_only=verb == "ListIdentifiers")
        if token_text is not None:
            token = ET.SubElement(body, f"{{{OAI}}}resumptionToken")
            if token_text:
                token.set("expirationDate", _next_utc_midnight(self.clock()))
                token.text = token_text

    def _list(self, args: dict[str, str], body: ET.Element) -> None:
        """ListRecords/ListIdentifiers as the legacy export.arxiv.org/oai2 answered."""
        verb = args["verb"]
        if "resumptionToken" in args:
            self._only(args, {"resumptionToken"})
            query, cursor = self._read_token(args["resumptionToken"], verb)
        else:
            self._only(args, {"metadataPrefix", "from", "until", "set"}, {"metadataPrefix"})
            prefix = self._prefix(args["metadataPrefix"])
            lo = _day(args["from"], "from") if "from" in args else None
            hi = _day(args["until"], "until") if "until" in args else None
            if lo and hi and lo > hi:
                raise OaiError("badArgument", f"from={lo} is after until={hi}")
            query, cursor = _Query(verb, prefix, lo, hi, args.get("set") or None), 0
        matches = self._matches(query)
        if not matches:
            raise OaiError("noRecordsMatch", "no record matches these arguments")
        if cursor >= len(matches):
            raise OaiError("badResumptionToken", "the token points past the end of its list")
        size = self.page_size if verb == "ListRecords" else self.id_page_size
        for index in matches[cursor : cursor + size]:
            paper = self.catalog.papers[self._ids[index]]
            self._record(body, paper, query.prefix, header_only=verb == "ListIdentifiers")
        nxt = cursor + size
        token = ET.SubElement(
            body, f"{{{OAI}}}resumptionToken", cursor=str(cursor), completeListSize=str(len(matches))
        )
        if nxt < len(matches):
            expires = datetime.fromtimestamp(self.clock() + self.token_ttl, timezone.utc)
            token.set("expirationDate", expires.strftime("%Y-%m-%dT%H:%M:%SZ"))
            token.text = self._make_token(query, nxt)

    # ----------------------------------------------------------------------------------------
    # helpers
    # ----------------------------------------------------------------------------------------
    @staticmethod
    def _prefix(prefix: str) -> str:
        if prefix not in FORMATS:
            raise OaiError(
                "cannotDisseminateFormat", f"metadataPrefix {prefix!r} not supported: {', '.join(FORMATS)}"
            )
        return prefix

    def _paper(self, identifier: str) -> CatalogPaper:
        if not identifier.startswith(ID_PREFIX):
            raise OaiError("badArgument", f"identifier must look like {ID_PREFIX}2401.00001")
        paper = self.catalog.papers.get(identifier[len(ID_PREFIX) :])
        if paper is None or not paper.modified:
            raise OaiError("idDoesNotExist", f"no record {identifier}")
        return paper

    def _cached(self, key: tuple, make) -> tuple[list[int], list[str]]:
        with self._lock:
            hit = self._cache.get(key)
            if hit is not None:
                self._cache.move_to_end(key)
                return hit
        found = make()
        with self._lock:  # the server answers requests on several threads
            self._cache[key] = found
            while len(self._cache) > 8:
                self._cache.popitem(last=False)
        return found

    def _selection(self, until: str, spec: str | None) -> tuple[list[int], list[str]]:
        """Current order: the indexes of a set's records dated up to ``until``, and their datestamps
        (ascending, so ``from`` is a bisect: each page costs a slice, not a scan)."""

        def make():
            hi = bisect.bisect_right(self._stamps, until)
            found = list(range(hi)) if spec is None else [i for i in range(hi) if spec in self._sets[i]]
            return found, [self._stamps[i] for i in found]

        return self._cached(("current", until, spec), make)

    def _matches(self, query: _Query) -> list[int]:
        """Legacy order (identifiers): the indexes of the records a query selects; a few cached."""

        def make():
            lo, hi, spec = query.from_, query.until, query.set_spec
            found = [
                i
                for i, day in enumerate(self._stamps)
                if (lo is None or day >= lo)
                and (hi is None or day <= hi)
                and (spec is None or spec in self._sets[i])
            ]
            return found, []

        return self._cached(("legacy", query.from_, query.until, query.set_spec), make)[0]

    def _make_token(self, query: _Query, cursor: int) -> str:
        payload = json.dumps(
            [
                query.verb,
                query.prefix,
                query.from_,
                query.until,
                query.set_spec,
                cursor,
                round(self.clock(), 3),
            ],
            separators=(",", ":"),
        )
        sig = hashlib.sha256((self._secret + payload).encode()).hexdigest()[:12]
        return base64.urlsafe_b64encode(payload.encode()).decode().rstrip("=") + "." + sig

    def _read_token(self, token: str, verb: str) -> tuple[_Query, int]:
        try:
            encoded, sig = token.rsplit(".", 1)
            payload = base64.urlsafe_b64decode(encoded + "=" * (-len(encoded) % 4)).decode()
            if hashlib.sha256((self._secret + payload).encode()).hexdigest()[:12] != sig:
                raise ValueError("signature")
            tverb, prefix, lo, hi, spec, cursor, issued = json.loads(payload)
        except (ValueError, TypeError, UnicodeDecodeError):
            raise OaiError("badResumptionToken", f"unknown resumptionToken {token!r}") from None
        if tverb != verb:
            raise OaiError("badResumptionToken", f"this token belongs to {tverb}, not {verb}")
        if self.clock() - issued > self.token_ttl:
            raise OaiError("badResumptionToken", "the resumptionToken has expired; harvest again from a date")
        return _Query(tverb, prefix, lo, hi, spec), int(cursor)

    def _record(self, parent: ET.Element, paper: CatalogPaper, prefix: str, header_only: bool) -> None:
        record = parent if header_only else ET.SubElement(parent, f"{{{OAI}}}record")
        header = ET.SubElement(record, f"{{{OAI}}}header")
        ET.SubElement(header, f"{{{OAI}}}identifier").text = ID_PREFIX + paper.arxiv_id
        ET.SubElement(header, f"{{{OAI}}}datestamp").text = self._stamp_of[paper.arxiv_id]
        for spec in dict.fromkeys(category_spec(c) for c in paper.categories):
            ET.SubElement(header, f"{{{OAI}}}setSpec").text = spec
        if header_only:
            return
        metadata = ET.SubElement(record, f"{{{OAI}}}metadata")
        if prefix == "arXivRaw":
            _arxiv_raw(metadata, paper)
        else:
            _oai_dc(metadata, paper)


def end_list_here(body: bytes) -> bytes:
    """The ``oai:N:short`` fault: this page's token emptied, as if it were the last page.

    The page stays well formed and keeps ``cursor`` and ``completeListSize``, so a harvester that
    believes the empty token alone ends with fewer records than the list announced.
    """
    root = ET.fromstring(body)
    for token in root.iter(f"{{{OAI}}}resumptionToken"):
        token.text = None
        token.attrib.pop("expirationDate", None)
    return ET.tostring(root, xml_declaration=True, encoding="UTF-8")


def _versions(paper: CatalogPaper) -> list[CatalogVersion]:
    """The dated versions, oldest first; the latest is the withdrawal when the paper is withdrawn."""
    versions = [v for v in paper.versions.values() if v.number and v.date]
    return sorted(versions, key=lambda v: v.number)


# What arXiv's oaipmh prints for a version (serializers/create_records.py, ``arXivRawRecord``):
# ``<size>`` is ``source_size // 1024`` kb, or 0 when the database has no size; ``<source_type>``
# holds the shown source flags (A, S) and a letter for the source format (pdftex D, html H, ps P,
# docx X, withdrawn I; tex and pdf none). So a live version can show 0kb: a source under 1 KB
# (2310.08262v1, 484 bytes of HTML) or no recorded size (2305.11452v1) -- 2 of 1,042 real
# versions; the stand-in shows it for one live version in MISSING_SIZE_ONE_IN by default.
MISSING_SIZE_ONE_IN = 40


def _size_kb(paper: CatalogPaper, version: CatalogVersion) -> int:
    if zlib.crc32(f"size:{paper.arxiv_id}v{version.number}".encode()) % MISSING_SIZE_ONE_IN == 0:
        return 0
    if version.size_kb is not None:
        return version.size_kb
    return 120 + zlib.crc32(f"{paper.arxiv_id}v{version.number}".encode()) % 2900


def _source_type(paper: CatalogPaper, version: CatalogVersion) -> str | None:
    """A live version's flags: about a quarter pdfLaTeX (D), a few with ancillary files (A)."""
    h = zlib.crc32(f"source:{paper.arxiv_id}v{version.number}".encode()) % 20
    return "D" if h < 5 else "AD" if h == 5 else None


def _old_style_withdrawal(paper: CatalogPaper) -> bool:
    """Withdrawals from before arXiv had a ``withdrawn`` source format carry no ``I``: only 0kb and
    the comment (0906.3336v2, "This paper has been withdrawn"). Shown so for half of the
    withdrawals whose comment says so; the others, and every other withdrawal, carry ``I``."""
    return is_withdrawn(paper.comment) and zlib.crc32(f"old:{paper.arxiv_id}".encode()) % 2 == 0


def _categories(paper: CatalogPaper) -> list[str]:
    cats = list(paper.categories)
    if paper.primary_category and paper.primary_category in cats:
        cats.remove(paper.primary_category)
        cats.insert(0, paper.primary_category)
    return cats


def _arxiv_raw(metadata: ET.Element, paper: CatalogPaper) -> None:
    raw = ET.SubElement(metadata, f"{{{RAW}}}arXivRaw", nsmap={None: RAW, "xsi": XSI})
    raw.set(f"{{{XSI}}}schemaLocation", f"{RAW} http://arxiv.org/OAI/arXivRaw.xsd")
    ET.SubElement(raw, f"{{{RAW}}}id").text = paper.arxiv_id
    ET.SubElement(raw, f"{{{RAW}}}submitter").text = paper.submitter or (
        paper.authors[0] if paper.authors else "arXiv submitter"
    )
    versions = _versions(paper)
    for v in versions:
        withdrawal = v.withdrawn or (paper.withdrawn and v is versions[-1] and len(versions) > 1)
        item = ET.SubElement(raw, f"{{{RAW}}}version", version=f"v{v.number}")
        ET.SubElement(item, f"{{{RAW}}}date").text = rfc822(v.date, f"{paper.arxiv_id}v{v.number}")
        # A withdrawal notice is a few bytes: 0kb (arXiv's 42-byte notices in its test data).
        ET.SubElement(item, f"{{{RAW}}}size").text = f"{0 if withdrawal else _size_kb(paper, v)}kb"
        flags = None
        if withdrawal:
            flags = None if v is versions[-1] and _old_style_withdrawal(paper) else "I"
        else:
            flags = _source_type(paper, v)
        if flags:
            ET.SubElement(item, f"{{{RAW}}}source_type").text = flags
    ET.SubElement(raw, f"{{{RAW}}}title").text = paper.title
    ET.SubElement(raw, f"{{{RAW}}}authors").text = raw_authors(paper)
    ET.SubElement(raw, f"{{{RAW}}}categories").text = " ".join(_categories(paper))
    if paper.comment:
        ET.SubElement(raw, f"{{{RAW}}}comments").text = paper.comment
    if paper.doi:
        ET.SubElement(raw, f"{{{RAW}}}doi").text = paper.doi
    ET.SubElement(raw, f"{{{RAW}}}license").text = paper.license or mixed_license(paper.arxiv_id)
    if paper.abstract:
        ET.SubElement(raw, f"{{{RAW}}}abstract").text = paper.abstract


def _oai_dc(metadata: ET.Element, paper: CatalogPaper) -> None:
    dc = ET.SubElement(metadata, f"{{{OAI_DC}}}dc", nsmap={"oai_dc": OAI_DC, "dc": DC, "xsi": XSI})
    ET.SubElement(dc, f"{{{DC}}}title").text = paper.title
    for name in paper.authors:
        ET.SubElement(dc, f"{{{DC}}}creator").text = name
    for cat in _categories(paper):
        ET.SubElement(dc, f"{{{DC}}}subject").text = cat
    if paper.abstract:
        ET.SubElement(dc, f"{{{DC}}}description").text = paper.abstract
    if paper.comment:
        ET.SubElement(dc, f"{{{DC}}}description").text = f"Comment: {paper.comment}"
    versions = _versions(paper)
    dates = dict.fromkeys(d for d in (paper.first_published, versions[-1].date if versions else None) if d)
    for d in dates:
        ET.SubElement(dc, f"{{{DC}}}date").text = d
    ET.SubElement(dc, f"{{{DC}}}type").text = "text"
    ET.SubElement(dc, f"{{{DC}}}identifier").text = f"http://arxiv.org/abs/{paper.arxiv_id}"
    if paper.doi:
        ET.SubElement(dc, f"{{{DC}}}identifier").text = f"doi:{paper.doi}"
