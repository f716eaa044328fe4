"""The contamination view: a stand-in model that "knows" the papers up to a month answers those
tasks right and the later ones with planted errors; `eval score` and the report must show the split
by release, before and after the cutoff, with the exact figures the planting implies."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from _audit_store import make_build
from click.testing import CliRunner
from test_audit_report import _Collect

from reflong.assemble.prompts import paper_template
from reflong.assemble.records import DocumentRecord, TaskRecord
from reflong.assemble.writers.base import OutputSpec
from reflong.assemble.writers.config_writer import ConfigWriter
from reflong.assemble.writers.formats import format_writers
from reflong.assemble.writers.parquet import dataset_features
from reflong.cli import main
from reflong.evaluate.contamination import bootstrap_difference, contamination_view
from reflong.evaluate.cutoffs import Cutoff, find_cutoff, load_cutoffs, shipped_table
from reflong.evaluate.metrics import score_task
from reflong.evaluate.releases import month_of_arxiv_id, task_releases
from reflong.servers.openai_server import OpenAIServer

MONTHS = ("2024-01", "2024-02", "2024-03", "2024-04")
LENGTHS = (("30K", 6), ("45K", 8))


def _world(out: Path, n_tasks: int = 24, release_column: bool = False) -> Path:
    """A Paper-shaped build written by the real writers: prompts, answers and dataset rows whose
    keys come from four months (task t's key from MONTHS[t % 4])."""
    from datasets import Value

    extra = {"key_arxiv_id": Value("string")}
    if release_column:
        extra["release"] = Value("string")
    spec = OutputSpec(prompt_dir=".", answers_dir=".", features=dataset_features(extra_features=extra))
    template = paper_template()
    for label, m in LENGTHS:
        config = f"easy_{label}"
        with ConfigWriter(out, config, format_writers(spec)) as writer:
            for t in range(n_tasks):
                month = MONTHS[t % 4]
                key_id = f"{month[2:4]}{month[5:]}.{t:05d}"
                key = f"A Study Of Things Number {t}"
                gold = tuple(sorted({t % m, (t * 5 + 1) % m}))
                texts = [f"paper {i} of task {t}" + (f" cites {key}" if i in gold else "") for i in range(m)]
                docs = tuple(DocumentRecord(i, f"2401.{i:05d}v1", 10, text) for i, text in enumerate(texts))
                row_extra = {"key_arxiv_id": key_id}
                if release_column:
                    row_extra["release"] = "2023-12"  # the build's own word wins over the key's month
                writer.add(
                    TaskRecord(
                        config,
                        t,
                        "paper",
                        "easy",
                        label,
                        key,
                        docs,
                        gold,
                        template.render(key, texts),
                        100,
                        extra=row_extra,
                    )
                )
    return out


def _cli(*args: str) -> str:
    result = CliRunner().invoke(main, list(args))
    assert result.exit_code == 0, result.output
    return result.output


@pytest.fixture(scope="module")
def contaminated(tmp_path_factory) -> tuple[Path, Path, OpenAIServer]:
    root = tmp_path_factory.mktemp("contam")
    world = _world(root / "build")
    preds = root / "preds"
    with OpenAIServer([world], miss_rate=0.5, extra_rate=0.25, seed=7, knows_until="2024-02") as server:
        _cli(
            "eval",
            "run",
            "--prompts",
            str(world),
            "--model",
            "reflong-standin",
            "--base-url",
            server.url,
            "--out",
            str(preds),
        )
    return world, preds, server


def test_releases_come_from_the_rows_or_the_keys_month(tmp_path: Path) -> None:
    assert month_of_arxiv_id("2403.01234") == "2024-03"
    assert month_of_arxiv_id("2403.01234v2") == "2024-03"
    assert month_of_arxiv_id("hep-th/9901002") == "1999-01"
    assert month_of_arxiv_id("cs/0001024") == "2000-01"
    assert month_of_arxiv_id("Alpha Models") is None
    world = _world(tmp_path / "keys", n_tasks=8)
    releases = task_releases(world / "easy_30K_answers.json", "easy_30K")
    assert releases == {str(t): MONTHS[t % 4] for t in range(8)}
    column = _world(tmp_path / "column", n_tasks=8, release_column=True)
    assert set(task_releases(column / "easy_30K_answers.json", "easy_30K").values()) == {"2023-12"}
    (tmp_path / "bare").mkdir()
    shutil.copy(world / "easy_30K_answers.json", tmp_path / "bare")
    assert task_releases(tmp_path / "bare" / "easy_30K_answers.json", "easy_30K") == {}


@pytest.mark.slow
def test_the_planted_contamination_shows_in_eval_score(contaminated) -> None:
    world, preds, server = contaminated
    planted = server.planted
    before = [p for p in planted.values() if MONTHS[int(p.task_id) % 4] <= "2024-02"]
    after = [p for p in planted.values() if MONTHS[int(p.task_id) % 4] > "2024-02"]
    assert len(before) == len(after) == 24
    assert all(p.error_type is None for p in before)  # the model "read" these papers
    exact_after = sum(p.error_type is None for p in after)
    f1_after = sum(score_task(p.gold, p.answer).f1 for p in after) / len(after)
    # The seeded planting, counted by hand once: 6 of the 24 later tasks are right.
    assert exact_after == 6
    out = json.loads(
        _cli(
            "eval",
            "score",
            "--build",
            str(world),
            "--predictions",
            str(preds),
            "--cutoff",
            "2024-02",
            "--format",
            "json",
        )
    )
    view = out["contamination"]
    assert view["cutoff"] == "2024-02" and view["model"] == "reflong-standin"
    assert [(r["release"], r["side"], r["n"]) for r in view["releases"]] == [
        ("2024-01", "before", 12),
        ("2024-02", "before", 12),
        ("2024-03", "after", 12),
        ("2024-04", "after", 12),
    ]
    assert view["before"] == {"n": 24, "exacc": 1.0, "f1": 1.0}
    assert view["after"] == {"n": 24, "exacc": 0.25, "f1": round(f1_after, 6)}
    d = view["difference"]
    assert d["exacc"] == -0.75 and d["f1"] == round(f1_after - 1, 6)
    # 95% bootstrap interval over the 12 later tasks (each with both lengths), seed 0, 2000 resamples
    assert (d["exacc_ci_low"], d["exacc_ci_high"]) == (-0.875, -0.625)
    assert d["exacc_ci_low"] < d["exacc"] < d["exacc_ci_high"] < 0
    assert d["f1_ci_low"] < d["f1"] < d["f1_ci_high"] < 0
    assert view["without_release"] == 0
    again = json.loads(
        _cli(
            "eval",
            "score",
            "--build",
            str(world),
            "--predictions",
            str(preds),
            "--cutoff",
            "2024-02",
            "--format",
            "json",
        )
    )
    assert again == out  # seeded: the same interval every time
    other_seed = json.loads(
        _cli(
            "eval",
            "score",
            "--build",
            str(world),
            "--predictions",
            str(preds),
            "--cutoff",
            "2024-02",
            "--seed",
            "1",
            "--format",
            "json",
        )
    )
    assert other_seed["contamination"]["difference"]["exacc"] == -0.75
    text = _cli("eval", "score", "--build", str(world), "--predictions", str(preds), "--cutoff", "2024-02")
    assert "knowledge cutoff 2024-02 (--cutoff)" in text
    assert "2024-03   after      12" in text
    assert "after - before: ExAcc -0.750 [95% CI -0.875, -0.625]" in text


@pytest.mark.slow
def test_cutoffs_table_and_user_file(contaminated, tmp_path: Path) -> None:
    world, preds, _ = contaminated
    shipped = shipped_table()
    assert shipped["gpt-4o-2024-08-06"].month == "2023-10"
    assert all(c.source.split()[-1].startswith("https://") for c in shipped.values())
    assert find_cutoff(shipped, "Llama-3.1-8B-Instruct").month == "2023-12"  # served without the org
    mine = tmp_path / "cutoffs.csv"
    mine.write_text("# my models\nreflong-standin,2024-03,our own note\n", encoding="utf-8")
    assert load_cutoffs(mine)["reflong-standin"] == Cutoff("reflong-standin", "2024-03", "our own note")
    out = json.loads(
        _cli(
            "eval",
            "score",
            "--build",
            str(world),
            "--predictions",
            str(preds),
            "--cutoffs",
            str(mine),
            "--format",
            "json",
        )
    )  # the model name comes from the run's manifest
    view = out["contamination"]
    assert view["cutoff"] == "2024-03" and view["cutoff_source"] == "our own note"
    assert [r["side"] for r in view["releases"]] == ["before", "before", "before", "after"]
    unknown = json.loads(
        _cli("eval", "score", "--build", str(world), "--predictions", str(preds), "--format", "json")
    )["contamination"]
    assert unknown["cutoff"] is None and unknown["difference"] is None
    assert [r["n"] for r in unknown["releases"]] == [12, 12, 12, 12]
    bad = tmp_path / "bad.csv"
    bad.write_text("model,cutoff,source\nsome-model,October 2023,x\n", encoding="utf-8")
    result = CliRunner().invoke(
        main, ["eval", "score", "--build", str(world), "--predictions", str(preds), "--cutoffs", str(bad)]
    )
    assert result.exit_code != 0
    assert "line 2 (some-model): 'October 2023' is not a month YYYY-MM" in result.output
    result = CliRunner().invoke(
        main, ["eval", "score", "--build", str(world), "--predictions", str(preds), "--cutoff", "2024-13"]
    )
    assert result.exit_code == 2 and "is not a month YYYY-MM" in result.output


def test_bootstrap_is_exact_when_nothing_varies() -> None:
    right, wrong = score_task([0, 1], [0, 1]), score_task([0, 1], [0])
    d = bootstrap_difference([[right]] * 5, [[wrong]] * 4, resamples=200, seed=3)
    assert d["exacc"] == d["exacc_ci_low"] == d["exacc_ci_high"] == -1.0
    assert d["f1"] == round(2 / 3 - 1, 6) == d["f1_ci_low"]
    view = contamination_view("m", [("a", "easy_30K", {"0": right})], {}, None)
    assert view is None  # no task has a release: no view, eval score prints what it always printed


@pytest.mark.slow
def test_report_shows_the_split_and_a_plot(contaminated, tmp_path: Path) -> None:
    world, preds, _ = contaminated
    db, out = tmp_path / "store.db", tmp_path / "out"
    make_build(db, out, n_tasks=4)
    _cli(
        "eval",
        "score",
        "--build",
        str(world),
        "--predictions",
        str(preds),
        "--cutoff",
        "2024-02",
        "--label",
        "contaminated",
        "--save",
        str(out / "eval" / "contaminated.json"),
    )
    _cli("report", "--build", str(out), "--db", str(db))
    html = (out / "report.html").read_text(encoding="utf-8")
    parser = _Collect()
    parser.feed(html)
    assert parser.errors == [] and parser.stack == []
    stats = parser.stats
    assert stats["contamination:contaminated:2024-01"] == "before: 100.0 / 100.0 (12)"
    assert stats["contamination:contaminated:2024-03"].startswith("after: ")
    assert stats["contamination:contaminated:difference"].startswith("ExAcc -75.0 [-87.5, -62.5]")
    assert "fig-contamination" in parser.svg_ids
    # the saved view is not taken for a configuration of the evaluation table
    assert "eval:contaminated:contamination" not in stats
