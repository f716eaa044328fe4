"""The PDF plan, hardened (issue 20): ``--max-pdfs`` is a hard cap on the PDFs a run plans and
fetches (finding 6); the index questions of the plan show progress (finding 7).

A 120-paper world with its index view, the arXiv and Semantic Scholar stand-ins on 127.0.0.1, the
default plan settings (60 keys x 30 citers, 200 controls, 600 distractors: far more than the world
has, so every cap below binds), and the real `reflong-build ingest` / `paper` commands.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from reflong.cli import main
from reflong.demo.citation_graph import write_world_index
from reflong.demo.generate import generate
from reflong.demo.world import SynthConfig
from reflong.ingest.plan.selection import NEGATIVES_FLOOR, TASK_POSITIVES, cap_plan
from reflong.servers.arxiv_server import ArxivServer
from reflong.servers.s2_server import S2Server

SINCE = "2024-03"


@pytest.fixture(scope="module")
def world(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("capworld")
    generate(root / "catalog", SynthConfig(papers=120, seed=0, since=SINCE), jobs=1)
    write_world_index(root / "catalog", since=SINCE)
    return root / "catalog"


@pytest.fixture(scope="module")
def servers(world):
    with ArxivServer(world) as ax, S2Server(world, shared_limit=100000, shared_window=1) as s2:
        yield ax.url, s2.url


def _ingest(servers, root: Path, *extra: str, command: str = "ingest"):
    ax, s2 = servers
    args = [
        command, "--since", SINCE, "--distractor-months", "6", "--pool-months", "6", "--categories", "",
        "--arxiv-url", ax, "--oai-url", f"{ax}/oai", "--s2-url", s2, "--delay", "0", "--index-delay", "0",
        "--db", str(root / "s.db"), "--cache", str(root / "cache"), *extra,
    ]  # fmt: skip
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    return result


def _picks(root: Path) -> dict[str, int]:
    con = sqlite3.connect(root / "s.db")
    return dict(con.execute("select role, count(*) from plan_pick group by role"))


@pytest.mark.slow
def test_uncapped_plan_of_this_world_is_larger_than_every_cap_below(servers, tmp_path):
    _ingest(servers, tmp_path, "--dry-run")
    assert sum(_picks(tmp_path).values()) > 40  # so 40 and every smaller cap binds


@pytest.mark.slow
@pytest.mark.parametrize("cap", [40, 20, 25, 12, 3])
def test_the_plan_never_exceeds_max_pdfs_and_says_what_it_cut(servers, tmp_path, cap):
    result = _ingest(servers, tmp_path, "--max-pdfs", str(cap), "--dry-run")
    picks = _picks(tmp_path)
    assert 0 < sum(picks.values()) <= cap
    assert f"(cap --max-pdfs {cap})" in result.stdout
    warnings = [x for x in result.stderr.splitlines() if x.startswith(f"warning: --max-pdfs {cap} cut")]
    assert len(warnings) == 1, result.stderr
    assert f"to {sum(picks.values())} PDFs" in warnings[0]
    con = sqlite3.connect(tmp_path / "s.db")
    per_key = dict(
        con.execute("select seed_arxiv_id, count(*) from plan_pick where role = 'citer' group by 1")
    )
    keys = {k for (k,) in con.execute("select arxiv_id from index_key")}
    assert keys and set(per_key) <= keys  # the stored keys are the kept ones
    # Every kept key still has at least two of its index citers among the picks (a key with one
    # citer makes no task), whichever key a shared citer is filed under.
    picked = {c for (c,) in con.execute("select arxiv_id from plan_pick where role = 'citer'")}
    for key in keys:
        citers = {c for (c,) in con.execute(
            "select citing_arxiv_id from index_citation where seed_arxiv_id = ?", (key,)
        )}  # fmt: skip
        assert len(citers & picked) >= 2, key


@pytest.mark.slow
@pytest.mark.parametrize("cap", [20, 40])
def test_a_real_run_fetches_at_most_the_cap(servers, tmp_path, cap):
    result = _ingest(servers, tmp_path, "--max-pdfs", str(cap))
    fetched = len(list((tmp_path / "cache").glob("*.pdf")))
    assert 0 < fetched <= cap
    assert f"PDFs fetched {fetched}, cached 0, failed 0" in result.stdout


@pytest.mark.slow
def test_a_capped_build_still_makes_tasks(servers, tmp_path):
    """40 PDFs are enough for a build: keys kept whole (up to 5 citers) and 20 distractors."""
    result = _ingest(
        servers, tmp_path, "--max-pdfs", "40", "--out", str(tmp_path / "out"), "--tasks", "5",
        "--no-baselines", command="paper",
    )  # fmt: skip
    assert len(list((tmp_path / "cache").glob("*.pdf"))) <= 40
    line = next(x for x in result.stdout.splitlines() if x.startswith("build 1:"))
    assert "build 1: 40 tasks in 8 files" in line, result.stdout


def test_without_an_index_the_cap_holds_and_is_reported(servers, tmp_path):
    result = _ingest(servers, tmp_path, "--citation-index", "none", "--max-pdfs", "20", "--dry-run")
    picks = _picks(tmp_path)
    assert sum(picks.values()) == 20
    assert sum(x.startswith("warning: --max-pdfs 20 cut") for x in result.stderr.splitlines()) == 1


def _citers(n_keys: int, per_key: int) -> dict[str, list[str]]:
    return {f"2403.{k:05d}": [f"2405.{k:03d}{i:02d}" for i in range(per_key)] for k in range(n_keys)}


def test_the_cut_order_extra_citers_then_controls_then_distractors_then_whole_keys():
    keys = sorted(_citers(10, 8))
    order = list(reversed(keys))  # the order the keys were chosen in, not their id order
    controls = [f"2406.{i:05d}" for i in range(5)]
    distractors = [f"2402.{i:05d}" for i in range(30)]
    # 80 citers + 5 controls + 30 distractors = 115
    cut = cap_plan(_citers(10, 8), order, controls, distractors, 100, seed=0)
    # citers past what a task takes go first, a key at a time only as far as needed: 6 a key fits
    assert all(len(v) == 6 for v in cut.citers.values()) and cut.total() == 95
    assert len(cut.controls) == 5 and len(cut.distractors) == 30
    cut = cap_plan(_citers(10, 8), order, controls, distractors, 85, seed=0)
    assert all(len(v) == TASK_POSITIVES for v in cut.citers.values()) and cut.total() == 85
    cut = cap_plan(_citers(10, 8), order, controls, distractors, 75, seed=0)
    assert len(cut.citers) == 10 and len(cut.controls) == 0 and len(cut.distractors) == 25
    cut = cap_plan(_citers(10, 8), order, controls, distractors, 60, seed=0)
    # 50 citers + 20 distractors is 70: whole keys go, the last chosen first
    assert len(cut.distractors) == NEGATIVES_FLOOR and list(cut.citers) == order[:8]
    assert cut.total() == 60
    cut = cap_plan(_citers(10, 8), order, controls, distractors, 12, seed=0)
    # one key is left; then distractors go below the floor, and the key keeps its 5 citers
    assert list(cut.citers) == order[:1] and len(cut.citers[order[0]]) == 5 and len(cut.distractors) == 7
    cut = cap_plan(_citers(10, 8), order, controls, distractors, 3, seed=0)
    assert list(cut.citers) == order[:1] and len(cut.citers[order[0]]) == 3 and not cut.distractors
    cut = cap_plan(_citers(10, 8), order, controls, distractors, 2, seed=0)
    assert list(cut.citers) == order[:1] and len(cut.citers[order[0]]) == 2 and cut.total() == 2
    assert cap_plan(_citers(10, 8), order, controls, distractors, 1, seed=0).total() == 1


@pytest.mark.slow
def test_the_index_questions_of_the_plan_show_progress(world, tmp_path):
    """A slow index (0.15 s an answer) and progress every 0.1 s: lines for the lookups and for
    the citers, with counts, on stderr; none on stdout (the plan stays clean)."""
    with ArxivServer(world) as ax, S2Server(world, shared_limit=100000, shared_window=1, latency=0.15) as s2:
        args = [
            "paper", "--since", SINCE, "--distractor-months", "6", "--pool-months", "6", "--categories", "",
            "--arxiv-url", ax.url, "--oai-url", ax.oai_url, "--s2-url", s2.url, "--delay", "0", "--index-delay", "0",
            "--db", str(tmp_path / "s.db"), "--cache", str(tmp_path / "cache"), "--keys", "6", "--dry-run",
        ]  # fmt: skip
        result = CliRunner().invoke(main, args, env={"REFLONG_PROGRESS_SECONDS": "0.1"})
    assert result.exit_code == 0, result.output
    lines = result.stderr.splitlines()
    assert any(x.startswith("index lookups: 1/1 batch (100%)") for x in lines), result.stderr
    citers = [x for x in lines if x.startswith("index citers: ")]
    assert len(citers) >= 3, result.stderr  # several keys, each answer 0.15 s > 0.1 s
    assert any("/6 key (" in x and "requests]" in x for x in citers)
    assert citers[-1].startswith("index citers: 6/6 key done in ")
    assert "index citers" not in result.stdout and "index lookups" not in result.stdout


def test_the_plan_of_a_local_catalog_quotes_no_arxiv_wait(world, tmp_path):
    """Finding 10f: `--source DIR` copies files; the plan said "3 s a PDF request"."""
    args = [
        "ingest", "--source", str(world), "--since", SINCE, "--distractor-months", "6", "--pool-months", "6",
        "--categories", "", "--db", str(tmp_path / "s.db"), "--cache", str(tmp_path / "cache"), "--dry-run",
    ]  # fmt: skip
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    estimate = next(x for x in result.stdout.splitlines() if x.strip().startswith("estimate:"))
    assert "s a PDF request" not in estimate and "arXiv's 3 s rule" not in estimate, estimate
    assert f"PDFs copied from the local catalog {world}: no request, no wait" in estimate
    assert "0.00 h" not in estimate
    # issue 38: the GB estimate is the mean of the very files the run copies, not arXiv's 1.7 MB
    pdfs = sorted(world.rglob("*.pdf"))
    mean_mb = sum(f.stat().st_size for f in pdfs) / len(pdfs) / 1e6
    assert mean_mb < 0.05  # the synthetic PDFs: a 1.7 MB estimate is 100x off for them
    assert f"GB at {mean_mb:.3g} MB a PDF (mean of the {len(pdfs)} PDFs in --source)" in estimate, estimate


def test_the_gb_estimate_takes_the_pdf_size_the_cache_shows_once_it_holds_enough(servers, world, tmp_path):
    """Issue 38: the estimate was 1.7 MB a PDF (../shared's corpus) on every machine. Below
    MIN_SAMPLE cached PDFs it is arXiv's typical size (a documented constant); from then on the
    mean of what this cache holds; --pdf-mb overrides both."""
    from reflong.ingest.plan.pdf_size import MIN_SAMPLE

    def estimate(*extra: str) -> str:
        out = _ingest(servers, tmp_path, "--dry-run", *extra).stdout
        return next(x for x in out.splitlines() if x.strip().startswith("estimate:"))

    assert "GB at 1.7 MB a PDF (arXiv's typical size; --pdf-mb sets another)" in estimate()
    cache = tmp_path / "cache"
    real = sorted(world.rglob("*.pdf"))[:MIN_SAMPLE]
    for i, pdf in enumerate(real[:-1]):
        shutil.copyfile(pdf, cache / f"2301.{i:05d}v1.pdf")
    assert "1.7 MB a PDF (arXiv's typical size" in estimate()  # one short of the sample
    shutil.copyfile(real[-1], cache / "2301.99999v1.pdf")
    mean_mb = sum(f.stat().st_size for f in real) / len(real) / 1e6
    assert f"at {mean_mb:.3g} MB a PDF (mean of the {MIN_SAMPLE} PDFs in the cache)" in estimate()
    assert "GB at 2.5 MB a PDF (--pdf-mb)" in estimate("--pdf-mb", "2.5")


_TMPFS = 'mount -t tmpfs -o size="$1" tmpfs "$2" && shift 2 && exec "$@"'


def _on_small_disk(cache: Path, args: list[str], size: str = "4m") -> subprocess.CompletedProcess:
    """``reflong-build ARGS`` in a child that sees ``cache`` as a real tmpfs of ``size`` (its own
    mount namespace: gone when the child exits)."""
    cache.mkdir(exist_ok=True)
    cli = [sys.executable, "-c", "from reflong.cli import main; main()"]
    return subprocess.run(
        ["unshare", "-m", "sh", "-c", _TMPFS, "sh", size, str(cache), *cli, *args],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip


@pytest.fixture(scope="module")
def small_disk_ok(tmp_path_factory) -> None:
    probe = tmp_path_factory.mktemp("probe")
    if os.geteuid() != 0 or not shutil.which("unshare"):
        pytest.skip("needs root with mount namespaces to mount a small tmpfs")
    df = _on_small_disk(probe / "c", ["--version"])
    if df.returncode != 0:
        pytest.skip("cannot mount a tmpfs here (mount in a new namespace refused)")


@pytest.mark.slow
def test_a_plan_larger_than_the_free_disk_is_refused_in_one_line(servers, tmp_path, small_disk_ok):
    """Finding 10g: the plan (about 48 PDFs x 1.7 MB = 0.08 GB) against a 4 MB cache disk."""
    ax, s2 = servers
    base = [
        "ingest", "--since", SINCE, "--distractor-months", "6", "--pool-months", "6", "--categories", "",
        "--arxiv-url", ax, "--oai-url", f"{ax}/oai", "--s2-url", s2, "--delay", "0", "--index-delay", "0",
        "--db", str(tmp_path / "s.db"), "--cache", str(tmp_path / "cache"),
    ]  # fmt: skip
    dry = _on_small_disk(tmp_path / "cache", [*base, "--dry-run"])
    assert dry.returncode == 0, dry.stderr
    free_line = next(x for x in dry.stdout.splitlines() if "free disk at the PDF cache" in x)
    assert "less than the plan's" in free_line, free_line
    refused = _on_small_disk(tmp_path / "cache", base)
    assert refused.returncode == 1, refused.stdout + refused.stderr
    errors = [x for x in refused.stderr.splitlines() if x.startswith("Error: ")]
    assert len(errors) == 1 and "Traceback" not in refused.stderr
    assert "GB are free at --cache" in errors[0] and "--no-disk-check" in errors[0], errors[0]
    assert "PDFs fetched" not in refused.stdout
    con = sqlite3.connect(tmp_path / "s.db")
    assert con.execute("select count(*) from paper where status = 'downloaded'").fetchone()[0] == 0
    forced = _on_small_disk(tmp_path / "cache", [*base, "--no-disk-check"])
    assert forced.returncode == 0, forced.stderr  # demo PDFs are small: the estimate is an estimate
    assert "failed 0" in forced.stdout


def test_the_demo_on_a_30_mb_disk_is_refused_in_one_line_naming_only_its_own_options(tmp_path, small_disk_ok):
    """Issue 38: on 30 MB free the demo's plan was refused at 1.7 MB a PDF, with advice to lower
    --max-pdfs or give --cache, options the demo does not take. Now the demo checks its own need
    (DEMO_DISK_MB, measured) before writing anything, and names --out only."""
    from reflong.cli.demo_cmd import DEMO_DISK_MB

    out = tmp_path / "disk"
    result = _on_small_disk(out, ["demo", "--out", str(out / "run")], size="30m")
    assert result.returncode == 1, result.stdout + result.stderr
    assert result.stderr.strip().splitlines() == [
        f"Error: the demo writes about {DEMO_DISK_MB} MB to {out / 'run'} but only 31 MB are free there: "
        "free space or give --out on a larger disk"
    ]
    assert "--max-pdfs" not in result.stderr and "--cache" not in result.stderr
    assert result.stdout == ""  # not even the catalog: "synthetic arXiv: ..." comes after it is written
