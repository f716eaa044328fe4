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
    data = _score("--build", str(root), "--predictions", str(root))
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
    data = _score("--build", str(answers_path), "--predictions", str(tmp_path))
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
        "--build", str(answers_path), "--predictions", str(tmp_path), "--parser", "reflong2025"
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
    data = _score("--build", str(answers_path), "--predictions", str(tmp_path), "--parser", "reflong2025")
    exacc, f1 = _independent_release_scores(answers, preds)
    assert data["overall"]["exacc"] == pytest.approx(exacc, abs=1e-6)
    assert data["overall"]["f1"] == pytest.approx(f1, abs=1e-6)
    assert 0.1 < exacc < 0.9  # the mix really exercises both outcomes
    # our parser reads more of them (Papers: {...}, the answer after an explanation)
    ours = _score("--build", str(answers_path), "--predictions", str(tmp_path))
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
    data = _score("--build", str(answers_path), "--predictions", str(pred))
    assert data["overall"]["missing"] == 40
    assert data["overall"]["exacc"] == pytest.approx(0.6)
    wrong = {tid: ["another key", v[1]] for tid, v in partial.items()}
    pred.write_text(json.dumps(wrong))
    result = CliRunner().invoke(
        main, ["eval", "score", "--build", str(answers_path), "--predictions", str(pred)]
    )
    assert result.exit_code == 1
    assert "Error:" in result.output and "another key" in result.output
    assert "Traceback" not in result.output


# --- Predictions that belong to other answers (issue 20, finding 4) --------------------------------


def _build_a(haystack: Path, out: Path, *extra: str) -> Path:
    """A real Ref-Long-A build (multi/hard, 8K and 16K: cumulative, so both share every key)."""
    args = ["a", "--haystack", str(haystack), "--modes", "multi", "--levels", "hard", "--lengths", "8K,16K"]
    args += ["--no-dataset", "--no-baselines", "--out", str(out), *extra]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    return out


@pytest.fixture(scope="module")
def runs(tmp_path_factory, data_dir: Path) -> dict[str, Path]:
    """Two builds (seed 0 with 20 tasks, seed 1) and a 10-task smoke build, and the stand-in
    model's predictions (``eval run``) for the first two."""
    from reflong.servers.openai_server import OpenAIServer

    root = tmp_path_factory.mktemp("mismatch")
    out = {
        "a": _build_a(data_dir / "pg_essays", root / "a", "--tasks", "20"),
        "a10": _build_a(data_dir / "pg_essays", root / "a10", "--tasks", "10"),
        "a1": _build_a(data_dir / "pg_essays", root / "a1", "--tasks", "20", "--seed", "1"),
    }
    with OpenAIServer([out["a"], out["a1"]]) as server:
        for name in ("a", "a1"):
            preds = root / f"preds_{name}"
            args = ["eval", "run", "--prompts", str(out[name] / "before"), "--model", "reflong-standin"]
            result = CliRunner().invoke(main, [*args, "--base-url", server.url, "--out", str(preds)])
            assert result.exit_code == 0, result.output
            out[f"preds_{name}"] = preds
    return out


@pytest.mark.slow
def test_predictions_of_another_length_are_refused_in_one_line(runs, data_dir: Path, tmp_path: Path) -> None:
    # The trial: Paper easy_30K predictions against easy_45K answers (the keys match).
    paper = data_dir / "reflong" / "Ref-Long-Paper" / "answers"
    thirty = json.loads((paper / "easy_30K_answers.json").read_text())
    pred = tmp_path / "easy_30K.json"
    pred.write_text(
        json.dumps({t: [k, "Papers: {" + ", ".join(map(str, g)) + "}"] for t, (k, g) in thirty.items()})
    )
    answers = paper / "easy_45K_answers.json"
    result = CliRunner().invoke(
        main, ["eval", "score", "--build", str(answers), "--predictions", str(pred)]
    )
    assert result.exit_code == 1, result.output
    assert result.output.splitlines() == [
        f"Error: {pred} does not belong to {answers}: the predictions' file name says length 30K, the "
        "answers' 45K (cumulative settings share their keys, so only the name tells them apart)"
    ]
    # The same with a real build and the stand-in model's real predictions.
    answers = runs["a"] / "answers" / "multi_stars_hard_16K_answers.json"
    pred = runs["preds_a"] / "multi_stars_hard_8K.json"
    result = CliRunner().invoke(
        main, ["eval", "score", "--build", str(answers), "--predictions", str(pred)]
    )
    assert result.exit_code == 1, result.output
    assert len(result.output.splitlines()) == 1
    assert f"{pred} does not belong to {answers}" in result.output and "8K, the answers' 16K" in result.output
    # and the pair that does belong scores perfectly (the stand-in plants no error here)
    ok = _score("--build", str(runs["a"] / "answers"), "--predictions", str(runs["preds_a"]))
    assert ok["overall"]["exacc"] == 1.0 and ok["overall"]["n"] == 40


