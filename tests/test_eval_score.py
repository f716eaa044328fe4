"""`reflong-build eval score`: the released answers, planted errors, the release's own scoring."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from reflong.cli import main
from reflong.evaluate.metrics import score_task
from reflong.evaluate.parsing import parse_response


def _score(*args: str) -> dict:
    result = CliRunner().invoke(main, ["eval", "score", *args, "--format", "json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def test_released_answers_score_perfectly_against_themselves(data_dir: Path) -> None:
    root = data_dir / "reflong"
    data = _score("--answers", str(root), "--predictions", str(root))
    files = {k: v for k, v in data.items() if k != "overall"}
    # every answers file of A (18), F (21), NBA (1) and Paper (8)
    assert len(files) == 48
    assert sum(k.startswith(("easy_", "hard_")) for k in files) == 8
    for name, figures in data.items():
        assert figures["exacc"] == 1.0, name
        assert figures["f1"] == 1.0, name
        assert figures["type_i"] == figures["type_ii"] == figures["type_iii"] == 0, name
    assert data["overall"]["n"] == 4800


def _plant(answers: dict, m: int, seed: int = 7) -> tuple[dict, dict]:
    """Paper-style responses ("Papers: {..}") with misses/extras planted by task id; returns the
    predictions and the expected counts."""
    rng = random.Random(seed)
    preds, expected = {}, {"I": 0, "II": 0, "III": 0, "unparseable": 0, "correct": 0}
    for tid, (key, gold) in answers.items():
        pred = set(gold)
        kind = int(tid) % 5
        if kind in (0, 2):
            pred.discard(rng.choice(sorted(gold)))
        if kind in (1, 2):
            pred.add(rng.choice([i for i in range(m) if i not in gold]))
        if kind == 4 and int(tid) % 10 == 9:
            preds[tid] = [key, "I am not sure which papers cite it."]
            expected["unparseable"] += 1
            expected["I"] += 1
            continue
        preds[tid] = [key, "Papers: {" + ", ".join(map(str, sorted(pred))) + "}"]
        expected[{0: "I", 1: "II", 2: "III"}.get(kind, "correct")] += 1
    return preds, expected


def test_planted_misses_and_extras_give_exactly_the_planted_error_types(
    data_dir: Path, tmp_path: Path
) -> None:
    answers_path = data_dir / "reflong" / "Ref-Long-Paper" / "answers" / "hard_75K_answers.json"
    answers = json.loads(answers_path.read_text())
    preds, expected = _plant(answers, m=20)
    (tmp_path / "hard_75K.json").write_text(json.dumps(preds))
    data = _score("--answers", str(answers_path), "--predictions", str(tmp_path))
    got = data["hard_75K_answers.json"]
    assert (got["type_i"], got["type_ii"], got["type_iii"]) == (
        expected["I"],
        expected["II"],
        expected["III"],
    )
    assert got["unparseable"] == expected["unparseable"] == 10
    assert got["exacc"] == pytest.approx(expected["correct"] / 100)
    assert got["type_i_share"] == pytest.approx(expected["I"] / 100)
    # the release's parser reads no "Document" in these Paper answers: everything is a miss
    release = _score(
        "--answers", str(answers_path), "--predictions", str(tmp_path), "--parser", "reflong2025"
    )
    assert release["overall"]["exacc"] == 0.0
    assert release["overall"]["f1"] == 0.0
    assert release["overall"]["type_i"] == 100


def _independent_release_scores(answers: dict, preds: dict) -> tuple[float, float]:
    """The release's procedure, written again here from its description (FORMAT.md)."""
    exact, f1s = [], []
    for tid, (_, gold) in answers.items():
        text = preds[tid][1]
        _, sep, rest = text.partition("Document")
        numbers = (
            {int(x) for x in re.findall(r"[0-9]+", rest.splitlines()[0] if rest else "")} if sep else set()
        )
        g = set(gold)
        exact.append(numbers == g)
        if not numbers or not g:
            f1s.append(0.0)
            continue
        tp = len(numbers & g)
        p, r = tp / len(numbers), tp / len(g)
        f1s.append(2 * p * r / (p + r) if tp else 0.0)
    return sum(exact) / len(exact), sum(f1s) / len(f1s)


