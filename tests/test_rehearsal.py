"""`reflong-build demo --world 2024`: the rehearsal of the real run, through the CLI, end to end.

A tiny world (--scale 0.001: 91 papers, 7 seeds) goes the whole way: the world's files, the arXiv
and Semantic Scholar stand-ins, `paper --since 2024-03 --dry-run` and `paper --since 2024-03` in
child processes, and the figures, checked against the world's truth and the stand-ins' counts.
Then the kill paths: Ctrl-C while the dry run asks the index (child and stand-ins stopped, exit
130, the requests so far kept), SIGKILL of the rehearsal while its run parses (its child must not
outlive it and finish alone), and a rerun that resumes both and ends with the same answers.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from _signals import interruptible
from click.testing import CliRunner

from reflong.cli import main
from reflong.demo.rehearsal import OWN_OPTIONS, SINCE, RehearsalSettings, own_options

CLI = [sys.executable, "-c", "from reflong.cli import main; main()"]
SCALE = "0.001"
RUN = f"run-{SCALE}-real"


def _rehearsal(out: Path, *extra: str, timeout: float = 300) -> subprocess.CompletedProcess:
    cmd = [*CLI, "demo", "--world", "2024", "--scale", SCALE, "--out", str(out), *extra]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a zombie is not alive (its parent reaps it later)
    try:
        return Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"
    except OSError:
        return False


def _wait_for(predicate, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.2)


@pytest.mark.slow
def test_the_rehearsal_runs_the_default_paper_command_and_measures_it(tmp_path):
    out = tmp_path / "rehearsal"
    done = _rehearsal(out)
    assert done.returncode == 0, done.stderr[-3000:]
    text = done.stdout
    # The summary's own figures, as printed.
    assert text.startswith(
        f"rehearsal of `reflong-build paper --since {SINCE}` on the 2024 world x {SCALE} (91 papers)"
    )
    pdfs = re.search(r"PDFs: (\d+) fetched, the plan said (\d+); (\d+) downloaded in the store", text)
    assert pdfs, text
    assert int(pdfs[1]) == int(pdfs[2]) == int(pdfs[3]) > 0
    requests = re.search(
        r"requests: arXiv (\d+) \((\d+) OAI-PMH, (\d+) API, (\d+) PDF\); Semantic Scholar (\d+)", text
    )
    assert requests and int(requests[2]) > 0 and int(requests[5]) > 0
    assert int(requests[1]) == int(requests[2]) + int(requests[3]) + int(requests[4])
    assert int(requests[4]) == int(pdfs[1])
    assert "precision 1.0000, recall 1.0000 over 400 tasks in 4 settings" in text
    hours = re.search(r"on arXiv: (\d+) requests x 3 s \+ (\d+) index requests x 1 s = ([\d.]+) h", text)
    assert hours and abs(float(hours[3]) - (int(hours[1]) * 3 + int(hours[2])) / 3600) < 0.006
    assert re.search(r"here: .*peak RSS \d+ MB", text)
    # Progress went to stderr: the stand-ins, both runs' plan and stage lines.
    assert "stand-ins: arXiv at http://127.0.0.1:" in done.stderr
    assert "dry run: nothing downloaded" in done.stderr and "build 1: 400 tasks" in done.stderr

    # Only the URLs, --delay and the folders differ from the default `paper --since 2024-03`.
    run_dir = out / RUN
    first = (run_dir / "run.log").read_text().splitlines()[0].split()
    assert first[:4] == ["$", "paper", "--since", SINCE]
    options = {a for a in first[4:] if a.startswith("--")}
    assert options <= set(own_options()) and options - set(OWN_OPTIONS) == {"--s2-url"}
    assert all(u.startswith("http://127.0.0.1:") for u in first[first.index("--arxiv-url") + 1 :][:1])

    # A rerun prints the same figures again without running anything; JSON on request.
    again = _rehearsal(out, "--format", "json", timeout=60)
    assert again.returncode == 0, again.stderr
    assert "finished earlier; its figures follow" in again.stderr
    assert "reflong-build paper" not in again.stderr  # nothing was run
    result = json.loads(again.stdout.strip().splitlines()[-1])
    assert result["pdfs_fetched"] == result["pdfs_planned"] == result["pdfs_downloaded"] == int(pdfs[1])
    assert result["requests"]["pdf"] == int(pdfs[1]) and result["requests"]["oai"] == int(requests[2])
    assert result["answer_precision"] >= 0.99 and result["answer_recall"] >= 0.99
    assert result["tasks"] == {f"hard_{n}K": 100 for n in (30, 45, 60, 75)}
    assert result["sessions"] == {"dry_run": 1, "run": 1}
    assert result["dry_run_estimate"]["index"] == result["requests_after_plan"]["index"] > 0


@pytest.mark.slow
def test_a_killed_or_interrupted_rehearsal_stops_its_run_and_a_rerun_resumes(tmp_path):
    out = tmp_path / "rehearsal"
    run_dir = out / RUN
    cmd = [*CLI, "demo", "--world", "2024", "--scale", SCALE, "--out", str(out)]

    def child_pid() -> int:
        return json.loads((run_dir / "store.db.lock").read_text())["pid"]

    # 1. Ctrl-C (SIGINT to the process group, as a terminal sends it) while the dry run asks the index.
    proc = subprocess.Popen(
        cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True, preexec_fn=interruptible
    )
    _wait_for(lambda: "index plan:" in _read(run_dir / "dry_run.log"), 120, "the dry run to ask the index")
    paper_pid = child_pid()
    os.killpg(proc.pid, signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 130, stderr.decode()[-2000:]
    assert (
        stderr.decode()
        .rstrip()
        .endswith("interrupted: work done so far is saved; rerun the same command to resume.")
    )
    assert stdout == b"" and "Traceback" not in stderr.decode()
    assert not _alive(paper_pid)
    ledger = json.loads((run_dir / "rehearsal.json").read_text())
    assert ledger["phases"]["dry_run"]["done"] is False and ledger["phases"]["dry_run"]["sessions"] == 1
    assert ledger["phases"]["dry_run"]["requests"]["index_batch"] == 1  # counted up to the interrupt

    # 2. SIGKILL of the rehearsal once its run has fetched the PDFs and parses them (no network
    # needed from there on): its `paper` child must die with it, not finish the build alone.
    proc = subprocess.Popen(
        cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True, preexec_fn=interruptible
    )
    _wait_for(lambda: "ingest from" in _read(run_dir / "run.log"), 180, "the run's ingest to end")
    paper_pid = child_pid()
    proc.kill()
    proc.communicate(timeout=30)
    try:
        _wait_for(lambda: not _alive(paper_pid), 5, "the orphaned paper run to end")
    finally:
        if _alive(paper_pid):  # do not leave it running after a failure
            os.kill(paper_pid, signal.SIGKILL)
    assert not (run_dir / "out" / "build_report.json").exists()
    ledger = json.loads((run_dir / "rehearsal.json").read_text())
    assert ledger["phases"]["dry_run"]["done"] is True and ledger["phases"]["dry_run"]["sessions"] == 2
    assert ledger["phases"]["run"]["done"] is False and ledger["phases"]["run"]["sessions"] == 1

    # 3. The rerun resumes the run and ends with the answers of an uninterrupted one.
    done = subprocess.run([*cmd, "--format", "json"], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "(resumed: session 2)" in done.stderr
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["sessions"] == {"dry_run": 2, "run": 2}
    assert result["sessions_killed"] == {"dry_run": 0, "run": 1}  # Ctrl-C counted to the end, SIGKILL not
    assert result["pdfs_downloaded"] == result["pdfs_planned"] > 0
    # the stand-in's PDF requests up to the last checkpoint before the SIGKILL (at the ingest's
    # summary line at the latest); none after it: the rerun found every PDF in the cache
    assert 0 < result["pdfs_fetched"] <= result["pdfs_planned"]
    assert result["answer_precision"] == 1.0 and result["answer_recall"] == 1.0
    assert result["tasks"] == {f"hard_{n}K": 100 for n in (30, 45, 60, 75)}


def _read(path: Path) -> str:
    try:
        return path.read_text()
    except OSError:
        return ""


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--scale", "0.05"], "--scale: only with --world 2024"),
        (
            ["--format", "json", "--", "--doc-policy", "trim"],
            "--format, --doc-policy trim: only with --world 2024",
        ),
        (["--world", "2024", "--seed", "3"], "--seed shapes the small demo world; --world 2024 has its own"),
        (["--world", "2024", "--", "--s2-url", "http://x"], "--s2-url: the rehearsal sets this itself"),
        (
            ["--world", "2024", "--", "--db=x.db", "--out", "y"],
            "--db, --out: the rehearsal sets these itself",
        ),
        (
            ["--world", "2024", "--", "--doc-policy", "nope"],
            "after -- (options of `paper`): Invalid value for '--doc-policy'",
        ),
        (["--world", "2024", "--", "--bogus"], "after -- (options of `paper`): No such option '--bogus'"),
        (["--world", "2024", "--scale", "0"], "Invalid value for '--scale'"),
        (["--world", "2025"], "Invalid value for '--world'"),
    ],
)
def test_rehearsal_options_are_checked_before_anything_is_written(tmp_path, args, message):
    result = CliRunner().invoke(main, ["demo", "--out", str(tmp_path / "o"), *args])
    assert result.exit_code == 2, result.output
    assert message in result.output
    assert not (tmp_path / "o").exists()


def test_each_set_of_paper_options_gets_its_own_run_folder():
    plain = RehearsalSettings(scale=0.05)
    trim = RehearsalSettings(scale=0.05, paper_args=("--doc-policy", "trim"))
    assert plain.run_name == "run-0.05-real"  # the bench's folder names are kept
    assert RehearsalSettings(scale=0.05, index="openalex").run_name == "run-0.05-real-openalex"
    assert trim.run_name.startswith("run-0.05-real-") and trim.run_name != plain.run_name
    assert trim.run_name == RehearsalSettings(scale=0.05, paper_args=("--doc-policy", "trim")).run_name
    assert trim.run_name != RehearsalSettings(scale=0.05, paper_args=("--doc-policy", "whole")).run_name
