"""A killed ``refresh`` remembers what it was started with (issue 41 item 5).

Why fast and in-process: what a rerun does first (which options it builds with, whether it refuses)
is decided before any request, so these tests kill the first run where a real one dies (its first
request fails: nothing listens on the port) and watch the rerun's options reach the build step
(``run_paper``, replaced by a recorder). tests/test_refresh.py kills and finishes a real release
against the stand-ins.
"""

from __future__ import annotations

import json
import socket

import pytest
from click.testing import CliRunner

from reflong.assemble.release.layout import START_FILE, read_start_record
from reflong.cli import main
from reflong.cli.release_options import recorded_options
from reflong.common.errors import ReflongError


def _dead_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _refresh(tmp_path, *args: str):
    port = _dead_port()
    argv = [
        "refresh", "--db", str(tmp_path / "s.db"), "--out", str(tmp_path / "releases"),
        "--oai-url", f"http://127.0.0.1:{port}/oai", "--arxiv-url", f"http://127.0.0.1:{port}",
        "--retries", "0", "--delay", "0", "--citation-index", "none", *args,
    ]  # fmt: skip
    return CliRunner().invoke(main, argv)


@pytest.fixture
def killed(tmp_path):
    """A first release started with --tasks 7 --lengths 30K whose run died at its first request."""
    result = _refresh(tmp_path, "--since", "2024-03", "--tasks", "7", "--lengths", "30K")
    assert result.exit_code == 1 and result.output.startswith("Error: "), result.output
    folder = tmp_path / "releases" / "2024-03"
    assert not (folder / "release.json").exists()
    return folder


def test_a_killed_first_release_records_the_options_it_was_started_with(killed):
    record = read_start_record(killed)
    assert record["release"] == "2024-03"
    assert (record["options"]["n_tasks"], record["options"]["lengths"]) == (7, "30K")
    assert (
        record["options"]["seed"] == 0 and "oai_url" not in record["options"]
    )  # the machine's, not the release's


def test_a_rerun_with_no_options_builds_the_killed_release_as_it_was_started(killed, monkeypatch):
    seen = {}

    def recorder(opts, **_):
        seen.update(opts)
        return None  # as --dry-run returns: nothing built

    monkeypatch.setattr("reflong.cli.refresh_cmd.run_paper", recorder)
    result = _refresh(killed.parents[1])  # no --since, no option: the unfinished release comes first
    assert result.exit_code == 0, result.output
    assert (seen["since"], seen["n_tasks"], seen["lengths"]) == ("2024-03", 7, "30K")
    # given again unchanged is no difference
    seen.clear()
    result = _refresh(killed.parents[1], "--tasks", "7")
    assert result.exit_code == 0, result.output
    assert seen["n_tasks"] == 7


def test_a_rerun_with_other_options_is_refused_naming_each(killed):
    result = _refresh(killed.parents[1], "--tasks", "100", "--lengths", "30K", "--seed", "3")
    assert result.exit_code == 2 and "Traceback" not in result.output
    message = " ".join(result.output.split())
    assert (
        "release 2024-03 was started with other options and did not finish: --tasks 7 (given: 100); --seed 0 (given: 3)."
        in message
    )
    assert f"remove {killed} and rerun with them" in message
    assert "--lengths" not in message  # the same value as recorded
    assert read_start_record(killed)["options"]["n_tasks"] == 7  # the record is kept


def test_a_start_record_or_release_json_of_the_wrong_shape_is_a_clear_error(killed):
    path = killed / START_FILE
    record = json.loads(path.read_text())
    record["options"] = "--tasks 7"
    path.write_text(json.dumps(record))
    result = _refresh(killed.parents[1])
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert "'options' is a string ('--tasks 7'), expected an object of option values" in result.output
    # an option of the wrong type, never a silent default
    with pytest.raises(
        ReflongError, match=r"release.json: option --tasks is a string \('7'\), expected a whole number"
    ):
        recorded_options({"options": {"n_tasks": "7"}})
    with pytest.raises(ReflongError, match="option --categories is a string"):
        recorded_options({"options": {"categories": "cs.CL"}})
    with pytest.raises(ReflongError, match="option --trim is a number, expected true or false"):
        recorded_options({"options": {"trim": 1}})
    assert recorded_options({"options": {"max_papers": None, "ref_share": 1, "licenses": ["cc-by"]}}) == {
        "max_papers": None,
        "ref_share": 1,
        "licenses": ("cc-by",),
    }
    path.write_text("[1, 2]")
    result = _refresh(killed.parents[1])
    assert result.exit_code == 1 and "is not a reflong-build release start record" in result.output
