"""`reflong-build demo`: the newcomer's one command, checked against the generator's known truth.

The synthetic arXiv knows which paper (at which version) cites which seed, independently of the
PDF parser and the resolver, so every answer of every task can be checked against it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from reflong.cli import main


@pytest.fixture(scope="module")
def demo_out(tmp_path_factory) -> tuple[Path, str]:
    out = tmp_path_factory.mktemp("demo") / "run"
    result = CliRunner().invoke(main, ["demo", "--out", str(out)])
    assert result.exit_code == 0, result.output
    return out, result.output


@pytest.mark.slow
def test_demo_prints_where_outputs_are(demo_out):
    out, output = demo_out
    assert f"done: outputs in {out / 'paper'}" in output
    assert "build 1: 800 tasks in 8 files" in output
    assert "distractor false positives 0" in output and "dropped tasks 0" in output
    # the lexical baseline finds every exact title the synthetic papers print: the demo says why
    notes = [
        line for line in output.splitlines() if line.startswith("note: the lexical baseline's ExAcc is 1.000")
    ]
    assert len(notes) == 1 and "exact title" in notes[0] and "--key-form abstract" in notes[0], output


@pytest.mark.slow
def test_every_answer_matches_the_generators_truth(demo_out):
    out, _ = demo_out
    truth: dict[tuple[str, int], set[str]] = {}
    dates: dict[tuple[str, int], str] = {}
    for line in (out / "catalog/truth.jsonl").read_text().splitlines():
        rec = json.loads(line)
        version = int(rec["version"].lstrip("v"))
        truth[(rec["paper"], version)] = {c["seed"] for c in rec["cites"]}
        dates[(rec["paper"], version)] = rec["published"]
    first = {
        json.loads(x)["arxiv_id"]: json.loads(x)["published"]
        for x in (out / "catalog/seeds.jsonl").read_text().splitlines()
    }
    n_checked = 0
    for path in sorted((out / "paper/data").glob("*.parquet")):
        for row in pq.read_table(path).to_pylist():
            key = row["key_arxiv_id"]
            for doc in row["documents"]:
                cites = key in truth[(doc["arxiv_id"], doc["version"])]
                assert cites == (doc["index"] in row["answer"]), (path.name, row["task_id"], doc["doc_id"])
                if not cites and doc["arxiv_id"] < key:  # an earlier paper: a distractor
                    assert dates[(doc["arxiv_id"], doc["version"])] < first[key]
                n_checked += 1
    assert n_checked > 8000


@pytest.mark.slow
def test_hard_tasks_have_four_or_five_positives_and_confusers(demo_out):
    out, _ = demo_out
    answers = json.loads((out / "paper/hard_75K_answers.json").read_text())
    assert len(answers) == 100 and {len(v[1]) for v in answers.values()} <= {4, 5}
    easy = json.loads((out / "paper/easy_30K_answers.json").read_text())
    assert {len(v[1]) for v in easy.values()} <= {2, 3, 4, 5}
    report = json.loads((out / "paper/build_report.json").read_text())
    assert report["keys_used"]["hard"] and report["dropped_tasks"] == []


@pytest.mark.slow
def test_the_printed_next_commands_work_on_what_the_demo_built(demo_out):
    """The demo prints follow-up commands (issue 12, item 13); each runs as printed, and run in
    the printed order none undoes an earlier one (issue 20, finding 10c: `paper --reuse-db` owns
    its --out and used to remove the report.html written one step before)."""
    import shlex

    out, output = demo_out
    lines = [
        line.split("#")[0].strip() for line in output.splitlines() if line.startswith("  reflong-build ")
    ]
    assert [shlex.split(line)[1] for line in lines] == ["audit", "paper", "report"]
    results = {}
    seen: set[str] = set()
    for line in lines:
        args = shlex.split(line)[1:]
        result = CliRunner().invoke(main, args)
        assert result.exit_code == 0, (line, result.output)
        results[args[0]] = result.output
        # SQLite's own -wal/-shm files come and go with connections (the last one to close
        # checkpoints and removes them): they are not anything a command wrote for the user.
        now = {
            str(p.relative_to(out))
            for p in out.rglob("*")
            if p.is_file() and not p.name.endswith(("-wal", "-shm"))
        }
        assert seen <= now, (line, sorted(seen - now))  # nothing an earlier command wrote is gone
        seen = now
    assert (out / "paper" / "report.html").is_file()
    assert "build 2: 800 tasks in 8 files" in results["paper"] and "changed:" not in results["paper"]
    assert "removed" not in results["paper"]
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    for line in lines:  # the README shows the same commands (with the default --out)
        assert line.replace(str(out), "reflong-demo") in readme


@pytest.mark.slow
@pytest.mark.parametrize(
    "argv",
    [
        ["stats"],
        ["paper", "--reuse-db", "--since", "2024-03", "--pool-months", "6", "--distractor-months", "6"],
    ],
)
def test_a_damaged_copy_of_the_demo_store_is_one_line_and_writes_nothing(demo_out, tmp_path, argv):
    # issue 38: random bytes written into the store's second page gave `stats` and `paper` a
    # 77-86-line SQLAlchemy traceback
    import random
    import shutil

    out, _ = demo_out
    db = tmp_path / "store.db"
    shutil.copyfile(out / "store.db", db)
    with db.open("r+b") as f:
        f.seek(4096)
        f.write(random.Random(0).randbytes(4096))
    target = tmp_path / "paper"
    extra = ["--out", str(target)] if argv[0] == "paper" else []
    result = CliRunner().invoke(main, [argv[0], "--db", str(db), *argv[1:], *extra])
    assert result.exit_code == 1, result.output
    assert result.output.strip().splitlines() == [
        f"Error: the store {db} is damaged (database disk image is malformed); check it with "
        f"`sqlite3 {db} 'PRAGMA integrity_check'` and restore it from a copy, or salvage what is left "
        f"with `sqlite3 {db} .recover`"
    ]
    assert not target.exists()
