"""The shared pieces the Paper subset reuses: templates, cumulative sampling, JSON writer."""

from __future__ import annotations

import json
import random

import pytest

from reflong.assemble import prompts
from reflong.assemble.cumulative_sampling import (
    cumulative_tasks,
    distinct_in_order,
    extend_from_pool,
    reshuffled,
)
from reflong.assemble.writers.reflong_json import reflong_json_bytes


def test_paper_templates_follow_the_papers_figures():
    title = "Direct Nash Optimization: \u200b\u200bTeaching Language Models"
    first = prompts.paper_template().render(title, ["body A", "body B"])
    assert first == (
        'You will find several papers indexed with numbers below. Each paper is divided by "\\n\\n". '
        "Please read through these papers carefully and answer my question: could you tell me the indexes "
        f'of all papers citing "{title}"? Please provide your answer in the following format without '
        "explanations: Papers: {}.\n\n0: {body A}\n\n1: {body B}\n\n"
    )
    last = prompts.paper_template(question_last=True).render(title, ["body A"])
    assert last.startswith(
        'You will find several papers indexed with numbers below. Each paper is divided by "\\n\\n". '
        "Please read through these papers carefully and answer some questions.\n\n0: {body A}\n\n"
    )
    assert last.endswith(
        f'Could you tell me the indexes of all papers citing "{title}"? Please provide your answer in the '
        'following format without explanations: "Papers: {}".'
    )
    # Ref-Long JSON escapes the zero-width spaces as the released Paper answers do
    assert b"\\u200b\\u200bTeaching" in reflong_json_bytes({"0": [title, [1]]})


def test_template_keeps_literal_braces_and_never_substitutes_twice():
    t = prompts.f_template()
    head, tail = t.fill("an insight about {topic}", topic="T {key}")
    assert "'T {key}'" in head and '"an insight about {topic}"' in head and tail == ""
    a = prompts.a_template().render(7, ["x"])
    assert (
        '"The little penguin counted {num} \u2605"' in a
        and "counts 7 stars?" in a
        and "Documents: {}\n\n0: {x}" in a
    )
    with pytest.raises(ValueError):
        prompts.a_template(key_style="colour")


def test_cumulative_tasks_prefixes_and_keys():
    keys = {d: [d % 7, (d * 3) % 11] for d in range(40)}
    tasks = cumulative_tasks(lambda d: keys[d], 40, [4, 8, 20], 50, seed=5)
    for t in tasks:
        assert t.docs[8][:4] == t.docs[4] and t.docs[20][:8] == t.docs[8]
        assert len(set(t.docs[20])) == 20
        assert t.key in {k for d in t.docs[4] for k in keys[d]}  # the key occurs in the first M0 docs
    again = cumulative_tasks(lambda d: keys[d], 40, [4, 8, 20], 50, seed=5)
    assert again == tasks
    other = cumulative_tasks(lambda d: keys[d], 40, [4, 8, 20], 50, seed=6)
    assert sum(a.docs[4] != b.docs[4] for a, b in zip(tasks, other, strict=True)) > 40
    streamed = cumulative_tasks(lambda d: keys[d], 40, [4, 8, 20], 50, seed=5, reseed_each_length=False)
    assert [t.docs[4] for t in streamed] == [t.docs[4] for t in tasks] and streamed != tasks
    with pytest.raises(ValueError):
        cumulative_tasks(lambda d: keys[d], 40, [8, 4], 5, seed=1)
    with pytest.raises(ValueError):
        cumulative_tasks(lambda d: keys[d], 10, [4, 20], 5, seed=1)


def test_release_call_sequence_task_zero():
    """FORMAT.md: task 0 uses candidates [60, 23, 93, 74, 38, 25, 92, 52] at 8K in every setting."""
    tasks = cumulative_tasks(lambda d: [d % 3], 100, [8], 1, seed=2024)
    assert list(tasks[0].docs[8]) == [60, 23, 93, 74, 38, 25, 92, 52]


def test_pool_helpers():
    rng = random.Random(1)
    grown = extend_from_pool(rng, ["p1", "p2"], ["n1", "p1", "n2", "n3", "p2"], 2)
    assert grown[:2] == ["p1", "p2"] and set(grown[2:]) <= {"n1", "n2", "n3"} and len(set(grown)) == 4
    with pytest.raises(ValueError):
        extend_from_pool(rng, ["a"], ["a", "b"], 2)
    order = reshuffled(random.Random(3), list(range(10)))
    assert sorted(order) == list(range(10)) and order != list(range(10))
    assert distinct_in_order([3, 1, 3, 2, 1]) == [3, 1, 2]


