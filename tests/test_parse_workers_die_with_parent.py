"""Parse workers die with their parent: a ``kill -9`` of ``parse`` leaves no worker behind.

Issue 12 item 3: after SIGKILL of the parent, workers were left blocked on their pipe forever
(about 256 MB each, the store file held open).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from test_parse_stage import add_papers, nested_forms_pdf

from reflong.db import open_store


def _children(pid: int) -> list[int]:
    out = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        if ppid == pid:
            out.append(int(entry.name))
    return out


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.slow
def test_sigkill_of_parse_leaves_no_worker(tmp_path, corpus_dir):
    db = tmp_path / "store.db"
    # Two PDFs that keep a worker busy (extraction burns CPU off the page) and good ones behind.
    hangs = [nested_forms_pdf(tmp_path / f"hang{i}.pdf", depth=7, visible=False) for i in range(2)]
    add_papers(open_store(db), [*hangs, *sorted((corpus_dir / "pdf").glob("*.pdf"))[:4]])
    code = "import sys; from reflong.cli import main; sys.exit(main())"
    proc = subprocess.Popen(
        [sys.executable, "-c", code, "parse", "--db", str(db), "--workers", "2", "--timeout", "600"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        cwd=tmp_path,
    )
    try:
        deadline = time.monotonic() + 60
        workers: list[int] = []
        while time.monotonic() < deadline and len(workers) < 2:
            time.sleep(0.2)
            workers = _children(proc.pid)
        assert len(workers) == 2, f"parse did not start two workers: {workers}"
        time.sleep(1.0)  # workers are inside their first documents
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(10)
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and any(_alive(w) for w in workers):
            time.sleep(0.1)
        left = [w for w in workers if _alive(w)]
    finally:
        for w in _children(proc.pid) + locals().get("workers", []):
            if _alive(w):
                os.kill(w, signal.SIGKILL)
        if proc.poll() is None:
            proc.kill()
    assert left == [], f"workers {left} outlived their killed parent"
