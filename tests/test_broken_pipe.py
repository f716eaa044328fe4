"""A reader that stops early (`reflong-build edges | head`) ends the command quietly (issue 20,
finding 10e): no `Error: Broken pipe`, no Python "Exception ignored" noise, exit code 141 (128 +
SIGPIPE, what a shell reports for a C tool stopped the same way), for every command that writes
to stdout, through the one handler in reflong/cli/__init__.py. Real processes, real pipes."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from _audit_store import make_build

CLI = str(Path(sys.executable).with_name("reflong-build"))


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("pipe")
    make_build(root / "s.db", root / "out")
    return root / "s.db", root / "out"


COMMANDS = {
    "edges": lambda db, out: ["edges", "--db", str(db)],
    "audit": lambda db, out: ["audit", "--db", str(db), "--format", "jsonl"],
    "stats": lambda db, out: ["stats", "--db", str(db)],
    "eval baseline": lambda db, out: ["eval", "baseline", "--build", str(out), "--kind", "all"],
}


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_a_pipe_closed_before_the_first_line_ends_the_command_quietly(store, name):
    args = COMMANDS[name](*store)
    full = subprocess.run([CLI, *args], capture_output=True, text=True)
    assert full.returncode == 0 and full.stdout, full.stderr  # it does write to stdout
    proc = subprocess.Popen([CLI, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    proc.stdout.close()  # the reader is gone before the command has even started
    stderr = proc.stderr.read()
    assert proc.wait(timeout=60) == 141, stderr
    assert "Broken pipe" not in stderr and "Exception ignored" not in stderr and "Traceback" not in stderr


@pytest.mark.slow
def test_edges_into_a_shell_pipe_that_stops_reading(store):
    db, _ = store
    result = subprocess.run(
        [
            "bash",
            "-c",
            f'set -o pipefail; "{CLI}" edges --db "{db}" | true; echo "status ${{PIPESTATUS[0]}}"',
        ],
        capture_output=True,
        text=True,
    )
    assert "Broken pipe" not in result.stderr and "Exception ignored" not in result.stderr, result.stderr
    assert result.stdout.strip() == "status 141"