def test_reflong_json_bytes_match_json_dumps_defaults():
    obj = {"0": ["caf\u00e9 \u2605", [0, 2]], "1": [3, "a\nb"]}
    assert reflong_json_bytes(obj) == json.dumps(obj).encode()
    assert reflong_json_bytes(obj).startswith(b'{"0": ["caf\\u00e9 \\u2605", [0, 2]], "1"')


def test_outputs_take_subset_specific_columns(tmp_path):
    """What the Paper subset needs: extra task/document columns, a flat JSON layout, the card."""
    from datasets import Dataset, List, Value

    from reflong.assemble.dataset_card import SHARED_COLUMNS, CardMeta, render_card
    from reflong.assemble.manifest import write_manifest
    from reflong.assemble.records import DocumentRecord, TaskRecord
    from reflong.assemble.writers.parquet import dataset_features, write_parquet
    from reflong.assemble.writers.reflong_json import write_reflong_files
    from reflong.assemble.writers.stats import config_stats

    docs = (
        DocumentRecord(0, "2403.00001", 3, "paper a", {"version": 2}),
        DocumentRecord(1, "2401.00002", 4, "paper b", {"version": 1}),
    )
    task = TaskRecord(
        config="easy_30K",
        task_id=0,
        subset="Paper",
        setting="easy",
        length="30K",
        key="A Seed Title",
        documents=docs,
        answer=(0,),
        prompt="p",
        prompt_tokens=9,
        extra={"key_arxiv_id": "2403.09999", "evidence": [{"reference": "[1] A Seed Title", "score": 0.97}]},
    )
    features = dataset_features(
        {
            "key_arxiv_id": Value("string"),
            "evidence": List({"reference": Value("string"), "score": Value("float64")}),
        },
        {"version": Value("int32")},
    )
    path = write_parquet(tmp_path, "easy_30K", [task], features)
    row = Dataset.from_parquet(str(path))[0]
    assert row["key_arxiv_id"] == "2403.09999" and row["evidence"][0]["score"] == 0.97
    assert [d["version"] for d in row["documents"]] == [2, 1] and row["answer"] == [0]
    written = write_reflong_files(tmp_path, "easy_30K", [task], ".", ".")
    assert [p.name for p in written] == ["easy_30K.json", "easy_30K_answers.json"]
    assert written[1].read_bytes() == b'{"0": ["A Seed Title", [0]]}'
    stats = config_stats("easy_30K", [task])
    assert (
        stats.answer_sizes == {1: 1}
        and stats.prompt_tokens == (9, 9.0, 9)
        and stats.document_tokens == (3, 3.5, 4)
    )
    meta = CardMeta(("original",), "terms", (*SHARED_COLUMNS, ("key_arxiv_id", "the seed's id")))
    card = render_card("T", "d", [stats], {"seed": 0}, "o200k_base", {"easy_30K": "easy_30K.json"}, meta)
    assert (
        "| easy_30K | 1 | 2 | 1 | 1:1 | 1.00 | 9 / 9.0 / 9 | 3 / 3.5 / 4 |" in card
        and "| `key_arxiv_id` | the seed's id |" in card
    )
    manifest = write_manifest(tmp_path, "paper", {"seed": 0}, [], [*written, path], [stats])
    data = json.loads(manifest.read_text())
    assert [o["path"] for o in data["outputs"]] == [
        "data/easy_30K.parquet",
        "easy_30K.json",
        "easy_30K_answers.json",
    ]


def test_strategy_and_question_position_for_paper_and_f():
    """Issue 22, item 3: Paper and F take the strategy prompt and both placements, as A does."""
    for template in (prompts.paper_template(strategy=True), prompts.f_template(strategy=True)):
        assert template.name == "before_strategy"
        assert "build a dictionary while reading" in template.fill("k", topic="t")[0]
    last = prompts.f_template(question_last=True, strategy=True)
    head, tail = last.fill("an insight", topic="t")
    assert last.name == "ori_strategy" and "dictionary" in head and tail.startswith("Could you tell me")
    assert prompts.paper_template() == prompts.paper_template(False, False, "title")
    with pytest.raises(ValueError):
        prompts.paper_template(key_form="doi")
