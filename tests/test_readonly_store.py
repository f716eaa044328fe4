"""Issue 20, finding 9: the read-only commands open an existing WAL store in a read-only folder.

SQLite's docs (wal.html, "Read-Only Databases"; walformat.html): since 3.22.0 a WAL database
without write access can be read when its ``-wal`` and ``-shm`` files already exist (URI
``mode=ro``), or, when they are missing and cannot be created, only as ``immutable=1``; a
``-wal`` that holds commits without its ``-shm`` cannot be read faithfully at all.

How the folder is made read-only, honestly: tests run as root in CI, where ``chmod`` does not stop
root. As root, each command runs in a child process inside its own mount namespace
(``unshare -m``) that sees the store's folder through a read-only bind mount: a real EROFS for
root, gone when the child exits. As another user, ``chmod a-w`` on the folder does it. Where
neither works (root without mount namespaces) those tests are skipped, and only the last test
runs: it simulates an unwritable folder (``os.access`` says no) and asserts the engine the code
builds uses SQLite's read-only URI, which proves the choice of flags, not the OS behaviour.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from _audit_store import make_build
from click.testing import CliRunner
from sqlmodel import Session

from reflong.citations.fields.entry_parse import parse_entry
from reflong.citations.stages.cite_stage import store_entries
from reflong.cli import main
from reflong.db.engine import open_store
from reflong.db.papers import Paper

CLI = [sys.executable, "-c", "from reflong.cli import main; main()"]
_UNSHARE = 'mount --bind "$1" "$2" && mount -o remount,bind,ro "$2" && shift 2 && exec "$@"'


def _can_mount_readonly(tmp: Path) -> bool:
    src, dst = tmp / "probe-src", tmp / "probe-dst"
    src.mkdir()
    dst.mkdir()
    if os.geteuid() != 0 or not shutil.which("unshare"):
        return False
    probe = subprocess.run(
        ["unshare", "-m", "sh", "-c", _UNSHARE, "sh", str(src), str(dst), "sh", "-c", "! touch \"$0\"/x",
         str(dst)],
        capture_output=True,
    )  # fmt: skip
    return probe.returncode == 0 and not (src / "x").exists()


@pytest.fixture(scope="module")
def how(tmp_path_factory) -> str:
    if os.geteuid() != 0:
        return "chmod"
    if _can_mount_readonly(tmp_path_factory.mktemp("probe")):
        return "mount"
    pytest.skip("running as root without mount namespaces: no real read-only folder can be made here")


def run_readonly(how: str, folder: Path, view: Path, args: list[str]) -> subprocess.CompletedProcess:
    """``reflong-build ARGS`` with ``folder`` read-only, seen at ``view`` (args name ``view``)."""
    if how == "mount":
        view.mkdir(exist_ok=True)
        cmd = ["unshare", "-m", "sh", "-c", _UNSHARE, "sh", str(folder), str(view), *CLI, *args]
        return subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    modes = {p: p.stat().st_mode for p in [folder, *folder.iterdir()]}
    try:
        for p in modes:
            p.chmod(0o555 if p.is_dir() else 0o444)
        if view.is_symlink() or view.exists():
            view.unlink()
        view.symlink_to(folder)
        return subprocess.run([*CLI, *args], capture_output=True, text=True, timeout=120)
    finally:
        for p, mode in modes.items():
            p.chmod(mode)


def run_writable(args: list[str]):
    """The same command on a writable copy, in this process (the baseline the read-only run must match)."""
    result = CliRunner().invoke(main, args)
    result.returncode = result.exit_code
    return result


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    root = tmp_path_factory.mktemp("ro")
    store = root / "store"
    store.mkdir()
    build_id = make_build(root / "made.db", root / "out")  # its engine stays open in this process
    engine = open_store(root / "made.db")
    with Session(engine) as s:  # one citing paper with its reference list, for `refs`
        s.add(Paper(arxiv_id="2405.10000", version=1, title="A citing paper", source="local"))
        entries = [
            parse_entry("A. One. Alpha Models Are Great. arXiv:2403.00001, 2024."),
            parse_entry("B. Two. Other. 2020."),
        ]
        store_entries(s, "2405.10000", 1, entries, "builtin-test", "test", None)
        s.commit()
    engine.dispose()
    made, con = sqlite3.connect(root / "made.db"), sqlite3.connect(store / "store.db")
    made.backup(con)  # a copy this process closes, as a finished run leaves its store
    made.close()
    assert con.execute("pragma journal_mode").fetchone()[0] == "wal"
    citing = "2405.10000"
    con.close()
    assert sorted(p.name for p in store.iterdir()) == ["store.db"]  # closed cleanly: no -wal, -shm
    return root, store, build_id, citing


def _commands(db: Path, root: Path, citing: str) -> list[list[str]]:
    return [
        ["stats", "--db", str(db)],
        ["stats", "--db", str(db), "--format", "json"],
        ["edges", "--db", str(db)],
        ["refs", "--db", str(db), "--paper", citing],
        ["report", "--db", str(db), "--build", str(root / "out")],
        ["audit", "--db", str(db), "--format", "jsonl"],
        ["audit", "--db", str(db), "export", "--csv", str(root / "sheet.csv")],
    ]


@pytest.mark.slow
def test_readers_work_in_a_read_only_folder(built, how):
    root, store, _build_id, citing = built
    copy = root / "copy"
    shutil.copytree(store, copy)
    view = root / "view"
    for ro_args, rw_args in zip(
        _commands(view / "store.db", root, citing), _commands(copy / "store.db", root, citing), strict=True
    ):
        expected = run_writable(rw_args)
        got = run_readonly(how, store, view, ro_args)
        assert "Traceback" not in got.stderr, got.stderr
        assert got.returncode == expected.returncode == 0, (ro_args, got.stderr, expected.stderr)
        assert got.stdout.replace(str(view), str(copy)) == expected.stdout, ro_args
    assert sorted(p.name for p in store.iterdir()) == ["store.db"]  # nothing was created there


def _killed_writer(store: Path) -> None:
    """Leave committed rows in ``store.db-wal`` (with its ``-shm``), as a killed writer does."""
    code = (
        "import os, sqlite3, sys\n"
        "c = sqlite3.connect(sys.argv[1]); c.execute('pragma wal_autocheckpoint=0')\n"
        'c.execute("update build set n_tasks = 4242"); c.commit(); os._exit(0)\n'
    )
    subprocess.run([sys.executable, "-c", code, str(store / "store.db")], check=True)
    assert {p.name for p in store.iterdir()} == {"store.db", "store.db-wal", "store.db-shm"}


@pytest.mark.slow
def test_rows_still_in_the_wal_are_read(built, how, tmp_path):
    _root, store, _build_id, _citing = built
    folder = tmp_path / "killed"
    shutil.copytree(store, folder)
    _killed_writer(folder)
    got = run_readonly(how, folder, tmp_path / "view", ["stats", "--db", str(tmp_path / "view" / "store.db")])
    assert got.returncode == 0, got.stderr
    copy = tmp_path / "copy"
    shutil.copytree(folder, copy)
    expected = run_writable(["stats", "--db", str(copy / "store.db")])
    assert got.stdout == expected.stdout and got.stdout
    con = sqlite3.connect(copy / "store.db")
    assert con.execute("select n_tasks from build").fetchone()[0] == 4242  # the WAL's commit
    con.close()


@pytest.mark.slow
def test_a_wal_without_its_shm_is_refused_in_one_line(built, how, tmp_path):
    _root, store, _build_id, _citing = built
    folder = tmp_path / "noshm"
    shutil.copytree(store, folder)
    _killed_writer(folder)
    (folder / "store.db-shm").unlink()
    db = tmp_path / "view" / "store.db"
    got = run_readonly(how, folder, tmp_path / "view", ["stats", "--db", str(db)])
    assert got.returncode == 1 and "Traceback" not in got.stderr
    lines = got.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"Error: cannot read the store {db}"), got.stderr
    assert "read-only" in lines[0] and "-wal" in lines[0]


def test_an_unwritable_folder_opens_with_sqlites_read_only_flags(built, monkeypatch, tmp_path):
    """Simulated (runs everywhere): the folder reports no write access; the engine must then use
    SQLite's read-only URI, never create tables, and still read the rows."""
    from sqlalchemy import text

    from reflong.db import engine as engine_mod

    _root, store, _build_id, _citing = built
    folder = tmp_path / "sim"
    shutil.copytree(store, folder)
    real_access = os.access
    monkeypatch.setattr(
        engine_mod.os, "access", lambda p, mode: False if mode & os.W_OK else real_access(p, mode)
    )
    engine = engine_mod.open_store_to_read(folder / "store.db")
    url = str(engine.url)
    assert "mode=ro" in url and "immutable=1" in url and "uri=true" in url
    with engine.connect() as conn:
        assert conn.execute(text("select count(*) from build")).scalar() == 1
        with pytest.raises(Exception, match=r"readonly|read-only"):
            conn.execute(text("create table t(x)"))
    engine.dispose()
    assert sorted(p.name for p in folder.iterdir()) == ["store.db"]
