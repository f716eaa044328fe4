"""arXivRaw parsing held against real records: 510 papers as arXiv's own OAI-PMH server code
(github.com/arXiv/arxiv-oaipmh) serves them from its test database of real arXiv metadata rows
(tests/data/real/arxiv_oaipmh/, SOURCES.md there says how they were recorded).

What is measured, objectively and independently of the parser:

* **junk first-author surname**: the surname the resolver reads (``citations.seeds.surname`` of
  the first author) is empty; or holds a digit, a bracket, ``$``/``^``/``\\``/``{``; or is a lone
  initial, initials glued to a name (``L.Zamick``), a suffix (``Jr.``) or a connective (``and``, ``et al``); or is not, word for word
  (letters a-z, accents and TeX dropped), part of the raw author string once everything in parentheses is cut out (so a word
  of an affiliation, "Group", "Torino", is junk);
* **fragment list**: an author list with any name failing the same tests (a name, not a surname);
* **false withdrawal**: a version flagged withdrawn that arXiv's database (``is_withdrawn``) says
  is not, and the reverse.
"""

from __future__ import annotations

import gzip
import json
import re
import unicodedata
from pathlib import Path

import pytest
from lxml import etree

from reflong.citations.candidates.seeds import load_seed_file, surname
from reflong.citations.resolve import SeedIndex, SeedTitle
from reflong.common.dois import split_dois
from reflong.ingest.harvest.arxivraw import parse_page, parse_record, split_authors

REAL = Path(__file__).parent / "data" / "real" / "arxiv_oaipmh"
OAI = "{http://www.openarchives.org/OAI/2.0/}"
RAW = "{http://arxiv.org/OAI/arXivRaw/}"


def _real_records() -> list[etree._Element]:
    """Every real ``<record>``: the ListRecords page and the GetRecord answers."""
    pages = [etree.fromstring(gzip.decompress((REAL / "listrecords_arxivraw.xml.gz").read_bytes()))]
    pages += [etree.parse(str(p)).getroot() for p in sorted((REAL / "getrecord").glob("*.xml"))]
    return [rec for page in pages for rec in page.iter(f"{OAI}record")]


RECORDS = _real_records()


def _outside_parentheses(text: str) -> str:
    """The text with every parenthesised part cut out (nested too; an unclosed one to the end)."""
    out, depth = [], 0
    for ch in text:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth = max(0, depth - 1)
        elif depth == 0:
            out.append(ch)
    return "".join(out)


_MARKUP = re.compile(r"[()\[\]{}$^\\]")
_BAD_CHARS = re.compile(r"[\d()\[\]{}$^\\]")
_NOT_A_NAME = re.compile(
    r"^(?:[A-Z]\.?|[A-Z]\.-?[A-Z]\.?|jr\.?|sr\.?|ii|iii|iv|and|&|et\.? al\.?|others)$", re.I
)
_GROUP = re.compile(r"\b(?:collaboration|consortium|team|group)\b", re.I)


def _skeleton(text: str) -> str:
    """Letters a-z and spaces only, TeX commands and accents dropped (the TeX and the Unicode
    spellings of Plötz or Stanisława give the same letters): how a name is compared with the raw
    string, whatever the spelling of its accents."""
    text = re.sub(r"\\+(?:[A-Za-z]+|[^A-Za-z\s])", "", text)
    text = unicodedata.normalize("NFKD", text.replace(".", " ")).lower()
    text = re.sub(r"[^a-z\s]", "", text)
    return " ".join(text.split())


def _junk(name: str, raw: str) -> bool:
    """Is ``name`` (an author, or a surname) not a real name of ``raw``'s authors?"""
    name = name.strip()
    if not name or _NOT_A_NAME.match(name):
        return True
    # A collaboration may carry digits in its name ("D0 Collaboration", "H1"); a person may not.
    if (_MARKUP if _GROUP.search(name) else _BAD_CHARS).search(name):
        return True
    words = _skeleton(name)
    return not words or f" {words} " not in f" {_skeleton(_outside_parentheses(raw))} "


def _measure(records: list[etree._Element]) -> dict:
    junk, fragments, lists = [], [], 0
    for el in records:
        raw = el.findtext(f".//{RAW}authors") or ""
        rec = parse_record(el)
        if not rec.authors:
            continue
        lists += 1
        first = surname(rec.authors[0])
        if _junk(first, raw) or re.search(r"\.[^\W\d_]", first):  # "L.Zamick": initials glued on
            junk.append((rec.arxiv_id, first))
        if any(_junk(a, raw) for a in rec.authors):
            fragments.append(rec.arxiv_id)
    return {"lists": lists, "junk": junk, "fragments": fragments}


def test_the_real_sample_is_what_sources_md_says():
    ids = [parse_record(el).arxiv_id for el in RECORDS]
    assert len(ids) == len(set(ids)) == 510
    assert "0903.4542" in ids and "1101.3650" in ids and "0906.3336" in ids


