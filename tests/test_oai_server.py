"""The arXiv stand-in's OAI-PMH interface: each protocol behaviour on a small catalog.

Responses are parsed with lxml and checked by ids and counts; one test harvests through the real
client library (oaipmh-scythe) to prove that what the stand-in says is what a harvester reads.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import requests
from lxml import etree

from reflong.servers.arxiv_server import ArxivServer, FaultPlan

NS = {"o": "http://www.openarchives.org/OAI/2.0/", "r": "http://arxiv.org/OAI/arXivRaw/"}


def _paper(aid: str, cats: list[str], dates: list[str], **extra) -> dict:
    rec = {
        "arxiv_id": aid,
        "version": f"v{len(dates)}",
        "file": None,
        "title": f"Paper {aid}",
        "authors": ["Ada Lovelace", "Alan Turing", "Grace Hopper"],
        "published": dates[-1],
        "first_published": dates[0],
        "primary_category": cats[0],
        "categories": cats,
        "versions": [{"version": f"v{i}", "published": d} for i, d in enumerate(dates, 1)],
    }
    rec.update(extra)
    return rec


def _write(folder: Path, records: list[dict]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "papers.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return folder


# 25 cs.CL papers (one a day in January), plus the special cases below.
BULK = [_paper(f"2401.{i:05d}", ["cs.CL"], [f"2024-01-{i:02d}"]) for i in range(1, 26)]
REVISED = _paper("2401.00100", ["cs.LG", "cs.AI"], ["2024-01-12", "2024-03-05"])
CROSS = _paper("2401.00101", ["stat.ML", "cs.LG"], ["2024-01-15"])
MATH = _paper("2401.00102", ["math.OC"], ["2024-01-20"])
PHYS = _paper("2402.00103", ["hep-th"], ["2024-02-03"])
WITHDRAWN = _paper(
    "2402.00104",
    ["cs.AI"],
    ["2024-02-01", "2024-02-20"],
    comment="An error in the proof of Lemma 3 invalidates the main result",
)
WITHDRAWN["versions"][1]["withdrawn"] = True
CATALOG = [*BULK, REVISED, CROSS, MATH, PHYS, WITHDRAWN]
CS_IDS = {r["arxiv_id"] for r in CATALOG if any(c.startswith("cs.") for c in r["categories"])}


class Clock:
    def __init__(self) -> None:
        self.now = 1_700_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def catalog_dir(tmp_path: Path) -> Path:
    return _write(tmp_path / "catalog", CATALOG)


def _get(url: str, **params) -> tuple[requests.Response, etree._Element]:
    resp = requests.get(url, params=params, timeout=10)
    return resp, etree.fromstring(resp.content)


def _ids(root: etree._Element) -> list[str]:
    return [e.text.removeprefix("oai:arXiv.org:") for e in root.iterfind(".//o:header/o:identifier", NS)]


def _error(root: etree._Element) -> str | None:
    err = root.find("o:error", NS)
    return None if err is None else err.get("code")


def _harvest(base: str, **params) -> tuple[list[str], list[etree._Element]]:
    """Follow resumption tokens to the end; returns ids and the token elements seen."""
    ids, tokens = [], []
    _, root = _get(base, verb="ListRecords", **params)
    while True:
        assert _error(root) is None, etree.tostring(root)
        ids += _ids(root)
        token = root.find(".//o:resumptionToken", NS)
        if token is None:
            return ids, tokens
        tokens.append(token)
        if not token.text:
            return ids, tokens
        _, root = _get(base, verb="ListRecords", resumptionToken=token.text)


def test_legacy_paging_follows_tokens_with_cursor_and_complete_list_size(catalog_dir: Path) -> None:
    with ArxivServer(catalog_dir, oai_page_size=10) as srv:
        ids, tokens = _harvest(f"{srv.url}/oai2", metadataPrefix="arXivRaw", set="cs")
    assert len(ids) == len(set(ids)) == len(CS_IDS)
    assert set(ids) == CS_IDS
    # 28 records, pages of 10: cursors 0, 10, 20; the last token is empty; size the same throughout
    assert [t.get("cursor") for t in tokens] == ["0", "10", "20"]
    assert {t.get("completeListSize") for t in tokens} == {str(len(CS_IDS))}
    assert tokens[0].text and tokens[1].text and not tokens[2].text
    assert tokens[0].get("expirationDate") and tokens[2].get("expirationDate") is None
    # the legacy server lists by identifier (tests/data/real/export_arxiv_oai2): the revised paper
    # (datestamp 2024-03-05) comes among January's ids, before 2402.00104 of February
    assert ids == sorted(ids) and ids[-1] == WITHDRAWN["arxiv_id"]


def test_both_routes_and_their_default_page_sizes(catalog_dir: Path) -> None:
    with ArxivServer(catalog_dir) as srv:
        _, current = _get(srv.oai_url, verb="ListRecords", metadataPrefix="arXivRaw")
        _, legacy = _get(f"{srv.url}/oai2", verb="ListRecords", metadataPrefix="arXivRaw")
    assert srv.oai.page_size == 2500 and srv.oai_legacy.page_size == 1000
    # one page holds all: the current server sends no token at all, the legacy one an empty token
    # with its completeListSize
    assert len(_ids(current)) == len(_ids(legacy)) == len(CATALOG)
    assert current.find(".//o:resumptionToken", NS) is None
    token = legacy.find(".//o:resumptionToken", NS)
    assert token is not None and not token.text and token.get("completeListSize") == str(len(CATALOG))


def test_expired_and_unknown_tokens_are_bad_resumption_tokens(catalog_dir: Path) -> None:
    clock = Clock()
    with ArxivServer(catalog_dir, oai_page_size=10, token_ttl=60, clock=clock) as srv:
        base = f"{srv.url}/oai2"
        _, root = _get(base, verb="ListRecords", metadataPrefix="arXivRaw")
        token = root.find(".//o:resumptionToken", NS).text
        clock.now += 30
        _, ok = _get(base, verb="ListRecords", resumptionToken=token)
        assert _error(ok) is None and len(_ids(ok)) == 10
        clock.now += 61
        _, late = _get(base, verb="ListRecords", resumptionToken=token)
        assert _error(late) == "badResumptionToken"
        _, forged = _get(base, verb="ListRecords", resumptionToken=token[:-1] + "x")
        assert _error(forged) == "badResumptionToken"
        _, junk = _get(base, verb="ListRecords", resumptionToken="760571|10001")
        assert _error(junk) == "badResumptionToken"
        # a token of ListRecords is not one of ListIdentifiers
        fresh = _get(base, verb="ListRecords", metadataPrefix="arXivRaw")[1]
        fresh_token = fresh.find(".//o:resumptionToken", NS).text
        _, wrong_verb = _get(base, verb="ListIdentifiers", resumptionToken=fresh_token)
        assert _error(wrong_verb) == "badResumptionToken"
    # a restarted server does not know the old server's tokens
    with ArxivServer(catalog_dir, oai_page_size=10, clock=clock) as srv2:
        _, other = _get(f"{srv2.url}/oai2", verb="ListRecords", resumptionToken=fresh_token)
        assert _error(other) == "badResumptionToken"


def test_no_records_match_an_empty_range_or_set(catalog_dir: Path) -> None:
    with ArxivServer(catalog_dir) as srv:
        base = f"{srv.url}/oai2"
        _, late = _get(base, verb="ListRecords", metadataPrefix="arXivRaw", **{"from": "2030-01-01"})
        _, nothing = _get(base, verb="ListRecords", metadataPrefix="arXivRaw", set="q-bio")
    assert _error(late) == "noRecordsMatch" and _ids(late) == []
    assert _error(nothing) == "noRecordsMatch"


def test_from_until_use_last_modified_datestamps(catalog_dir: Path) -> None:
    with ArxivServer(catalog_dir) as srv:
        base = f"{srv.url}/oai2"
        march, _ = _harvest(base, metadataPrefix="arXivRaw", **{"from": "2024-03-01"})
        january, _ = _harvest(base, metadataPrefix="arXivRaw", until="2024-01-31")
        day, _ = _harvest(base, metadataPrefix="arXivRaw", **{"from": "2024-01-05", "until": "2024-01-05"})
    # first published in January, revised in March: harvested from March, not until January
    assert march == [REVISED["arxiv_id"]]
    assert REVISED["arxiv_id"] not in january and len(january) == 25 + 2  # bulk + cross + math
    assert day == ["2401.00005"]  # from/until are inclusive days


def test_a_later_revision_shows_up_in_the_next_incremental_harvest(tmp_path: Path) -> None:
    first = _write(tmp_path / "a", CATALOG)
    with ArxivServer(first) as srv:
        ids, _ = _harvest(srv.oai_url, metadataPrefix="arXivRaw", **{"from": "2024-03-05"})
        assert ids == [REVISED["arxiv_id"]]
    grown = [dict(r) for r in CATALOG]
    grown[0] = _paper("2401.00001", ["cs.CL"], ["2024-01-01", "2024-04-02"])
    second = _write(tmp_path / "b", grown)
    with ArxivServer(second) as srv:
        ids, _ = _harvest(srv.oai_url, metadataPrefix="arXivRaw", **{"from": "2024-03-05"})
        _, root = _get(
            f"{srv.url}/oai2",
            verb="GetRecord",
            identifier="oai:arXiv.org:2401.00001",
            metadataPrefix="arXivRaw",
        )
    assert ids == [REVISED["arxiv_id"], "2401.00001"]
    versions = root.findall(".//r:version", NS)
    assert [v.get("version") for v in versions] == ["v1", "v2"]
    assert versions[1].findtext("r:date", namespaces=NS).startswith("Tue, 02 Apr 2024 ")
    assert root.findtext(".//o:datestamp", namespaces=NS) == "2024-04-02"


def test_arxivraw_record_and_withdrawal(catalog_dir: Path) -> None:
    with ArxivServer(catalog_dir) as srv:
        _, root = _get(
            f"{srv.url}/oai2",
            verb="GetRecord",
            identifier="oai:arXiv.org:2402.00104",
            metadataPrefix="arXivRaw",
        )
        _, cross = _get(
            f"{srv.url}/oai2",
            verb="GetRecord",
            identifier="oai:arXiv.org:2401.00101",
            metadataPrefix="arXivRaw",
        )
    raw = root.find(".//r:arXivRaw", NS)
    assert [c.tag.split("}")[1] for c in raw][:4] == ["id", "submitter", "version", "version"]
    assert raw.findtext("r:id", namespaces=NS) == "2402.00104"
    assert raw.findtext("r:authors", namespaces=NS) == "Ada Lovelace, Alan Turing and Grace Hopper"
    v1, v2 = raw.findall("r:version", NS)
    assert v1.findtext("r:date", namespaces=NS).startswith("Thu, 01 Feb 2024 ")
    assert v1.findtext("r:size", namespaces=NS).endswith("kb") and v1.find("r:source_type", NS) is None
    # arXiv's notice: source format "withdrawn" -> "I", 42 bytes -> 0kb (tests/data/real/arxiv_oaipmh)
    assert (
        v2.findtext("r:size", namespaces=NS) == "0kb" and v2.findtext("r:source_type", namespaces=NS) == "I"
    )
    comments = raw.findtext("r:comments", namespaces=NS)
    assert comments == WITHDRAWN["comment"] and "withdrawn" not in comments.lower()
    assert root.findtext(".//o:datestamp", namespaces=NS) == "2024-02-20"  # the withdrawal's day
    # categories: space-separated, primary first; header sets in the category form
    assert cross.findtext(".//r:categories", namespaces=NS) == "stat.ML cs.LG"
    assert [s.text for s in cross.iterfind(".//o:setSpec", NS)] == ["stat:stat:ML", "cs:cs:LG"]


def test_sets_filter_by_any_category(catalog_dir: Path) -> None:
    with ArxivServer(catalog_dir) as srv:
        base = f"{srv.url}/oai2"
        cs, _ = _harvest(base, metadataPrefix="arXivRaw", set="cs")
        cl, _ = _harvest(base, metadataPrefix="arXivRaw", set="cs:cs:CL")
        lg, _ = _harvest(base, metadataPrefix="arXivRaw", set="cs:cs:LG")
        hep, _ = _harvest(base, metadataPrefix="arXivRaw", set="physics:hep-th")
        stat, _ = _harvest(base, metadataPrefix="arXivRaw", set="stat")
        _, sets = _get(base, verb="ListSets")
    assert set(cs) == CS_IDS and MATH["arxiv_id"] not in cs and PHYS["arxiv_id"] not in cs
    assert CROSS["arxiv_id"] in cs  # stat.ML primary, cross-listed to cs.LG
    assert len(cl) == 25
    assert set(lg) == {REVISED["arxiv_id"], CROSS["arxiv_id"]}
    assert hep == [PHYS["arxiv_id"]] and stat == [CROSS["arxiv_id"]]
    specs = [s.text for s in sets.iterfind(".//o:setSpec", NS)]
    assert {"cs", "cs:cs", "cs:cs:CL", "physics:hep-th", "math:math:OC"} <= set(specs)


def test_503_with_retry_after_and_other_oai_faults(catalog_dir: Path) -> None:
    faults = FaultPlan.parse(["oai:1:503", "oai:3:truncate", "oai:4:empty", "oai:6:expire"])
    with ArxivServer(catalog_dir, faults=faults, retry_after=7, oai_page_size=10) as srv:
        base = f"{srv.url}/oai2"
        params = {"verb": "ListRecords", "metadataPrefix": "arXivRaw"}
        first = requests.get(base, params=params, timeout=10)
        assert first.status_code == 503 and first.headers["Retry-After"] == "7"
        second = requests.get(base, params=params, timeout=10)
        assert second.status_code == 200 and len(_ids(etree.fromstring(second.content))) == 10
        third = requests.get(base, params=params, timeout=10)
        with pytest.raises(etree.XMLSyntaxError):
            etree.fromstring(third.content)
        assert requests.get(base, params=params, timeout=10).content == b""
        token = etree.fromstring(second.content).find(".//o:resumptionToken", NS).text
        assert _error(_get(base, verb="ListRecords", resumptionToken=token)[1]) is None
        assert _error(_get(base, verb="ListRecords", resumptionToken=token)[1]) == "badResumptionToken"
        snap = srv.stats.snapshot()
        stats = requests.get(f"{srv.url}/_stats", timeout=10).json()
    assert snap["by_kind"] == {"oai": 6}
    assert snap["by_kind_status"]["oai"] == {"200": 5, "503": 1}
    assert stats == snap  # the /_stats request itself is not counted


def test_protocol_errors(catalog_dir: Path) -> None:
    with ArxivServer(catalog_dir) as srv:
        base = f"{srv.url}/oai2"
        cases = {
            "badVerb": {"verb": "ListEverything"},
            "badArgument": {"verb": "ListRecords"},  # no metadataPrefix
            "cannotDisseminateFormat": {"verb": "ListRecords", "metadataPrefix": "marc21"},
            "idDoesNotExist": {
                "verb": "GetRecord",
                "identifier": "oai:arXiv.org:2499.99999",
                "metadataPrefix": "arXivRaw",
            },
        }
        for code, params in cases.items():
            resp, root = _get(base, **params)
            assert resp.status_code == 200 and _error(root) == code, params
        for params in (
            {"verb": "ListRecords", "metadataPrefix": "arXivRaw", "from": "2024-01-01T00:00:00Z"},
            {
                "verb": "ListRecords",
                "metadataPrefix": "arXivRaw",
                "from": "2024-02-01",
                "until": "2024-01-01",
            },
            {"verb": "ListRecords", "metadataPrefix": "arXivRaw", "sort": "asc"},
            {"verb": "ListRecords", "metadataPrefix": "arXivRaw", "resumptionToken": "x"},
        ):
            assert _error(_get(base, **params)[1]) == "badArgument", params
        _, ident = _get(base, verb="Identify")
        _, formats = _get(base, verb="ListMetadataFormats")
        _, dc = _get(base, verb="ListRecords", metadataPrefix="oai_dc", set="physics")
    assert ident.findtext(".//o:granularity", namespaces=NS) == "YYYY-MM-DD"
    assert ident.findtext(".//o:earliestDatestamp", namespaces=NS) == "2024-01-01"
    assert [f.text for f in formats.iterfind(".//o:metadataPrefix", NS)] == ["arXivRaw", "oai_dc"]
    assert dc.findtext(".//{http://purl.org/dc/elements/1.1/}title") == "Paper 2402.00103"


def test_scythe_harvests_every_record(catalog_dir: Path) -> None:
    """The maintained client library reads the stand-in: every record, through tokens and a 503."""
    from oaipmh_scythe import Scythe
    from oaipmh_scythe.config import RetryConfig

    faults = FaultPlan.parse(["oai:2:503"])
    with ArxivServer(catalog_dir, oai_page_size=7, faults=faults, retry_after=0) as srv:
        retry = RetryConfig(max_retries=2, retry_status_codes=(503,), default_retry_after=0.1)
        with Scythe(f"{srv.url}/oai2", retry_config=retry) as scythe:
            records = list(scythe.list_records(metadata_prefix="arXivRaw", set_="cs"))
        stats = srv.stats.snapshot()
    ids = [r.header.identifier.removeprefix("oai:arXiv.org:") for r in records]
    assert sorted(ids) == sorted(CS_IDS)
    assert stats["by_kind_status"]["oai"] == {"200": 4, "503": 1}  # 28 records / 7 a page, one retry
    withdrawn = next(r for r in records if r.header.identifier.endswith("2402.00104"))
    assert withdrawn.metadata["size"][-1] == "0kb" and withdrawn.metadata["source_type"][-1] == "I"


def test_current_server_identify_limits_and_stateless_tokens(catalog_dir: Path) -> None:
    """``/oai`` answers as arXiv's current server (github.com/arXiv/oaipmh; recorded answers in
    tests/data/real/arxiv_oaipmh_paging): earliest datestamp 2005-09-16 and ``from`` before it
    refused, tokens that hold the query and a skip count, no cursor or completeListSize,
    ``expirationDate`` the next UTC midnight but never enforced, an empty last token."""
    from datetime import datetime, timezone

    from reflong.servers.oai import read_current_token

    clock = Clock()
    clock.now = datetime(2025, 6, 1, 12, 0, tzinfo=timezone.utc).timestamp()
    with ArxivServer(catalog_dir, oai_page_size=10, clock=clock) as srv:
        base = srv.oai_url
        _, ident = _get(base, verb="Identify")
        early = _get(base, verb="ListRecords", metadataPrefix="arXivRaw", **{"from": "2004-01-01"})[1]
        late = _get(base, verb="ListRecords", metadataPrefix="arXivRaw", until="2025-06-03")[1]
        tomorrow = _get(base, verb="ListRecords", metadataPrefix="arXivRaw", until="2025-06-02")[1]
        ids, tokens = _harvest(base, metadataPrefix="arXivRaw", set="cs")
        first = tokens[0].text
        clock.now += 3 * 86400  # three days later the same token still answers: nothing is stored
        _, again = _get(base, verb="ListRecords", resumptionToken=first)
        _, wrong_verb = _get(base, verb="ListIdentifiers", resumptionToken=first)
        _, junk = _get(base, verb="ListRecords", resumptionToken="760571|10001")
    assert ident.findtext(".//o:repositoryName", namespaces=NS) == "arXiv"
    assert ident.findtext(".//o:earliestDatestamp", namespaces=NS) == "2005-09-16"
    assert _error(early) == "badArgument"
    assert "start date too early" in early.findtext("o:error", namespaces=NS)
    assert _error(late) == "badArgument" and _error(tomorrow) is None
    assert len(ids) == len(set(ids)) == len(CS_IDS) and set(ids) == CS_IDS
    assert [dict(t.attrib) for t in tokens[:-1]] == [{"expirationDate": "2025-06-02T00:00:00Z"}] * 2
    assert tokens[-1].text is None and dict(tokens[-1].attrib) == {}
    query, skip = read_current_token(first)
    assert query == {"verb": "ListRecords", "metadataPrefix": "arXivRaw", "set": "cs", "from": "2024-01-11"}
    assert skip == 0  # page 1 ended on 2024-01-10: page 2 starts from the next day's first record
    assert _error(again) is None and _ids(again) == ids[10:20]
    assert _error(wrong_verb) == "badResumptionToken" and _error(junk) == "badResumptionToken"


def test_a_set_arxiv_does_not_know_is_bad_argument_not_an_empty_list(catalog_dir: Path) -> None:
    """arXiv's oaipmh ``_parse_set`` against arxiv-base's taxonomy: a retired or misspelt set is
    badArgument "Set does not exist" on the current server; a known set with nothing in range is
    noRecordsMatch."""
    with ArxivServer(catalog_dir) as srv:
        base = f"{srv.url}/oai"

        def answer(spec: str) -> tuple[str | None, str]:
            _, root = _get(base, verb="ListRecords", metadataPrefix="arXivRaw", set=spec)
            err = root.find("o:error", NS)
            return _error(root), "" if err is None else err.text

        for spec in ("cmp-lg", "cs:cs:XX", "math:hep-th", "cs:math", "test"):
            assert answer(spec) == ("badArgument", "Set does not exist"), spec
        assert answer("cs:cs:CL:x") == ("badArgument", "Set has too many levels")
        assert answer("q-bio")[0] == "noRecordsMatch"  # a real group, empty in this catalog
        for spec in ("cs", "cs:cs", "cs:cs:CL", "physics:hep-th", "stat:stat:ML"):
            assert answer(spec)[0] in (None, "noRecordsMatch"), spec
