"""Logging and progress without a terminal (issue 12, item 15): -v/-q on the top-level command,
retries visible on stderr, periodic progress lines when stderr is not a terminal."""

from __future__ import annotations

import logging

import pytest
from click.testing import CliRunner

from reflong.cli import main
from reflong.common.progress import LineProgress
from reflong.servers.arxiv_server import ArxivServer, FaultPlan


def _ingest(corpus_dir, tmp_path, *top: str):
    with ArxivServer(corpus_dir, faults=FaultPlan.parse(["oai:1:503"])) as srv:
        args = ["ingest", "--since", "2022-04", "--categories", "cs.CL", "--max-papers", "1",
                "--arxiv-url", srv.url, "--oai-url", srv.oai_url, "--delay", "0", "--db", str(tmp_path / f"s{len(top)}.db"),
                "--cache", str(tmp_path / "cache")]  # fmt: skip
        return CliRunner().invoke(main, [*top, *args])


@pytest.mark.slow
def test_a_retry_is_a_warning_on_stderr_and_quiet_hides_it(corpus_dir, tmp_path):
    res = _ingest(corpus_dir, tmp_path)
    assert res.exit_code == 0, res.output
    assert "warning: oai request failed (HTTP 503), Retry-After 1 s; retry 1 of 3 in " in res.stderr
    assert "retry" not in res.stdout  # stdout keeps the one summary line
    quiet = _ingest(corpus_dir, tmp_path, "-q")
    assert quiet.exit_code == 0 and "retry" not in quiet.stderr


def test_progress_lines_when_stderr_is_not_a_terminal(data_dir, tmp_path):
    args = ["a", "--haystack", str(data_dir / "pg_essays"), "--out", str(tmp_path / "a"), "--modes", "single",
            "--levels", "easy", "--lengths", "8K", "--tasks", "5", "--no-dataset"]  # fmt: skip
    env = {"REFLONG_PROGRESS_SECONDS": "0"}  # a line at every step (default: every 30 s)
    res = CliRunner().invoke(main, args, env=env)
    assert res.exit_code == 0, res.output
    assert "single_stars_easy_8K: 5/5 task (100%)" in res.stderr
    quiet = CliRunner().invoke(main, ["-q", *args], env=env)
    assert quiet.exit_code == 0 and "single_stars_easy_8K:" not in quiet.stderr
    verbose = CliRunner().invoke(main, ["-v", *args], env=env)
    assert verbose.exit_code == 0 and "single_stars_easy_8K: 5/5" in verbose.stderr


def test_line_progress_prints_at_intervals_and_a_final_line(caplog):
    now = [0.0]
    caplog.set_level(logging.INFO, logger="reflong.common.progress")
    with LineProgress(total=100, desc="parse", unit="PDF", interval=30, clock=lambda: now[0]) as bar:
        for _ in range(100):
            now[0] += 1.0
            bar.update()
    lines = [r.getMessage() for r in caplog.records if r.name == "reflong.common.progress"]
    assert lines[0].startswith("parse: 30/100 PDF (30%), 1.0 PDF/s, about 70 s left")
    assert len(lines) == 4 and lines[-1] == "parse: 100/100 PDF done in 100 s"
