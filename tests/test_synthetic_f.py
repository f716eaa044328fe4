"""Ref-Long-F without the preset: SummHay haystacks, insight keys, bad files, question-last wording."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from reflong.cli import main


@pytest.fixture(scope="module")
def summhay(data_dir: Path) -> Path:
    return data_dir / "summhay"


@pytest.fixture(scope="module")
def built(tmp_path_factory, summhay: Path) -> Path:
    out = tmp_path_factory.mktemp("f_default")
    bad = out.parent / "broken.json"
    bad.write_text('{"topic": "x", "documents": []}')  # no subtopics: skipped with a message
    args = [
        "f",
        "--summhay",
        str(summhay / "topic_news1.json"),
        "--summhay",
        str(summhay / "topic_news4.json"),
    ]
    args += [
        "--summhay",
        str(bad),
        "--lengths",
        "8K,16K,72K",
        "--tasks",
        "40",
        "--question-last",
        "--out",
        str(out),
    ]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    (out.parent / "f_output.txt").write_text(result.output)  # stdout and stderr, as a terminal shows them
    return out


@pytest.mark.slow
def test_answers_are_every_document_holding_the_insight(built: Path, summhay: Path):
    from datasets import Dataset

    hay = json.loads((summhay / "topic_news4.json").read_text())
    insight_of = {i["insight_id"]: i["insight"] for s in hay["subtopics"] for i in s["insights"]}
    text_to_ids = {d["document_text"]: set(d["insights_included"]) for d in hay["documents"]}
    by_id = {d["document_id"]: d for d in hay["documents"]}
    for length, m in (("8K", 8), ("16K", 16), ("72K", 72)):
        answers = json.loads((built / "answers" / f"twitter_{length}_answers.json").read_text())
        rows = Dataset.from_parquet(str(built / "data" / f"twitter_{length}.parquet"))
        assert len(answers) == 40 == len(rows)
        for row in rows:
            key, idx = answers[str(row["task_id"])]
            assert row["key"] == key and row["answer"] == idx and row["n_documents"] == m
            docs = row["documents"]
            assert [by_id[d["doc_id"]]["document_text"] for d in docs] == [d["text"] for d in docs]
            ids = {i for i, text in insight_of.items() if text == key}
            assert len(ids) == 1
            (insight_id,) = ids
            assert idx == [d["index"] for d in docs if insight_id in text_to_ids[d["text"]]]
            first8 = set().union(*(text_to_ids[d["text"]] for d in docs[:8]))
            assert insight_id in first8  # keys come from the first 8 documents


@pytest.mark.slow
def test_question_last_wording_and_topic(built: Path):
    data = json.loads((built / "ori" / "twitter_8K.json").read_text())
    key, prompt = data["0"]
    assert prompt.startswith(
        "You will find several documents indexed with numbers below. Each document contains one or more "
        "insights (statements that contain specific information about the given topic 'Recent Developments "
        "and Challenges in Twitter's Algorithms and Services') in the format of sentences. Please read "
        "through these documents carefully and answer some questions.\n\n0: {"
    )
    assert prompt.endswith(
        f'}}\n\nCould you tell me the indexes of all documents talking about the insight "{key}"? '
        'Please provide your answer in the following format without explanations: "Documents: {}".'
    )


@pytest.mark.slow
def test_bad_file_skipped_other_topics_named_by_file(built: Path):
    out_text = (built.parent / "f_output.txt").read_text()
    assert "skipped: broken.json is not a SummHay haystack" in out_text
    manifest = json.loads((built / "manifest.json").read_text())
    assert sorted(manifest["settings"]["topics"]) == ["topic_news1", "twitter"]
    assert [i["path"] for i in manifest["inputs"]] == ["summhay/topic_news1.json", "summhay/topic_news4.json"]
    assert (built / "answers" / "topic_news1_72K_answers.json").is_file()


@pytest.mark.slow
def test_too_long_for_the_haystack_is_a_clear_error(summhay: Path, tmp_path: Path):
    res = CliRunner().invoke(
        main,
        ["f", "--summhay", str(summhay / "topic_news4.json"), "--lengths", "8K,128K", "--out", str(tmp_path)],
    )
    assert res.exit_code == 1 and "only 100 candidates" in res.output and "Traceback" not in res.output
