"""Licences: read from real arXivRaw answers, served by the stand-in in the same form, kept per
version in the store (an older store gains the columns in place), carried into the outputs, and
`paper --licenses` keeps only what it names, with the card counting what the dataset holds."""

from __future__ import annotations

import gzip
import json
import re
import sqlite3
from collections import Counter
from pathlib import Path

import pyarrow.parquet as pq
import pytest
import requests
from _harvest_catalog import write_catalog
from click.testing import CliRunner
from lxml import etree
from sqlmodel import select

from reflong.cli import main
from reflong.common.errors import ReflongError
from reflong.common.licenses import BY_NAME, kind_of, label_of, parse_allowed
from reflong.db import open_store, session_for
from reflong.db.harvest import ArxivRecordRow
from reflong.db.papers import Paper
from reflong.ingest.harvest.arxivraw import parse_page, parse_record
from reflong.ingest.harvest.stored_records import record_from_row, store_records
from reflong.ingest.metadata import ArxivRecord, PaperVersion, at_version
from reflong.servers.arxiv_server import ArxivServer

REAL = Path(__file__).parent / "data" / "real" / "arxiv_oaipmh"
OAI = "{http://www.openarchives.org/OAI/2.0/}"
NS = {"o": "http://www.openarchives.org/OAI/2.0/", "r": "http://arxiv.org/OAI/arXivRaw/"}
NONEXCLUSIVE = "http://arxiv.org/licenses/nonexclusive-distrib/1.0/"
CC_BY_4 = "http://creativecommons.org/licenses/by/4.0/"


def _real_pages() -> list[bytes]:
    pages = [gzip.decompress((REAL / "listrecords_arxivraw.xml.gz").read_bytes())]
    return pages + [p.read_bytes() for p in sorted((REAL / "getrecord").glob("*.xml"))]


def test_real_arxivraw_licences_are_read_for_the_newest_version() -> None:
    pages = _real_pages()
    records = [parse_record(rec) for page in pages for rec in etree.fromstring(page).iter(f"{OAI}record")]
    assert len(records) == 510
    # Counted on the raw bytes, independently of the parser: 501 <license> elements.
    raw = Counter(url for page in pages for url in re.findall(rb"<license>([^<]*)</license>", page))
    assert sum(raw.values()) == 501
    got = Counter(r.license for r in records)
    assert got == {
        NONEXCLUSIVE: 478,
        "http://creativecommons.org/licenses/by/3.0/": 8,
        "http://creativecommons.org/licenses/by-nc-sa/3.0/": 7,
        "http://creativecommons.org/licenses/publicdomain/": 5,
        CC_BY_4: 1,
        "http://creativecommons.org/licenses/by-nc-sa/4.0/": 1,
        "http://creativecommons.org/licenses/by-nc-nd/4.0/": 1,
        None: 9,  # old papers: arXiv's record has no <license>
    }
    assert {url.decode(): n for url, n in raw.items()} == {k: v for k, v in got.items() if k}
    # Only the newest version carries it: arXivRaw gives the current metadata's licence.
    revised = [r for r in records if len(r.versions) > 1]
    assert len(revised) > 100
    assert all(v.license is None for r in revised for v in r.versions[:-1])
    # Every licence arXiv served is one the table knows, none falls to "unknown kind".
    kinds = Counter(kind_of(r.license).name for r in records)
    assert kinds == {
        "arxiv-nonexclusive": 478,
        "cc-by": 9,
        "cc-by-nc-sa": 8,
        "public-domain": 5,
        "cc-by-nc-nd": 1,
        "unknown": 9,
    }
    assert label_of("http://creativecommons.org/licenses/by-nc-sa/3.0/") == "CC BY-NC-SA 3.0"
    assert [BY_NAME[k].republish for k in ("cc-by", "cc-by-nc-sa", "cc-by-nc-nd", "arxiv-nonexclusive")] == [
        "yes",
        "non-commercial",
        "no",
        "no",
    ]


def test_licences_option_takes_short_names_urls_and_redistributable() -> None:
    assert parse_allowed("cc-by, CC-BY-SA,cc0") == {"cc-by", "cc-by-sa", "cc0"}
    assert parse_allowed(
        "https://creativecommons.org/licenses/by/4.0,http://creativecommons.org/publicdomain/zero/1.0/"
    ) == {
        "cc-by",
        "cc0",
    }
    assert parse_allowed("redistributable") == {"cc-by", "cc-by-sa", "cc0", "public-domain"}
    with pytest.raises(ReflongError, match="'gpl' is not a licence arXiv uses"):
        parse_allowed("cc-by,gpl")


