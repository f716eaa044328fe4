"""The arXiv stand-in's arXivRaw records have the forms of real ones by default, and the harvest
parser reads them back to the catalog's truth.

Real forms (tests/data/real/arxiv_oaipmh, served by arXiv's own OAI-PMH code): author strings with
bracketed and numbered affiliations and TeX accents; live versions of ``0kb`` (a tiny or missing
source); withdrawal notices of ``0kb`` with source type ``I``, or, for old withdrawals, without it
and with a comment saying so; several DOIs in one ``<doi>``.
"""

from __future__ import annotations

import json
from pathlib import Path

import requests
from _harvest_catalog import write_catalog
from lxml import etree

from reflong.ingest.harvest.arxivraw import parse_page
from reflong.servers.arxiv_server import ArxivServer

NS = {"o": "http://www.openarchives.org/OAI/2.0/", "r": "http://arxiv.org/OAI/arXivRaw/"}


def _extra() -> list[dict]:
    """Papers the generated catalog lacks: accents, a collaboration, two DOIs, old-style withdrawals."""

    def rec(aid: str, authors: list[str], **more) -> dict:
        versions = [{"version": "v1", "published": "2024-02-01"}]
        if more.pop("withdrawn", False):
            versions.append({"version": "v2", "published": "2024-02-10", "withdrawn": True})
        return {
            "arxiv_id": aid,
            "version": versions[-1]["version"],
            "title": f"Special paper {aid}",
            "authors": authors,
            "published": versions[-1]["published"],
            "first_published": "2024-02-01",
            "categories": ["cs.CL"],
            "primary_category": "cs.CL",
            "versions": versions,
            **more,
        }

    papers = [
        rec("2402.20001", ["Frédéric Lagoutière", "Stanisława Kanas", "Jörg Müller"]),
        rec("2402.20002", ["ATLAS Collaboration", "Ada Lovelace"]),
        rec("2402.20003", ["Ada Lovelace"], doi="10.1007/JHEP12(2010)070; 10.1007/JHEP02(2011)044"),
    ]
    # Withdrawn with a comment that says so (0906.3336v2's form): some are shown without "I".
    papers += [
        rec(
            f"2402.2001{i}",
            ["Alan Turing"],
            withdrawn=True,
            comment="This paper has been withdrawn by the authors",
        )
        for i in range(6)
    ]
    return papers


def _harvest(root: Path) -> tuple[list, dict[str, etree._Element]]:
    records, raws = [], {}
    with ArxivServer(root, oai_page_size=50) as srv:
        params = {"verb": "ListRecords", "metadataPrefix": "arXivRaw"}
        while True:
            page = etree.fromstring(requests.get(f"{srv.url}/oai", params=params, timeout=10).content)
            got, bad = parse_page(page)
            assert bad == []
            records += got
            for el in page.iterfind(".//r:arXivRaw", NS):
                raws[el.findtext("r:id", namespaces=NS)] = el
            token = page.find(".//o:resumptionToken", NS)
            if token is None or not token.text:
                return records, raws
            params = {"verb": "ListRecords", "resumptionToken": token.text}


def test_stand_in_records_have_real_forms_and_parse_back_to_the_catalog(tmp_path: Path):
    root = tmp_path / "cat"
    papers = write_catalog(root, until="2024-09-30") + _extra()
    (root / "papers.jsonl").write_text("".join(json.dumps(p) + "\n" for p in papers), encoding="utf-8")
    truth = {p["arxiv_id"]: p for p in papers}
    records, raws = _harvest(root)
    assert len(records) == len(papers) == 146

    # Authors: the raw strings carry affiliations and TeX; the parse gives the catalog's names.
    strings = {aid: el.findtext("r:authors", namespaces=NS) for aid, el in raws.items()}
    assert sum("((1)" in s for s in strings.values()) >= 5  # numbered affiliations
    assert sum("(" in s and "((1)" not in s for s in strings.values()) >= 5  # bracketed after names
    assert "Lagouti\\`ere" in strings["2402.20001"] and "Stanis{\\l}awa" in strings["2402.20001"]
    wrong = {r.arxiv_id: r.authors for r in records if r.authors != truth[r.arxiv_id]["authors"]}
    assert wrong == {}

    # Withdrawals: exactly the catalog's, whether the notice carries "I" or not.
    withdrawn = {aid for aid, p in truth.items() if any(v.get("withdrawn") for v in p["versions"])}
    assert {r.arxiv_id for r in records if r.withdrawn} == withdrawn
    notices = [raws[aid].findall("r:version", NS)[-1] for aid in withdrawn]
    assert {v.findtext("r:size", namespaces=NS) for v in notices} == {"0kb"}
    flags = [v.findtext("r:source_type", namespaces=NS) for v in notices]
    assert flags.count(None) >= 1 and flags.count("I") >= 10  # old-style notices and current ones

    # Live versions of 0kb (a tiny or missing source) exist and are not withdrawals.
    live_0kb = [
        (r.arxiv_id, v.number)
        for r in records
        for v in r.versions
        if not v.withdrawn
        and raws[r.arxiv_id].find(f"r:version[@version='v{v.number}']/r:size", NS).text == "0kb"
    ]
    assert len(live_0kb) >= 2
    assert not any(v.withdrawn for r in records if r.arxiv_id not in withdrawn for v in r.versions)

    # Several DOIs in one field, as given.
    two = next(r for r in records if r.arxiv_id == "2402.20003")
    assert two.dois == ["10.1007/JHEP12(2010)070", "10.1007/JHEP02(2011)044"]
