"""Raw tracebacks become one line; partial files are cleaned up (issue 12 item 8).

Disk full (simulated: ``os.write``/``open`` raising ``OSError(ENOSPC)`` in-process), a file where
``--out`` needs a folder, URLs that are not http(s), an empty ``--lengths``.
"""

from __future__ import annotations

import errno
import os
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from test_cite_e2e import add_papers
from test_grobid_faults import PAPERS

from reflong.cli import main
from reflong.db import open_store


def _one_line_error(result, *needles: str) -> str:
    lines = result.output.strip().splitlines()
    assert result.exit_code in (1, 2), result.output
    assert "Traceback" not in result.output and not isinstance(result.exception, (OSError, TypeError))
    last = lines[-1]
    assert last.startswith("Error: "), result.output
    for n in needles:
        assert n in last, (n, last)
    return last


@pytest.fixture()
def blocker(tmp_path) -> Path:
    f = tmp_path / "a-file"
    f.write_text("not a folder")
    return f


def test_out_under_a_file_is_one_line(tmp_path, blocker, data_dir):
    hay = str(data_dir / "pg_essays")
    runner = CliRunner()
    for args in (
        ["a", "--haystack", hay, "--modes", "single", "--levels", "hard", "--lengths", "8K", "--tasks", "2"],
        ["f", "--summhay", str(data_dir / "summhay" / "topic_news1.json"), "--lengths", "8K", "--tasks", "2"],
        ["synth-arxiv", "--papers", "40"],
        ["demo"],
    ):
        result = runner.invoke(main, [*args, "--out", str(blocker / "x")])
        _one_line_error(result, str(blocker), "another")


def test_disk_full_while_writing_outputs_leaves_no_part_file(tmp_path, data_dir, monkeypatch):
    out = tmp_path / "out"
    real_replace = os.replace

    def full(src, dst, *a, **k):  # the disk fills up as the first output is finished
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(dst))

    monkeypatch.setattr("reflong.common.atomic_files.os.replace", full)
    args = ["a", "--haystack", str(data_dir / "pg_essays"), "--modes", "single", "--levels", "hard"]
    result = CliRunner().invoke(main, [*args, "--lengths", "8K", "--tasks", "2", "--out", str(out)])
    monkeypatch.setattr("reflong.common.atomic_files.os.replace", real_replace)
    _one_line_error(result, "No space left on device", "free")
    assert [p.name for p in out.rglob("*.part")] == []


def test_disk_full_in_the_store_is_one_line(tmp_path, corpus_dir, monkeypatch):
    """SQLite's own "disk full" (SQLITE_FULL), made real by capping the file at its current size."""
    import reflong.db.engine as engine_mod

    db = tmp_path / "store.db"
    engine = open_store(db)
    add_papers(engine, corpus_dir, PAPERS)
    engine.dispose()
    real = engine_mod._set_pragmas

    def capped(dbapi_connection, record) -> None:
        real(dbapi_connection, record)
        pages = dbapi_connection.execute("PRAGMA page_count").fetchone()[0]
        dbapi_connection.execute(f"PRAGMA max_page_count = {pages + 2}")

    monkeypatch.setattr(engine_mod, "_set_pragmas", capped)
    result = CliRunner().invoke(main, ["parse", "--db", str(db), "--workers", "1"])
    _one_line_error(result, "database or disk is full", "free disk space")


@pytest.mark.parametrize("url", ["ftp://example.org", "not a url", "http://", "export.arxiv.org"])
def test_arxiv_url_must_be_http(tmp_path, url):
    result = CliRunner().invoke(
        main, ["ingest", "--since", "2024-03", "--db", str(tmp_path / "s.db"), "--arxiv-url", url]
    )
    assert result.exit_code == 2 and "--arxiv-url" in result.output and "http" in result.output, result.output
    assert "Traceback" not in result.output


def test_empty_lengths_is_a_usage_error(tmp_path, data_dir):
    runner = CliRunner()
    hay = str(data_dir / "pg_essays")
    for args in (
        ["a", "--haystack", hay, "--lengths", "", "--out", str(tmp_path / "a")],
        ["paper", "--since", "2024-03", "--reuse-db", "--db", str(tmp_path / "s.db"), "--lengths", ""],
        ["paper", "--since", "2024-03", "--reuse-db", "--db", str(tmp_path / "s.db"), "--lengths", " , "],
    ):
        result = runner.invoke(main, args)
        assert result.exit_code == 2 and "--lengths" in result.output, (args, result.output)
    assert not (tmp_path / "a").exists()