def test_stand_in_serves_licences_in_arxivs_form_with_a_mix(tmp_path: Path) -> None:
    root = tmp_path / "cat"
    papers = write_catalog(root, until="2024-09-30")
    papers[0]["license"] = "http://creativecommons.org/licenses/by-sa/4.0/"  # the catalog's own
    (root / "papers.jsonl").write_text("".join(json.dumps(p) + "\n" for p in papers), encoding="utf-8")
    served: dict[str, str] = {}
    with ArxivServer(root, oai_page_size=500) as srv:
        page = etree.fromstring(
            requests.get(
                f"{srv.url}/oai", params={"verb": "ListRecords", "metadataPrefix": "arXivRaw"}, timeout=10
            ).content
        )
    records, bad = parse_page(page)
    assert bad == [] and len(records) == len(papers)
    for el in page.iterfind(".//r:arXivRaw", NS):
        tags = [etree.QName(child).localname for child in el]
        assert tags.count("license") == 1
        # arXiv's order (record_formats.xml): ... categories, comments?, doi?, license, abstract?
        after = tags[tags.index("categories") + 1 : tags.index("license")]
        assert set(after) <= {"comments", "doi"}
        assert tags[tags.index("license") + 1 :] in ([], ["abstract"])
        served[el.findtext("r:id", namespaces=NS)] = el.findtext("r:license", namespaces=NS)
    assert {r.arxiv_id: r.license for r in records} == served
    truth = {p["arxiv_id"]: p.get("license") for p in papers}
    assert [(a, served[a]) for a, url in truth.items() if url] == [
        (papers[0]["arxiv_id"], papers[0]["license"])
    ]
    mix = Counter(kind_of(url).name for url in served.values())
    assert len(mix) >= 4 and mix["arxiv-nonexclusive"] > mix["cc-by"] > mix["cc-by-sa"]


def _drop_licence_columns(db: Path) -> None:
    """Make the store look like one written before licences were kept."""
    con = sqlite3.connect(db)
    con.execute("ALTER TABLE arxiv_record DROP COLUMN license")
    con.execute("ALTER TABLE paper DROP COLUMN license")
    con.execute(
        "INSERT INTO arxiv_record (arxiv_id, title, authors_json, categories_json, versions_json, latest_version, "
        "versions_complete, withdrawn, via) VALUES ('2401.00001', 'Old Row', '[]', '[\"cs.CL\"]', "
        '\'[{"v":1,"date":"2024-01-02","withdrawn":false}]\', 1, 1, 0, \'oai\')'
    )
    con.commit()
    con.close()


def test_store_keeps_each_versions_licence_and_upgrades_an_older_store(tmp_path: Path) -> None:
    db = tmp_path / "old.db"
    open_store(db).dispose()
    _drop_licence_columns(db)
    engine = open_store(db)  # the upgrade: columns added in place, rows kept
    with session_for(engine) as session:
        old = session.get(ArxivRecordRow, "2401.00001")
        assert old.title == "Old Row" and old.license is None
        assert "license" in Paper.__table__.columns

        def record(*versions: PaperVersion) -> ArxivRecord:
            return ArxivRecord("2401.00001", "Old Row", ["A. One"], ["cs.CL"], list(versions))

        # A harvest sees v1 under arXiv's licence; v2 later comes under CC BY (a new version is the
        # only way arXiv changes a licence): both are kept, each for its version.
        store_records(
            session, [record(PaperVersion(1, "2024-01-02", license=NONEXCLUSIVE))], "oai", merge=False
        )
        session.commit()
        store_records(
            session,
            [record(PaperVersion(1, "2024-01-02"), PaperVersion(2, "2024-03-09", license=CC_BY_4))],
            "oai",
            merge=False,
        )
        session.commit()
        session.expire_all()  # the upsert bypasses the ORM: read the row again
        row = session.get(ArxivRecordRow, "2401.00001")
        assert row.license == CC_BY_4
        assert [(v["v"], v.get("license")) for v in json.loads(row.versions_json)] == [
            (1, NONEXCLUSIVE),
            (2, CC_BY_4),
        ]
        stored = record_from_row(row)
        assert at_version(stored, stored.versions[0], None).license == NONEXCLUSIVE
        assert at_version(stored, stored.versions[1], None).license == CC_BY_4
        # An API page (no licences at all) merged in keeps both.
        store_records(
            session, [record(PaperVersion(1, "2024-01-02"), PaperVersion(2, "2024-03-09"))], "api", merge=True
        )
        session.commit()
        session.expire_all()
        row = session.exec(select(ArxivRecordRow)).one()
        assert [v.get("license") for v in json.loads(row.versions_json)] == [NONEXCLUSIVE, CC_BY_4]


