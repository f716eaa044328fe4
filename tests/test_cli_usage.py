"""Usage errors look alike everywhere (issue 12, item 16): exit code 2, the option named, no traceback."""

from __future__ import annotations

import click
import pytest
from click.testing import CliRunner

from reflong.cli import main


@pytest.mark.parametrize(
    "args",
    [
        ["a", "--haystack", "{hay}", "--lengths", "foo"],
        ["f", "--summhay", "{summhay}", "--lengths", "foo"],
        ["paper", "--since", "2024-03", "--lengths", "foo"],
        ["a", "--haystack", "{hay}", "--lengths", "16K,8K"],  # must grow
        ["paper", "--since", "2024-03", "--lengths", "45K,30K"],
        ["a", "--haystack", "{hay}", "--lengths", "8K:3"],  # M from the budget in A/F
        ["paper", "--since", "2024-03", "--lengths", "30K:1"],
    ],
)
def test_bad_lengths_is_a_usage_error_naming_the_option(args, data_dir, tmp_path):
    args = [
        a.format(hay=data_dir / "pg_essays", summhay=data_dir / "summhay" / "topic_news1.json") for a in args
    ]
    args += ["--out", str(tmp_path / "o")] + (["--db", str(tmp_path / "s.db")] if args[0] == "paper" else [])
    res = CliRunner().invoke(main, args)
    assert res.exit_code == 2, res.output
    assert "Invalid value for '--lengths'" in res.output
    assert (
        "Traceback" not in res.output and not (tmp_path / "s.db").exists() and not (tmp_path / "o").exists()
    )


@pytest.mark.parametrize("option,value", [("--modes", "double"), ("--levels", "extreme")])
def test_bad_modes_and_levels_are_usage_errors(option, value, data_dir):
    res = CliRunner().invoke(main, ["a", "--haystack", str(data_dir / "pg_essays"), option, value])
    assert res.exit_code == 2 and f"Invalid value for '{option}'" in res.output, res.output


def _seed_options(command: click.Command, path: tuple[str, ...] = ()):
    """Every (command path, --seed option) under ``command``, groups walked recursively."""
    if isinstance(command, click.Group):
        for name, sub in sorted(command.commands.items()):
            yield from _seed_options(sub, (*path, name))
        return
    for param in command.params:
        if isinstance(param, click.Option) and "--seed" in param.opts:
            yield path, param


def test_every_random_seed_takes_the_same_range(tmp_path):
    """Issue 20, finding 8: synth-index, synth-catalog, eval baseline and eval run took --seed -1 and
    2**70 (eval run sent it to the endpoint). Every --seed is 0..2**63-1 (SQLite INTEGER, numpy),
    a usage error naming the option otherwise, before any work starts."""
    found = dict(_seed_options(main))
    assert ("edges",) not in found  # the seed paper there is --key (--seed was its old spelling)
    assert {("paper",), ("a",), ("f",), ("demo",), ("synth-index",), ("synth-catalog",)} <= set(found)
    assert {("eval", "baseline"), ("eval", "run")} <= set(found)
    for path, param in found.items():
        assert isinstance(param.type, click.IntRange), path
        assert (param.type.min, param.type.max) == (0, 2**63 - 1), path
        for bad in ("-1", str(2**70)):
            res = CliRunner().invoke(main, [*path, "--seed", bad], env={"REFLONG_DB": str(tmp_path / "s.db")})
            assert res.exit_code == 2, (path, bad, res.output)
            assert "Invalid value for '--seed'" in res.output
            assert (
                "is not in the range x>=0" if bad == "-1" else "above the largest seed, 2**63-1"
            ) in res.output
            assert "Traceback" not in res.output
    assert list(tmp_path.iterdir()) == []  # nothing was created on the way


def _tokenizer_commands(command: click.Command, path: tuple[str, ...] = ()):
    if isinstance(command, click.Group):
        for name, sub in sorted(command.commands.items()):
            yield from _tokenizer_commands(sub, (*path, name))
        return
    if any(isinstance(p, click.Option) and "--tokenizer" in p.opts for p in command.params):
        yield path


@pytest.mark.parametrize("kind", ["unknown", "missing file", "not a tokenizer"])
def test_a_bad_tokenizer_is_a_usage_error_before_any_work(kind, tmp_path, corpus_dir):
    """Issue 20, finding 8: `paper` caught a bad --tokenizer only after ingest had run. Every
    command's --tokenizer is loaded while the options are read: exit 2 naming the option, nothing
    created (no store, no output folder)."""
    work = tmp_path / "work"
    work.mkdir()
    bad = {"unknown": "o300k_base", "missing file": str(tmp_path / "nowhere.json")}.get(kind)
    if bad is None:
        bad = str(tmp_path / "tokenizer.json")
        (tmp_path / "tokenizer.json").write_text('{"not": "a tokenizer"}', encoding="utf-8")
    commands = set(_tokenizer_commands(main))
    assert {("paper",), ("parse",), ("a",), ("f",), ("eval", "run")} <= commands
    for path in sorted(commands):
        argv = [*path, "--tokenizer", bad]
        if path == ("paper",):  # a run that would otherwise ingest the local corpus first
            argv += ["--since", "2024-03", "--source", str(corpus_dir), "--out", str(work / "out")]
        res = CliRunner().invoke(main, argv, env={"REFLONG_DB": str(work / "s.db")})
        assert res.exit_code == 2, (path, res.output)
        assert "Invalid value for '--tokenizer'" in res.output, (path, res.output)
        assert res.output.strip().splitlines()[-1].count("Error") == 1 and "Traceback" not in res.output
        assert list(work.iterdir()) == [], (path, list(work.iterdir()))
