"""``reflong-build export`` without the harnesses: the folder, its samples, its standalone scoring,
its refusals. tests/test_export_harnesses.py runs lm-eval and Inspect on an export."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from reflong.assemble.prompts import f_template, paper_template
from reflong.cli import main
from reflong.common.tokenizer import get_tokenizer
from reflong.evaluate.export.harness_glue import OVER_CONTEXT_PROMPT, SYSTEM_PROMPT
from reflong.evaluate.export.lm_eval_files import groups
from reflong.evaluate.export.samples import load_configs
from reflong.evaluate.harness_outputs import from_lm_eval, write_predictions
from reflong.evaluate.runner import SYSTEM_PROMPT as RUNNER_SYSTEM_PROMPT
from reflong.evaluate.scoring import score_paths

WORDS = [
    "alpha",
    "beta",
    "gamma",
    "delta",
    "epsilon",
    "zeta",
    "eta",
    "theta",
    "iota",
    "kappa",
    "lambda",
    "mu",
]


def _build(folder: Path, per_config: int = 6, docs: int = 8) -> Path:
    """A build folder as `paper` writes it, without its dataset: manifest + Ref-Long JSON files
    for two Paper lengths (a long and a short prompt per task, so a context limit splits them)."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "manifest.json").write_text(
        json.dumps({"tool": "reflong-build", "command": "reflong-build paper", "settings": {"seed": 0}})
    )
    for config, words in (("easy_30K", 40), ("hard_45K", 400)):
        prompts, answers = {}, {}
        for t in range(per_config):
            key = f"A key title number {t} of {config}"
            gold = sorted({t % docs, (t * 3 + 1) % docs})
            texts = [
                " ".join(WORDS[(t + i + j) % len(WORDS)] for j in range(words))
                + (f" cites {key}" if i in gold else "")
                for i in range(docs)
            ]
            prompts[str(t)] = [key, paper_template().render(key, texts, topic="testing")]
            answers[str(t)] = [key, gold]
        (folder / f"{config}.json").write_text(json.dumps(prompts))
        (folder / f"{config}_answers.json").write_text(json.dumps(answers))
    return folder


def _export(build: Path, out: Path, *extra: str):
    return CliRunner().invoke(main, ["export", "--build", str(build), "--out", str(out), *extra])


def _files(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()
    }


def test_an_export_holds_one_sample_per_task_with_the_prompt_byte_for_byte(tmp_path: Path) -> None:
    build = _build(tmp_path / "build")
    result = _export(build, tmp_path / "out")
    assert result.exit_code == 0, result.output
    assert "exported 12 tasks in 2 configurations" in result.output
    out = tmp_path / "out"
    prompts = json.loads((build / "hard_45K.json").read_text())
    answers = json.loads((build / "hard_45K_answers.json").read_text())
    lines = (out / "data" / "hard_45K.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(lines) == 6
    count = get_tokenizer("o200k_base").count
    for line in lines:
        sample = json.loads(line)
        tid = sample["metadata"]["task_id"]
        assert sample["id"] == f"hard_45K/{tid}"
        assert sample["input"] == prompts[tid][1]
        assert sample["target"] == answers[tid][1]
        meta = sample["metadata"]
        assert (meta["config"], meta["setting"], meta["length"], meta["n_documents"]) == (
            "hard_45K",
            "hard",
            "45K",
            8,
        )
        assert meta["prompt_tokens"] == count(prompts[tid][1])
        assert meta["context_tokens"] == count(SYSTEM_PROMPT) + count(prompts[tid][1])
        assert "documents" not in sample and "evidence" not in meta
    assert SYSTEM_PROMPT == RUNNER_SYSTEM_PROMPT
    record = json.loads((out / "export.json").read_text())
    assert record["configs"] == {
        "easy_30K": {"task": "reflong_paper_easy_30K", "tasks": 6},
        "hard_45K": {"task": "reflong_paper_hard_45K", "tasks": 6},
    }
    assert set(record["files"]) == set(_files(out)) - {"export.json"}
    readme = (out / "README.md").read_text()
    assert record["manifest_sha256"] in readme and record["files"]["data/easy_30K.jsonl"] in readme


def test_the_same_build_gives_the_same_bytes_and_a_second_export_replaces_the_first(tmp_path: Path) -> None:
    build = _build(tmp_path / "build")
    assert _export(build, tmp_path / "one").exit_code == 0
    assert _export(build, tmp_path / "two").exit_code == 0
    assert _files(tmp_path / "one") == _files(tmp_path / "two")
    (tmp_path / "one" / "stale.txt").write_text("from before")
    result = _export(build, tmp_path / "one", "--harness", "inspect")
    assert result.exit_code == 0, result.output
    names = set(_files(tmp_path / "one"))
    assert "stale.txt" not in names and "reflong.py" in names
    assert not any(n.endswith(".yaml") for n in names)
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".one.")]  # no staging left


