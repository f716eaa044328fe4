"""Ingest building blocks on real data: windows, ids, the corpus catalog, versions, PDF checks, queries."""

from __future__ import annotations

import hashlib
import json
import shutil
import sqlite3
from collections import Counter
from datetime import date

import pytest
from sqlmodel import select

from reflong.common.errors import ReflongError
from reflong.db import open_store, session_for
from reflong.db.papers import Failure, Paper, PaperRole
from reflong.ingest.catalog.reader import read_catalog
from reflong.ingest.download import cache_name, copy_local, pdf_problem
from reflong.ingest.metadata import PaperMeta, split_versioned_id
from reflong.ingest.netpolicy import NetPolicy
from reflong.ingest.plan.versions import pick_versions
from reflong.ingest.plan.windows import BuildWindows, add_months, parse_month
from reflong.ingest.stage import IngestSettings, run_ingest
from reflong.servers.arxiv_server import QueryError, parse_query, render_feed


def test_windows_are_half_open_months_around_since():
    build = BuildWindows(parse_month("2024-01"), seed_months=1, pool_months=6, distractor_months=2)
    assert build.label == "2024-01:s1:p6:d2"
    seed, pool, distractor = build.windows()
    assert (seed.start, seed.end) == (date(2024, 1, 1), date(2024, 2, 1))
    assert (pool.start, pool.end) == (date(2024, 2, 1), date(2024, 8, 1))
    assert (distractor.start, distractor.end) == (date(2023, 11, 1), date(2024, 1, 1))
    assert seed.contains("2024-01-31") and not seed.contains("2024-02-01") and not seed.contains(None)
    assert seed.contains("2024-02-01", slack_days=1) and not seed.contains("2024-02-02", slack_days=1)
    assert seed.submitted_date_clause() == "submittedDate:[202401010000 TO 202401312359]"
    assert add_months(date(2024, 1, 1), -13) == date(2022, 12, 1)
    with pytest.raises(ReflongError, match="YYYY-MM"):
        parse_month("2024-13")


def test_ids_with_and_without_versions():
    assert split_versioned_id("2205.14135v2") == ("2205.14135", 2)
    assert split_versioned_id("2205.14135") == ("2205.14135", 0)
    assert split_versioned_id("hep-th/9901001v3") == ("hep-th/9901001", 3)
    assert cache_name("hep-th/9901001", 3) == "hep-th_9901001v3.pdf"
    assert cache_name("2203.06947", 0) == "2203.06947.pdf"
    with pytest.raises(ValueError):
        split_versioned_id("not-an-id")


def test_corpus_catalog_knows_versions_and_first_dates(corpus_dir):
    cat = read_catalog(corpus_dir)
    assert len(cat.papers) == 113 and cat.problems == []
    assert sum(1 for p in cat.papers.values() if p.latest.file) == 55
    flash = cat.papers["2205.14135"]  # v2 PDF dated 2022-06-23, first version 2022-05-27
    assert flash.first_published == "2022-05-27" and flash.latest.number == 2
    assert flash.versions[1].file is None and flash.versions[1].date == "2022-05-27"
    assert flash.versions[2].date == "2022-06-23" and flash.versions[2].file.name == "2205.14135.pdf"
    unstamped = cat.papers["2203.06947"]  # camera-ready PDF without arXiv stamp: version unknown
    assert unstamped.latest.number == 0 and unstamped.meta(unstamped.latest).version_date is None
    seed_only = cat.papers["2307.09288"]  # Llama 2, known by metadata alone
    assert seed_only.latest.file is None and seed_only.authors == ["Touvron"]
    assert all(p.first_published for p in cat.papers.values())


