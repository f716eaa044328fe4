"""An output format is one class with open/add/close/abort, named once in ``formats.FORMATS``.

Shown with a format that exists only here (JSON Lines, one line per task): plugged into the list,
a real build writes it for every configuration and lists it in the manifest, the other formats'
bytes do not change, and a failure mid-stream or while closing leaves no file of the configuration.
"""

from __future__ import annotations

import errno
import json
import os
from pathlib import Path

import pytest

from reflong.assemble.prompts import a_template
from reflong.assemble.records import TaskRecord
from reflong.assemble.synthetic.build import Candidate, Length, SettingSpec, run_build
from reflong.assemble.writers import formats
from reflong.assemble.writers.base import OutputSpec, StagedFiles
from reflong.common.errors import ReflongError
from reflong.common.hashing import sha256_file
from reflong.common.tokenizer import get_tokenizer


class JsonlWriter:
    """``jsonl/<config>.jsonl``: ``{"task_id", "key", "answer"}`` per line, in task order."""

    def __init__(self) -> None:
        self._files = StagedFiles()

    @classmethod
    def for_spec(cls, spec: OutputSpec) -> JsonlWriter:
        return cls()

    def open(self, out_dir: Path, config: str) -> None:
        self._files = StagedFiles()
        self._fh = self._files.open(Path(out_dir) / "jsonl" / f"{config}.jsonl")

    def add(self, task: TaskRecord) -> None:
        line = {"task_id": task.task_id, "key": task.key, "answer": list(task.answer)}
        self._fh.write(json.dumps(line).encode() + b"\n")

    def close(self) -> list[Path]:
        return self._files.commit()

    def abort(self) -> None:
        self._files.discard()


def _build(out: Path, write_dataset: bool = True):
    """A small A-style build from made-up documents: one setting, two lengths, three tasks."""
    candidates = [Candidate(f"doc{i}", f"Document {i} counts {i % 3} stars.", (i % 3,)) for i in range(12)]
    return run_build(
        out,
        "test",
        "Toy",
        "Made-up documents.",
        [SettingSpec("a", "toy", candidates, seed=5)],
        [Length("2K", 2), Length("4K", 4)],
        a_template(),
        n_tasks=3,
        reseed_each_length=False,
        tokenizer=get_tokenizer(),
        settings={"seed": 5},
        inputs=[],
        write_dataset=write_dataset,
    )


def _files(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()
    }


def test_a_format_named_in_the_list_is_written_by_a_real_build(tmp_path, monkeypatch):
    plain = _files(_build(tmp_path / "plain").manifest.parent)
    monkeypatch.setattr(formats, "FORMATS", (*formats.FORMATS, JsonlWriter))
    out = tmp_path / "with-jsonl"
    result = _build(out)
    written = _files(out)

    assert sorted(k for k in written if k.startswith("jsonl/")) == [
        "jsonl/toy_2K.jsonl",
        "jsonl/toy_4K.jsonl",
    ]
    for config in ("toy_2K", "toy_4K"):
        lines = [json.loads(x) for x in written[f"jsonl/{config}.jsonl"].decode().splitlines()]
        prompts = json.loads(written[f"before/{config}.json"])
        answers = json.loads(written[f"answers/{config}_answers.json"])
        assert [str(x["task_id"]) for x in lines] == list(prompts) == list(answers) == ["0", "1", "2"]
        for x in lines:
            assert [x["key"], x["answer"]] == answers[str(x["task_id"])]
            assert x["key"] == prompts[str(x["task_id"])][0]
    manifest = json.loads(written["manifest.json"])
    listed = {o["path"]: o["sha256"] for o in manifest["outputs"]}
    assert listed["jsonl/toy_4K.jsonl"] == sha256_file(out / "jsonl" / "toy_4K.jsonl")
    assert out / "jsonl" / "toy_2K.jsonl" in result.files
    # the other formats are untouched by the new one (the manifest differs: it lists the new files)
    assert {k: v for k, v in written.items() if not k.startswith("jsonl/") and k != "manifest.json"} == {
        k: v for k, v in plain.items() if k != "manifest.json"
    }


def test_a_format_failing_mid_stream_leaves_no_file(tmp_path, monkeypatch):
    class FailsAtSecondTask(JsonlWriter):
        def add(self, task: TaskRecord) -> None:
            super().add(task)
            if task.task_id == 1:
                raise RuntimeError("the format failed half-way")

    monkeypatch.setattr(formats, "FORMATS", (*formats.FORMATS, FailsAtSecondTask))
    with pytest.raises(RuntimeError, match="half-way"):
        _build(tmp_path / "out")
    assert [p for p in (tmp_path / "out").rglob("*") if p.is_file()] == []


def test_a_failure_while_closing_removes_the_files_already_closed(tmp_path, monkeypatch):
    """The formats close one after the other; when the last one fails (disk full), the JSON and
    parquet files already renamed into place go too: a configuration is whole or absent."""

    class DiskFullOnClose(JsonlWriter):
        def close(self) -> list[Path]:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(formats, "FORMATS", (*formats.FORMATS, DiskFullOnClose))
    with pytest.raises(ReflongError, match="No space left on device while writing toy_2K"):
        _build(tmp_path / "out")  # one line naming the configuration and the folder
    assert [p for p in (tmp_path / "out").rglob("*") if p.is_file()] == []


def test_a_format_can_decline_a_spec(tmp_path):
    """``for_spec`` returns None when a build does not want the format (parquet under --no-dataset)."""
    assert [type(w).__name__ for w in formats.format_writers(OutputSpec())] == ["ReflongJsonWriter"]
    _build(tmp_path / "out", write_dataset=False)
    assert not (tmp_path / "out" / "data").exists()