@pytest.mark.slow
def test_predictions_with_tasks_the_answers_lack_are_refused(runs) -> None:
    # The full run's predictions (20 tasks) against a 10-task smoke build of the same seed.
    answers = runs["a10"] / "answers" / "multi_stars_hard_8K_answers.json"
    pred = runs["preds_a"] / "multi_stars_hard_8K.json"
    result = CliRunner().invoke(
        main, ["eval", "score", "--build", str(answers), "--predictions", str(pred)]
    )
    assert result.exit_code == 1, result.output
    assert result.output.splitlines() == [
        f"Error: {pred} does not belong to {answers}: the predictions have 20 tasks, 10 of them "
        "(e.g. '10', '11', '12') not in the answers' 10"
    ]


def test_prompts_of_another_setting_are_refused(runs) -> None:
    answers = runs["a"] / "answers" / "multi_stars_hard_16K_answers.json"
    pred = runs["preds_a"] / "multi_stars_hard_16K.json"
    prompts = runs["a"] / "before" / "multi_stars_hard_8K.json"
    args = ["eval", "score", "--build", str(answers), "--predictions", str(pred), "--prompts", str(prompts)]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 1, result.output
    lines = result.output.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"Error: {prompts} does not belong to {answers}: task ")
    assert re.search(
        r"task \d+'s prompt has 8 documents but the answers name document (8|9|1[0-5])$", lines[0]
    )


def test_a_folder_scores_what_belongs_and_fails_at_the_end(runs, tmp_path: Path) -> None:
    """One configuration's predictions come from another build (seed 1): it is named on stderr and
    left out, the other is scored and shown, and the exit is 1 so no script takes it as complete."""
    import shutil

    preds = tmp_path / "preds"
    shutil.copytree(runs["preds_a"], preds)
    shutil.copy(runs["preds_a1"] / "multi_stars_hard_16K.json", preds / "multi_stars_hard_16K.json")
    answers = runs["a"] / "answers"
    save = tmp_path / "scores.json"
    result = CliRunner().invoke(
        main,
        ["eval", "score", "--build", str(answers), "--predictions", str(preds), "--save", str(save)],
    )
    assert result.exit_code == 1, result.output
    out = result.stdout.splitlines()
    assert [line.split()[0] for line in out[2:]] == ["multi_stars_hard_8K_answers.json", "overall"]
    assert out[2].split()[1:3] == ["20", "1.000"]
    err = result.stderr.splitlines()
    assert len(err) == 2, err
    assert err[0].startswith(
        f"error: {preds / 'multi_stars_hard_16K.json'} does not belong to "
        f"{answers / 'multi_stars_hard_16K_answers.json'}: task 0 has key "
    )
    assert err[1] == (
        "Error: 1 of 2 configurations not scored (their files do not belong together, listed "
        "above); the table and --save cover the other 1"
    )
    saved = json.loads(save.read_text())
    assert set(saved) == {"multi_stars_hard_8K_answers.json", "overall", "meta"}
    assert list(saved["meta"]["not_scored"]) == ["multi_stars_hard_16K_answers.json"]
    assert saved["overall"]["n"] == 20


def test_predictions_naming_documents_beyond_m_warn(runs, tmp_path: Path) -> None:
    """16K predictions renamed as 8K ones: the name cannot tell, but most of them name documents the
    8K tasks do not have; that is said (a model can do it too, so it is a warning, not a refusal)."""
    import shutil

    (tmp_path / "p").mkdir()
    shutil.copy(runs["preds_a"] / "multi_stars_hard_16K.json", tmp_path / "p" / "multi_stars_hard_8K.json")
    answers = runs["a"] / "answers" / "multi_stars_hard_8K_answers.json"
    result = CliRunner().invoke(
        main, ["eval", "score", "--build", str(answers), "--predictions", str(tmp_path / "p")]
    )
    assert result.exit_code == 0, result.output
    preds = json.loads((tmp_path / "p" / "multi_stars_hard_8K.json").read_text())
    beyond = sum(max(parse_response(r, 8).indexes, default=0) >= 8 for _, r in preds.values())
    assert beyond > 10
    assert result.stderr.splitlines() == [
        f"warning: {tmp_path / 'p' / 'multi_stars_hard_8K.json'}: {beyond} of 20 predictions name documents "
        f"beyond the 8 of {answers.name} (M from the file name): are they for a longer setting?"
    ]
