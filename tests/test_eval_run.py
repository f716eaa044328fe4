"""`reflong-build eval run` against the OpenAI-compatible stand-in: planted errors, kill and resume,
retries, keys, context limits, network failure."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest
from _human_world import WORDS
from click.testing import CliRunner

from reflong.assemble.prompts import f_template, paper_template
from reflong.cli import main
from reflong.common.tokenizer import get_tokenizer
from reflong.evaluate.runner import RunSettings, run_prompts
from reflong.servers.openai_server import OpenAIServer


def _world(folder: Path, per_config: int = 50, docs: int = 6) -> Path:
    """Paper-style (asks "Papers: {}") and F-style (asks "Documents: {}") prompts with answers."""
    folder.mkdir(parents=True, exist_ok=True)
    for config, template in (("easy_30K", paper_template()), ("twitter_8K", f_template())):
        prompts, answers = {}, {}
        for t in range(per_config):
            key = f"Key finding number {t} of {config}"
            gold = sorted({t % docs, (t * 7 + 3) % docs})
            texts = [
                " ".join(WORDS[(t + i + j) % len(WORDS)] for j in range(20 + 15 * ((t + i) % 5)))
                + (f" cites {key}" if i in gold else "")
                for i in range(docs)
            ]
            prompts[str(t)] = [key, template.render(key, texts, topic="testing")]
            answers[str(t)] = [key, gold]
        (folder / f"{config}.json").write_text(json.dumps(prompts))
        (folder / f"{config}_answers.json").write_text(json.dumps(answers))
    return folder


def _cli_args(prompts: Path, out: Path, url: str, *extra: str) -> list[str]:
    return [
        "eval",
        "run",
        "--prompts",
        str(prompts),
        "--model",
        "reflong-standin",
        "--base-url",
        url,
        "--out",
        str(out),
        *extra,
    ]


def _score(answers: Path, predictions: Path, *extra: str) -> dict:
    result = CliRunner().invoke(
        main,
        [
            "eval",
            "score",
            "--build",
            str(answers),
            "--predictions",
            str(predictions),
            "--format",
            "json",
            *extra,
        ],
    )
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def _cache_entries(cache: Path) -> int:
    return sum(1 for p in cache.rglob("*.json")) if cache.is_dir() else 0


@pytest.mark.slow
def test_kill_half_way_and_rerun_sends_no_request_twice(tmp_path: Path) -> None:
    tasks = _world(tmp_path / "tasks")
    out = tmp_path / "run"
    with OpenAIServer([tasks], miss_rate=0.3, extra_rate=0.3, seed=5, delay=0.02, pause_after=50) as server:
        assert len(server.tasks) == 100
        # The library call `eval run` makes, in a child process we can SIGKILL; importing the whole
        # CLI (PDF stack included) would only add start-up time on a loaded machine.
        code = (
            "import sys; from pathlib import Path; from reflong.evaluate.runner import RunSettings, run_prompts; "
            "print(run_prompts(Path(sys.argv[1]), Path(sys.argv[2]), RunSettings('reflong-standin', sys.argv[3]), "
            "concurrency=8).line())"
        )
        cmd = [sys.executable, "-c", code, str(tasks), str(out), server.url]
        env = {**os.environ, "OPENAI_API_KEY": "sk-local"}
        proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        # Kill where the outcome is decidable: 50 answered and cached, and all 8 workers held by
        # the server, so no answer is on its way back (a fixed sleep let the kill land anywhere).
        deadline = time.monotonic() + 90
        while not (
            server.total_answered == 50 and _cache_entries(out / ".cache") == 50 and server.waiting == 8
        ):
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline, (
                server.total_answered,
                _cache_entries(out / ".cache"),
                server.waiting,
            )
            time.sleep(0.02)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        assert server.received == 58  # 8 requests were in flight when it died
        while server.waiting:  # the server sees the 8 hang-ups before answers flow again
            assert time.monotonic() < deadline, server.waiting
            time.sleep(0.01)
        assert server.abandoned == 8 and server.total_answered == 50
        server.resume()
        rerun = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=120)
        assert rerun.returncode == 0, rerun.stderr
        # every prompt answered exactly once over both runs
        assert len(server.answered) == 100
        assert set(server.answered.values()) == {1}
        assert server.abandoned == 8 and server.received == 108  # sent once per live client
        manifest = json.loads((out / "run_manifest.json").read_text())
        assert manifest["counts"]["answered"] == 100
        assert manifest["counts"]["from_cache"] == 50
        assert manifest["counts"]["sent_this_run"] == 50
        assert manifest["base_url_host"].startswith("127.0.0.1:")
        assert manifest["usage"]["prompt_tokens"] > 0 and manifest["usage"]["completion_tokens"] > 0
        # a third run sends nothing at all
        received = server.received
        again = run_prompts(tasks, out, RunSettings("reflong-standin", server.url), concurrency=8)
        assert again.sent == 0 and again.from_cache == 100
        assert server.received == received
        assert json.loads((out / "run_manifest.json").read_text())["counts"]["sent_this_run"] == 0
        planted = server.planted

    # the predictions carry exactly the planted errors
    data = _score(tasks, out)
    for config in ("easy_30K", "twitter_8K"):
        kinds = Counter(p.error_type for (c, _), p in planted.items() if c == config)
        got = data[f"{config}_answers.json"]
        assert (got["type_i"], got["type_ii"], got["type_iii"]) == (kinds["I"], kinds["II"], kinds["III"])
        assert got["exacc"] == pytest.approx(kinds[None] / 50)
        assert got["unparseable"] == 0
    assert sum(p.error_type is not None for p in planted.values()) > 30
    # the release's parser cannot read the Paper answers ("Papers: {...}"), only the F ones
    release = _score(tasks, out, "--parser", "reflong2025")
    assert release["easy_30K_answers.json"]["exacc"] == 0.0
    assert release["twitter_8K_answers.json"]["exacc"] == data["twitter_8K_answers.json"]["exacc"]


def test_retries_honour_retry_after_on_429_and_5xx(tmp_path: Path) -> None:
    tasks = _world(tmp_path / "tasks", per_config=5)
    out = tmp_path / "run"
    with OpenAIServer([tasks], faults={2: 429, 5: 503}, retry_after=0.3) as server:
        start = time.monotonic()
        result = CliRunner().invoke(main, _cli_args(tasks, out, server.url, "--concurrency", "2"))
        elapsed = time.monotonic() - start
        assert result.exit_code == 0, result.output
        assert server.received == 12 and len(server.answered) == 10
        assert set(server.answered.values()) == {1}
    manifest = json.loads((out / "run_manifest.json").read_text())
    assert manifest["counts"]["retries_this_run"] == 2
    assert manifest["counts"]["answered"] == 10
    assert elapsed >= 0.3  # the Retry-After wait was honoured


def test_keys_models_and_network_failures_are_one_line_errors(tmp_path: Path) -> None:
    tasks = _world(tmp_path / "tasks", per_config=2)
    with OpenAIServer([tasks], api_key="sk-right") as server:
        runner = CliRunner()
        bad = runner.invoke(
            main, _cli_args(tasks, tmp_path / "a", server.url), env={"OPENAI_API_KEY": "sk-wrong"}
        )
        assert bad.exit_code == 1 and "refused the API key (401)" in bad.output
        assert "OPENAI_API_KEY" in bad.output and "Traceback" not in bad.output
        good = runner.invoke(
            main,
            [*_cli_args(tasks, tmp_path / "b", server.url), "--api-key-env", "MY_KEY"],
            env={"MY_KEY": "sk-right"},
        )
        assert good.exit_code == 0, good.output
        args = _cli_args(tasks, tmp_path / "c", server.url)
        args[args.index("reflong-standin")] = "gpt-unknown"
        unknown = runner.invoke(main, args, env={"OPENAI_API_KEY": "sk-right"})
        assert (
            unknown.exit_code == 1
            and "does not exist" in unknown.output
            and "Traceback" not in unknown.output
        )
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    down = CliRunner().invoke(
        main, [*_cli_args(tasks, tmp_path / "d", f"http://127.0.0.1:{port}/v1"), "--retries", "1"]
    )
    assert down.exit_code == 1
    assert "kept failing" in down.output and "rerun the same command" in down.output
    assert "Traceback" not in down.output and len(down.output.strip().splitlines()) == 1


def test_context_limit_skips_before_sending_and_endpoint_limit_is_recorded(tmp_path: Path) -> None:
    tasks = _world(tmp_path / "tasks", per_config=10)
    count = get_tokenizer("o200k_base").count
    sizes = {
        (config, tid): count("You are a helpful assistant.") + count(v[1])
        for config in ("easy_30K", "twitter_8K")
        for tid, v in json.loads((tasks / f"{config}.json").read_text()).items()
    }
    limit = sorted(sizes.values())[len(sizes) // 2]
    too_long = sum(n > limit for n in sizes.values())
    assert 0 < too_long < 20
    with OpenAIServer([tasks]) as server:
        result = CliRunner().invoke(
            main, [*_cli_args(tasks, tmp_path / "a", server.url), "--max-context", str(limit)]
        )
        assert result.exit_code == 0, result.output
        assert server.received == 20 - too_long  # the long ones were never sent
    manifest = json.loads((tmp_path / "a" / "run_manifest.json").read_text())
    assert manifest["counts"]["skipped"] == too_long
    assert all("--max-context" in s["reason"] for s in manifest["skipped"])
    # the endpoint's own limit (OpenAI's 400 context_length_exceeded) is recorded, not retried, not resent
    with OpenAIServer([tasks], max_context=limit) as server:
        args = _cli_args(tasks, tmp_path / "b", server.url)
        assert CliRunner().invoke(main, args).exit_code == 0
        assert CliRunner().invoke(main, args).exit_code == 0
        assert server.received == 20
    manifest = json.loads((tmp_path / "b" / "run_manifest.json").read_text())
    assert manifest["counts"]["skipped"] == too_long
    assert all("maximum context length" in s["reason"] for s in manifest["skipped"])
    scored = _score(tasks, tmp_path / "b")
    assert scored["overall"]["missing"] == too_long