def test_distractor_version_is_newest_before_cutoff():
    cutoff = date(2022, 3, 1)

    def meta(v: int, day: str | None) -> PaperMeta:
        return PaperMeta("2201.12091", v, "T", first_published="2022-01-10", version_date=day)

    known = {1: meta(1, "2022-01-10"), 2: meta(2, "2022-02-20"), 3: meta(3, "2022-06-19")}
    asked: list[list[str]] = []

    def lookup(ids):
        asked.append(ids)
        return [known[split_versioned_id(i)[1]] for i in ids]

    chosen = pick_versions([meta(4, "2022-08-01")], cutoff, lookup)
    assert chosen["2201.12091"].version == 2 and asked == [["2201.12091v3", "2201.12091v2", "2201.12091v1"]]
    # The latest qualifies: no look-up at all.
    asked.clear()
    assert pick_versions([meta(2, "2022-02-20")], cutoff, lookup)["2201.12091"].version == 2 and not asked
    # An unknown version (0) has no date: only v1 can be proved safe.
    assert pick_versions([meta(0, None)], cutoff, lookup)["2201.12091"].version == 1
    # Nothing dated before the cutoff: no safe version.
    assert pick_versions([meta(4, "2022-08-01")], date(2021, 1, 1), lookup)["2201.12091"] is None