def test_real_author_lists_have_no_junk_surnames_and_no_fragments():
    m = _measure(RECORDS)
    assert m["lists"] == 510
    assert m["junk"] == []
    assert m["fragments"] == []


@pytest.mark.parametrize(
    "raw, expected",
    [
        (  # affiliations with "and" and commas inside the brackets (real: 0903.4542)
            "C. Neri (Lloyds Banking Group, London, UK) and L. Schneider (EMLYON Business School, Lyon, France)",
            ["C. Neri", "L. Schneider"],
        ),
        ("Roberto Lineros (University of Torino and INFN/Torino)", ["Roberto Lineros"]),  # 0907.4433
        (  # numbered affiliations, listed at the end in nested brackets (1004.3715)
            'Irina Lupu (1), Pierre Courbin (2), Laurent George (2) and Jo\\"el Goossens (1) ((1) U.L.B., (2) ECE)',
            ["Irina Lupu", "Pierre Courbin", "Laurent George", "Joël Goossens"],
        ),
        (  # "(1 and 3)", an affiliation list with brackets of its own (1102.0377, 1002.4301)
            "Leandro Kerber (1 and 3) and Thais Idiart (1) ((1) IAG, (2) C-DAC (C-DAC) Pune, India)",
            ["Leandro Kerber", "Thais Idiart"],
        ),
        (  # a collaboration leading the list (1101.6079), "et al" dropped
            "The D0 Collaboration: V.M. Abazov, et al",
            ["D0 Collaboration", "V. M. Abazov"],
        ),
        ("HESS Collaboration: A. Abramowski, F. Acero", ["HESS Collaboration", "A. Abramowski", "F. Acero"]),
        (  # a collaboration at the end, after ", and" (1102.0502); one in brackets is an affiliation
            "B.N. Barlow, and MUCHFUSS collaboration",
            ["B. N. Barlow", "MUCHFUSS collaboration"],
        ),
        ("Louise Oakes (the CDF Collaboration)", ["Louise Oakes"]),  # 1102.0436
        (  # suffixes stay with their name (1010.3617); LaTeX accents become letters
            'Yu. A. Pashkin, J. Lepp\\"akangas, A. A. Abdumalikov Jr., and J. S. Tsai',
            ["Yu. A. Pashkin", "J. Leppäkangas", "A. A. Abdumalikov Jr.", "J. S. Tsai"],
        ),
        ("John Smith, Jr. and Ann Lee", ["John Smith Jr.", "Ann Lee"]),
        (
            "Stanis{\\l}awa Kanas and S{\\o}ren Boldsen and Anne Sa{\\ss}",
            ["Stanisława Kanas", "Søren Boldsen", "Anne Saß"],
        ),
        ("Fran\\c{c}ois P\\'etr\\'elis, Jos\\'e A. Mu\\~noz", ["François Pétrélis", "José A. Muñoz"]),
        ("A. One; B. Two; C. Three", ["A. One", "B. Two", "C. Three"]),
        ("A. One & B. Two", ["A. One", "B. Two"]),
        ("Alice Liddell$^{1,2}$, Bob Carroll$^{2}$", ["Alice Liddell", "Bob Carroll"]),
        ("G. Pedaletti1, G. Pelletier", ["G. Pedaletti", "G. Pelletier"]),  # 1101.3650
        ("L.Zamick and Y.Y.Sharon", ["L. Zamick", "Y. Y. Sharon"]),  # 1006.4856
        ("Valerio Bozza, Gaetano Scarpetta (Eds.)", ["Valerio Bozza", "Gaetano Scarpetta"]),
        ("A. One (Univ. of Nowhere", ["A. One"]),  # an unclosed bracket runs to the end
        ("Smith, J., Doe, A. B.", ["J. Smith", "A. B. Doe"]),  # "Last, Initials" pairs
        ("Wu, He and Lo", ["Wu", "He", "Lo"]),  # surnames alone (a catalog's form) stay apart
        ("V. M. Abazov et al.", ["V. M. Abazov"]),
        ("", []),
    ],
)
def test_split_authors_on_real_forms(raw: str, expected: list[str]):
    assert split_authors(raw) == expected


def test_surnames_of_real_first_authors():
    got = {}
    for el in RECORDS:
        rec = parse_record(el)
        got[rec.arxiv_id] = surname(rec.authors[0]) if rec.authors else ""
    assert got["0903.4542"] == "Neri"
    assert got["0907.4433"] == "Lineros"
    assert got["1004.3715"] == "Lupu"
    assert got["0712.3217"] == "Delarue"
    assert got["1101.3650"] == "HESS Collaboration"


def _withdrawn_truth() -> set[str]:
    return set(json.loads((REAL / "is_withdrawn.json").read_text())["withdrawn"])


