"""Usage errors look alike everywhere (issue 12, item 16): exit code 2, the option named, no traceback."""

from __future__ import annotations

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
