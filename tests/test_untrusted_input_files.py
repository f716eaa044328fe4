"""A catalog's records are untrusted input (issue 12 items 5 and 6).

Item 6: a record's ``file`` may not leave the catalog folder -- not by ``..``, an absolute path
or a symlink; such a record is a recorded problem and no byte of the target is read, neither by
``ingest --source`` nor by the local arXiv-protocol server.
"""

from __future__ import annotations

import json
import shutil
import urllib.error
import urllib.request
from pathlib import Path

from click.testing import CliRunner
from sqlmodel import Session, select

from reflong.cli import main
from reflong.db import Failure, Paper, open_store
from reflong.ingest.catalog.reader import read_catalog
from reflong.servers.arxiv_server import ArxivServer

SECRET = b"TOPSECRET-hostname-like-bytes\n"
GOOD_ID = "1503.02531"


def _record(arxiv_id: str, file: str, title: str = "A paper") -> dict:
    return {"arxiv_id": arxiv_id, "version": "v1", "file": file, "title": title, "published": "2015-03-09"}


def _catalog(tmp_path: Path, corpus_dir: Path, records: list[dict]) -> Path:
    root = tmp_path / "catalog"
    (root / "pdf").mkdir(parents=True)
    shutil.copy(corpus_dir / "pdf" / f"{GOOD_ID}.pdf", root / "pdf" / f"{GOOD_ID}.pdf")
    (root / "papers.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    return root


def _escaping_catalog(tmp_path: Path, corpus_dir: Path) -> Path:
    secret = tmp_path / "secret.txt"
    secret.write_bytes(SECRET)
    root = _catalog(
        tmp_path,
        corpus_dir,
        [
            _record(GOOD_ID, f"pdf/{GOOD_ID}.pdf", "Distilling the Knowledge in a Neural Network"),
            _record("1601.00001", "../secret.txt"),
            _record("1601.00002", str(secret)),
            _record("1601.00003", "pdf/link.pdf"),
        ],
    )
    (root / "pdf" / "link.pdf").symlink_to(secret)
    return root


def test_catalog_file_outside_the_catalog_is_a_problem(tmp_path, corpus_dir):
    catalog = read_catalog(_escaping_catalog(tmp_path, corpus_dir))
    assert catalog.papers[GOOD_ID].latest.file is not None
    for pid in ("1601.00001", "1601.00002", "1601.00003"):
        latest = catalog.papers[pid].latest
        assert latest.file is None and "outside the catalog" in (latest.refused or ""), pid


def test_ingest_reads_no_byte_outside_the_catalog(tmp_path, corpus_dir):
    root = _escaping_catalog(tmp_path, corpus_dir)
    db = tmp_path / "store.db"
    result = CliRunner().invoke(
        main, ["ingest", "--source", str(root), "--db", str(db), "--cache", str(tmp_path / "cache")]
    )
    assert result.exit_code == 0, result.output
    with Session(open_store(db)) as s:
        reasons = {f.subject: f.reason for f in s.exec(select(Failure).where(Failure.stage == "ingest"))}
        downloaded = {p.arxiv_id for p in s.exec(select(Paper).where(Paper.status == "downloaded"))}
    assert downloaded == {GOOD_ID}
    assert reasons == dict.fromkeys(("1601.00001v1", "1601.00002v1", "1601.00003v1"), "file-outside-catalog")
    for f in [db, *(tmp_path / "cache").rglob("*")]:
        if f.is_file():
            assert SECRET.strip() not in f.read_bytes(), f
    assert SECRET.strip().decode() not in result.output


def test_server_serves_no_file_outside_the_catalog(tmp_path, corpus_dir):
    root = _escaping_catalog(tmp_path, corpus_dir)
    with ArxivServer(root) as srv:
        assert urllib.request.urlopen(f"{srv.url}/pdf/{GOOD_ID}v1").read().startswith(b"%PDF")
        for pid in ("1601.00001", "1601.00002", "1601.00003"):
            try:
                body = urllib.request.urlopen(f"{srv.url}/pdf/{pid}v1").read()
                status = 200
            except urllib.error.HTTPError as exc:
                body, status = exc.read(), exc.code
            assert status == 404 and SECRET.strip() not in body, (pid, status, body)


# --- item 5: one bad record or a legacy encoding does not abort a run ------------------------


def test_non_utf8_line_and_non_string_title_are_recorded_problems(tmp_path, corpus_dir):
    root = _catalog(tmp_path, corpus_dir, [])
    good = json.dumps(_record(GOOD_ID, f"pdf/{GOOD_ID}.pdf", "Distilling the Knowledge in a Neural Network"))
    lines = [
        good.encode(),
        '{"arxiv_id": "1601.00004", "title": "Caf\u00e9 society", "published": "2016-01-02"}'.encode(
            "cp1252"
        ),
        json.dumps({"arxiv_id": "1601.00005", "title": 42, "published": "2016-01-03"}).encode(),
        json.dumps({"arxiv_id": "1601.00006", "title": ["a", "list"], "published": "2016-01-03"}).encode(),
    ]
    (root / "papers.jsonl").write_bytes(b"\n".join(lines) + b"\n")
    catalog = read_catalog(root)
    assert set(catalog.papers) == {GOOD_ID}
    problems = {p.subject: (p.reason, p.message) for p in catalog.problems}
    assert problems["papers.jsonl:2"][0] == "bad-record" and "UTF-8" in problems["papers.jsonl:2"][1]
    assert problems["1601.00005"][0] == "bad-record" and "title" in problems["1601.00005"][1]
    assert problems["1601.00006"][0] == "bad-record"
    db = tmp_path / "store.db"
    result = CliRunner().invoke(
        main, ["ingest", "--source", str(root), "--db", str(db), "--cache", str(tmp_path / "cache")]
    )
    assert result.exit_code == 0, result.output
    assert "fetched 1" in result.output and "skipped for bad metadata 3" in result.output


def test_cp1252_seeds_file_is_read_with_a_warning(tmp_path, caplog):
    from reflong.citations.candidates.seeds import load_seed_file

    seeds = tmp_path / "seeds.jsonl"
    seeds.write_bytes(
        '{"arxiv_id": "1601.00004", "title": "Caf\u00e9 society \u2013 a na\u00efve study"}\n'.encode(
            "cp1252"
        )
    )
    with caplog.at_level("WARNING"):
        loaded = load_seed_file(seeds)
    assert [s.title for s in loaded] == ["Caf\u00e9 society \u2013 a na\u00efve study"]
    assert "cp1252" in caplog.text and str(seeds) in caplog.text
    utf8 = tmp_path / "utf8.jsonl"
    utf8.write_bytes(b"\xef\xbb\xbf" + '{"arxiv_id": "1601.00004", "title": "Caf\u00e9"}\n'.encode())
    assert [s.title for s in load_seed_file(utf8)] == ["Caf\u00e9"]  # a BOM is no problem either


def test_audit_import_reads_a_cp1252_sheet(tmp_path):
    from reflong.assemble.audit.queue import import_sheet
    from reflong.db.audits import EdgeKey, verdicts_for

    sheet = tmp_path / "sheet.csv"
    sheet.write_bytes(
        "key;verdict;why\n2405.00001v1->2403.00001;confirm;r\u00e9sum\u00e9 checked\n".encode("cp1252")
    )
    db = tmp_path / "store.db"
    open_store(db).dispose()  # verdicts go into an existing store only (issue 20, finding 3)
    result = CliRunner().invoke(main, ["audit", "import", str(sheet), "--db", str(db)])
    assert result.exit_code == 0, result.output
    with Session(open_store(db)) as session:
        assert verdicts_for(session)[EdgeKey("2405.00001", 1, "2403.00001")].why == "r\u00e9sum\u00e9 checked"
    assert import_sheet  # the CLI goes through it