def test_withdrawals_agree_with_arxivs_database_on_every_real_version():
    truth = _withdrawn_truth()
    flagged, versions = set(), 0
    for el in RECORDS:
        rec = parse_record(el)
        for v in rec.versions:
            versions += 1
            if v.withdrawn:
                flagged.add(f"{rec.arxiv_id}v{v.number}")
    assert versions == 1042
    assert sorted(flagged - truth) == []  # live papers with 0kb (tiny or missing source) stay live
    assert sorted(truth - flagged) == []  # 0906.3336v2: 0kb, no "I", comment says withdrawn


def test_live_papers_of_0kb_are_not_withdrawn():
    by_id = {parse_record(el).arxiv_id: parse_record(el) for el in RECORDS}
    # 2310.08262v1: 484 bytes of HTML source (arxiv-browse's db_abs.py names it); 2305.11452v1: no size.
    for arxiv_id in ("2310.08262", "2305.11452"):
        assert not by_id[arxiv_id].withdrawn and not by_id[arxiv_id].versions[-1].withdrawn
    assert by_id["0906.3336"].withdrawn and by_id["0906.3336"].versions[-1].withdrawn
    assert not by_id["0906.3336"].versions[0].withdrawn


def test_several_dois_in_one_real_record():
    by_id = {parse_record(el).arxiv_id: parse_record(el) for el in RECORDS}
    assert by_id["1011.0730"].dois == ["10.1007/JHEP12(2010)070", "10.1007/JHEP02(2011)044"]
    assert by_id["1006.4407"].dois == ["10.1002/andp.201000099", "10.1002/andp.201200739"]
    one = [r for r in by_id.values() if len(r.dois) == 1]
    assert len(one) > 100 and all(" " not in r.dois[0] and ";" not in r.dois[0] for r in one)


def test_parse_page_reads_every_real_record():
    page = etree.fromstring(gzip.decompress((REAL / "listrecords_arxivraw.xml.gz").read_bytes()))
    records, bad = parse_page(page)
    assert len(records) == 501 and bad == []


def test_the_resolver_matches_a_reference_to_any_doi_of_a_real_record(tmp_path: Path):
    by_id = {parse_record(el).arxiv_id: parse_record(el) for el in RECORDS}
    rec = by_id["1006.4407"]  # <doi>10.1002/andp.201000099; 10.1002/andp.201200739</doi>
    seed = SeedTitle(rec.arxiv_id, rec.title, rec.first_published, surname(rec.authors[0]), rec.doi)
    index = SeedIndex([seed])
    for doi in ("10.1002/andp.201000099", "10.1002/ANDP.201200739"):
        ref = f"A. Person. Some other wording. Ann. Phys. (Berlin), 2010. doi:{doi}"
        assert [(m.seed_id, m.method) for m in index.resolve(ref)] == [("1006.4407", "doi")]
    # A seeds list (``--seeds``) may give them in the field's form or as a JSON list.
    path = tmp_path / "seeds.jsonl"
    rows = [
        {"arxiv_id": "1006.4407", "title": rec.title, "doi": rec.doi},
        {"arxiv_id": "1011.0730", "title": by_id["1011.0730"].title, "doi": by_id["1011.0730"].dois},
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    loaded = {s.arxiv_id: s for s in load_seed_file(path)}
    assert loaded["1006.4407"].dois == ["10.1002/andp.201000099", "10.1002/andp.201200739"]
    assert loaded["1011.0730"].dois == ["10.1007/JHEP12(2010)070", "10.1007/JHEP02(2011)044"]
    index = SeedIndex(loaded.values())
    ref = "P. Lodone. Erratum. JHEP 02 (2011) 044, doi: 10.1007/JHEP02(2011)044."
    assert [(m.seed_id, m.method) for m in index.resolve(ref)] == [("1011.0730", "doi")]


@pytest.mark.parametrize(
    "field, dois",
    [
        (
            "10.1007/JHEP12(2010)070 10.1007/JHEP02(2011)044",
            ["10.1007/JHEP12(2010)070", "10.1007/JHEP02(2011)044"],
        ),
        (
            "10.1002/andp.201000099; 10.1002/andp.201200739",
            ["10.1002/andp.201000099", "10.1002/andp.201200739"],
        ),
        (
            "10.1002/(SICI)1097-4571(199806)49:8<693::AID-ASI4>3.0.CO;2-O",
            ["10.1002/(SICI)1097-4571(199806)49:8<693::AID-ASI4>3.0.CO;2-O"],
        ),
        ("doi:10.1103/PhysRevD.82.123, https://doi.org/10.1/Z", ["10.1103/PhysRevD.82.123", "10.1/Z"]),
        ("10.1/a and 10.1/A", ["10.1/a"]),
        ("", []),
        (None, []),
    ],
)
def test_split_dois(field, dois):
    assert split_dois(field) == dois
