"""``reflong-build compact``: free pages given back, every row kept, and a kill mid-VACUUM leaves
a whole store that a rerun compacts."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from reflong.cli import main
from reflong.db.engine import open_store


def _store_with_free_pages(path: Path, blobs: int, blob_bytes: int) -> int:
    """A real store with ``blobs`` rows in a table of its own, half of them deleted: returns the
    kept rows' total bytes."""
    open_store(path).dispose()
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE filler (id INTEGER PRIMARY KEY, data BLOB)")
    conn.executemany(
        "INSERT INTO filler (data) VALUES (?)", ((os.urandom(blob_bytes),) for _ in range(blobs))
    )
    conn.execute("DELETE FROM filler WHERE id % 2 = 0")
    conn.commit()
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    kept = conn.execute("SELECT SUM(LENGTH(data)) FROM filler").fetchone()[0]
    conn.close()
    return kept


def _state(path: Path) -> tuple[str, int, int, str]:
    conn = sqlite3.connect(path)
    try:
        check = conn.execute("PRAGMA integrity_check").fetchone()[0]
        rows = conn.execute("SELECT COUNT(*) FROM filler").fetchone()[0]
        kept = conn.execute("SELECT SUM(LENGTH(data)) FROM filler").fetchone()[0]
        tables = ",".join(
            r[0] for r in conn.execute("SELECT name FROM sqlite_schema WHERE type='table' ORDER BY name")
        )
        return check, rows, kept, tables
    finally:
        conn.close()


def test_compact_gives_free_pages_back_and_keeps_every_row(tmp_path: Path) -> None:
    db = tmp_path / "store.db"
    kept = _store_with_free_pages(db, 200, 20_000)
    before = db.stat().st_size
    state = _state(db)
    result = CliRunner().invoke(main, ["compact", "--db", str(db)])
    assert result.exit_code == 0, result.output
    assert "MB of free pages given back" in result.output
    after = db.stat().st_size
    assert after < before - 1_500_000  # about half of 4 MB of blobs was free
    assert _state(db) == state and state[:3] == ("ok", 100, kept)
    again = CliRunner().invoke(main, ["compact", "--db", str(db)])
    assert again.exit_code == 0 and "nothing to give back" in again.output
    assert db.stat().st_size == after


def test_compact_refuses_a_store_that_does_not_exist_and_creates_none(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["compact", "--db", str(tmp_path / "typo.db")])
    assert result.exit_code == 1
    assert "no store at" in result.output
    assert list(tmp_path.iterdir()) == []


@pytest.mark.slow
def test_a_kill_during_vacuum_leaves_a_whole_store_that_a_rerun_compacts(tmp_path: Path) -> None:
    db = tmp_path / "store.db"
    kept = _store_with_free_pages(db, 300, 1_000_000)  # 300 MB written, 150 MB kept
    state = _state(db)
    wal = Path(str(db) + "-wal")
    proc = subprocess.Popen(
        [sys.executable, "-c", "from reflong.cli import main; main()", "compact", "--db", str(db)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 120
    while not (wal.exists() and wal.stat().st_size > 20_000_000):  # VACUUM is writing its log
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline
        time.sleep(0.005)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert _state(db) == state and state[:3] == ("ok", 150, kept)
    result = CliRunner().invoke(main, ["compact", "--db", str(db)])
    assert result.exit_code == 0, result.output
    assert _state(db) == state
    assert db.stat().st_size < 170_000_000