def test_reflong2025_parser_matches_an_independent_recomputation(data_dir: Path, tmp_path: Path) -> None:
    answers_path = data_dir / "reflong" / "Ref-Long-A" / "answers" / "multi_stars_hard_8K_answers.json"
    answers = json.loads(answers_path.read_text())
    rng = random.Random(3)
    shapes = [
        "Documents: {}",
        "Documents: [{}]",
        "The answer is:\nDocuments: {}\nBecause document 9 also...",
        "Papers: {{{}}}",
        "Document {} and more text",
        "I think Documents 1, 2\nDocuments: {}",
        "none of them",
        "Documents:\n{}",
    ]
    preds = {}
    for tid, (key, gold) in answers.items():
        pick = sorted(set(gold) | ({rng.randrange(8)} if rng.random() < 0.4 else set()))
        if rng.random() < 0.3 and len(pick) > 1:
            pick = pick[1:]
        preds[tid] = [key, rng.choice(shapes).format(", ".join(map(str, pick)))]
    (tmp_path / "multi_stars_hard_8K.json").write_text(json.dumps(preds))
    data = _score("--answers", str(answers_path), "--predictions", str(tmp_path), "--parser", "reflong2025")
    exacc, f1 = _independent_release_scores(answers, preds)
    assert data["overall"]["exacc"] == pytest.approx(exacc, abs=1e-6)
    assert data["overall"]["f1"] == pytest.approx(f1, abs=1e-6)
    assert 0.1 < exacc < 0.9  # the mix really exercises both outcomes
    # our parser reads more of them (Papers: {...}, the answer after an explanation)
    ours = _score("--answers", str(answers_path), "--predictions", str(tmp_path))
    assert ours["overall"]["exacc"] > exacc


@pytest.mark.parametrize(
    ("response", "m", "indexes", "parseable", "oor"),
    [
        ("Documents: 1, 3", 8, {1, 3}, True, ()),
        ("Papers: {0, 4}.", 8, {0, 4}, True, ()),
        ('"Papers: {2}"', 8, {2}, True, ()),
        ("**Documents:** [5, 6]", 8, {5, 6}, True, ()),
        ("Document 2 mentions it, as does 7.\n\nDocuments: {2, 7}", 8, {2, 7}, True, ()),
        ("Documents: 3-5", 8, {3, 4, 5}, True, ()),
        ("Documents: 5-3", 8, {3, 5}, True, ()),
        ("Documents: 3-9", 8, {3, 9}, True, (9,)),
        ("Documents: 1, 12", 8, {1, 12}, True, (12,)),
        ("{1, 2}", 8, {1, 2}, True, ()),
        ("Documents: {}", 8, set(), True, ()),
        ("Documents: ", 8, set(), True, ()),
        ("Documents: none", 8, set(), True, ()),
        ("The penguin is happy.", 8, set(), False, ()),
        ("Documents: the third one", 8, set(), False, ()),
    ],
)
def test_prompt_format_parser(response, m, indexes, parseable, oor) -> None:
    parsed = parse_response(response, m)
    assert set(parsed.indexes) == indexes
    assert parsed.parseable is parseable
    assert parsed.out_of_range == oor


def test_f1_for_empty_sets_is_defined() -> None:
    both_empty = score_task([], [])
    assert (both_empty.exact, both_empty.precision, both_empty.recall, both_empty.f1) == (True, 1.0, 1.0, 1.0)
    missed_all = score_task([1, 2], [])
    assert (missed_all.precision, missed_all.recall, missed_all.f1, missed_all.error_type) == (
        0.0,
        0.0,
        0.0,
        "I",
    )
    claimed_on_empty = score_task([], [3])
    assert (claimed_on_empty.precision, claimed_on_empty.recall, claimed_on_empty.f1) == (0.0, 1.0, 0.0)
    assert claimed_on_empty.error_type == "II"
    # the release's rule: F1 is 0 when either set is empty, even both
    assert score_task([], [], reflong2025=True).f1 == 0.0
    half = score_task([1, 2], [2, 3])
    assert half.f1 == pytest.approx(0.5) and half.error_type == "III"


def test_missing_predictions_and_foreign_files(data_dir: Path, tmp_path: Path) -> None:
    answers_path = data_dir / "reflong" / "Ref-Long-Paper" / "answers" / "easy_30K_answers.json"
    answers = json.loads(answers_path.read_text())
    partial = {tid: [key, list(gold)] for tid, (key, gold) in list(answers.items())[:60]}
    pred = tmp_path / "p.json"
    pred.write_text(json.dumps(partial))
    data = _score("--answers", str(answers_path), "--predictions", str(pred))
    assert data["overall"]["missing"] == 40
    assert data["overall"]["exacc"] == pytest.approx(0.6)
    wrong = {tid: ["another key", v[1]] for tid, v in partial.items()}
    pred.write_text(json.dumps(wrong))
    result = CliRunner().invoke(
        main, ["eval", "score", "--answers", str(answers_path), "--predictions", str(pred)]
    )
    assert result.exit_code == 1
    assert "Error:" in result.output and "another key" in result.output
    assert "Traceback" not in result.output
