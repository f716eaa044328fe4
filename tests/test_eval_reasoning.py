"""Issue 22, item 5: reasoning models in ``eval run``, against the stand-in's reasoning mode.

The stand-in refuses temperature/top_p/max_tokens with OpenAI's 400 bodies, counts reasoning
tokens by a known rule (M documents x 8/32/128 for low/medium/high effort) and puts reasoning text,
which drafts a wrong answer, nowhere, in ``reasoning_content`` or in ``<think>`` tags. The same
planted answers must come out as byte-identical predictions, with the reasoning tokens counted."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from test_eval_run import _cli_args, _score, _world

from reflong.cli import main
from reflong.evaluate.reasoning import Adaptation, adaptation, final_answer
from reflong.evaluate.runner import RunSettings, run_prompts
from reflong.servers.openai_server import OpenAIServer

PER_CONFIG, DOCS = 15, 6  # _world: two configurations, 6 documents a prompt
N_TASKS = 2 * PER_CONFIG
ENV = {"OPENAI_API_KEY": "sk-local"}


@pytest.fixture(scope="module")
def tasks(tmp_path_factory) -> Path:
    return _world(tmp_path_factory.mktemp("reasoning") / "tasks", per_config=PER_CONFIG, docs=DOCS)


def _run(tasks: Path, out: Path, reasoning: str | None, *extra: str) -> tuple[OpenAIServer, str]:
    with OpenAIServer([tasks], miss_rate=0.3, extra_rate=0.3, seed=5, reasoning=reasoning) as server:
        res = CliRunner().invoke(main, _cli_args(tasks, out, server.url, *extra), env=ENV)
    assert res.exit_code == 0, res.output
    return server, res.output


def _manifest(out: Path) -> dict:
    return json.loads((out / "run_manifest.json").read_text())


def _predictions(out: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(out.glob("*.json")) if p.name != "run_manifest.json"}


@pytest.fixture(scope="module")
def plain_run(tasks, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("plain") / "run"
    _run(tasks, out, None)
    return out


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["hidden", "field", "tags"])
def test_reasoning_mode_gives_the_same_predictions_and_counts_reasoning_tokens(
    mode, tasks, plain_run, tmp_path
):
    """The release's settings (temperature 0, top_p 1) as a user would first try them."""
    out = tmp_path / "run"
    server, output = _run(tasks, out, mode, "--concurrency", "1")
    # one refused request per parameter, then the run remembers: 30 answers, 32 requests
    assert server.refused == {"temperature": 1, "top_p": 1}
    assert server.received == N_TASKS + 2
    assert "adapted: temperature dropped for this run (Unsupported parameter: 'temperature'" in output
    assert f"(reasoning {N_TASKS * DOCS * 32})" in output  # medium effort: 32 a document
    assert _predictions(out) == _predictions(plain_run)
    assert _score(tasks, out) == _score(tasks, plain_run)
    m = _manifest(out)
    assert m["usage"]["reasoning_tokens"] == N_TASKS * DOCS * 32 == server.reasoning_tokens_given
    assert (
        m["usage"]["completion_tokens"]
        == _manifest(plain_run)["usage"]["completion_tokens"] + N_TASKS * DOCS * 32
    )
    assert m["adapted_this_run"] == {
        "temperature": {
            "action": "dropped",
            "error": "Unsupported parameter: 'temperature' is not supported with this model.",
            "refused_requests": 1,
        },
        "top_p": {
            "action": "dropped",
            "error": "Unsupported parameter: 'top_p' is not supported with this model.",
            "refused_requests": 1,
        },
    }
    assert m["params_sent"] == {"(none)": N_TASKS}
    assert m["counts"]["sent_this_run"] == N_TASKS + 2 and m["counts"]["answered"] == N_TASKS
    assert m["counts"]["reasoning_stripped"] == (N_TASKS if mode == "tags" else 0)
    assert m["counts"]["reasoning_returned"] == (N_TASKS if mode == "field" else 0)
    assert _manifest(plain_run)["usage"]["reasoning_tokens"] == 0
    assert _manifest(plain_run)["params_sent"] == {"temperature,top_p": N_TASKS}


def test_reasoning_settings_given_are_sent_and_nothing_is_refused(tasks, plain_run, tmp_path):
    out = tmp_path / "run"
    extra = ["--no-sampling", "--reasoning-effort", "high", "--max-completion-tokens", "5000"]
    server, output = _run(tasks, out, "hidden", *extra)
    assert server.refused == {} and server.received == N_TASKS and "adapted:" not in output
    m = _manifest(out)
    assert m["usage"]["reasoning_tokens"] == N_TASKS * DOCS * 128  # high effort
    assert m["params_sent"] == {"max_completion_tokens,reasoning_effort": N_TASKS}
    assert m["settings"]["reasoning_effort"] == "high" and m["settings"]["send_sampling"] is False
    assert _predictions(out) == _predictions(plain_run)
    # a rerun answers from the cache and still reports what the answers cost and were asked with
    server, output = _run(tasks, out, "hidden", *extra)
    assert server.received == 0
    again = _manifest(out)
    assert again["counts"]["from_cache"] == N_TASKS and again["adapted_this_run"] == {}
    assert again["usage"] == m["usage"] and again["params_sent"] == m["params_sent"]


