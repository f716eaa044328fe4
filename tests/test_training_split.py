"""`--split train --disjoint-from TEST` and `check-disjoint` (issue 22, item 2), on real data.

A training split must share nothing with the test build it names (Paper: no key, no paper; F: no
topic, insight or document; A: no document or essay text), be written as chat JSONL whose
assistant turn is the gold answer, and `check-disjoint` must prove it, or fail listing overlaps.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from reflong.cli import main
from reflong.evaluate.parsing import parse_response


def _run(*args: str):
    return CliRunner().invoke(main, list(args))


def _chat_matches_answers(out: Path, config: str, answers_path: Path) -> int:
    """Every chat line: system, user = the prompt, assistant = the gold answer (parsed back)."""
    answers = json.loads(answers_path.read_text())
    lines = (out / "chat" / f"{config}.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(lines) == len(answers)
    for line, (_key, gold) in zip(lines, answers.values(), strict=True):
        messages = json.loads(line)["messages"]
        assert [m["role"] for m in messages] == ["system", "user", "assistant"]
        assert parse_response(messages[2]["content"]).indexes == frozenset(gold)
    return len(lines)


@pytest.fixture(scope="module")
def f_builds(tmp_path_factory, data_dir):
    work = tmp_path_factory.mktemp("fsplit")
    hay = data_dir / "summhay"
    common = ["--lengths", "8K", "--tasks", "5", "--no-baselines"]
    test = _run("f", "--summhay", str(hay / "topic_news3.json"), "--summhay", str(hay / "topic_news4.json"),
                *common, "--out", str(work / "test"))  # fmt: skip
    assert test.exit_code == 0, test.output
    train = _run("f", "--summhay", str(hay), *common, "--split", "train", "--disjoint-from", str(work / "test"),
                 "--out", str(work / "train"))  # fmt: skip
    assert train.exit_code == 0, train.output
    return work


def test_f_train_split_leaves_out_the_test_topics(f_builds):
    train = f_builds / "train"
    configs = sorted(p.stem for p in (train / "chat").glob("*.jsonl"))
    assert configs == ["financial_market_8K", "topic_news1_8K", "topic_news2_8K"]
    for config in configs:
        assert _chat_matches_answers(train, config, train / "answers" / f"{config}_answers.json") == 5
    settings = json.loads((train / "manifest.json").read_text())["settings"]
    assert settings["split"] == "train"
    assert settings["disjoint_from"]["left_out"] == {"documents": 0, "topics": 2}
    card = (train / "README.md").read_text()
    assert "split: train" in card and "check-disjoint" in card
    # A test build writes no chat files and says nothing of splits (its bytes are the default's).
    assert not (f_builds / "test" / "chat").exists()
    assert "split" not in json.loads((f_builds / "test" / "manifest.json").read_text())["settings"]


def test_check_disjoint_passes_and_fails_with_the_overlaps(f_builds):
    ok = _run("check-disjoint", str(f_builds / "train"), str(f_builds / "test"))
    assert ok.exit_code == 0, ok.output
    assert "shared topics: 0" in ok.output and "shared keys: 0" in ok.output and "disjoint:" in ok.output
    same = _run("check-disjoint", str(f_builds / "test"), str(f_builds / "test"), "--show", "2")
    assert same.exit_code == 1
    assert "shared topics: 2" in same.output and "... and" in same.output
    assert same.output.strip().splitlines()[-1].startswith("Error: ") and "not disjoint" in same.output


def test_split_option_errors(f_builds, data_dir):
    hay = str(data_dir / "summhay")
    no_test = _run("f", "--summhay", hay, "--split", "train", "--out", str(f_builds / "x"))
    assert no_test.exit_code == 2 and "--split train needs --disjoint-from" in no_test.output
    preset = _run("f", "--summhay", hay, "--preset", "reflong2025", "--split", "train",
                  "--disjoint-from", str(f_builds / "test"), "--out", str(f_builds / "y"))  # fmt: skip
    assert preset.exit_code == 1 and "drop it for --split train" in preset.output
    wrong = _run("a", "--haystack", str(data_dir / "pg_essays"), "--split", "train",
                 "--disjoint-from", str(f_builds / "test"), "--out", str(f_builds / "z"))  # fmt: skip
    assert wrong.exit_code == 1 and "is a F build; this is a A build" in wrong.output
    not_a_build = _run("check-disjoint", str(f_builds / "test"), str(data_dir))
    assert not_a_build.exit_code == 1 and "not a finished build" in not_a_build.output


def test_a_train_split_uses_other_essays_and_a_plain_rebuild_is_caught(tmp_path, data_dir):
    hay = str(data_dir / "pg_essays")
    common = ["--modes", "multi", "--levels", "hard", "--lengths", "8K", "--tasks", "5", "--no-baselines"]
    assert _run("a", "--haystack", hay, *common, "--out", str(tmp_path / "test")).exit_code == 0
    train = _run("a", "--haystack", hay, *common, "--split", "train", "--disjoint-from", str(tmp_path / "test"),
                 "--out", str(tmp_path / "train"))  # fmt: skip
    assert train.exit_code == 0, train.output
    left_out = json.loads((tmp_path / "train" / "manifest.json").read_text())["settings"]["disjoint_from"]
    assert 0 < left_out["left_out"]["essays"] < 50
    answers = tmp_path / "train" / "answers" / "multi_stars_hard_8K_answers.json"
    assert _chat_matches_answers(tmp_path / "train", "multi_stars_hard_8K", answers) == 5
    ok = _run("check-disjoint", str(tmp_path / "train"), str(tmp_path / "test"))
    assert ok.exit_code == 0, ok.output
    assert "shared passages: 0" in ok.output and "by design" in ok.output
    # Another seed without --split train cuts the same essays: the check names the shared text.
    assert (
        _run("a", "--haystack", hay, *common, "--seed", "7", "--out", str(tmp_path / "other")).exit_code == 0
    )
    leak = _run("check-disjoint", str(tmp_path / "other"), str(tmp_path / "test"))
    assert (
        leak.exit_code == 1 and "shared passages:" in leak.output and "shared passages: 0" not in leak.output
    )


@pytest.mark.slow
def test_paper_train_split_shares_no_key_or_paper(tmp_path, corpus_dir):
    common = [
        "--source", str(corpus_dir), "--seeds", str(corpus_dir / "seeds.jsonl"),
        "--since", "2023-01", "--pool-months", "30", "--distractor-months", "12", "--categories", "",
        "--difficulty", "easy", "--lengths", "15K:4,22K:6", "--seed", "3", "--no-baselines",
        "--db", str(tmp_path / "store.db"), "--cache", str(tmp_path / "cache"),
    ]  # fmt: skip
    test = _run("paper", *common, "--tasks", "2", "--out", str(tmp_path / "test"))
    assert test.exit_code == 0, test.output
    train = _run("paper", *common, "--reuse-db", "--tasks", "4", "--split", "train",
                 "--disjoint-from", str(tmp_path / "test"), "--out", str(tmp_path / "train"))  # fmt: skip
    assert train.exit_code == 0, train.output
    answers = tmp_path / "train" / "easy_15K_answers.json"
    assert _chat_matches_answers(tmp_path / "train", "easy_15K", answers) == 4
    ok = _run("check-disjoint", str(tmp_path / "train"), str(tmp_path / "test"))
    assert ok.exit_code == 0, ok.output
    assert "shared keys: 0" in ok.output and "shared papers: 0" in ok.output
    # The same settings without the split share the test build's keys and papers.
    plain = _run("paper", *common, "--reuse-db", "--tasks", "4", "--out", str(tmp_path / "plain"))
    assert plain.exit_code == 0, plain.output
    leak = _run("check-disjoint", str(tmp_path / "plain"), str(tmp_path / "test"))
    assert leak.exit_code == 1 and "shared keys: 0" not in leak.output


def test_f_strategy_prompt_is_a_layout_and_a_recorded_setting(tmp_path, data_dir):
    """Issue 22, item 3: F takes the strategy prompt in both placements, recorded when set."""
    out = tmp_path / "f"
    result = _run("f", "--summhay", str(data_dir / "summhay" / "topic_news3.json"), "--lengths", "8K",
                  "--tasks", "3", "--no-baselines", "--strategy-prompt", "--question-last", "--out", str(out))  # fmt: skip
    assert result.exit_code == 0, result.output
    prompts = json.loads((out / "ori_strategy" / "foot_locker_8K.json").read_text())
    prompt = prompts["0"][1]
    assert "build a dictionary while reading" in prompt.split("0: {")[0]
    assert prompt.rstrip().endswith('"Documents: {}".')
    assert json.loads((out / "manifest.json").read_text())["settings"]["strategy_prompt"] is True
    assert "| strategy_prompt | true |" in (out / "README.md").read_text()
