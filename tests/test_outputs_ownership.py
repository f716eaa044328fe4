"""A build owns its outputs (issue 12, item 9): a reused --out keeps no file of the previous build.

Rebuilding with fewer settings into the same folder must leave exactly the files the new manifest
lists (plus the manifest), never delete a file the tool did not write, and say what it removed.
"""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from reflong.assemble.outputs_ownership import claim_outputs
from reflong.cli import main


def _run(args: list[str]) -> str:
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    return result.output


def _on_disk(out: Path) -> set[str]:
    return {p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()}


def _listed(out: Path) -> set[str]:
    manifest = json.loads((out / "manifest.json").read_text())
    return {o["path"] for o in manifest["outputs"]} | {"manifest.json"}


def test_a_rerun_with_fewer_settings_keeps_only_its_own_files(tmp_path, data_dir):
    out = tmp_path / "a"
    base = ["a", "--haystack", str(data_dir / "pg_essays"), "--out", str(out), "--tasks", "3"]
    _run([*base, "--modes", "single,multi", "--levels", "easy,hard", "--lengths", "8K,16K"])
    first = _on_disk(out)
    # 8 configurations x (prompts, answers, parquet) + card + eval/baselines.json + manifest
    assert len(first) == 8 * 3 + 3
    (out / "notes.txt").write_text("mine")  # the user's own file
    (out / "answers" / "mine_answers.json").write_text("{}")  # even in a folder the tool writes
    (out / "eval" / "my_model.json").write_text("{}")  # e.g. a model's scores beside the baselines
    output = _run([*base, "--modes", "single", "--levels", "easy", "--lengths", "8K", "--question-last"])
    assert _on_disk(out) == _listed(out) | {"notes.txt", "answers/mine_answers.json", "eval/my_model.json"}
    assert len(_listed(out)) == 6  # 1 configuration x 3 + card + baselines + manifest
    assert not (out / "before").exists()  # a folder only the old build used is gone
    # 24 old outputs + card; the answers and parquet of single_stars_easy_8K and the card are rewritten
    assert "removed 22 of its files" in output
    assert (out / "notes.txt").read_text() == "mine"


def test_f_rerun_with_fewer_lengths(tmp_path, data_dir):
    out = tmp_path / "f"
    base = ["f", "--summhay", str(data_dir / "summhay" / "topic_news1.json"), "--out", str(out)]
    _run([*base, "--lengths", "8K,16K", "--tasks", "3", "--no-dataset"])
    assert len(_on_disk(out)) == 2 * 2 + 3
    output = _run([*base, "--lengths", "8K", "--tasks", "3", "--no-dataset"])
    assert _on_disk(out) == _listed(out) and len(_listed(out)) == 5
    assert "removed 2 of its files" in output


def test_edited_or_foreign_files_are_never_removed(tmp_path):
    out = tmp_path / "o"
    (out / "sub").mkdir(parents=True)
    (out / "sub" / "x.json").write_text("edited by hand")
    (out / "y.json").write_text("y")
    (out / "report.html").write_text("<html>not ours</html>")
    manifest = {
        "tool": "reflong-build",
        "outputs": [
            {"path": "sub/x.json", "sha256": "0" * 64},  # bytes changed since the build wrote it
            {"path": "../outside.json", "sha256": "0" * 64},  # never outside --out
            {"path": "y.json", "sha256": "a1fce4363854ff888cff4b8e7875d600c2682390412a8cf79b37d0b11148b0fa"},
        ],
    }
    (out / "manifest.json").write_text(json.dumps(manifest))
    (tmp_path / "outside.json").write_text("{}")
    removed = claim_outputs(out).finish([])
    assert removed == ["y.json"]
    assert (out / "sub" / "x.json").is_file() and (tmp_path / "outside.json").is_file()
    assert (out / "report.html").is_file()
