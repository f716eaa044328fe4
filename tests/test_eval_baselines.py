"""No-model baselines: what they pick, how they score, and the dataset card's baseline table."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from reflong.assemble.prompts import paper_template
from reflong.cli import main
from reflong.evaluate.baselines import lexical_hit
from reflong.evaluate.files import prompt_documents


def _run(*args: str) -> dict:
    result = CliRunner().invoke(main, [*args, "--format", "json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def test_lexical_matching_rules() -> None:
    title = "Direct Nash Optimization: \u200b\u200bTeaching Language Models to Self-Improve"
    assert lexical_hit(
        title, "... [3] Direct Nash optimization: teaching language models to self improve. 2024"
    )
    # one word changed: not a substring, but partial_ratio >= 90
    assert lexical_hit(title, "Direct Nash Optimisation: Teaching Language Models to Self-Improve, arXiv")
    assert not lexical_hit(title, "Nash equilibria in repeated games and language models")
    # short keys (A's star counts) only as whole words
    assert lexical_hit("8", "The little penguin counted 8 \u2605 today")
    assert not lexical_hit("8", "The little penguin counted 18 \u2605 today")


def _small_paper_world(folder: Path) -> dict[str, list]:
    """Six Paper-style tasks of 5 documents; the key is cited (by its title) in known documents."""
    template = paper_template()
    prompts, answers = {}, {}
    for t in range(6):
        key = f"Sparse Mixture Routing for Task {t} Adaptation"
        gold = sorted({t % 5, (t + 2) % 5})
        docs = [
            f"Paper {i} body text. References: [1] "
            + (key if i in gold else f"Dense Routing for Task {t + i} Evaluation")
            for i in range(5)
        ]
        prompts[str(t)] = [key, template.render(key, docs)]
        answers[str(t)] = [key, gold]
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "easy_30K.json").write_text(json.dumps(prompts))
    (folder / "easy_30K_answers.json").write_text(json.dumps(answers))
    return prompts


def test_prompt_documents_recover_each_document(tmp_path: Path) -> None:
    prompts = _small_paper_world(tmp_path)
    split = prompt_documents(prompts["3"][1])
    assert len(split.documents) == 5
    assert split.documents[0].startswith("Paper 0 body text.")
    assert split.head.endswith("Papers: {}.\n\n")
    assert split.tail == ""


def test_baselines_on_a_known_world_and_their_predictions_score_the_same(tmp_path: Path) -> None:
    _small_paper_world(tmp_path / "tasks")
    data = _run(
        "eval",
        "baseline",
        "--build",
        str(tmp_path / "tasks"),
        "--prompts",
        str(tmp_path / "tasks"),
        "--out",
        str(tmp_path / "preds"),
    )
    assert data["lexical"]["overall"]["exacc"] == 1.0
    assert data["none"]["overall"]["type_i"] == 6 and data["none"]["overall"]["exacc"] == 0.0
    # all: every task has m = 2 of M = 5, so F1 = 2*2/(2+5) on each
    assert data["all"]["overall"]["f1"] == pytest.approx(4 / 7)
    assert data["all"]["overall"]["type_ii"] == 6
    for kind in ("random", "all", "none", "lexical"):
        rescored = _run(
            "eval",
            "score",
            "--build",
            str(tmp_path / "tasks"),
            "--predictions",
            str(tmp_path / "preds" / kind),
        )
        assert rescored["overall"] == data[kind]["overall"], kind


def test_random_baseline_is_seeded_and_released_paper_shapes_need_no_prompts(data_dir: Path) -> None:
    answers = data_dir / "reflong" / "Ref-Long-Paper" / "answers"
    first = _run("eval", "baseline", "--build", str(answers), "--kind", "random", "--seed", "1")
    again = _run("eval", "baseline", "--build", str(answers), "--kind", "random", "--seed", "1")
    other = _run("eval", "baseline", "--build", str(answers), "--kind", "random", "--seed", "2")
    assert first == again
    assert first["random"]["overall"]["f1"] != other["random"]["overall"]["f1"]
    every = _run("eval", "baseline", "--build", str(answers), "--kind", "all")["all"]
    # M from the released names (30K -> 8 ... 75K -> 20); F1 of "all" is 2m/(m+M) per task
    m_of = {"30K": 8, "45K": 12, "60K": 16, "75K": 20}
    for path in sorted(answers.glob("*_answers.json")):
        gold = json.loads(path.read_text())
        big_m = m_of[path.name.split("_")[1]]
        expected = sum(2 * len(set(g)) / (len(set(g)) + big_m) for _, g in gold.values()) / len(gold)
        assert every[path.name]["f1"] == pytest.approx(expected, abs=1e-6)
        assert every[path.name]["exacc"] == 0.0
    result = CliRunner().invoke(main, ["eval", "baseline", "--build", str(answers), "--kind", "lexical"])
    assert result.exit_code == 1 and "needs the prompts" in result.output


def test_build_card_carries_the_baselines_that_eval_baseline_computes(data_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "f"
    args = [
        "f",
        "--summhay",
        str(data_dir / "summhay" / "topic_news4.json"),
        "--lengths",
        "8K",
        "--tasks",
        "12",
    ]
    result = CliRunner().invoke(main, [*args, "--out", str(out), "--no-dataset"])
    assert result.exit_code == 0, result.output
    card = (out / "README.md").read_text()
    assert "## Baselines (no model)" in card
    section = card.split("## Baselines (no model)")[1]
    row = re.search(r"^\| twitter_8K \| (.+) \|$", section, re.M).group(1).split(" | ")
    data = _run("eval", "baseline", "--build", str(out / "answers"), "--prompts", str(out / "before"))
    for cell, kind in zip(row, ("random", "all", "none", "lexical"), strict=True):
        exacc, f1 = (float(x) for x in cell.split(" / "))
        assert exacc == pytest.approx(data[kind]["overall"]["exacc"], abs=0.005), kind
        assert f1 == pytest.approx(data[kind]["overall"]["f1"], abs=0.005), kind
    saved = json.loads((out / "eval" / "baselines.json").read_text())
    assert saved["kinds"]["lexical"]["overall"]["exacc"] == data["lexical"]["overall"]["exacc"]
    # the manifest's hash of the card is the card on disk (written once, with the section)
    manifest = json.loads((out / "manifest.json").read_text())
    import hashlib

    entry = next(o for o in manifest["outputs"] if o["path"] == "README.md")
    assert entry["sha256"] == hashlib.sha256((out / "README.md").read_bytes()).hexdigest()
    bare = tmp_path / "bare"
    result = CliRunner().invoke(main, [*args, "--out", str(bare), "--no-dataset", "--no-baselines"])
    assert result.exit_code == 0 and "Baselines" not in (bare / "README.md").read_text()


def test_prompt_files_leave_out_answers_results_and_caches(tmp_path: Path) -> None:
    from reflong.evaluate.files import prompt_files

    _small_paper_world(tmp_path)
    for extra in ("eval/model.json", ".cache/ab/abc.json", "manifest.json"):
        (tmp_path / extra).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / extra).write_text("{}")
    assert [p.name for p in prompt_files(tmp_path)] == ["easy_30K.json"]