@pytest.fixture(scope="module")
def demo(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("licdemo") / "run"
    result = CliRunner().invoke(main, ["demo", "--out", str(out)])
    assert result.exit_code == 0, result.output
    return out


def _documents(folder: Path) -> dict[tuple[str, int], str]:
    docs: dict[tuple[str, int], str] = {}
    for path in sorted((folder / "data").glob("*.parquet")):
        for row in pq.read_table(path, columns=["documents"]).to_pylist():
            for d in row["documents"]:
                docs[(d["arxiv_id"], d["version"])] = d["license"]
    return docs


@pytest.mark.slow
def test_every_build_carries_licences_and_the_card_counts_them(demo: Path) -> None:
    docs = _documents(demo / "paper")
    counts = Counter(label_of(url or None) for url in docs.values())
    assert counts == {
        "arXiv non-exclusive distribution": 52,
        "CC BY 4.0": 16,
        "no licence known": 11,  # distractors pinned to a version older than the one harvested
        "CC BY-NC-ND 4.0": 2,
        "CC BY-SA 4.0": 1,
        "CC BY-NC-SA 4.0": 1,
        "CC0 1.0": 1,
    }
    manifest = json.loads((demo / "paper" / "manifest.json").read_text())
    assert {(p["arxiv_id"], p["version"]): p["license"] or "" for p in manifest["inputs"]} == docs
    card = (demo / "paper" / "README.md").read_text()
    for label, n in counts.items():
        assert f"| {label} | {n} |" in card
    assert "Documents that may be republished: 18 of 84." in card
    assert "rebuild with `--licenses cc-by,cc-by-sa,cc0,public-domain`" in card


@pytest.mark.slow
def test_paper_licenses_keeps_only_those_licences(demo: Path) -> None:
    out = demo / "kept"
    args = [
        "paper",
        "--db",
        str(demo / "store.db"),
        "--since",
        "2024-03",
        "--pool-months",
        "6",
        "--distractor-months",
        "6",
        "--seed",
        "0",
        "--reuse-db",
        "--no-baselines",
        "--out",
        str(out),
    ]
    result = CliRunner().invoke(
        main, [*args, "--licenses", "cc-by,http://arxiv.org/licenses/nonexclusive-distrib/1.0/"]
    )
    assert result.exit_code == 0, result.output
    docs = _documents(out)
    assert Counter(label_of(url or None) for url in docs.values()) == {
        "arXiv non-exclusive distribution": 41,
        "CC BY 4.0": 13,
    }
    keys = set()
    for path in (out / "data").glob("*.parquet"):
        keys |= {
            (r["key_arxiv_id"], r["key_license"])
            for r in pq.read_table(path, columns=["key_arxiv_id", "key_license"]).to_pylist()
        }
    assert {kind_of(url).name for _, url in keys} <= {"cc-by", "arxiv-nonexclusive"}
    report = json.loads((out / "build_report.json").read_text())
    assert report["licenses"] == {
        "kept": ["arxiv-nonexclusive", "cc-by"],
        "documents_left_out": {"cc-by-nc-nd": 2, "cc-by-nc-sa": 1, "cc-by-sa": 1, "cc0": 1, "unknown": 11},
        "keys_left_out": {"cc-by-nc-nd": 3, "cc-by-sa": 1},
    }
    card = (out / "README.md").read_text()
    assert "| CC BY 4.0 | 13 | yes" in card and "| arXiv non-exclusive distribution | 41 | no |" in card
    assert (
        "kept only papers under: arxiv-nonexclusive, cc-by (`--licenses`); it left out 16 documents and 4 keys"
        in card
    )
    assert json.loads((out / "manifest.json").read_text())["settings"]["licenses"] == [
        "arxiv-nonexclusive",
        "cc-by",
    ]
    bad = CliRunner().invoke(main, [*args, "--licenses", "cc-by,gpl"])
    assert bad.exit_code == 2 and "'gpl' is not a licence arXiv uses" in bad.output