def test_pdf_checks_reject_empty_truncated_and_non_pdf(tmp_path, corpus_dir):
    real = (corpus_dir / "pdf" / "2204.10628.pdf").read_bytes()
    cases = {"empty": b"", "not-a-pdf": b"<html>503</html>" * 10, "truncated-pdf": real[: len(real) // 2]}
    for reason, data in cases.items():
        path = tmp_path / f"{reason}.pdf"
        path.write_bytes(data)
        assert pdf_problem(path)[0] == reason
    whole = tmp_path / "whole.pdf"
    whole.write_bytes(real)
    assert pdf_problem(whole) is None
    # A copy into the cache is atomic and verified; a second copy is a cache hit.
    final = tmp_path / "cache" / "x.pdf"
    assert copy_local(whole, final).status == "fetched"
    assert copy_local(whole, final).status == "cached"
    bad = copy_local(tmp_path / "truncated-pdf.pdf", tmp_path / "cache" / "y.pdf")
    assert bad.status == "failed" and bad.reason == "truncated-pdf"
    assert not (tmp_path / "cache" / "y.pdf").exists() and not list(
        (tmp_path / "cache" / ".partial").iterdir()
    )


def test_server_query_language(corpus_dir):
    cat = read_catalog(corpus_dir)

    def ids(query: str, **params) -> list[str]:
        body = render_feed(cat, {"search_query": query, "max_results": "500", **params}, "http://x")
        import re

        return re.findall(rb"<id>http://arxiv.org/abs/([^<]+)</id>", body)

    march = ids("submittedDate:[202203010000 TO 202203312359]", sortBy="submittedDate", sortOrder="ascending")
    assert march == [b"2203.02155", b"2203.06947", b"2203.11171", b"2203.14465v1", b"2203.15556"]
    # Records without categories match any cat: term (their categories are unknown, not different).
    cl = ids("cat:cs.CL AND submittedDate:[202204010000 TO 202204302359]", sortBy="submittedDate")
    assert cl == [b"2204.10628v1", b"2204.05862", b"2204.02311v1"]  # descending by default
    both = ids("(cat:cs.CL OR cat:cs.HC) AND submittedDate:[202202010000 TO 202202282359]")
    assert set(both) == {b"2202.00535v1", b"2203.00130v1"}
    hc = "cat:cs.HC AND submittedDate:[202201010000 TO 202312312359] AND ti:papers"
    assert set(ids(hc)) == {b"2203.00130v1", b"2302.07302v1"}
    assert ids(f"{hc} ANDNOT ti:medical") == [b"2302.07302v1"]
    assert ids("cat:hep-* AND submittedDate:[201501010000 TO 201512312359] ANDNOT cat:cs.*") == [
        b"1503.07589v1"
    ]
    assert ids("au:Vaswani") == [b"1706.03762v5"]
    for bad in ("cat:cs.CL AND", "foo:bar", "(cat:cs.CL", "submittedDate:[2022 TO]"):
        with pytest.raises(QueryError):
            parse_query(bad)


def test_bad_metadata_is_recorded_and_skipped(tmp_path, corpus_dir, db_path):
    (tmp_path / "cat").mkdir()
    pdf = tmp_path / "cat" / "2204.10628.pdf"  # a catalog's files live inside it (issue 12 item 6)
    shutil.copy(corpus_dir / "pdf" / "2204.10628.pdf", pdf)
    recs = [
        {
            "arxiv_id": "2204.10628",
            "version": "v1",
            "file": str(pdf),
            "title": "Good",
            "authors": ["A"],
            "published": "2022-04-22",
            "primary_category": "cs.CL",
        },
        {
            "arxiv_id": "2204.10628",
            "version": "v1",
            "file": None,
            "title": "Again",
            "published": "2022-04-22",
        },
        {
            "arxiv_id": "2204.20000",
            "version": "v2",
            "file": None,
            "title": "No date",
            "published": None,
            "primary_category": "cs.CL",
        },
        {
            "arxiv_id": "2204.30000",
            "version": "v1",
            "file": None,
            "title": "Gone",
            "published": "2022-04-02",
            "primary_category": "cs.CL",
            "comment": "This paper has been withdrawn by the authors",
        },
        {"arxiv_id": "2204.40000", "version": "v1", "file": None, "title": "", "published": "2022-04-03"},
    ]
    lines = [json.dumps(r) for r in recs] + ["{not json"]
    (tmp_path / "cat" / "papers.jsonl").write_text("\n".join(lines) + "\n")
    settings = IngestSettings(
        since="2022-03", cache_dir=tmp_path / "cache", source_dir=tmp_path / "cat", net=NetPolicy(delay=0)
    )
    engine = open_store(db_path)
    for _ in range(2):  # a rerun records the same failures once and adds no rows
        summary = run_ingest(engine, settings)
        assert summary.roles == {"seed": 0, "pool": 1, "distractor": 0} and summary.skipped == 5
    with session_for(engine) as s:
        failures = {(f.subject, f.reason) for f in s.exec(select(Failure)).all()}
        assert failures == {
            ("papers.jsonl:2", "duplicate-id"),
            ("papers.jsonl:6", "bad-record"),
            ("2204.40000", "missing-title"),
            ("2204.20000", "missing-date"),
            ("2204.30000", "withdrawn"),
        }
        assert [(p.arxiv_id, p.status) for p in s.exec(select(Paper)).all()] == [("2204.10628", "downloaded")]
        assert len(s.exec(select(PaperRole)).all()) == 1


def _write_catalog(root, records) -> None:
    root.mkdir(parents=True, exist_ok=True)
    (root / "papers.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))


def test_versions_catalog_distractor_read_at_explicit_older_version(tmp_path, corpus_dir, db_path):
    """The demo generator's ``versions`` field: v1 and v2 predate the seeds, v3 does not -> v2,
    fetched as /pdf/<id>v2 through the server and copied from v2's file through --source."""
    from reflong.servers.arxiv_server import ArxivServer

    pdf = corpus_dir / "pdf"
    cat = tmp_path / "cat"
    (cat / "pdf").mkdir(parents=True)
    for name, src in (("d1", "2201.07525"), ("d2", "2201.09329"), ("d3", "2202.00535"), ("p1", "2204.10628")):
        (cat / "pdf" / f"{name}.pdf").write_bytes((pdf / f"{src}.pdf").read_bytes())
    versions = [
        {"version": "v1", "published": "2022-01-10", "file": "pdf/d1.pdf"},
        {"version": "v2", "published": "2022-02-20", "file": "pdf/d2.pdf"},
        {"version": "v3", "published": "2022-05-01", "file": "pdf/d3.pdf"},
    ]
    _write_catalog(
        cat,
        [
            {
                "arxiv_id": "2201.00001",
                "version": "v3",
                "file": "pdf/d3.pdf",
                "title": "Revised distractor",
                "authors": ["Doe"],
                "published": "2022-05-01",
                "first_published": "2022-01-10",
                "categories": ["cs.CL", "cs.LG"],
                "doi": "10.1/x",
                "versions": versions,
            },
            {
                "arxiv_id": "2203.00001",
                "version": "v1",
                "file": None,
                "title": "A seed",
                "authors": ["Roe"],
                "published": "2022-03-02",
                "primary_category": "cs.CL",
            },
            {
                "arxiv_id": "2204.00001",
                "version": "v1",
                "file": "pdf/p1.pdf",
                "title": "Citing",
                "authors": ["Poe"],
                "published": "2022-04-02",
                "primary_category": "cs.LG",
            },
            {
                # withdrawn as arXiv does it: a new version that holds only the notice
                "arxiv_id": "2204.00002",
                "version": "v2",
                "file": None,
                "title": "Gone",
                "authors": ["Moe"],
                "published": "2022-04-20",
                "first_published": "2022-04-03",
                "primary_category": "cs.CL",
                "versions": [
                    {"version": "v1", "published": "2022-04-03"},
                    {"version": "v2", "published": "2022-04-20", "withdrawn": True},
                ],
            },
        ],
    )
    digests = {}
    with ArxivServer(cat) as srv:
        for name in ("arxiv", "local"):
            db = tmp_path / f"{name}.db"
            settings = IngestSettings(
                since="2022-03",
                cache_dir=tmp_path / f"cache-{name}",
                net=NetPolicy(delay=0.01),
                arxiv_url=srv.url,
                oai_url=srv.oai_url,
                source_dir=cat if name == "local" else None,
            )
            summary = run_ingest(open_store(db), settings)
            assert summary.roles == {"seed": 1, "pool": 1, "distractor": 1}
            assert summary.reasons == Counter({"withdrawn": 1}) and summary.fetched == 2
            con = sqlite3.connect(db)
            assert con.execute(
                "select role, version from paper_role where arxiv_id='2201.00001'"
            ).fetchone() == ("distractor", 2)
            row = con.execute(
                "select version_date, first_published, categories_json, doi, pdf_path, pdf_sha256 from paper "
                "where arxiv_id='2201.00001'"
            ).fetchone()
            assert row[:4] == ("2022-02-20", "2022-01-10", '["cs.CL", "cs.LG"]', "10.1/x")
            assert row[4].endswith("2201.00001v2.pdf")
            digests[name] = row[5]
        assert [e[2] for e in srv.faults.log if e[1] == "pdf"] == ["/pdf/2204.00001v1", "/pdf/2201.00001v2"]
    assert (
        digests["arxiv"]
        == digests["local"]
        == hashlib.sha256((pdf / "2201.09329.pdf").read_bytes()).hexdigest()
    )


def test_duplicate_ids_across_windows_are_recorded_and_skipped(corpus_dir, tmp_path, db_path):
    from reflong.ingest.catalog.source import LocalSource

    class Overlapping(LocalSource):
        """A source that (wrongly) returns a seed again in the pool window, as a glitchy mirror might."""

        def window(self, window, categories, limit):
            metas = super().window(window, categories, limit)
            if window.role == "pool":
                metas.insert(0, self.lookup(["2203.14465"])[0])
            return metas

    import reflong.ingest.stage as stage

    settings = IngestSettings(since="2022-03", cache_dir=tmp_path / "c", source_dir=corpus_dir)
    original = stage.make_source
    stage.make_source = lambda s: Overlapping(s.source_dir)
    try:
        summary = run_ingest(open_store(db_path), settings)
    finally:
        stage.make_source = original
    assert summary.reasons["duplicate-id"] == 1 and summary.roles["seed"] == 5 and summary.roles["pool"] == 7
    con = sqlite3.connect(db_path)
    assert con.execute("select role from paper_role where arxiv_id='2203.14465'").fetchall() == [("seed",)]
    assert con.execute("select subject, reason from failure where stage='ingest'").fetchall() == [
        ("2203.14465@pool", "duplicate-id")
    ]
