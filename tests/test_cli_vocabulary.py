"""One name per idea across commands (issue 38): old spellings keep working for a release with one
warning line, and ``--help`` lists the common options first."""

from __future__ import annotations

import json
import re
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from reflong.cli import main
from reflong.cli.command import REMOVED_IN, ReflongCommand, ReflongGroup, Renamed, rewrite_old_spellings


def _commands(group: click.Group, path: tuple[str, ...] = ()):
    for name, command in sorted(group.commands.items()):
        yield (*path, name), command
        if isinstance(command, click.Group):
            yield from _commands(command, (*path, name))


def _flags(command: click.Command) -> set[str]:
    return {o for p in command.params if isinstance(p, click.Option) for o in (*p.opts, *p.secondary_opts)}


# Every old spelling, as a user typed it before 0.2, and the same call in today's names. The
# comparison is of what click parses (no command body runs), so each pair must give equal params.
def _old_and_new(tmp: Path) -> dict[tuple[tuple[str, ...], str], tuple[list[str], list[str]]]:
    t = str(tmp)
    return {
        (("report",), "--out"): (["--out", t], ["--build", t]),
        (("report",), "--build"): (["--out", t, "--build", "3"], ["--build", t, "--build-id", "3"]),
        (("audit",), "--out"): (["--out", t], ["--build", t]),
        (("audit",), "--build"): (["--build", "3"], ["--build-id", "3"]),
        (("audit", "export"), "--out"): (["--csv", "r.csv", "--out", t], ["--csv", "r.csv", "--build", t]),
        (("audit", "export"), "--build"): (
            ["--csv", "r.csv", "--build", "7"],
            ["--csv", "r.csv", "--build-id", "7"],
        ),
        (("eval", "score"), "--answers"): (
            ["--answers", t, "--predictions", t],
            ["--build", t, "--predictions", t],
        ),
        (("eval", "baseline"), "--answers"): (["--answers", t], ["--build", t]),
        (("match",), "--format"): (
            ["--seeds", "s", "--entries", "e", "--format", "text"],
            ["--seeds", "s", "--entries", "e", "--format", "table"],
        ),
        (("demo",), "--lengths"): (["--lengths", "demo"], ["--paper-lengths", "demo"]),
        (("demo",), "--format"): (["--format=text"], ["--format=table"]),
        (("synth-arxiv",), "--lengths"): (
            ["--out", t, "--lengths", "real"],
            ["--out", t, "--paper-lengths", "real"],
        ),
        (("synth-arxiv",), "--jobs"): (["--out", t, "--jobs", "2"], ["--out", t, "--workers", "2"]),
        (("human",), "--tasks"): (
            ["--build", t, "--out", "o", "--annotator", "a", "--tasks", "5"],
            ["--build", t, "--out", "o", "--annotator", "a", "--limit", "5"],
        ),
        (("edges",), "--seed"): (["--seed", "Llama 2"], ["--key", "Llama 2"]),
    }


def _renames():
    for path, command in _commands(main):
        for rule in getattr(command, "renamed", ()):
            yield path, command, rule


def test_every_old_spelling_parses_as_its_new_one(tmp_path):
    cases = _old_and_new(tmp_path)
    found = {(path, rule.old) for path, _command, rule in _renames()}
    assert found == set(cases), "a rename without a case here, or a case without a rename"
    for path, command, rule in _renames():
        old, new = cases[(path, rule.old)]
        assert rule.new in _flags(command) or rule.value is not None, (path, rule)
        if rule.value is None and rule.when is None:
            assert rule.old not in _flags(command), f"{path}: {rule.old} still names an option of its own"
        name = " ".join(path)
        parsed_old = command.make_context(name, list(old)).params
        parsed_new = command.make_context(name, list(new)).params
        assert parsed_old == parsed_new, (path, rule.old)


