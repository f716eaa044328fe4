"""Our default builds (no preset): token budgets, longer lengths, outputs, determinism, variants."""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner

from reflong.assemble import prompts
from reflong.assemble.synthetic.a import FRUITS
from reflong.cli import main
from reflong.common.tokenizer import get_tokenizer

STAR = re.compile(r"The little penguin counted (\d+) \u2605")


def _run(args: list[str]) -> str:
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    return result.output


def _a(data_dir: Path, out: Path, *extra: str) -> str:
    return _run(["a", "--haystack", str(data_dir / "pg_essays"), "--out", str(out), *extra])


@pytest.fixture(scope="module")
def default_a(tmp_path_factory, data_dir: Path) -> tuple[Path, str]:
    out = tmp_path_factory.mktemp("default_a")
    output = _a(data_dir, out, "--modes", "single,multi", "--levels", "hard,easy", "--lengths", "8K,16K,32K")
    return out, output


@pytest.fixture(scope="module")
def rerun_a(tmp_path_factory, data_dir: Path) -> Path:
    out = tmp_path_factory.mktemp("rerun_a")
    _a(data_dir, out, "--modes", "single,multi", "--levels", "hard,easy", "--lengths", "8K,16K,32K")
    return out


def _files(out: Path) -> dict[str, bytes]:
    return {p.relative_to(out).as_posix(): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()}


@pytest.mark.slow
def test_formats_have_the_released_shape(default_a, data_dir: Path):
    out, _ = default_a
    released_prompts = json.loads(
        (data_dir / "reflong/Ref-Long-A/before/multi_stars_hard_8K.json").read_text()
    )
    released_answers = json.loads(
        (data_dir / "reflong/Ref-Long-A/answers/multi_stars_hard_8K_answers.json").read_text()
    )
    files = sorted((out / "answers").glob("*_answers.json"))
    assert len(files) == 12  # 2 modes x 2 levels x 3 lengths
    for path in files:
        answers = json.loads(path.read_text())
        config = path.name.removesuffix("_answers.json")
        prompts_file = json.loads((out / "before" / f"{config}.json").read_text())
        m = int(config.rsplit("_", 1)[1].removesuffix("K"))
        assert list(answers) == list(released_answers) == list(prompts_file) == [str(i) for i in range(100)]
        for tid, (key, idx) in answers.items():
            assert type(key) is type(released_answers["0"][0]) is int
            assert idx == sorted(set(idx)) and idx and all(0 <= i < m for i in idx)
            assert prompts_file[tid][0] == key and isinstance(prompts_file[tid][1], str)
            assert type(prompts_file[tid][1]) is type(released_prompts["0"][1])
        # the same JSON serialisation as the release (json.dumps defaults, ASCII, no newline)
        assert path.read_bytes() == json.dumps(answers).encode()


@pytest.mark.slow
def test_documents_within_two_percent_of_budget_and_answers_recomputed(default_a):
    out, _ = default_a
    from datasets import Dataset

    tok = get_tokenizer("o200k_base")
    checked = set()
    for path in sorted((out / "data").glob("*.parquet")):
        ds = Dataset.from_parquet(str(path))
        for row in ds:
            assert len(row["documents"]) == row["n_documents"]
            for doc in row["documents"]:
                if doc["doc_id"] + row["setting"] not in checked:
                    checked.add(doc["doc_id"] + row["setting"])
                    n = tok.count(doc["text"])
                    assert n == doc["n_tokens"] and abs(n - 1000) <= 20, (row["setting"], doc["doc_id"], n)
                numbers = [int(x) for x in STAR.findall(doc["text"])]
                assert len(numbers) == (5 if row["setting"].startswith("multi") else 1)
                assert len(set(numbers)) == len(numbers)
                assert "\n" not in doc["text"]
            truth = [
                d["index"] for d in row["documents"] if int(row["key"]) in map(int, STAR.findall(d["text"]))
            ]
            assert row["answer"] == truth
            if row["task_id"] < 10:  # whole-prompt counts are slow; the summed counts are checked here
                assert row["prompt_tokens"] == tok.count(row["prompt"])
            assert row["prompt"] == prompts.a_template().render(
                int(row["key"]), [d["text"] for d in row["documents"]]
            )
    assert len(checked) >= 4 * 100


@pytest.mark.slow
def test_cumulative_growth_and_more_candidates(default_a):
    out, _ = default_a
    from datasets import Dataset

    rows = {
        p.stem: list(Dataset.from_parquet(str(p)).select_columns(["key", "documents"]))
        for p in (out / "data").glob("multi_stars_hard_*.parquet")
    }
    for short, long in (("8K", "16K"), ("16K", "32K")):
        for a, b in zip(rows[f"multi_stars_hard_{short}"], rows[f"multi_stars_hard_{long}"], strict=True):
            assert a["key"] == b["key"]
            ids_a = [d["doc_id"] for d in a["documents"]]
            ids_b = [d["doc_id"] for d in b["documents"]]
            assert ids_b[: len(ids_a)] == ids_a and len(set(ids_b)) == len(ids_b)
    manifest = json.loads((out / "manifest.json").read_text())
    # 32 documents per task -> max(100, 2 x 32) candidates
    assert set(manifest["settings"]["candidates"].values()) == {100}
    used = {d["doc_id"] for r in rows["multi_stars_hard_32K"] for d in r["documents"]}
    assert len(used) == 100


