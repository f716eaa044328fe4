"""lm-evaluation-harness and Inspect run an export of a real build against the OpenAI stand-in, from
another working directory, with no hand edits: their figures equal `eval run` + `eval score` on
every config and pooled, with no limit and with a 30,000-token context limit, and their outputs
score back through `eval score --from-lm-eval / --from-inspect`.

Needs the harness extra (`pip install -e ".[harness]"`); skips without it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from reflong.cli import main
from reflong.servers.openai_server import OpenAIServer

pytestmark = pytest.mark.slow

LIMIT = 30_000
HARNESS_MISSING = [
    name for name in ("lm_eval", "inspect_ai") if __import__("importlib.util").util.find_spec(name) is None
]
needs_harnesses = pytest.mark.skipif(
    bool(HARNESS_MISSING),
    reason=f"needs the harness extra ({', '.join(HARNESS_MISSING)} missing): pip install -e '.[harness]'",
)


def _cli(*args: str) -> str:
    result = CliRunner().invoke(main, list(args))
    assert result.exit_code == 0, result.output
    return result.output


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory):
    """The demo's store reassembled with 3 tasks a config (24 tasks in 8 configs), its export, and
    the stand-in serving it with planted misses and extras."""
    root = tmp_path_factory.mktemp("harness")
    _cli("-q", "demo", "--out", str(root / "demo"))
    build = root / "build"
    _cli(
        "-q", "paper", "--db", str(root / "demo" / "store.db"), "--since", "2024-03", "--pool-months", "6",
        "--distractor-months", "6", "--seed", "0", "--reuse-db", "--out", str(build), "--tasks", "3",
    )  # fmt: skip
    _cli("export", "--build", str(build), "--out", str(root / "export"))
    with OpenAIServer([build], miss_rate=0.3, extra_rate=0.3, seed=3) as server:
        yield root, build, root / "export", server


def _ours(root: Path, build: Path, server: OpenAIServer, limit: int | None) -> dict:
    """`eval run` (with --max-context when limited) then `eval score`, as JSON."""
    out = root / f"ours-{limit}"
    extra = ["--max-context", str(limit)] if limit else []
    _cli(
        "eval",
        "run",
        "--prompts",
        str(build),
        "--model",
        "reflong-standin",
        "--base-url",
        server.url,
        "--out",
        str(out),
        *extra,
    )
    return json.loads(
        _cli("eval", "score", "--build", str(build), "--predictions", str(out), "--format", "json")
    )


def _six(*values: float) -> tuple[float, ...]:
    """As `eval score --format json` gives its figures: to 6 decimals."""
    return tuple(round(v, 6) for v in values)


def _per_config(scores: dict) -> dict[str, tuple[float, float]]:
    return {v["config"]: (v["exacc"], v["f1"]) for k, v in scores.items() if k.endswith("_answers.json")}


def _lm_eval(
    root: Path, export: Path, server: OpenAIServer, limit: int | None, group: str = "reflong_paper"
) -> dict:
    out = root / f"lm-eval-{limit}"
    elsewhere = root / "elsewhere"
    elsewhere.mkdir(exist_ok=True)
    cmd = [
        sys.executable, "-m", "lm_eval", "--model", "local-chat-completions",
        "--model_args", f"model=reflong-standin,base_url={server.url}/chat/completions,num_concurrent=4,max_retries=2,tokenizer_backend=None",
        "--apply_chat_template", "--system_instruction", "You are a helpful assistant.",
        "--include_path", str(export), "--tasks", group, "--output_path", str(out), "--log_samples",
    ]  # fmt: skip
    if limit:
        cmd += ["--metadata", json.dumps({"max_context": limit})]
    run = subprocess.run(cmd, cwd=elsewhere, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    (results,) = out.rglob("results_*.json")
    return json.loads(results.read_text())["results"] | {"_out": str(out)}


def _inspect(root: Path, export: Path, server: OpenAIServer, limit: int | None) -> tuple[dict, Path]:
    """Inspect's figures as {metric: {config or "all": value}}, and its log folder."""
    from inspect_ai.log import read_eval_log

    logs = root / f"inspect-{limit}"
    cmd = [
        sys.executable, "-m", "inspect_ai", "eval", f"{export / 'reflong.py'}@reflong_paper",
        "--model", "openai-api/reflong/reflong-standin", "--log-dir", str(logs), "--display", "none",
    ]  # fmt: skip
    if limit:
        cmd += ["-T", f"max_context={limit}"]
    env = {**os.environ, "REFLONG_BASE_URL": server.url, "REFLONG_API_KEY": "local"}
    run = subprocess.run(cmd, cwd=root / "elsewhere", capture_output=True, text=True, timeout=600, env=env)
    assert run.returncode == 0, run.stderr[-3000:]
    (path,) = logs.glob("*.eval")
    log = read_eval_log(str(path))
    assert log.status == "success"
    return {s.name: {m.name: m.value for m in s.metrics.values()} for s in log.results.scores}, logs


