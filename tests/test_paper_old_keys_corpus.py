"""Keys older than the distractor window (issue 12, item 10), end to end on the real corpus; and
the same build rebuilt into its own --out with fewer settings (item 9: a build owns its outputs).

With `--seeds` keys from before the distractor window, papers of that window can cite a key; they
are true positives. Date safety applies to a task's negatives only. Before the fix this build
dropped 6 of its 15 tasks as "distractor ... is not dated before the key".
"""

from __future__ import annotations

import json

import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from reflong.cli import main
from reflong.servers.arxiv_server import ArxivServer

ARGS = [
    "--since", "2022-12", "--pool-months", "30", "--distractor-months", "12", "--categories", "",
    "--trim", "--max-doc-tokens", "4000", "--lengths", "4K:3,6K:4", "--difficulty", "easy",
    "--tasks", "15", "--seed", "3",
]  # fmt: skip


@pytest.fixture(scope="module")
def built(tmp_path_factory, corpus_dir):
    tmp_path = tmp_path_factory.mktemp("old_keys")
    out = tmp_path / "out"
    with ArxivServer(corpus_dir) as server:
        result = CliRunner().invoke(
            main,
            ["paper", *ARGS, "--db", str(tmp_path / "store.db"), "--cache", str(tmp_path / "cache"),
             "--arxiv-url", server.url, "--oai-url", server.oai_url, "--delay", "0", "--seeds", str(corpus_dir / "seeds.jsonl"),
             "--out", str(out)],
        )  # fmt: skip
    assert result.exit_code == 0, result.output
    return tmp_path, out, result.output


@pytest.mark.slow
def test_distractor_window_citers_of_older_keys_are_positives(built, corpus_dir):
    _tmp, out, output = built
    report = json.loads((out / "build_report.json").read_text())
    assert report["dropped_tasks"] == []
    assert "30 tasks in 2 files" in output  # 15 tasks x 2 lengths, none dropped
    first = {
        json.loads(x)["arxiv_id"]: json.loads(x)["published"]
        for x in (corpus_dir / "seeds.jsonl").read_text().splitlines()
    }
    papers = [json.loads(x) for x in (corpus_dir / "papers.jsonl").read_text().splitlines()]
    date = {
        (p["arxiv_id"], int((p["version"] or "v0")[1:])): p["published"] or first[p["arxiv_id"]]
        for p in papers
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


@pytest.mark.slow
def test_rebuild_into_the_same_out_removes_the_previous_builds_files(built, corpus_dir):
    tmp_path, out, _ = built
    db = str(tmp_path / "store.db")
    result = CliRunner().invoke(main, ["report", "--build", str(out), "--db", db])
    assert result.exit_code == 0, result.output
    assert (out / "report.html").is_file()
    (out / "notes.md").write_text("my notes")
    args = [*ARGS, "--db", db, "--reuse-db", "--seeds", str(corpus_dir / "seeds.jsonl"), "--out", str(out)]
    args[args.index("4K:3,6K:4")] = "6K:4"
    result = CliRunner().invoke(main, ["paper", *args])
    assert result.exit_code == 0, result.output
    manifest = json.loads((out / "manifest.json").read_text())
    listed = {o["path"] for o in manifest["outputs"]} | {"manifest.json"}
    on_disk = {p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()}
    assert on_disk == listed | {"notes.md"}
    assert not (out / "easy_4K.json").exists() and not (out / "report.html").exists()
    assert "removed 4 of its files" in result.output  # easy_4K json, answers, parquet; report.html


@pytest.mark.slow
def test_paper_card_is_a_valid_dataset_card_and_setting_is_the_difficulty(built, monkeypatch, tmp_path):
    from test_dataset_card import SHARED, check_card

    _tmp, out, _ = built
    monkeypatch.setenv("HF_DATASETS_CACHE", str(tmp_path / "hf_cache"))
    # one `setting` column, no `difficulty`; `release`: the window's seed month (issue 21)
    check_card(out, SHARED | {"key_arxiv_id", "key_license", "release", "evidence"})
    rows = pq.read_table(out / "data" / "easy_6K.parquet").to_pylist()
    assert {r["setting"] for r in rows} == {"easy"} and "difficulty" not in rows[0]
    window = json.loads((out / "manifest.json").read_text())["settings"]["window"]
    assert {r["release"] for r in rows} == {window.split(":")[0]}
    assert "## Ground truth checks" in (out / "README.md").read_text()


@pytest.mark.slow
def test_paper_manifest_and_card_name_the_resolver_that_decided_the_answers(built):
    """Provenance: the answers depend on the resolver's rules, so a paper build records its version
    and fingerprint (version + thresholds), as a release's ``release.json`` does."""
    from reflong.citations.thresholds import RESOLVER_VERSION, Thresholds

    _tmp, out, _ = built
    resolver = json.loads((out / "manifest.json").read_text())["settings"]["resolver"]
    assert resolver == {"version": RESOLVER_VERSION, "fingerprint": Thresholds().fingerprint()}
    assert RESOLVER_VERSION in (out / "README.md").read_text()
