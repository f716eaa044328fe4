"""``--preset reflong2025`` reproduces the released Ref-Long-A and -F files.

The generator reads only the essays and the SummHay files; the released answers/prompt files and
``derived/`` are used here as oracles only (derived/ gives the document lists of the prompts
that were not released, which the templates turn into the expected prompt text).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from reflong.assemble import prompts
from reflong.assemble.synthetic.a import LEVELS, MODES, preset_specs, setting_name
from reflong.assemble.synthetic.build import build_configs, parse_lengths
from reflong.assemble.writers.reflong_json import reflong_json_bytes
from reflong.cli import main
from reflong.common.tokenizer import get_tokenizer

A_SETTINGS = [setting_name(m, lv) for m in MODES for lv in LEVELS]
F_TOPICS = ["financial_market", "foot_locker", "twitter"]


@pytest.fixture(scope="module")
def release(data_dir: Path) -> Path:
    return data_dir / "reflong"


@pytest.fixture(scope="module")
def built_a(tmp_path_factory, data_dir: Path) -> Path:
    out = tmp_path_factory.mktemp("a")
    result = CliRunner().invoke(
        main,
        [
            "a",
            "--preset",
            "reflong2025",
            "--haystack",
            str(data_dir / "pg_essays"),
            "--out",
            str(out),
            "--no-dataset",
        ],
    )
    assert result.exit_code == 0, result.output
    return out


@pytest.fixture(scope="module")
def built_f(tmp_path_factory, data_dir: Path) -> Path:
    out = tmp_path_factory.mktemp("f")
    files = [
        str(data_dir / "summhay" / f"topic_news{i}.json") for i in (1, 3, 4, 5)
    ]  # news1 is not a release topic
    args = ["f", "--preset", "reflong2025", "--out", str(out), "--no-dataset"]
    for f in files:
        args += ["--summhay", f]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    return out


@pytest.mark.slow
def test_all_18_a_answers_files_identical(built_a: Path, release: Path):
    released = sorted((release / "Ref-Long-A" / "answers").glob("*.json"))
    assert len(released) == 18
    ours = sorted((built_a / "answers").glob("*.json"))
    assert [p.name for p in ours] == [p.name for p in released]
    for path in released:
        assert (built_a / "answers" / path.name).read_bytes() == path.read_bytes(), path.name


@pytest.mark.slow
def test_all_21_f_answers_files_identical(built_f: Path, release: Path):
    released = sorted((release / "Ref-Long-F" / "answers").glob("*.json"))
    assert len(released) == 21
    assert sorted(p.name for p in (built_f / "answers").glob("*.json")) == [p.name for p in released]
    for path in released:
        assert (built_f / "answers" / path.name).read_bytes() == path.read_bytes(), path.name


@pytest.mark.slow
def test_released_raw_prompt_files_byte_identical(
    built_a: Path, built_f: Path, release: Path, data_dir: Path
):
    assert (built_a / "before" / "multi_stars_hard_8K.json").read_bytes() == (
        release / "Ref-Long-A" / "before" / "multi_stars_hard_8K.json"
    ).read_bytes()
    assert (built_f / "before" / "twitter_8K.json").read_bytes() == (
        release / "Ref-Long-F" / "before" / "twitter_8K.json"
    ).read_bytes()
    # ori: built through the library (8K only) with the question-last template.
    spec = preset_specs(data_dir / "pg_essays", ["multi"], ["hard"])[0]
    config, tasks = next(
        build_configs(
            spec, parse_lengths("8K"), prompts.a_template(question_last=True), 100, True, get_tokenizer()
        )
    )
    assert config == "multi_stars_hard_8K"
    expected = (release / "Ref-Long-A" / "ori" / "multi_stars_hard_8K.json").read_bytes()
    assert reflong_json_bytes({str(t.task_id): [t.key, t.prompt] for t in tasks}) == expected


def _rebuilt_a(release: Path, setting: str, length: str, template: prompts.Template) -> bytes:
    derived = json.loads((release / "derived" / "Ref-Long-A" / f"{setting}.json").read_text())
    docs = derived["docs"]
    return reflong_json_bytes(
        {
            tid: [key, template.render(key, [docs[i] for i in idx])]
            for tid, (key, idx) in derived["tasks"][length].items()
        }
    )


@pytest.mark.slow
@pytest.mark.parametrize("setting", A_SETTINGS)
def test_a_prompts_match_derived_rebuild_all_lengths(built_a: Path, release: Path, setting: str):
    for length in ("8K", "16K", "24K"):
        ours = (built_a / "before" / f"{setting}_{length}.json").read_bytes()
        assert ours == _rebuilt_a(release, setting, length, prompts.a_template()), f"{setting}_{length}"


@pytest.mark.slow
def test_a_ori_8k_prompts_match_derived_rebuild(release: Path, data_dir: Path):
    template = prompts.a_template(question_last=True)
    specs = preset_specs(data_dir / "pg_essays", list(MODES), list(LEVELS))
    for spec in specs:
        _, tasks = next(build_configs(spec, parse_lengths("8K"), template, 100, True, get_tokenizer()))
        ours = reflong_json_bytes({str(t.task_id): [t.key, t.prompt] for t in tasks})
        assert ours == _rebuilt_a(release, spec.setting, "8K", template), spec.setting


@pytest.mark.slow
@pytest.mark.parametrize("topic", F_TOPICS)
def test_f_prompts_match_derived_rebuild(built_f: Path, release: Path, data_dir: Path, topic: str):
    derived = json.loads((release / "derived" / "Ref-Long-F" / f"{topic}.json").read_text())
    hay = json.loads((data_dir / derived["summhay_file"]).read_text())
    texts = [d["document_text"] for d in hay["documents"]]
    template = prompts.f_template()
    for length in ("8K", "24K", "56K"):
        expected = {
            tid: [key, template.render(key, [texts[i] for i in idx], topic=derived["topic"])]
            for tid, (key, idx) in derived["tasks"][length].items()
        }
        assert (built_f / "before" / f"{topic}_{length}.json").read_bytes() == reflong_json_bytes(expected)


@pytest.mark.slow
def test_preset_manifest_lists_only_the_inputs_read(built_a: Path, built_f: Path):
    essays = json.loads((built_a / "manifest.json").read_text())["inputs"]
    assert len(essays) == 39 and essays[0]["path"] == "haystack/aord.txt"
    hay = json.loads((built_f / "manifest.json").read_text())["inputs"]
    assert [i["path"] for i in hay] == [f"summhay/topic_news{i}.json" for i in (3, 4, 5)]


@pytest.mark.slow
def test_preset_token_statistics_match_format_md(built_a: Path, built_f: Path):
    """FORMAT.md's measured prompt tokens (o200k, min / max) for released files."""
    stats = {
        s["config"]: s
        for out in (built_a, built_f)
        for s in json.loads((out / "manifest.json").read_text())["statistics"]
    }
    expect = {
        "multi_stars_hard_8K": (7332, 7655, 883, 1016),
        "single_stars_easy_24K": (21269, 21735, None, None),
        "twitter_8K": (5303, 7824, 201, 1113),
        "foot_locker_56K": (47475, 51929, None, None),
    }
    for config, (pmin, pmax, dmin, dmax) in expect.items():
        s = stats[config]
        assert (s["prompt_tokens"]["min"], s["prompt_tokens"]["max"]) == (pmin, pmax), config
        if dmin is not None:
            assert (s["document_tokens"]["min"], s["document_tokens"]["max"]) == (dmin, dmax), config
    assert (
        stats["twitter_56K"]["answer_sizes"]["16"] == 1
        and stats["multi_stars_hard_8K"]["distinct_keys"] == 20
    )