@pytest.mark.slow
def test_card_reports_answer_size_distributions(default_a):
    out, output = default_a
    card = (out / "README.md").read_text()
    for path in sorted((out / "answers").glob("*_answers.json")):
        config = path.name.removesuffix("_answers.json")
        sizes = Counter(len(idx) for _, idx in json.loads(path.read_text()).values())
        text = ", ".join(f"{k}:{v}" for k, v in sorted(sizes.items()))
        row = next(line for line in card.splitlines() if line.startswith(f"| {config} |"))
        assert f"| {text} |" in row, row
        assert f"- config_name: {config}" in card and f"path: data/{config}.parquet" in card
        assert config in output  # the CLI summary lists every configuration
    assert "prompt tokens min / mean / max" in card


@pytest.mark.slow
def test_manifest_hashes_every_output(default_a, data_dir: Path):
    out, _ = default_a
    manifest = json.loads((out / "manifest.json").read_text())
    from reflong import __version__

    assert manifest["version"] == __version__ and manifest["command"] == "a"
    listed = {o["path"]: o["sha256"] for o in manifest["outputs"]}
    on_disk = {k: hashlib.sha256(v).hexdigest() for k, v in _files(out).items() if k != "manifest.json"}
    assert listed == on_disk
    essays = sorted(p.name for p in (data_dir / "pg_essays").glob("*.txt"))
    assert [i["path"] for i in manifest["inputs"]] == [f"haystack/{n}" for n in essays]
    assert str(out) not in (out / "manifest.json").read_text()  # no machine-specific paths


@pytest.mark.slow
def test_same_seed_byte_identical_other_seed_different(default_a, rerun_a, tmp_path, data_dir: Path):
    out, _ = default_a
    assert _files(out) == _files(rerun_a)
    other = tmp_path / "seed1"
    _a(
        data_dir,
        other,
        "--modes",
        "multi",
        "--levels",
        "hard",
        "--lengths",
        "8K",
        "--seed",
        "1",
        "--no-dataset",
    )
    a = json.loads((out / "answers" / "multi_stars_hard_8K_answers.json").read_text())
    b = json.loads((other / "answers" / "multi_stars_hard_8K_answers.json").read_text())
    assert sum(a[k] != b[k] for k in a) > 80
    pa = json.loads((out / "before" / "multi_stars_hard_8K.json").read_text())
    pb = json.loads((other / "before" / "multi_stars_hard_8K.json").read_text())
    assert sum(pa[k][1] != pb[k][1] for k in pa) == 100


@pytest.mark.slow
def test_long_lengths_other_tokenizer_and_budget(tmp_path, data_dir: Path):
    out = tmp_path / "long"
    output = _a(
        data_dir, out, "--modes", "single", "--levels", "easy", "--lengths", "8K,128K", "--tasks", "3"
    )
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["settings"]["documents_per_task"] == [8, 128]
    assert manifest["settings"]["candidates"]["single_stars_easy"] > 128  # more than the release's 100
    answers = json.loads((out / "answers" / "single_stars_easy_128K_answers.json").read_text())
    assert len(answers) == 3 and "single_stars_easy_128K" in output
    prompt = json.loads((out / "before" / "single_stars_easy_128K.json").read_text())["0"][1]
    assert prompt.count("\n\n127: {") == 1 and "\n\n128: {" not in prompt

    tok = get_tokenizer("cl100k_base")
    _a(
        data_dir,
        tmp_path / "c",
        "--lengths",
        "4K",
        "--doc-tokens",
        "500",
        "--tokenizer",
        "cl100k_base",
        "--tasks",
        "20",
    )
    stats = json.loads((tmp_path / "c" / "manifest.json").read_text())["statistics"]
    assert len(stats) == 6 and {s["n_documents"] for s in stats} == {8}
    for config, (_key, prompt) in (
        (p.stem, json.loads(p.read_text())["0"]) for p in sorted((tmp_path / "c" / "before").glob("*.json"))
    ):
        body = prompt.split("Documents: {}\n\n", 1)[1]
        docs = [b.split(": {", 1)[1] for b in body.split("}\n\n")[:-1]]
        assert len(docs) == 8, config
        assert all(abs(tok.count(d) - 500) <= 10 for d in docs), config


