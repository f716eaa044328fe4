"""The build report shows evaluation results that evaluate wrote to OUT/eval/, without importing it."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest
from _audit_store import make_build
from click.testing import CliRunner
from test_audit_report import _Collect

from reflong.cli import main

REPO = Path(__file__).resolve().parents[1]


def _run(*args: str) -> str:
    result = CliRunner().invoke(main, list(args))
    assert result.exit_code == 0, result.output
    return result.output


@pytest.mark.slow
def test_report_shows_model_and_baseline_scores_by_setting(tmp_path: Path) -> None:
    db, out = tmp_path / "store.db", tmp_path / "out"
    make_build(db, out, n_tasks=10)
    preds = tmp_path / "preds"
    preds.mkdir()
    expected = {}
    for path in sorted(out.glob("*_answers.json")):
        answers = json.loads(path.read_text())
        config = path.name.removesuffix("_answers.json")
        responses, exact, f1s, missed = {}, 0, [], 0
        for tid, (key, gold) in answers.items():
            pred = gold[1:] if int(tid) % 3 == 0 else gold  # every third task misses one paper
            responses[tid] = [key, "Papers: {" + ", ".join(map(str, pred)) + "}"]
            exact += pred == gold
            missed += pred != gold
            f1s.append(2 * len(pred) / (len(pred) + len(gold)))
        (preds / f"{config}.json").write_text(json.dumps(responses))
        expected[config] = (100 * exact / len(answers), 100 * sum(f1s) / len(f1s), missed)
    _run(
        "eval",
        "score",
        "--build",
        str(out),
        "--predictions",
        str(preds),
        "--save",
        str(out / "eval" / "model-x.json"),
        "--label",
        "model-x",
    )
    _run(
        "eval",
        "baseline",
        "--build",
        str(out),
        "--kind",
        "all",
        "--save",
        str(out / "eval" / "baselines.json"),
    )
    _run("report", "--build", str(out), "--db", str(db))
    parser = _Collect()
    parser.feed((out / "report.html").read_text(encoding="utf-8"))
    assert parser.errors == [] and parser.stack == []
    stats = parser.stats
    for config, (exacc, f1, _) in expected.items():
        assert stats[f"eval:model-x:{config}"] == f"{exacc:.1f} / {f1:.1f}"
        assert stats[f"eval:baseline: all:{config}"].startswith("0.0 / ")
    assert stats["errors:model-x:I"].startswith("100.0%")  # misses only: all Type I
    assert stats["errors:model-x:I"].endswith(f"({sum(m for *_, m in expected.values())})")
    html = (out / "report.html").read_text(encoding="utf-8")
    has_75k = any(c.endswith("_75K") for c in expected)
    assert ("GPT-4o (Ref-Long paper, M=20): 17.0 / 71.13" in html) == has_75k


def test_no_stage_imports_evaluate() -> None:
    """Data flows one way: ingest, citations, assemble and db never import evaluate."""
    for folder in ("ingest", "citations", "assemble", "db"):
        for path in (REPO / folder).glob("*.py"):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in ast.walk(tree):
                names = []
                if isinstance(node, ast.Import):
                    names = [a.name for a in node.names]
                elif isinstance(node, ast.ImportFrom) and node.module:
                    names = [node.module]
                assert not any(n.startswith("reflong.evaluate") for n in names), path


def test_published_figures_sit_beside_the_same_setting() -> None:
    from reflong.assemble.audit.report_eval import EvalSeries, evaluation_section

    series = [
        EvalSeries("m", "m.json", {"hard_75K": {"exacc": 0.5, "f1": 0.8}, "hard_30K": {"exacc": 1, "f1": 1}})
    ]
    html = evaluation_section(series, ["hard_30K", "hard_75K"], "paper")
    row_75k = html.split("<td>hard_75K</td>")[1].split("</tr>")[0]
    row_30k = html.split("<td>hard_30K</td>")[1].split("</tr>")[0]
    assert "50.0 / 80.0" in row_75k and "GPT-4o (Ref-Long paper, M=20): 17.0 / 71.13" in row_75k
    assert "GPT-4o" not in row_30k
    assert "GPT-4o" not in evaluation_section(series, ["hard_75K"], "a")  # another subset: no figure