@pytest.mark.slow
def test_max_tokens_is_sent_as_max_completion_tokens_after_the_refusal(tasks, plain_run, tmp_path):
    out = tmp_path / "run"
    server, output = _run(tasks, out, "hidden", "--no-sampling", "--max-tokens", "5000", "--concurrency", "1")
    assert server.refused == {"max_tokens": 1}
    assert "Use 'max_completion_tokens' instead." in output
    m = _manifest(out)
    assert m["adapted_this_run"]["max_tokens"]["action"] == "sent as max_completion_tokens"
    assert m["params_sent"] == {"max_completion_tokens": N_TASKS}
    assert _predictions(out) == _predictions(plain_run)


def test_a_cap_the_reasoning_uses_up_gives_no_answer_and_a_warning(tasks, tmp_path):
    """6 documents x 32 = 192 reasoning tokens > a cap of 100: the <think> block never closes."""
    out = tmp_path / "run"
    _server, output = _run(tasks, out, "tags", "--no-sampling", "--max-completion-tokens", "100")
    assert f"warning: {N_TASKS} answers stopped at the token cap" in output
    assert "raise --max-completion-tokens" in output
    m = _manifest(out)
    assert m["counts"]["cut_at_token_cap"] == N_TASKS
    assert (
        m["usage"]["reasoning_tokens"] == N_TASKS * 100 and m["usage"]["completion_tokens"] == N_TASKS * 100
    )
    predictions = json.loads((out / "easy_30K.json").read_text())
    assert {resp for _, resp in predictions.values()} == {""}  # the drafts in the reasoning are not answers
    overall = _score(tasks, out)["overall"]
    assert overall["exacc"] == 0 and overall["recall"] == 0  # scored as empty answers


@pytest.mark.slow
def test_a_refusal_that_is_no_parameter_we_can_drop_still_fails(tasks, tmp_path):
    with OpenAIServer([tasks], reasoning="hidden") as server:
        settings = RunSettings("reflong-standin", server.url, send_sampling=False, reasoning_effort="extreme")
        result = run_prompts(tasks, tmp_path / "run", settings, concurrency=1)
    assert result.answered == 0 and len(result.failed) == N_TASKS and result.adapted == {}
    assert "'reasoning_effort' does not support 'extreme'" in result.failed[0]["error"]


@pytest.mark.parametrize(
    "content,answer,stripped",
    [
        ("Papers: {1, 3}", "Papers: {1, 3}", 0),
        ("<think>\nFirst guess: Papers: {0}\n</think>\n\nPapers: {1, 3}", "Papers: {1, 3}", 43),
        ("reasoning begun in the prompt\n</think>\nDocuments: 2", "Documents: 2", 39),
        ("<think>a</think>x<think>b</think> Papers: {2}", "x Papers: {2}", 32),
        ("<think>\nFirst guess: Papers: {0}", "", 32),  # cut at the cap: no answer
        (None, "", 0),
        ("  unchanged, spaces kept  ", "  unchanged, spaces kept  ", 0),
    ],
)
def test_the_answer_is_what_follows_the_reasoning(content, answer, stripped):
    assert final_answer(content) == (answer, stripped)


def test_which_refusals_are_adapted():
    assert adaptation("unsupported_parameter", "temperature") == Adaptation("temperature")
    assert adaptation("unsupported_value", "temperature") == Adaptation("temperature")  # o1-mini: only 1
    assert adaptation("unsupported_parameter", "top_p") == Adaptation("top_p")
    assert adaptation("unsupported_parameter", "max_tokens") == Adaptation(
        "max_tokens", "max_completion_tokens"
    )
    assert adaptation("context_length_exceeded", "messages") is None
    assert adaptation("unsupported_value", "reasoning_effort") is None
    assert adaptation(None, None) is None


def test_both_caps_at_once_is_a_usage_error(tasks, tmp_path):
    args = _cli_args(
        tasks, tmp_path / "run", "http://127.0.0.1:9/v1", "--max-tokens", "5", "--max-completion-tokens", "5"
    )
    res = CliRunner().invoke(main, args, env=ENV)
    assert res.exit_code == 2 and "give --max-tokens or --max-completion-tokens, not both" in res.output
    assert not (tmp_path / "run").exists()