@needs_harnesses
@pytest.mark.parametrize("limit", [None, LIMIT], ids=["no-limit", "limit-30000"])
def test_both_harnesses_give_our_scores_on_every_config_and_pooled(world, limit: int | None) -> None:
    root, build, export, server = world
    (root / "elsewhere").mkdir(exist_ok=True)
    ours = _ours(root, build, server, limit)
    configs = _per_config(ours)
    assert len(configs) == 8 and ours["overall"]["n"] == 24
    # The planted errors make this a real comparison: neither perfect nor empty.
    assert 0 < ours["overall"]["exacc"] < 1
    lm = _lm_eval(root, export, server, limit)
    for config, (exacc, f1) in configs.items():
        task = lm[f"reflong_paper_{config}"]
        assert _six(task["exacc,none"], task["f1,none"]) == (exacc, f1), config
    assert _six(lm["reflong_paper"]["exacc,none"], lm["reflong_paper"]["f1,none"]) == (
        ours["overall"]["exacc"],
        ours["overall"]["f1"],
    )
    over = lm["reflong_paper"]["over_context,none"]
    if limit:
        assert over == pytest.approx(18 / 24)  # only the 30K prompts fit 30,000 tokens
        assert lm["reflong_paper_easy_30K"]["exacc_fit,none"] == pytest.approx(configs["easy_30K"][0])
    else:
        assert over == 0.0

    figures, logs = _inspect(root, export, server, limit)
    for config, (ex, f1) in configs.items():
        assert _six(figures["exacc"][config], figures["f1"][config]) == (ex, f1), config
    assert _six(figures["exacc"]["all"], figures["f1"]["all"]) == (
        ours["overall"]["exacc"],
        ours["overall"]["f1"],
    )
    assert figures["over_context"]["all"] == pytest.approx(over)

    # Back into the project: the same overall through eval score.
    for flag, source in (("--from-lm-eval", lm["_out"]), ("--from-inspect", str(logs))):
        back = json.loads(_cli("eval", "score", "--build", str(build), flag, source, "--format", "json"))
        assert back["overall"]["n"] == 24
        assert (back["overall"]["exacc"], back["overall"]["f1"]) == (
            ours["overall"]["exacc"],
            ours["overall"]["f1"],
        ), flag
        assert back["overall"]["type_i"] == ours["overall"]["type_i"]


def test_the_stand_in_refuses_a_prompt_it_does_not_know(world) -> None:
    import openai

    _, _, _, server = world
    client = openai.OpenAI(base_url=server.url, api_key="local", max_retries=0)
    with pytest.raises(openai.BadRequestError) as caught:
        client.chat.completions.create(
            model="reflong-standin", messages=[{"role": "user", "content": "A prompt no build holds."}]
        )
    assert caught.value.code == "unknown_prompt"
    assert "byte for byte" in str(caught.value)


@needs_harnesses
def test_an_a_build_exports_and_scores_as_ours_under_lm_eval(tmp_path: Path, data_dir: Path) -> None:
    """Ref-Long-A (the real essays, 5 tasks in each of 6 configs): "Documents:" answers, lower-case
    task names, the group equal to the pooled overall."""
    build = tmp_path / "A"
    _cli(
        "-q",
        "a",
        "--haystack",
        str(data_dir / "pg_essays"),
        "--lengths",
        "8K",
        "--tasks",
        "5",
        "--out",
        str(build),
    )
    _cli("export", "--build", str(build), "--out", str(tmp_path / "export"))
    (tmp_path / "elsewhere").mkdir()
    with OpenAIServer([build], miss_rate=0.3, extra_rate=0.3, seed=1) as server:
        ours = _ours(tmp_path, build, server, None)
        lm = _lm_eval(tmp_path, tmp_path / "export", server, None, group="reflong_a")
    configs = _per_config(ours)
    assert len(configs) == 6 and ours["overall"]["n"] == 30 and 0 < ours["overall"]["exacc"] < 1
    for config, figures in configs.items():
        task = lm[f"reflong_a_{config}"]
        assert _six(task["exacc,none"], task["f1,none"]) == figures, config
    assert _six(lm["reflong_a"]["exacc,none"], lm["reflong_a"]["f1,none"]) == (
        ours["overall"]["exacc"],
        ours["overall"]["f1"],
    )