def test_lm_eval_files_name_one_task_per_config_and_groups_weighted_by_size(tmp_path: Path) -> None:
    build = _build(tmp_path / "build")
    assert _export(build, tmp_path / "out", "--harness", "lm-eval").exit_code == 0
    out = tmp_path / "out"

    class Loader(yaml.SafeLoader):
        pass

    Loader.add_constructor("!function", lambda loader, node: ("function", loader.construct_scalar(node)))
    task = yaml.load((out / "reflong_paper_hard_45K.yaml").read_text(), Loader=Loader)
    assert task == {
        "include": "_default_template_yaml",
        "task": "reflong_paper_hard_45K",
        "dataset_kwargs": {"config": "hard_45K"},
    }
    template = yaml.load((out / "_default_template_yaml").read_text(), Loader=Loader)
    assert template["custom_dataset"] == ("function", "utils.lm_eval_dataset")
    assert template["generation_kwargs"] == {
        "until": [],
        "max_gen_toks": 256,
        "temperature": 0.0,
        "do_sample": False,
    }
    assert [m["metric"] for m in template["metric_list"]] == [
        "exacc",
        "f1",
        "precision",
        "recall",
        "over_context",
        "exacc_fit",
        "f1_fit",
    ]
    group = yaml.load((out / "reflong_paper.yaml").read_text(), Loader=Loader)
    assert group["task"] == ["reflong_paper_easy_30K", "reflong_paper_hard_45K"]
    assert all(m["weight_by_size"] is True for m in group["aggregate_metric_list"])
    configs = load_configs(build, {})
    assert groups(configs) == {
        "reflong_paper": ["reflong_paper_easy_30K", "reflong_paper_hard_45K"],
        "reflong_paper_30K": ["reflong_paper_easy_30K"],
        "reflong_paper_45K": ["reflong_paper_hard_45K"],
        "reflong_paper_easy": ["reflong_paper_easy_30K"],
        "reflong_paper_hard": ["reflong_paper_hard_45K"],
    }
    assert not (out / "reflong.py").exists()


RESPONSES = [
    "Papers: {1, 3}",
    "I think the answer is\n\n**Papers:** {0, 2, 4}",
    "Papers: 1-3",
    "Papers: {9, 1}",
    "none",
    "The documents do not say.",
]

# The check runs in a child Python with no site-packages (-S) and isolated (-I): it proves utils.py
# needs only the standard library, and prints its scores for the parent to compare.
STANDALONE = """
import importlib.util, json, sys
spec = importlib.util.spec_from_file_location("u", sys.argv[1])
u = importlib.util.module_from_spec(spec); spec.loader.exec_module(u)
out = []
for line in open(sys.argv[2], encoding="utf-8"):
    s = json.loads(line)
    tid = int(s["metadata"]["task_id"])
    fit = u.fits(s, int(sys.argv[4]))
    out.append(u.score_response(s["target"], s["metadata"]["n_documents"], json.loads(sys.argv[3])[tid % 6], fit))
print(json.dumps({"scores": out, "fit_mean": u.mean_of_fit([o["exacc_fit"] for o in out]),
                  "reflong": [m for m in sys.modules if m.startswith("reflong")]}))
"""