def test_fruit_keys_and_strategy_prompt(tmp_path, data_dir: Path):
    # Three builds, three folders: a build owns its --out (a rerun there replaces the old files).
    stars_out, strategy_out, out = tmp_path / "stars", tmp_path / "strategy", tmp_path / "fruit"
    _a(data_dir, stars_out, "--modes", "multi", "--levels", "easy", "--lengths", "8K", "--tasks", "10")
    small = ["--modes", "multi", "--levels", "easy", "--lengths", "8K", "--tasks", "10", "--no-dataset"]
    _a(data_dir, strategy_out, "--key-style", "fruit", "--strategy-prompt", "--question-last", *small)
    _a(data_dir, out, "--key-style", "fruit", *small)
    data = json.loads((strategy_out / "ori_strategy" / "multi_fruits_easy_8K.json").read_text())
    answers = json.loads((strategy_out / "answers" / "multi_fruits_easy_8K_answers.json").read_text())
    for tid, (key, prompt) in data.items():
        assert key in FRUITS and answers[tid][0] == key
        assert "build a dictionary while reading" in prompt.split("\n\n0: {")[0]
        assert prompt.endswith(
            "Could you tell me the indexes of all documents where the little penguin collects the fruit "
            f"{key}? Please provide your answer in the following format without explanations:\n\n"
            "Documents: {}"
        )
        holding = [
            i for i in range(8) if f"The little penguin collected the fruit {key} " in _doc(prompt, i) + " "
        ]
        assert answers[tid][1] == holding
    plain = json.loads((out / "before" / "multi_fruits_easy_8K.json").read_text())
    assert "build a dictionary" not in plain["0"][1] and "counted" not in plain["0"][1]
    stars = json.loads((stars_out / "before" / "multi_stars_easy_8K.json").read_text())
    assert len(stars) == 10 and "\u2605" in stars["0"][1]


def _doc(prompt: str, i: int) -> str:
    return prompt.split(f"\n\n{i}: {{", 1)[1].split("}\n\n", 1)[0]


def test_bad_options_give_one_line_errors(tmp_path, data_dir: Path):
    runner = CliRunner()
    hay = str(data_dir / "pg_essays")
    res = runner.invoke(main, ["a", "--haystack", hay, "--lengths", "8K,300K", "--out", str(tmp_path / "x")])
    assert res.exit_code == 1 and "essays give" in res.output and "Traceback" not in res.output
    res = runner.invoke(main, ["a", "--haystack", hay, "--lengths", "16K,8K"])
    assert res.exit_code == 2 and "must grow" in res.output and "'--lengths'" in res.output
    res = runner.invoke(main, ["a", "--haystack", hay, "--modes", "double"])
    assert res.exit_code == 2 and "'--modes'" in res.output
    empty = tmp_path / "empty"
    empty.mkdir()
    res = runner.invoke(main, ["a", "--haystack", str(empty)])
    assert res.exit_code == 1 and "no .txt essays" in res.output


@pytest.mark.slow
def test_hugging_face_tokenizer_file_counts_whole_prompts(tmp_path, data_dir: Path):
    """A tokenizer.json (not additive per piece) is used for budgets and whole-prompt counts."""
    from datasets import Dataset
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers

    hf = Tokenizer(models.BPE(unk_token="[UNK]"))
    hf.pre_tokenizer = pre_tokenizers.Whitespace()
    texts = [p.read_text() for p in sorted((data_dir / "pg_essays").glob("*.txt"))[:10]]
    hf.train_from_iterator(texts, trainers.BpeTrainer(vocab_size=800, special_tokens=["[UNK]"]))
    path = tmp_path / "tokenizer.json"
    hf.save(str(path))
    out = tmp_path / "hf"
    _a(data_dir, out, "--tokenizer", str(path), "--lengths", "2K", "--doc-tokens", "250", "--tasks", "5")
    _a(data_dir, out, "--tokenizer", str(path), "--lengths", "2K", "--doc-tokens", "250", "--tasks", "5")
    tok = get_tokenizer(str(path))
    rows = Dataset.from_parquet(str(out / "data" / "multi_stars_medium_2K.parquet"))
    assert len(rows) == 5
    for row in rows:
        assert row["prompt_tokens"] == tok.count(row["prompt"])
        # a toy 800-token vocabulary makes words cost several tokens: cuts are coarser than o200k's
        assert all(abs(tok.count(d["text"]) - 250) <= 12 for d in row["documents"])
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["settings"]["tokenizer"] == "hf:tokenizer.json"


def test_unreadable_essay_is_skipped_with_a_message(tmp_path, data_dir: Path):
    hay = tmp_path / "essays"
    hay.mkdir()
    for essay in sorted((data_dir / "pg_essays").glob("*.txt")):
        (hay / essay.name).symlink_to(essay)
    (hay / "broken.txt").write_bytes(b"caf\xe9 au lait \xff\xfe")
    out = tmp_path / "out"
    args = ["a", "--haystack", str(hay), "--out", str(out), "--modes", "single", "--levels", "hard"]
    res = CliRunner().invoke(main, [*args, "--lengths", "8K", "--tasks", "5"])
    assert res.exit_code == 0 and "skipped: broken.txt is not UTF-8 text" in res.output
    assert "single_stars_hard_8K" in res.output
    manifest = json.loads((out / "manifest.json").read_text())
    assert (
        "haystack/broken.txt" not in [i["path"] for i in manifest["inputs"]] and len(manifest["inputs"]) == 49
    )