@pytest.mark.slow
@pytest.mark.parametrize("encoding", ["o200k_base", "cl100k_base"])
def test_summed_piece_counts_equal_whole_prompt_counts(
    built_a: Path, release: Path, data_dir: Path, encoding
):
    """The builders sum cached per-document counts; that must equal counting the whole prompt."""
    tok = get_tokenizer(encoding)
    for template in (prompts.a_template(), prompts.a_template(question_last=True)):
        spec = preset_specs(data_dir / "pg_essays", ["single"], ["medium"])[0]
        _, tasks = next(build_configs(spec, parse_lengths("8K"), template, 40, True, tok))
        assert [t.prompt_tokens for t in tasks] == [tok.count(t.prompt) for t in tasks]
    twitter = json.loads((release / "Ref-Long-F" / "before" / "twitter_8K.json").read_text())
    template = prompts.f_template()
    topic = "Recent Developments and Challenges in Twitter's Algorithms and Services"
    for key, prompt in list(twitter.values())[:30]:
        head, _ = template.fill(key, topic=topic)
        body = prompt[len(head) :]
        blocks = [b + "}\n\n" for b in body.split("}\n\n")[:-1]]  # documents hold no "}"
        assert "".join([head, *blocks]) == prompt
        assert prompts.prompt_tokens([head, *blocks], tok.count) == tok.count(prompt)


def test_preset_refuses_settings_it_fixes(data_dir: Path, tmp_path: Path):
    runner = CliRunner()
    hay = str(data_dir / "pg_essays")
    out = runner.invoke(
        main, ["a", "--preset", "reflong2025", "--haystack", hay, "--seed", "7", "--out", str(tmp_path)]
    )
    assert out.exit_code == 1 and "fixes the seed to 2024" in out.output
    out = runner.invoke(main, ["a", "--preset", "reflong2025", "--haystack", hay, "--lengths", "8K,32K"])
    assert out.exit_code == 1 and "--lengths" in out.output
    partial = tmp_path / "essays"
    partial.mkdir()
    (partial / "island.txt").write_text("only one essay")
    out = runner.invoke(
        main, ["a", "--preset", "reflong2025", "--haystack", str(partial), "--out", str(tmp_path / "o")]
    )
    assert out.exit_code == 1 and "boss.txt" in out.output and "Traceback" not in out.output
