"""GROBID answers that are not TEI, hung GROBIDs and re-checking empty lists (issue 12 item 1).

A GROBID (or a proxy in front of it) that answers ``/api/isalive`` and then returns an HTML page
with status 200 used to leave every paper stored as ``empty`` with 0 references, and a rerun
against a healthy GROBID said "up to date". A hung GROBID cost 120 s a PDF, labelled
``grobid-http-400``.
"""

from __future__ import annotations

import time

import pytest
from click.testing import CliRunner
from sqlmodel import Session, select
from test_cite_e2e import add_papers

from reflong.citations.stages.cite_stage import run_cite
from reflong.cli import main
from reflong.db.citations import ReferenceList
from reflong.db.engine import open_store
from reflong.db.papers import Failure
from reflong.ingest.parse.stage import ParseSettings, run_parse
from reflong.servers.grobid_server import GrobidStandIn

PAPERS = ["1805.02262", "1912.10667"]  # both have a recorded TEI


def _store(tmp_path, corpus_dir):
    db = tmp_path / "store.db"
    engine = open_store(db)
    add_papers(engine, corpus_dir, PAPERS)
    run_parse(engine, ParseSettings(workers=2))
    return db, engine


def _state(engine) -> tuple[dict, dict]:
    with Session(engine) as s:
        lists = {r.arxiv_id: (r.status, r.n_references) for r in s.exec(select(ReferenceList))}
        fails = {
            f.subject.split("v")[0]: f.reason for f in s.exec(select(Failure).where(Failure.stage == "cite"))
        }
    return lists, fails


def test_html_answer_is_a_failure_retried_next_run(tmp_path, corpus_dir):
    _, engine = _store(tmp_path, corpus_dir)
    with GrobidStandIn(corpus_dir, mode="html") as grobid:
        report = run_cite(engine, grobid_url=grobid.url)
        assert (report.cited, report.failed) == (0, 2)
        lists, fails = _state(engine)
        assert lists == {} and fails == {"1805.02262": "grobid-not-tei", "1912.10667": "grobid-not-tei"}
        grobid.mode = "ok"
        report = run_cite(engine, grobid_url=grobid.url)
    assert (report.cited, report.skipped, report.failed) == (2, 0, 0)
    lists, fails = _state(engine)
    assert lists == {"1805.02262": ("ok", 27), "1912.10667": ("ok", 40)} and fails == {}


@pytest.mark.slow
def test_hung_grobid_times_out_with_its_own_reason(tmp_path, corpus_dir):
    db, engine = _store(tmp_path, corpus_dir)
    with GrobidStandIn(corpus_dir, mode="hang", hang_seconds=20) as grobid:
        t0 = time.monotonic()
        result = CliRunner().invoke(
            main, ["cite", "--db", str(db), "--grobid-url", grobid.url, "--grobid-timeout", "1"]
        )
        elapsed = time.monotonic() - t0
    assert "2 with a recorded problem" in result.output, result.output
    assert result.exit_code == 1 and "Error: no reference list could be built" in result.output  # item 7
    assert _state(engine)[1] == {"1805.02262": "grobid-timeout", "1912.10667": "grobid-timeout"}
    assert elapsed < 15  # two PDFs at a 1 s timeout, not the 20 s hang


@pytest.mark.slow
def test_empty_lists_are_rechecked_with_retry_failed(tmp_path, corpus_dir):
    db, engine = _store(tmp_path, corpus_dir)
    runner = CliRunner()
    with GrobidStandIn(corpus_dir, mode="header-only") as grobid:
        args = ["cite", "--db", str(db), "--grobid-url", grobid.url]
        first = runner.invoke(main, args)
        assert first.exit_code == 0, first.output
        assert _state(engine)[0] == {"1805.02262": ("empty", 0), "1912.10667": ("empty", 0)}
        grobid.mode = "ok"
        again = runner.invoke(main, args)
        assert "2 up to date" in again.output  # same PDF, same service: no work without the flag
        retried = runner.invoke(main, [*args, "--retry-failed"])
    assert retried.exit_code == 0, retried.output
    assert "2 cited" in retried.output
    assert _state(engine) == ({"1805.02262": ("ok", 27), "1912.10667": ("ok", 40)}, {})