def test_enospc_from_any_stage_is_one_line(tmp_path, monkeypatch):
    """The central handler: an OSError escaping any command is one line with what to do."""
    import reflong.cli.stats_cmd as stats_cmd

    def boom(*a, **k):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(tmp_path / "x"))

    (tmp_path / "s.db").touch()  # stats needs an existing store (a missing one is its own error)
    monkeypatch.setattr(stats_cmd, "reading_store", boom)
    result = CliRunner().invoke(main, ["stats", "--db", str(tmp_path / "s.db")])
    assert result.exit_code == 1
    _one_line_error(result, "No space left on device", str(tmp_path / "x"))
    assert sys.exc_info() == (None, None, None)


def _damaged_store(tmp_path: Path) -> Path:
    """A real store of 3,000 papers whose later half of pages (the rows, written after the schema)
    is overwritten with random bytes, as a bad disk or a stray writer leaves it."""
    import random

    from reflong.db.papers import Paper

    db = tmp_path / "store.db"
    engine = open_store(db)
    rows = [
        {"arxiv_id": f"2403.{i:05d}", "version": "v1", "title": f"A study of topic {i} " * 4,
         "first_published": "2024-03-04"}
        for i in range(3000)
    ]  # fmt: skip
    with engine.begin() as conn:
        conn.execute(Paper.__table__.insert(), rows)
    engine.dispose()  # the last connection closed checkpoints the WAL into the file
    assert not Path(f"{db}-wal").exists() or Path(f"{db}-wal").stat().st_size == 0
    size = db.stat().st_size
    with db.open("r+b") as f:
        f.seek(size // 2 // 4096 * 4096)
        f.write(random.Random(0).randbytes(size - f.tell()))
    return db


@pytest.mark.parametrize("argv", [["stats"]])  # `paper --reuse-db` on a damaged demo store: test_demo_e2e
def test_a_damaged_store_is_one_line_naming_the_file_and_how_to_check_it(tmp_path, argv):
    # issue 38: random bytes in the middle of the store gave a 77-86-line SQLAlchemy traceback
    db = _damaged_store(tmp_path)
    out = tmp_path / "out"
    result = CliRunner().invoke(
        main, [*argv[:1], "--db", str(db), *argv[1:], *(["--out", str(out)] if argv[0] == "paper" else [])]
    )
    assert result.exit_code == 1, result.output
    line = _one_line_error(result, f"the store {db} is damaged (database disk image is malformed)")
    assert f"sqlite3 {db} 'PRAGMA integrity_check'" in line and ".recover" in line
    assert len(result.output.strip().splitlines()) == 1 and not out.exists()


@pytest.mark.parametrize(
    "command", [["stats"], ["edges"], ["audit"], ["ingest", "--since", "2024-03", "--dry-run"]]
)
def test_another_programs_database_is_refused_and_left_as_it_was(command, tmp_path):
    """Issue 38: `stats --db photos.sqlite` wrote the store's tables into another program's
    SQLite file. Readers and writers refuse it in one line; its bytes and folder stay as they were."""
    import sqlite3

    foreign = tmp_path / "photos.sqlite"
    con = sqlite3.connect(foreign)
    con.execute("CREATE TABLE photos (id INTEGER PRIMARY KEY, path TEXT)")
    con.execute("INSERT INTO photos (path) VALUES ('a.jpg')")
    con.commit()
    con.close()
    before = foreign.read_bytes()
    result = CliRunner().invoke(main, [*command, "--db", str(foreign)])
    assert result.exit_code == 1, result.output
    assert result.output.strip().splitlines() == [
        f"Error: --db {foreign} is another program's SQLite database (tables photos), not a reflong-build "
        "store; nothing was written to it: give the store's path (or a new file for a new store)"
    ]
    assert foreign.read_bytes() == before and sorted(p.name for p in tmp_path.iterdir()) == ["photos.sqlite"]


def test_an_empty_file_is_not_a_store_to_read(tmp_path):
    empty = tmp_path / "typo.db"
    empty.touch()
    result = CliRunner().invoke(main, ["stats", "--db", str(empty)])
    assert result.exit_code == 1
    assert result.output.strip().splitlines() == [
        f"Error: --db {empty} is an empty file, not a store: nothing has been stored there; give the store's path"
    ]
    assert empty.stat().st_size == 0 and sorted(p.name for p in tmp_path.iterdir()) == ["typo.db"]