def test_an_old_spelling_gives_the_same_output_with_one_warning_line(tmp_path):
    seeds = tmp_path / "seeds.jsonl"
    seeds.write_text(
        json.dumps(
            {
                "arxiv_id": "2403.00001",
                "title": "Attention sinks in long context models",
                "published": "2024-03-01",
            }
        )
        + "\n"
    )
    entries = tmp_path / "entries.jsonl"
    entries.write_text(
        json.dumps(
            {
                "id": "e1",
                "citing": "2405.00002",
                "raw": "A. Author. Attention sinks in long context models. 2024.",
            }
        )
        + "\n"
    )
    runner = CliRunner()
    base = ["match", "--seeds", str(seeds), "--entries", str(entries)]
    new = runner.invoke(main, [*base, "--format", "table"])
    old = runner.invoke(main, [*base, "--format", "text"])
    assert new.exit_code == old.exit_code == 0, old.output
    assert old.stdout == new.stdout and "\taccept\t2403.00001\t" in new.stdout
    assert old.stderr.splitlines()[0] == (
        f"warning: reflong-build match: --format text is now --format table; the old spelling works until {REMOVED_IN}"
    )
    assert "--format text" not in new.stderr


def test_an_option_given_under_both_names_is_a_usage_error(tmp_path):
    result = CliRunner().invoke(main, ["edges", "--db", str(tmp_path / "s.db"), "--seed", "a", "--key", "b"])
    assert result.exit_code == 2
    assert "--seed and --key are one option (--seed is its old spelling); give --key only" in result.output
    assert not (tmp_path / "s.db").exists()


def test_a_build_folder_named_like_a_number_is_a_folder_not_a_build_id(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "3").mkdir()
    rules = main.commands["report"].renamed
    assert rewrite_old_spellings("report", ["--build", "3"], rules) == ["--build", "3"]
    assert rewrite_old_spellings("report", ["--build", "4"], rules) == ["--build-id", "4"]
    assert rewrite_old_spellings("report", ["--build=4", "--out=x"], rules) == ["--build-id=4", "--build=x"]


def test_nothing_after_a_double_dash_is_rewritten():
    rules = (Renamed("--lengths", "--paper-lengths"),)
    args = ["--lengths", "demo", "--", "--lengths", "30K"]
    assert rewrite_old_spellings("demo", args, rules) == ["--paper-lengths", "demo", "--", "--lengths", "30K"]


def _grouped():
    return [
        (path, c) for path, c in _commands(main) if isinstance(c, (ReflongCommand, ReflongGroup)) and c.common
    ]


def test_common_options_name_real_options_and_help_lists_each_option_once():
    grouped = dict(_grouped())
    assert {("paper",), ("refresh",), ("ingest",)} <= set(grouped)
    for path, command in grouped.items():
        names = {p.name for p in command.params}
        assert set(command.common) <= names, (path, set(command.common) - names)
        text = CliRunner().invoke(main, [*path, "--help"], terminal_width=80).output
        head, _, advanced = text.partition("\nAdvanced options:\n")
        assert advanced, path
        before = head.count("\n") + 1
        assert before <= 40, f"{path}: {before} lines before the advanced heading"
        for param in command.params:
            if isinstance(param, click.Option) and not param.hidden:
                flag = max(param.opts, key=len)
                shown = len(re.findall(rf"^  (?:-\w, )?{re.escape(flag)}(?=[ ,/]|$)", text, flags=re.M))
                assert shown == 1, (path, flag, shown)
                assert (param.name in command.common) == (
                    re.search(rf"^  (?:-\w, )?{re.escape(flag)}(?=[ ,/]|$)", head, flags=re.M) is not None
                ), (path, flag)


@pytest.mark.parametrize("command", ["paper", "refresh"])
def test_the_common_options_show_their_defaults(command):
    head = (
        CliRunner().invoke(main, [command, "--help"], terminal_width=80).output.split("Advanced options:")[0]
    )
    words = " ".join(head.split())
    for shown in ("[default: 30K,45K,60K,75K]", "[default: 100; x>=1]", "[default: reflong.db]"):
        assert shown in words, (command, shown)