def test_utils_scores_as_eval_score_with_the_standard_library_alone(tmp_path: Path) -> None:
    build = _build(tmp_path / "build")
    assert _export(build, tmp_path / "out").exit_code == 0
    out = tmp_path / "out"
    data = out / "data" / "hard_45K.jsonl"
    samples = [json.loads(line) for line in data.read_text().splitlines()]
    limit = max(s["metadata"]["context_tokens"] for s in samples) - 1  # the longest task does not fit
    run = subprocess.run(
        [
            sys.executable,
            "-I",
            "-S",
            "-c",
            STANDALONE,
            str(out / "utils.py"),
            str(data),
            json.dumps(RESPONSES),
            str(limit),
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        check=True,
    )
    got = json.loads(run.stdout)
    assert got["reflong"] == []
    # The same responses through eval score, and the over-limit task as eval run leaves it: missing.
    preds_dir = tmp_path / "preds"
    preds_dir.mkdir()
    longest = max(samples, key=lambda s: s["metadata"]["context_tokens"])["metadata"]["task_id"]
    preds = {
        s["metadata"]["task_id"]: [s["metadata"]["key"], RESPONSES[int(s["metadata"]["task_id"]) % 6]]
        for s in samples
        if s["metadata"]["task_id"] != longest
    }
    (preds_dir / "hard_45K.json").write_text(json.dumps(preds))
    results, _, _ = score_paths(build / "hard_45K_answers.json", preds_dir / "hard_45K.json")
    ours = results[0].tasks
    for s, theirs in zip(samples, got["scores"], strict=True):
        mine = ours[s["metadata"]["task_id"]]
        assert (theirs["exacc"], theirs["f1"], theirs["precision"], theirs["recall"]) == (
            float(mine.exact),
            mine.f1,
            mine.precision,
            mine.recall,
        )
        assert theirs["over_context"] == (1.0 if s["metadata"]["task_id"] == longest else 0.0)
    assert results[0].summary.exacc == sum(t["exacc"] for t in got["scores"]) / 6
    fitting = [t["exacc"] for t in got["scores"] if t["over_context"] == 0.0]
    assert got["fit_mean"] == pytest.approx(sum(fitting) / len(fitting))
    assert 0 < results[0].summary.f1 < 1  # the responses are a mix of right, wrong and unreadable


def test_the_lm_eval_loader_sends_a_short_prompt_for_a_task_over_the_limit(tmp_path: Path) -> None:
    build = _build(tmp_path / "build")
    assert _export(build, tmp_path / "out").exit_code == 0
    spec = __import__("importlib.util").util.spec_from_file_location(
        "export_utils", tmp_path / "out" / "utils.py"
    )
    utils = __import__("importlib.util").util.module_from_spec(spec)
    spec.loader.exec_module(utils)
    short = utils.lm_eval_dataset("easy_30K", max_context=None)["test"]
    assert len(short) == 6 and all(short["fits"])
    prompts = json.loads((build / "easy_30K.json").read_text())
    assert [utils.doc_to_text(doc) for doc in short] == [prompts[str(t)][1] for t in range(6)]
    assert "input" not in short.column_names  # lm-eval logs each document whole: no second prompt
    cut = utils.lm_eval_dataset("hard_45K", max_context=3000, version=1.0)["test"]
    assert not any(cut["fits"]) and {utils.doc_to_text(doc) for doc in cut} == {OVER_CONTEXT_PROMPT}
    result = utils.process_results(cut[0], ["Papers: " + json.dumps(cut[0]["answer"])])
    assert result["exacc"] == 0.0 and result["over_context"] == 1.0 and result["exacc_fit"] is None


def test_lm_eval_samples_come_back_as_predictions_scoped_to_the_tasks_run(tmp_path: Path) -> None:
    run = tmp_path / "results" / "model"
    run.mkdir(parents=True)
    rows = [
        {"doc": {"id": "easy_30K/0", "key": "k0", "fits": True}, "filtered_resps": ["Papers: {1}"]},
        {"doc": {"id": "easy_30K/1", "key": "k1", "fits": False}, "filtered_resps": ["Papers: {}"]},
    ]
    (run / "samples_reflong_paper_easy_30K_2026-01-01T00-00-00.000001.jsonl").write_text(
        "\n".join(json.dumps(r) for r in rows) + "\n"
    )
    found = from_lm_eval(tmp_path / "results")
    assert found.predictions == {"easy_30K": {"0": ["k0", "Papers: {1}"]}}  # the unfit one is missing
    assert found.scope == {"easy_30K": ["0", "1"]}
    folder = write_predictions(found, tmp_path / "preds")
    assert json.loads((folder / "run_manifest.json").read_text())["scope"] == {"easy_30K": ["0", "1"]}
    (run / "samples_reflong_paper_easy_30K_2026-01-02T00-00-00.000001.jsonl").write_text("")
    result = CliRunner().invoke(
        main, ["eval", "score", "--build", str(tmp_path), "--from-lm-eval", str(tmp_path / "results")]
    )
    assert result.exit_code != 0
    assert "two runs of reflong_paper_easy_30K" in result.output


@pytest.mark.parametrize(
    "case",
    ["no build", "inside the build", "not an export"],
)
def test_export_refuses_what_it_cannot_write_and_writes_nothing(tmp_path: Path, case: str) -> None:
    build = _build(tmp_path / "build")
    if case == "no build":
        (build / "manifest.json").unlink()
        out, words = tmp_path / "out", "holds no build"
    elif case == "inside the build":
        out, words = build / "export", "is inside --build"
    else:
        out, words = tmp_path / "notes", "exists and is not an export"
        out.mkdir()
        (out / "mine.txt").write_text("keep me")
    before = _files(tmp_path)
    result = _export(build, out)
    assert result.exit_code == 1
    assert words in result.output and len(result.output.strip().splitlines()) == 1
    assert _files(tmp_path) == before


def test_eval_score_takes_one_source_of_predictions(tmp_path: Path) -> None:
    build = _build(tmp_path / "build")
    result = CliRunner().invoke(main, ["eval", "score", "--build", str(build)])
    assert result.exit_code == 2
    assert "give one of --predictions, --from-lm-eval and --from-inspect" in result.output


def test_an_f_style_config_keeps_its_setting_and_documents(tmp_path: Path) -> None:
    build = tmp_path / "f"
    build.mkdir()
    (build / "manifest.json").write_text(json.dumps({"command": "reflong-build f", "settings": {}}))
    texts = [f"document {i} " + " ".join(WORDS) for i in range(5)]
    (build / "twitter_8K.json").write_text(
        json.dumps({"0": ["insight", f_template().render("insight", texts, topic="x")]})
    )
    (build / "twitter_8K_answers.json").write_text(json.dumps({"0": ["insight", [2]]}))
    (config,) = load_configs(build, json.loads((build / "manifest.json").read_text()))
    assert (config.task, config.setting, config.length) == ("reflong_f_twitter_8K", "twitter", "8K")
    assert config.samples[0]["metadata"]["n_documents"] == 5
