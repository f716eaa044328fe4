"""The docs' stand-in examples run as written (issue 20, finding 10a/10b).

Each test takes a fenced code block from a docs page, starts the stand-in server with the
documented command (only the port changed to a free one, ``../shared`` to where it is), runs the
documented ``reflong-build`` commands against it as a user would (a subprocess, in an empty
folder) and checks their exit codes and summaries. A page edited into an example that does not
work fails here, not in front of a newcomer.
"""

from __future__ import annotations

import re
import shlex
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
CLI = (
    str(Path(sys.executable).with_name("reflong-build"))
    if Path(sys.executable).with_name("reflong-build").exists()
    else shutil.which("reflong-build")
)
BLOCK = re.compile(r"^[ \t]*```[a-z]*\n(.*?)^[ \t]*```", re.S | re.M)


def _block(page: str, marker: str) -> list[list[str]]:
    """The commands of the first fenced block of ``page`` holding ``marker``, each split as a shell
    would (comments and a trailing ``&`` dropped)."""
    for m in BLOCK.finditer((REPO / page).read_text(encoding="utf-8")):
        if marker in m.group(1):
            commands = [shlex.split(line, comments=True) for line in m.group(1).splitlines()]
            return [[a for a in c if a != "&"] for c in commands if c]
    raise AssertionError(f"no code block in {page} holds {marker!r}")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _swap(args: list[str], old: dict[str, str]) -> list[str]:
    out = []
    for a in args:
        for k, v in old.items():
            a = a.replace(k, v)
        out.append(a)
    return out


class _Server:
    """A documented ``python -m reflong.servers...`` line as a child process, port swapped."""

    def __init__(self, command: list[str], port: int, swaps: dict[str, str]) -> None:
        assert command[:2] == ["python", "-m"], command
        args = _swap(command[2:], swaps)
        documented = args[args.index("--port") + 1]
        args[args.index("--port") + 1] = str(port)
        self.documented_port = documented
        self.proc = subprocess.Popen(
            [sys.executable, "-m", *args], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
        )
        self.banner = self.proc.stdout.readline()  # printed once it listens
        assert f":{port}" in self.banner, self.banner

    def close(self) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=10)


def _run(command: list[str], cwd: Path, swaps: dict[str, str]) -> subprocess.CompletedProcess:
    assert command[0] == "reflong-build", command
    return subprocess.run(
        [CLI, *_swap(command[1:], swaps)], cwd=cwd, capture_output=True, text=True, timeout=600
    )


@pytest.mark.slow
def test_the_arxiv_stand_in_ingest_example_runs_as_written(corpus_dir, tmp_path):
    commands = _block("docs/ingest.md", "python -m reflong.servers.arxiv_server")
    server_line = next(c for c in commands if c[:3] == ["python", "-m", "reflong.servers.arxiv_server"])
    clients = [c for c in commands if c[0] == "reflong-build"]
    assert clients and all(c[1] == "ingest" for c in clients)
    port = _free_port()
    server = _Server(server_line, port, {"../shared/corpus": str(corpus_dir)})
    try:
        swaps = {f"127.0.0.1:{server.documented_port}": f"127.0.0.1:{port}"}
        results = [_run(c, tmp_path, swaps) for c in clients]
    finally:
        server.close()
    for result in results:
        assert result.returncode == 0, result.stderr
        assert "403" not in result.stderr
        fetched = re.search(r"PDFs fetched (\d+), cached \d+, failed (\d+)", result.stdout)
        assert fetched and int(fetched.group(1)) >= 8, result.stdout
        # the corpus has one record without a PDF link; nothing else may fail
        assert fetched.group(2) == "0" or "[no-pdf 1]" in result.stdout, result.stdout
    assert (tmp_path / "reflong.db").is_file()  # the example's defaults, in the folder it ran in


@pytest.fixture(scope="module")
def a_tasks(data_dir, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("a") / "OUT"
    built = subprocess.run(
        [CLI, "a", "--haystack", str(data_dir / "pg_essays"), "--out", str(out), "--modes", "single",
         "--levels", "easy", "--lengths", "8K", "--tasks", "5", "--no-dataset", "--no-baselines"],
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert built.returncode == 0, built.stderr
    return out


@pytest.mark.slow
def test_the_openai_stand_in_eval_example_runs_as_written(a_tasks, tmp_path):
    commands = _block("docs/evaluate.md", "python -m reflong.servers.openai_server")
    server_line = next(c for c in commands if c[:3] == ["python", "-m", "reflong.servers.openai_server"])
    clients = [c for c in commands if c[0] == "reflong-build"]
    assert [c[1:3] for c in clients][:1] == [["eval", "run"]]
    port = _free_port()
    server = _Server(server_line, port, {"OUT": str(a_tasks)})
    try:
        swaps = {
            "OUT": str(a_tasks),
            f"127.0.0.1:{server.documented_port}": f"127.0.0.1:{port}",
            f"localhost:{server.documented_port}": f"127.0.0.1:{port}",
        }
        results = [_run(c, tmp_path, swaps) for c in clients]
    finally:
        server.close()
    for command, result in zip(clients, results, strict=True):
        assert result.returncode == 0, (command, result.stderr)
    assert "5 answered (5 sent now" in results[0].stdout, results[0].stdout
    assert "ExAcc" in results[-1].stdout


@pytest.mark.slow
def test_the_f_example_runs_where_the_other_examples_run(shared_dir, tmp_path):
    """docs/synthetic-subsets.md's examples run from a checkout beside ../shared; the F example
    named bare files (`--summhay topic_news4.json`) and ran only inside the SummHay folder."""
    commands = _block("docs/synthetic-subsets.md", "reflong-build f ")
    examples = [c for c in commands if c[:2] == ["reflong-build", "f"] and "--preset" not in c]
    assert examples
    checkout = tmp_path / "checkout"
    checkout.mkdir()
    (tmp_path / "shared").symlink_to(shared_dir)  # ../shared, as beside the real checkout
    for command in examples:
        result = _run(command, checkout, {})
        assert result.returncode == 0, (command, result.stderr)
        assert "Ref-Long-F: 14 configurations" in result.stdout, result.stdout
    assert (checkout / "Ref-Long-F" / "manifest.json").is_file()


@pytest.mark.slow
def test_a_missing_relative_input_says_where_it_was_looked_for(tmp_path):
    result = subprocess.run(
        [CLI, "f", "--summhay", "topic_news4.json", "--out", "F"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 2
    assert f"relative to the current folder, {tmp_path}" in result.stderr, result.stderr
    assert not (tmp_path / "F").exists()
