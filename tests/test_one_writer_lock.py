"""One writer per store (issue 12 item 2): a second writing run refuses in one line.

Two runs on one store used to interleave their transactions: ``paper`` died with
``NoResultFound``, ``resolve`` and ``ingest --source`` with ``IntegrityError``, a held write lock
gave ``database is locked`` -- all as tracebacks.
"""

from __future__ import annotations

import os
import re
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from sqlmodel import Session, func, select

from reflong.cli import main
from reflong.db import Paper, open_store
from reflong.db.lock import lock_path, writer_lock

CLI = "import sys; from reflong.cli import main; sys.exit(main())"
REFUSAL = re.compile(
    r"^Error: another reflong-build run \(pid \d+, started \S+, command .+\) is writing to \S+; "
    r"wait for it .*or use another --db$"
)


# The first run holds the lock and waits (before its ingest starts) until the test has seen the
# second run end, so the two overlap for certain; the ingest itself then runs unchanged.
SLOW_CLI = (
    "import os, sys, time; import reflong.cli.ingest_cmd as c; orig = c.run_ingest; "
    "go = os.environ['GO_FILE']; "
    "wait = lambda: [time.sleep(0.1) for _ in range(600) if not os.path.exists(go)]; "
    "c.run_ingest = lambda *a, **k: (wait(), orig(*a, **k))[1]; "
    "from reflong.cli import main; sys.exit(main())"
)


def _cli(*args: str, cwd: Path, code: str = CLI) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-c", code, *args],
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "GO_FILE": str(cwd / "go")},
    )


@pytest.mark.slow
def test_two_concurrent_ingests_one_refuses_the_other_finishes(tmp_path, corpus_dir):
    db = tmp_path / "store.db"
    args = ("ingest", "--source", str(corpus_dir), "--db", str(db), "--cache", str(tmp_path / "cache"))
    first = _cli(*args, cwd=tmp_path, code=SLOW_CLI)
    deadline = time.monotonic() + 30  # wait until the first run holds the lock, then start the second
    while time.monotonic() < deadline and f'"pid": {first.pid}' not in _read(lock_path(db)):
        time.sleep(0.05)
    assert f'"pid": {first.pid}' in _read(lock_path(db)), "the first run never took the lock"
    second = _cli(*args, cwd=tmp_path)
    out2, err2 = second.communicate(timeout=120)
    (tmp_path / "go").touch()
    _out1, err1 = first.communicate(timeout=300)
    assert first.returncode == 0, err1
    assert second.returncode == 1 and out2 == "", (out2, err2)
    lines = err2.strip().splitlines()
    assert len(lines) == 1 and REFUSAL.match(lines[0]), err2
    assert f"pid {first.pid}," in lines[0] and "ingest" in lines[0]
    n_catalog = sum(1 for line in (corpus_dir / "papers.jsonl").read_text().splitlines() if line.strip())
    with Session(open_store(db)) as s:
        n_rows = s.exec(select(func.count()).select_from(Paper)).one()
        downloaded = s.exec(select(func.count()).select_from(Paper).where(Paper.status == "downloaded")).one()
    assert n_rows >= n_catalog and downloaded == n_catalog  # the first run's work is whole


def _read(path: Path) -> str:
    try:
        return path.read_text()
    except OSError:
        return ""


def test_held_lock_gives_one_line_for_every_writing_command(tmp_path, corpus_dir):
    db = tmp_path / "store.db"
    open_store(db)
    sheet = tmp_path / "s.csv"
    sheet.write_text("key,verdict\n2405.00001v1->2403.00001,confirm\n")
    runner = CliRunner()
    with writer_lock(db, "reflong-build paper --since 2024-03"):
        for args in (
            ["resolve", "--seeds", str(corpus_dir / "seeds.jsonl")],
            ["ingest", "--source", str(corpus_dir)],
            ["parse"],
            ["cite"],
            ["paper", "--since", "2024-03", "--reuse-db"],
            ["audit", "import", str(sheet)],
            ["audit", "verdict", "2405.00001v1->2403.00001", "confirm"],
        ):
            argv = [*args[:1], "--db", str(db), *args[1:]] if args[0] != "audit" else [*args, "--db", str(db)]
            result = runner.invoke(main, argv)
            lines = result.output.strip().splitlines()
            assert result.exit_code == 1 and len(lines) == 1, (args, result.output)
            assert REFUSAL.match(lines[0]) and f"pid {os.getpid()}," in lines[0], lines[0]
            assert "command reflong-build paper --since 2024-03" in lines[0]
        # Reading goes on while a writer writes.
        assert runner.invoke(main, ["stats", "--db", str(db)]).exit_code == 0


@pytest.mark.slow
def test_wait_lock_waits_for_the_other_run(tmp_path, corpus_dir):
    db = tmp_path / "store.db"
    open_store(db)
    taken, release = threading.Event(), threading.Event()

    def hold() -> None:
        with writer_lock(db, "other"):
            taken.set()
            release.wait(10)

    t = threading.Thread(target=hold)
    t.start()
    taken.wait(5)
    threading.Timer(1.0, release.set).start()
    t0 = time.monotonic()
    result = CliRunner().invoke(
        main, ["resolve", "--db", str(db), "--seeds", str(corpus_dir / "seeds.jsonl"), "--wait-lock", "20"]
    )
    t.join()
    assert result.exit_code == 0, result.output
    assert 0.8 < time.monotonic() - t0 < 15


def test_sqlite_lock_held_by_another_program_is_one_line(tmp_path, corpus_dir, monkeypatch):
    db = tmp_path / "store.db"
    open_store(db)
    monkeypatch.setattr("reflong.db.engine.BUSY_TIMEOUT_MS", 200)
    other = sqlite3.connect(db)
    other.execute("BEGIN IMMEDIATE")  # e.g. a sqlite3 shell in the middle of a transaction
    try:
        result = CliRunner().invoke(
            main, ["resolve", "--db", str(db), "--seeds", str(corpus_dir / "seeds.jsonl")]
        )
    finally:
        other.rollback()
        other.close()
    lines = result.output.strip().splitlines()
    assert result.exit_code == 1 and len(lines) == 1, result.output
    assert lines[0].startswith("Error: the store is locked by another process (database is locked)")
