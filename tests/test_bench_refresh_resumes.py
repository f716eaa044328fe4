"""bench/refresh.py resumes (issue 41 item 3): rerun with the same --work, it goes on from the first
release whose figures it has not kept, so 12 monthly releases can span several sittings.

Why a subprocess on a prepared progress file: a release of the bench costs minutes; what is checked
here is the bookkeeping (what counts as finished, what is refused), which runs no release at all.
The bench itself is run as the script it is (no import of bench/)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[1] / "bench" / "refresh.py"


def _figures(label: str, wall: float) -> dict:
    return {"release": label, "wall_s": wall, "peak_rss_mb": 900, "store_bytes": 10, "edges": 5}


def _bench(work: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(BENCH), "--work", str(work), "--no-rerun", *args],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip


def test_finished_releases_are_not_run_again_and_the_last_line_lists_every_release(tmp_path):
    kept = [_figures("2024-03", 700.0), _figures("2024-04", 710.0)]
    (tmp_path / "progress.json").write_text(json.dumps({"scale": 0.01, "pool_months": 6, "releases": kept}))
    out = _bench(tmp_path, "--scale", "0.01", "--first", "2024-03", "--count", "2")
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert result["releases"] == kept and result["scale"] == 0.01
    assert out.stderr.count("finished in an earlier sitting") == 2
    assert not (tmp_path / "world-0.01").exists()  # no release was run: nothing grown


def test_a_work_folder_of_another_scale_is_refused(tmp_path):
    (tmp_path / "progress.json").write_text(json.dumps({"scale": 0.25, "pool_months": 6, "releases": []}))
    out = _bench(tmp_path, "--scale", "0.01", "--count", "1")
    assert out.returncode != 0 and "Traceback" not in out.stderr
    assert "is of --scale 0.25 --pool-months 6: use another --work" in out.stderr
