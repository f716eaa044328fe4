"""`reflong-build paper` end to end on the real corpus, through the local arXiv-protocol server.

The real `arxiv` client fetches metadata and PDFs from a server on 127.0.0.1 that serves
../shared/corpus; then parse, cite, resolve and assembly run for real. The checks use sources
independent of the pipeline where they exist: the hand-made labels for ground truth, the catalog's
own dates for date safety, the released Ref-Long files for the output format.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from reflong.cli import main
from reflong.common.tokenizer import get_tokenizer
from reflong.servers.arxiv_server import ArxivServer

LENGTHS = [("15K", 4), ("22K", 6), ("30K", 8)]
# --metadata api: the corpus knows papers at an unknown version (PDFs without a vN), which the API
# route keeps as such; arXivRaw (the OAI default) lists v1..vN, so their PDFs would be asked as v1.
ARGS = [
    "--metadata", "api",
    "--since", "2023-01", "--pool-months", "30", "--distractor-months", "12", "--categories", "",
    "--lengths", ",".join(f"{a}:{b}" for a, b in LENGTHS),
    "--difficulty", "easy", "--tasks", "12", "--seed", "3",
]  # fmt: skip


def _files(out: Path) -> dict[str, str]:
    return {
        p.relative_to(out).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(out.rglob("*"))
        if p.is_file()
    }


@pytest.fixture(scope="module")
def built(tmp_path_factory, corpus_dir):
    work = tmp_path_factory.mktemp("paper")
    db, out = work / "store.db", work / "out"
    seeds = corpus_dir / "seeds.jsonl"
    with ArxivServer(corpus_dir) as server:
        result = CliRunner().invoke(
            main,
            ["paper", *ARGS, "--db", str(db), "--cache", str(work / "cache"), "--arxiv-url", server.url, "--oai-url", server.oai_url,
             "--delay", "0", "--seeds", str(seeds), "--out", str(out)],
        )  # fmt: skip
    assert result.exit_code == 0, result.output
    return work, db, out, result.output


@pytest.mark.slow
def test_pipeline_summary_and_files(built):
    _work, _db, out, output = built
    assert "build 1: 36 tasks in 3 files" in output
    for label, _ in LENGTHS:
        assert (out / f"easy_{label}.json").is_file()
        assert (out / f"easy_{label}_answers.json").is_file()
        assert (out / "data" / f"easy_{label}.parquet").is_file()
    manifest = json.loads((out / "manifest.json").read_text())
    assert {o["path"] for o in manifest["outputs"]} >= {
        "README.md",
        "build_report.json",
        "easy_30K_answers.json",
    }
    assert all(p["pdf_sha256"] and p["version"] >= 0 for p in manifest["inputs"])
    card = (out / "README.md").read_text()
    assert "Ground truth checks" in card and "Papers that became documents" in card


@pytest.mark.slow
def test_fit_policy_makes_real_papers_documents(built):
    """Default --doc-policy fit: nearly every parsed paper becomes a document of the setting's size
    (with whole papers under 5,000 tokens none of the corpus papers would), by one rule for all."""
    _work, _db, out, _ = built
    docs = json.loads((out / "build_report.json").read_text())["documents"]
    assert docs["policy"] == "fit" and docs["papers"] >= 30
    assert docs["usable_share"] >= 0.9 and docs["reference_lists_sampled"] >= 0.8 * docs["papers"]
    assert 3500 <= docs["budget_tokens"] <= 3750  # (15,000 - head) / 4 - block: the tightest length
    tokens = docs["used_tokens"]
    assert tokens["n"] == docs["used"] >= 8 and tokens["max"] <= docs["budget_tokens"]
    assert tokens["min"] >= 0.9 * docs["budget_tokens"]  # real papers are all longer than the budget
    for row in _rows(out, "30K"):
        for doc in row["documents"]:
            refs = [ln for ln in doc["text"].splitlines() if ln.startswith("[")]
            numbers = [int(ln[1 : ln.index("]")]) for ln in refs if ln[1 : ln.find("]")].isdigit()]
            assert numbers == sorted(numbers)  # sampled entries keep the paper's order and numbering


@pytest.mark.slow
def test_answers_format_matches_release(built, data_dir):
    _work, _db, out, _ = built
    released = (data_dir / "reflong/Ref-Long-Paper/answers/easy_30K_answers.json").read_bytes()
    assert json.dumps(json.loads(released)).encode() == released  # the release's own byte format
    for label, n_docs in LENGTHS:
        raw = (out / f"easy_{label}_answers.json").read_bytes()
        assert json.dumps(json.loads(raw)).encode() == raw
        answers = json.loads(raw)
        assert list(answers) == [str(i) for i in range(12)]
        for key, idx in answers.values():
            assert isinstance(key, str) and idx == sorted(set(idx)) and idx and max(idx) < n_docs
        prompts = json.loads((out / f"easy_{label}.json").read_text())
        assert [v[0] for v in prompts.values()] == [v[0] for v in answers.values()]
        for key, prompt in prompts.values():
            assert prompt.startswith("You will find several papers indexed with numbers below.")
            assert f'could you tell me the indexes of all papers citing "{key}"?' in prompt
            assert prompt.count("}\n\n") >= n_docs


def _rows(out: Path, label: str) -> list[dict]:
    return pq.read_table(out / "data" / f"easy_{label}.parquet").to_pylist()


@pytest.mark.slow
def test_ground_truth_agrees_with_hand_labels(built, corpus_dir):
    """Every answer document that has hand labels cites the key there; no labelled negative is an answer."""
    _work, _db, out, _ = built
    labels = {}
    for line in (corpus_dir / "labels/dev.jsonl").read_text().splitlines():
        rec = json.loads(line)
        labels[rec["paper"]] = (
            {c["seed"] for c in rec["cites"]},
            {a["seed"] for a in rec.get("ambiguous", [])},
        )
    checked = 0
    for label, _ in LENGTHS:
        for row in _rows(out, label):
            for doc in row["documents"]:
                if doc["arxiv_id"] not in labels:
                    continue
                cites, ambiguous = labels[doc["arxiv_id"]]
                if row["key_arxiv_id"] in ambiguous:
                    continue
                assert (doc["index"] in row["answer"]) == (row["key_arxiv_id"] in cites), (
                    row["key"],
                    doc["doc_id"],
                )
                checked += 1
    assert checked >= 20


@pytest.mark.slow
def test_date_safety_and_cumulative_sampling(built, corpus_dir):
    _work, _db, out, _ = built
    first = {
        json.loads(x)["arxiv_id"]: json.loads(x)["published"]
        for x in (corpus_dir / "seeds.jsonl").read_text().splitlines()
    }
    version_date = {}
    for line in (corpus_dir / "papers.jsonl").read_text().splitlines():
        rec = json.loads(line)
        version_date[(rec["arxiv_id"], int((rec["version"] or "v0")[1:]))] = (
            rec["published"] or first[rec["arxiv_id"]]
        )
    by_length = {label: {r["task_id"]: r for r in _rows(out, label)} for label, _ in LENGTHS}
    for task_id, row in by_length["30K"].items():
        for doc in row["documents"]:
            if doc["index"] not in row["answer"]:
                assert version_date[(doc["arxiv_id"], doc["version"])] < first[row["key_arxiv_id"]]
        previous: set[str] = set()
        for label, n_docs in LENGTHS:
            r = by_length[label][task_id]
            ids = [d["doc_id"] for d in r["documents"]]
            assert len(ids) == n_docs and previous <= set(ids) and r["key"] == row["key"]
            assert {ids[i] for i in r["answer"]} == {row["documents"][i]["doc_id"] for i in row["answer"]}
            previous = set(ids)
        tok = get_tokenizer("o200k_base")
        assert tok.count(row["prompt"]) == row["prompt_tokens"]
        budget = json.loads((out / "build_report.json").read_text())["documents"]["budget_tokens"]
        assert all(tok.count(d["text"]) == d["n_tokens"] <= budget for d in row["documents"])
        for label, _ in LENGTHS:  # the fit budget keeps every prompt within its nominal size
            assert by_length[label][task_id]["prompt_tokens"] <= int(label[:-1]) * 1000
        assert all(e["reference"] and e["method"] in ("arxiv_id", "doi", "title") for e in row["evidence"])


@pytest.mark.slow
def test_rebuild_from_store_is_byte_identical(built, corpus_dir):
    work, db, out, _ = built
    seeds = str(corpus_dir / "seeds.jsonl")

    def rebuild(dest: Path, seed: str) -> str:
        args = [*ARGS[:-1], seed, "--db", str(db), "--reuse-db", "--seeds", seeds, "--out", str(dest)]
        result = CliRunner().invoke(main, ["paper", *args])
        assert result.exit_code == 0, result.output
        return result.output

    output = rebuild(work / "again", "3")
    assert "changed:" not in output  # same store, same settings: no task changed
    assert _files(work / "again") == _files(out)
    rebuild(work / "seed4", "4")
    assert _files(work / "seed4")["easy_30K_answers.json"] != _files(out)["easy_30K_answers.json"]


@pytest.mark.slow
def test_rebuild_after_verdicts_changes_positives_exactly(built, corpus_dir):
    """Audit verdicts win over the resolver in the next build, and the rebuild says what changed."""
    work, db, out, _ = built
    rows = _rows(out, "30K")
    task = next(r for r in rows if len(r["answer"]) >= 2)
    key, doc = task["key_arxiv_id"], task["documents"][task["answer"][0]]
    edge = f"{doc['doc_id']}->{key}"
    seeds = str(corpus_dir / "seeds.jsonl")

    def verdict(decision: str) -> None:
        result = CliRunner().invoke(
            main, ["audit", "verdict", edge, decision, "--why", "checked the PDF", "--db", str(db)]
        )
        assert result.exit_code == 0, result.output

    def rebuild(dest: Path) -> str:
        args = [*ARGS, "--db", str(db), "--reuse-db", "--seeds", seeds, "--out", str(dest)]
        result = CliRunner().invoke(main, ["paper", *args])
        assert result.exit_code == 0, result.output
        return result.output

    def positives_of_key(dest: Path) -> set[str]:
        return {
            r["documents"][i]["doc_id"]
            for r in _rows(dest, "30K")
            if r["key_arxiv_id"] == key
            for i in r["answer"]
        }

    assert doc["doc_id"] in positives_of_key(out)
    verdict("reject")
    output = rebuild(work / "rejected")
    assert f"{doc['doc_id']} (audit reject, " in output and "checked the PDF" in output
    assert doc["doc_id"] not in positives_of_key(work / "rejected")
    for r in _rows(work / "rejected", "30K"):  # never a positive of that key, in any task
        if r["key_arxiv_id"] == key:
            assert all(r["documents"][i]["doc_id"] != doc["doc_id"] for i in r["answer"])
    verdict("confirm")
    rebuild(work / "confirmed")
    assert positives_of_key(work / "confirmed") == positives_of_key(out)
    evidence = [
        e for r in _rows(work / "confirmed", "30K") if r["key_arxiv_id"] == key for e in r["evidence"]
    ]
    assert any(e["method"].endswith("+audit") for e in evidence if e["arxiv_id"] == doc["arxiv_id"])
