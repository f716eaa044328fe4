"""The comparison of a rebuild with the previous build merges two sorted row streams (issue 12):
every kind of change is named once, in (difficulty, length, task) order."""

from __future__ import annotations

import json
from types import SimpleNamespace

from reflong.assemble.paper.stage import _describe_changes


def _row(difficulty, length, index, key, docs, answer):
    return SimpleNamespace(
        difficulty=difficulty,
        length=length,
        task_index=index,
        key_arxiv_id=key,
        documents_json=json.dumps(docs),
        answer_json=json.dumps(answer),
    )


def test_changes_merge_sorted_streams():
    old = [
        _row("easy", "30K", 0, "k1", ["a", "b", "c"], [0]),
        _row("easy", "30K", 1, "k1", ["a", "b"], [1]),
        _row("easy", "30K", 2, "k2", ["x"], [0]),
        _row("hard", "30K", 0, "k3", ["y"], [0]),
    ]
    new = [
        _row("easy", "30K", 0, "k1", ["a", "b", "c"], [0, 2]),  # c became a positive
        _row("easy", "30K", 1, "k1", ["a", "b"], [1]),  # unchanged
        _row("easy", "30K", 2, "k4", ["x"], [0]),  # another key
        _row("easy", "30K", 3, "k2", ["z"], [0]),  # new
    ]  # hard_30K#0 is gone
    verdicts = {("c", "k1"): ("confirm", "ann: cites it")}
    assert _describe_changes(iter(old), iter(new), verdicts) == [
        "easy_30K#0 (key k1): positives gained c (audit confirm, ann: cites it)",
        "easy_30K#2: key k2 -> k4 (the set of usable keys changed)",
        "easy_30K#3: new task (key k2)",
        "hard_30K#0: task gone (key k3)",
    ]
    assert _describe_changes(iter(old), iter(old), {}) == []
