"""A full disk or a kill while a build writes its outputs (issue 20, findings 2 and 11).

Disk full, for real: a small tmpfs mounted for the test (root only; skipped with the reason
otherwise). The CLI runs in a child process, because before the fix pyarrow aborted the process
(SIGABRT, exit 134): with content-defined chunking, a sink write failing inside ``write_table``
trips a fatal assertion in its C++ writer. ``RLIMIT_FSIZE`` in a child (EFBIG instead of ENOSPC,
runs anywhere) shows the same failure of the sink at the level of the parquet writer alone.

Kill, for real: the child kills itself with SIGKILL at a chosen step of the output writing
(after a configuration is renamed into place, or just before the manifest), through a patch
installed in the child only. The folder must then not look finished, every reader must say so in
one line, and a rerun of the same command must complete it to the same bytes.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from reflong.cli import main

SIGKILL_HOOK = textwrap.dedent(
    """
    import os, signal, sys
    kill_at, n = sys.argv[1], int(sys.argv[2])
    if kill_at == "config":  # after the n-th configuration's files are renamed into place
        from reflong.assemble.writers import config_writer
        original, calls = config_writer.ConfigWriter.__exit__, [0]
        def exit_then_die(self, *exc):
            result = original(self, *exc)
            calls[0] += 1
            if calls[0] == n:
                os.kill(os.getpid(), signal.SIGKILL)
            return result
        config_writer.ConfigWriter.__exit__ = exit_then_die
    elif kill_at == "manifest":  # every other output written, the manifest not yet
        import importlib
        def die(*a, **k):
            os.kill(os.getpid(), signal.SIGKILL)
        for name in ("reflong.assemble.manifest", "reflong.assemble.paper.outputs"):
            module = importlib.import_module(name)
            if hasattr(module, "write_manifest"):
                module.write_manifest = die
    from reflong.cli import main
    sys.argv = ["reflong-build", *sys.argv[3:]]
    main()
    """
)


def _cli(args: list[str], kill_at: str = "none", n: int = 0) -> subprocess.CompletedProcess:
    """``reflong-build ARGS`` in a child process (optionally killed at ``kill_at``)."""
    return subprocess.run(
        [sys.executable, "-c", SIGKILL_HOOK, kill_at, str(n), *args],
        capture_output=True,
        text=True,
        timeout=600,
    )


def _files(folder: Path) -> set[str]:
    return {p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()}


def _error_line(proc: subprocess.CompletedProcess) -> str:
    """The one ``Error:`` line of a failed run, with no traceback."""
    assert proc.returncode == 1, (proc.returncode, proc.stderr[-2000:])
    errors = [line for line in proc.stderr.splitlines() if line.startswith("Error:")]
    assert len(errors) == 1 and "Traceback" not in proc.stderr, proc.stderr[-2000:]
    assert proc.stderr.strip().splitlines()[-1] == errors[0]
    return errors[0]


# --- disk full --------------------------------------------------------------------------------


@pytest.fixture()
def small_disk(tmp_path):
    """A 6 MiB tmpfs (root only), unmounted afterwards; ``fill(free)`` leaves ``free`` bytes."""
    mount_point = tmp_path / "disk"
    mount_point.mkdir()
    proc = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=6m", "tmpfs", str(mount_point)], capture_output=True, text=True
    )
    if proc.returncode != 0:
        # the reason names what is missing; mount's own stderr carries this machine's tmp path
        pytest.skip("cannot mount a tmpfs here (needs root and a mount-capable kernel)")

    def fill(free: int) -> None:
        st = os.statvfs(mount_point)
        with open(mount_point / "filler", "wb") as fh:
            fh.write(b"\0" * (st.f_bavail * st.f_frsize - free))

    try:
        yield mount_point, fill
    finally:
        subprocess.run(["umount", "-l", str(mount_point)], check=False)


@pytest.mark.slow
def test_parquet_writer_failing_sink_is_an_oserror_not_an_abort(tmp_path):
    """RLIMIT_FSIZE: the parquet file cannot grow past 200 kB. pyarrow 26 aborted the process
    (exit 134) and left ``c.parquet.part``; now the write fails with EFBIG and abort cleans up."""
    code = textwrap.dedent(
        """
        import random, resource, sys
        from pathlib import Path
        from reflong.assemble.records import DocumentRecord, TaskRecord
        from reflong.assemble.writers.parquet import ParquetDatasetWriter, dataset_features
        rng = random.Random(1)
        def text(n):
            return " ".join(f"w{rng.randrange(10**6)}" for _ in range(n))
        tasks = [TaskRecord(config="c", task_id=t, subset="a", setting="s", length="8K", key=1,
                 documents=tuple(DocumentRecord(i, f"d{i}", 10, text(2000)) for i in range(8)),
                 answer=(0,), prompt=text(100), prompt_tokens=1) for t in range(20)]
        writer = ParquetDatasetWriter(dataset_features())
        writer.open(Path(sys.argv[1]), "c")
        resource.setrlimit(resource.RLIMIT_FSIZE, (200_000, 200_000))
        try:
            for t in tasks:
                writer.add(t)
            writer.close()
            print("closed")
        except OSError as exc:
            writer.abort()
            print("OSError", exc.errno)
        """
    )
    out = tmp_path / "out"
    proc = subprocess.run([sys.executable, "-c", code, str(out)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, (proc.returncode, proc.stderr[-1000:])
    assert proc.stdout.split() == ["OSError", "27"]  # EFBIG, raised in Python
    assert _files(out) == set()


@pytest.mark.slow
def test_full_disk_while_writing_parquet_is_one_line_and_leaves_nothing(small_disk, data_dir):
    """The released A preset on a disk with 4 MB free: the first configuration's JSON fits, its
    parquet does not. Before: exit 134 (pyarrow's abort), a .part and two JSON files left."""
    disk, fill = small_disk
    fill(4_000_000)
    out = disk / "a"
    proc = _cli(
        ["a", "--preset", "reflong2025", "--haystack", str(data_dir / "pg_essays"), "--out", str(out)]
    )
    line = _error_line(proc)
    assert "No space left on device" in line and str(out) in line, line
    assert _files(disk) == {"filler"}  # no .part, no configuration, no manifest


@pytest.mark.slow
def test_clearly_short_disk_is_refused_before_writing(small_disk, data_dir):
    """1 MB free, and the first configuration alone needs about 3.4 MB of JSON: refused in one
    line when its first task shows the size, before a byte of it lands on the disk."""
    disk, fill = small_disk
    fill(1_000_000)
    out = disk / "a"
    proc = _cli(
        ["a", "--preset", "reflong2025", "--haystack", str(data_dir / "pg_essays"), "--out", str(out)]
    )
    line = _error_line(proc)
    assert "not enough free disk space" in line and "single_stars_easy_8K" in line, line
    assert _files(disk) == {"filler"}


# --- Paper: the demo's store, rebuilt with --reuse-db ----------------------------------------


@pytest.fixture(scope="module")
def demo_store(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("demo")
    result = CliRunner().invoke(main, ["demo", "--out", str(out), "--papers", "40"])
    assert result.exit_code == 0, result.output
    return out / "store.db"


def _paper(store: Path, out: Path) -> list[str]:
    return [
        "paper", "--db", str(store), "--since", "2024-03", "--pool-months", "6",
        "--distractor-months", "6", "--reuse-db", "--tasks", "5", "--out", str(out),
    ]  # fmt: skip


@pytest.mark.slow
def test_full_disk_in_paper_leaves_no_report_and_no_file(small_disk, demo_store):
    """Before: exit 1, but build_report.json and the configurations written so far stayed."""
    disk, fill = small_disk
    fill(400_000)
    out = disk / "paper"
    line = _error_line(_cli(_paper(demo_store, out)))
    assert "space" in line, line
    assert _files(disk) == {"filler"}


def _unfinished(out: Path) -> None:
    """The folder says it is unfinished, and every reader says so in one line."""
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["finished"] is False, manifest
    run = ["eval", "run", "--prompts", str(out), "--out", str(out / "pred"), "--model", "m"]
    for args in (
        ["eval", "baseline", "--build", str(out)],
        ["eval", "score", "--build", str(out), "--predictions", str(out)],
        [*run, "--base-url", "http://127.0.0.1:9"],
        ["report", "--build", str(out), "--db", str(out / "no.db")],
        ["audit", "--build", str(out), "--db", str(out / "no.db")],
    ):
        result = CliRunner().invoke(main, args)
        assert result.exit_code == 1, (args, result.output)
        last = result.output.strip().splitlines()[-1]
        assert last.startswith("Error: ") and "did not finish" in last, (args, result.output)


@pytest.mark.slow
def test_killed_rebuild_looks_unfinished_and_a_rerun_completes_it(tmp_path, demo_store):
    out = tmp_path / "paper"
    first = _cli(_paper(demo_store, out))
    assert first.returncode == 0, first.stderr[-2000:]
    files, manifest = _files(out), (out / "manifest.json").read_bytes()
    assert {"build_report.json", "README.md", "hard_30K.json", "hard_75K.json"} <= files

    killed = _cli(_paper(demo_store, out), "config", 2)
    assert killed.returncode == -signal.SIGKILL, killed.stderr[-2000:]
    assert not (out / "build_report.json").exists()  # the previous build's: it no longer describes the folder
    assert not (out / "README.md").exists()
    assert not list(out.rglob("*.part"))
    _unfinished(out)

    rerun = _cli(_paper(demo_store, out))
    assert rerun.returncode == 0, rerun.stderr[-2000:]
    assert _files(out) == files
    assert (out / "manifest.json").read_bytes() == manifest  # the same outputs, byte for byte


@pytest.mark.slow
def test_killed_first_build_just_before_its_manifest(tmp_path, demo_store):
    out = tmp_path / "paper"
    killed = _cli(_paper(demo_store, out), "manifest")
    assert killed.returncode == -signal.SIGKILL, killed.stderr[-2000:]
    assert not list(out.rglob("*.part"))
    _unfinished(out)  # build_report.json is there, but the manifest says the build did not finish

    rerun = _cli(_paper(demo_store, out))
    assert rerun.returncode == 0, rerun.stderr[-2000:]
    manifest = json.loads((out / "manifest.json").read_text())
    assert "finished" not in manifest  # a finished manifest is the one every build wrote before
    assert _files(out) == {o["path"] for o in manifest["outputs"]} | {"manifest.json"}
    assert "build_report.json" in _files(out)


# --- a refused or failed rebuild, in-process (the free space reported by a patched disk_usage) ---


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def _short_disk_from(monkeypatch, config_number: int) -> None:
    """``disk_usage`` reports 1 kB free from the ``config_number``-th space check on."""
    real, calls = shutil.disk_usage, [0]

    def usage(path):
        calls[0] += 1
        total, used, free = real(path)
        return type(real(path))(total, used, 1000 if calls[0] >= config_number else free)

    monkeypatch.setattr("reflong.assemble.writers.config_writer.shutil.disk_usage", usage)


def _a(out: Path, data_dir: Path, tasks: str) -> list[str]:
    return [
        "a", "--haystack", str(data_dir / "pg_essays"), "--modes", "single", "--levels", "easy,hard",
        "--lengths", "8K", "--tasks", tasks, "--out", str(out),
    ]  # fmt: skip


def test_a_refused_rebuild_leaves_the_previous_build_as_it_was(tmp_path, data_dir, monkeypatch):
    out = tmp_path / "a"
    assert CliRunner().invoke(main, _a(out, data_dir, "2")).exit_code == 0
    before = _snapshot(out)
    _short_disk_from(monkeypatch, 1)
    result = CliRunner().invoke(main, _a(out, data_dir, "3"))
    assert result.exit_code == 1 and "not enough free disk space" in result.output, result.output
    assert _snapshot(out) == before  # card and manifest put back; no file of the new build


def test_a_rebuild_failing_half_way_is_marked_unfinished(tmp_path, data_dir, monkeypatch):
    out = tmp_path / "a"
    assert CliRunner().invoke(main, _a(out, data_dir, "2")).exit_code == 0
    files = _files(out)
    _short_disk_from(monkeypatch, 2)  # the first configuration is replaced, the second refused
    result = CliRunner().invoke(main, _a(out, data_dir, "3"))
    assert result.exit_code == 1, result.output
    last = result.output.strip().splitlines()[-1]
    assert "not enough free disk space for single_stars_hard_8K" in last and "marked unfinished" in last
    assert not (out / "before" / "single_stars_easy_8K.json").exists()  # this build's: removed
    assert (out / "before" / "single_stars_hard_8K.json").exists()  # the previous build's
    assert not (out / "README.md").exists() and not list(out.rglob("*.part"))
    _unfinished(out)
    monkeypatch.undo()
    assert CliRunner().invoke(main, _a(out, data_dir, "3")).exit_code == 0
    assert _files(out) == files and "finished" not in json.loads((out / "manifest.json").read_text())


def test_a_full_disk_in_a_small_output_names_the_file(tmp_path, monkeypatch):
    """The card, the manifest, build_report.json: a write's own ENOSPC names no file; the line
    must say which, and no ``.part`` stays."""
    import errno

    from reflong.common.atomic_files import write_atomic

    def full(self, data):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(Path, "write_bytes", full)
    with pytest.raises(OSError) as caught:
        write_atomic(tmp_path / "README.md", b"card")
    assert caught.value.errno == errno.ENOSPC and caught.value.filename == str(tmp_path / "README.md")
    monkeypatch.undo()
    assert _files(tmp_path) == set()
