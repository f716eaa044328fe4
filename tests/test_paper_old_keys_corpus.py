"""Keys older than the distractor window (issue 12, item 10), end to end on the real corpus.

With `--seeds` keys from before the distractor window, papers of that window can cite a key; they
are true positives. Date safety applies to a task's negatives only. Before the fix this build
dropped 6 of its 15 tasks as "distractor ... is not dated before the key".
"""

from __future__ import annotations

import json

import pyarrow.parquet as pq
from click.testing import CliRunner

from reflong.cli import main
from reflong.servers.arxiv_server import ArxivServer

ARGS = [
    "--since", "2022-12", "--pool-months", "30", "--distractor-months", "12", "--categories", "",
    "--trim", "--max-doc-tokens", "4000", "--lengths", "4K:2,6K:3", "--difficulty", "easy",
    "--tasks", "15", "--seed", "3",
]  # fmt: skip


def test_distractor_window_citers_of_older_keys_are_positives(tmp_path, corpus_dir):
    out = tmp_path / "out"
    with ArxivServer(corpus_dir) as server:
        result = CliRunner().invoke(
            main,
            ["paper", *ARGS, "--db", str(tmp_path / "store.db"), "--cache", str(tmp_path / "cache"),
             "--arxiv-url", server.url, "--delay", "0", "--seeds", str(corpus_dir / "seeds.jsonl"),
             "--out", str(out)],
        )  # fmt: skip
    assert result.exit_code == 0, result.output
    report = json.loads((out / "build_report.json").read_text())
    assert report["dropped_tasks"] == []
    assert "30 tasks in 2 files" in result.output  # 15 tasks x 2 lengths, none dropped
    first = {
        json.loads(x)["arxiv_id"]: json.loads(x)["published"]
        for x in (corpus_dir / "seeds.jsonl").read_text().splitlines()
    }
    papers = [json.loads(x) for x in (corpus_dir / "papers.jsonl").read_text().splitlines()]
    date = {
        (p["arxiv_id"], int((p["version"] or "v0")[1:])): p["published"] or first[p["arxiv_id"]] for p in papers
    }
    window = ("2021-12-01", "2022-12-01")  # the distractor window of --since 2022-12, 12 months
    late_positives = 0
    for row in pq.read_table(out / "data" / "easy_6K.parquet").to_pylist():
        for doc in row["documents"]:
            d = date[(doc["arxiv_id"], doc["version"])]
            if doc["index"] in row["answer"]:
                late_positives += window[0] <= d < window[1]
            else:
                assert d < first[row["key_arxiv_id"]]  # negatives stay date-safe
    assert late_positives > 0  # distractor-window papers citing an older key are in the answers
