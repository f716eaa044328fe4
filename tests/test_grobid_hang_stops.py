"""Issue 20, finding 5: a GROBID that stops answering must not cost --grobid-timeout per PDF in turn.

GROBID's /api/isalive is a liveness probe (initialisation done), so a GROBID whose engines hang
still says ``true``; the stand-in's ``hang`` mode does the same. Before the fix every PDF waited
the whole timeout (60 s x 3,000 PDFs = 50 hours); now the cite stage stops after
``MAX_CONSECUTIVE_TIMEOUTS`` timeouts in a row with one line, keeps what it stored, and a rerun
resumes.
"""

from __future__ import annotations

import hashlib
import json
import time

import pytest
from click.testing import CliRunner
from sqlmodel import Session, select

from reflong.citations.fields.grobid import MAX_CONSECUTIVE_TIMEOUTS
from reflong.cli import main
from reflong.db.citations import ReferenceList
from reflong.db.engine import open_store
from reflong.db.papers import Failure, Paper
from reflong.ingest.parse.stage import ParseSettings, run_parse
from reflong.servers.grobid_server import GrobidStandIn

# id order is the cite order; the first three have a recorded TEI
PAPERS = ["1805.02262", "1912.10667", "2004.07180", "2005.11401", "2010.11929", "2109.08668"]


@pytest.fixture(scope="module")
def parsed(tmp_path_factory, corpus_dir):
    """A store with the six papers parsed (copied per test, so each test starts from it)."""
    db = tmp_path_factory.mktemp("hang") / "parsed.db"
    engine = open_store(db)
    meta = {r["arxiv_id"]: r for r in map(json.loads, (corpus_dir / "papers.jsonl").read_text().splitlines())}
    with Session(engine) as s:
        for pid in PAPERS:
            pdf = corpus_dir / meta[pid]["file"]
            s.add(
                Paper(
                    arxiv_id=pid,
                    version=int((meta[pid].get("version") or "v0")[1:]),
                    title=meta[pid]["title"],
                    authors_json=json.dumps(meta[pid]["authors"]),
                    pdf_path=str(pdf),
                    pdf_sha256=hashlib.sha256(pdf.read_bytes()).hexdigest(),
                    status="downloaded",
                    source="local",
                )
            )
        s.commit()
    run_parse(engine, ParseSettings(workers=2))
    engine.dispose()
    return db


def _copy(parsed, tmp_path):
    import sqlite3

    db = tmp_path / "store.db"
    src, dst = sqlite3.connect(parsed), sqlite3.connect(db)
    src.backup(dst)
    src.close()
    dst.close()
    return db


def _state(db) -> tuple[dict, dict]:
    engine = open_store(db)
    with Session(engine) as s:
        lists = {r.arxiv_id: r.status for r in s.exec(select(ReferenceList))}
        fails = {
            f.subject.split("v")[0]: f.reason for f in s.exec(select(Failure).where(Failure.stage == "cite"))
        }
    engine.dispose()
    return lists, fails


def _posts(grobid) -> int:
    return sum(1 for method, _ in grobid.requests if method == "POST")


@pytest.mark.slow
def test_grobid_that_stops_answering_stops_the_stage_and_a_rerun_resumes(parsed, tmp_path, corpus_dir):
    assert MAX_CONSECUTIVE_TIMEOUTS == 3
    db = _copy(parsed, tmp_path)
    args = ["cite", "--db", str(db), "--grobid-url"]
    with GrobidStandIn(corpus_dir, mode="hang", hang_calls=range(3, 99), hang_seconds=30) as grobid:
        t0 = time.monotonic()
        out = CliRunner().invoke(main, [*args, grobid.url, "--grobid-timeout", "1"])
        elapsed = time.monotonic() - t0
        assert out.exit_code == 1, out.output
        assert "Traceback" not in out.output
        errors = [ln for ln in out.output.splitlines() if ln.startswith("Error:")]
        assert len(errors) == 1, out.output
        assert "stopped answering" in errors[0] and "3 PDFs in a row" in errors[0]
        assert "2 of 6 papers done" in errors[0] and "rerun" in errors[0]
        assert _posts(grobid) == 2 + MAX_CONSECUTIVE_TIMEOUTS  # the sixth PDF was never sent
        assert elapsed < 15  # three 1 s timeouts (and one isalive probe), not six, not 30 s hangs
        lists, fails = _state(db)
        assert lists == {"1805.02262": "ok", "1912.10667": "ok"}  # work done so far is kept
        assert fails == {p: "grobid-timeout" for p in PAPERS[2:5]}

        grobid.mode = "ok"  # GROBID restarted
        grobid.requests.clear()
        again = CliRunner().invoke(main, [*args, grobid.url])
        assert again.exit_code == 0, again.output
        assert "2 up to date" in again.output
        assert _posts(grobid) == 4  # only the papers without a list were sent
    lists, fails = _state(db)
    assert lists == {"1805.02262": "ok", "1912.10667": "ok", "2004.07180": "ok"}
    # no recorded TEI for these: the stand-in answers GROBID's own 500 [BAD_INPUT_DATA]
    assert fails == {p: "grobid-http-500" for p in PAPERS[3:]}


@pytest.mark.slow
def test_with_fallback_a_hung_grobid_is_left_for_the_built_in_parser(parsed, tmp_path, corpus_dir):
    db = _copy(parsed, tmp_path)
    with GrobidStandIn(corpus_dir, mode="hang", hang_seconds=30) as grobid:
        t0 = time.monotonic()
        args = ["cite", "--db", str(db), "--grobid-url", grobid.url, "--grobid-timeout", "1"]
        out = CliRunner().invoke(main, [*args, "--grobid-fallback"])
        elapsed = time.monotonic() - t0
        posts = _posts(grobid)
    assert out.exit_code == 0, out.output
    warnings = [ln for ln in out.output.splitlines() if "stopped answering" in ln]
    assert len(warnings) == 1 and warnings[0].startswith("warning: ") and "built-in parser" in warnings[0]
    assert posts == MAX_CONSECUTIVE_TIMEOUTS and elapsed < 15
    assert "6 cited" in out.output and "builtin" in out.output
    lists, _ = _state(db)
    assert set(lists) == set(PAPERS)


@pytest.mark.slow
def test_a_timeout_between_answers_does_not_stop_the_stage(parsed, tmp_path, corpus_dir):
    """Only timeouts *in a row* count: an answer (even an error answer) resets the count."""
    db = _copy(parsed, tmp_path)
    # calls 2, 3 hang, call 4 answers (500: no recorded TEI), calls 5, 6 hang: never 3 in a row
    with GrobidStandIn(corpus_dir, mode="hang", hang_calls={2, 3, 5, 6}, hang_seconds=30) as grobid:
        out = CliRunner().invoke(
            main, ["cite", "--db", str(db), "--grobid-url", grobid.url, "--grobid-timeout", "1"]
        )
        assert _posts(grobid) == 6
    assert out.exit_code == 0, out.output
    assert "stopped answering" not in out.output
    lists, fails = _state(db)
    assert lists == {"1805.02262": "ok"}
    assert fails == {
        "1912.10667": "grobid-timeout",
        "2004.07180": "grobid-timeout",
        "2005.11401": "grobid-http-500",
        "2010.11929": "grobid-timeout",
        "2109.08668": "grobid-timeout",
    }
