"""``reflong-build eval``: score predictions, run a model on prompts, score no-model baselines."""

from __future__ import annotations

import tempfile
from pathlib import Path

import click

from reflong.cli.command import ReflongCommand, Renamed
from reflong.cli.options import SEED, check_tokenizer, default_of, format_option, refuse_unfinished
from reflong.evaluate.baseline_run import score_baselines
from reflong.evaluate.contamination import view_for_results
from reflong.evaluate.runner import RunSettings, run_prompts
from reflong.evaluate.scoring import score_paths

_PATH = click.Path(exists=True, path_type=Path)

#: The build folder is ``--build`` in every command that reads one (before 0.2: ``--answers`` here).
ANSWERS_RENAMED = (Renamed("--answers", "--build"),)
answers_option = click.option(
    "--build",
    "answers",
    type=_PATH,
    required=True,
    help="The build's folder (paper's --out; its *_answers.json), a folder of released answers, or one answers file.",
)


@click.group("eval")
def eval_group() -> None:
    """Evaluate on built tasks: Ref-Long's ExAcc, F1 and error types (Type I/II/III).

    \b
      reflong-build eval score --build OUT --predictions PRED        score responses
      reflong-build eval run --prompts OUT --model M --base-url URL  ask a chat model
      reflong-build eval baseline --build OUT --prompts OUT --kind lexical
    """


def _emit(results, overall, fmt: str, save: Path | None, meta: dict, view=None, agreement=None) -> None:
    from reflong.common.atomic_files import write_atomic
    from reflong.evaluate.agreement import agreement_table
    from reflong.evaluate.contamination import view_text
    from reflong.evaluate.scoring import dumps, results_json, results_table

    figures = view.as_json() if view is not None else None
    data = results_json(results, overall, contamination=figures)
    if agreement is not None:
        data["agreement"] = [pair.as_json() for pair in agreement]
    if save is not None:
        write_atomic(save, (dumps(results_json(results, overall, meta, figures)) + "\n").encode("utf-8"))
    if fmt == "json":
        click.echo(dumps(data))
        return
    click.echo(results_table(results, overall))
    if agreement is not None:
        click.echo("")
        click.echo(agreement_table(agreement))
    if view is not None:
        click.echo("")
        click.echo(view_text(view))


def _agreement(answers: Path, predictions: Path, label: str, others, prompts, parser: str):
    """Every pair among --predictions and --agreement-with, each named as eval score names a run."""
    from reflong.evaluate.agreement import agreement_paths
    from reflong.evaluate.files import run_label

    runs = [(label, predictions)]
    for other in others:
        name = run_label(other) or other.name
        runs.append((name if name not in {n for n, _ in runs} else str(other), other))
    return agreement_paths(answers, runs, prompts, parser)


def _model_name(model: str | None, predictions: Path, label: str | None) -> str:
    """Whose cutoff applies: --model, else the model of the run that wrote the predictions
    (its run_manifest.json), else --label, else the predictions' name."""
    import json

    from reflong.evaluate.runner import RUN_MANIFEST

    if model:
        return model
    manifest = (predictions if predictions.is_dir() else predictions.parent) / RUN_MANIFEST
    try:
        found = json.loads(manifest.read_text(encoding="utf-8")).get("model")
    except (OSError, ValueError, AttributeError):
        found = None
    return str(found or label or predictions.name)


def _check_month(ctx, param, value):
    if value is None:
        return None
    from reflong.common.errors import ReflongError
    from reflong.evaluate.cutoffs import check_month

    try:
        return check_month(value, f"--{param.name}")
    except ReflongError as exc:
        raise click.BadParameter(str(exc).split(": ", 1)[-1]) from None


@eval_group.command("score", cls=ReflongCommand, renamed=ANSWERS_RENAMED)
@answers_option
@click.option(
    "--predictions",
    type=_PATH,
    default=None,
    help='A predictions file {"i": [key, response]} or a folder holding <config>.json for each answers file.',
)
@click.option(
    "--from-lm-eval",
    "from_lm_eval",
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    default=None,
    help="Instead of --predictions: lm-eval's --output_path of a run on `reflong-build export` (--log_samples).",
)
@click.option(
    "--from-inspect",
    "from_inspect",
    type=_PATH,
    default=None,
    help="Instead of --predictions: an Inspect .eval log (or a folder of them) of a run on `reflong-build export`.",
)
@click.option(
    "--prompts",
    type=_PATH,
    default=None,
    help="Prompt files (for each task's document count: out-of-range indexes, ranges). "
    "Default: M from the file name (Paper 30K -> 8, A/F 8K -> 8).",
)
@click.option(
    "--parser",
    type=click.Choice(["prompt", "reflong2025"]),
    default=default_of(score_paths, "parser"),
    show_default=True,
    help="prompt: read the answer format the prompt asks for; reflong2025: the release's own scoring.",
)
@click.option("--save", type=click.Path(dir_okay=False, path_type=Path), help="Also write the JSON here.")
@click.option(
    "--label",
    default=None,
    help="Name of what was scored (model or baseline), kept with --save "
    "[default: human:NAME for a `reflong-build human` folder, else the predictions' folder name].",
)
@click.option(
    "--agreement-with",
    "others",
    type=_PATH,
    multiple=True,
    help="Other annotators' (or runs') predictions: adds agreement on the tasks both answered, for "
    "every pair (share with the same answer; Cohen's kappa per document decision). Repeatable.",
)
@click.option(
    "--model",
    default=None,
    help="The model whose knowledge cutoff applies [default: the model in the predictions' "
    "run_manifest.json, else --label].",
)
@click.option(
    "--cutoff",
    default=None,
    callback=_check_month,
    help="The model's knowledge cutoff, YYYY-MM (overrides the cutoffs table).",
)
@click.option(
    "--cutoffs",
    "cutoffs_file",
    type=_PATH,
    default=None,
    help="Your own cutoffs table (CSV: model,cutoff,source); its lines win over the shipped ones.",
)
@click.option(
    "--bootstrap",
    type=click.IntRange(100, 1_000_000),
    default=default_of(view_for_results, "resamples"),
    show_default=True,
    help="Bootstrap resamples for the after - before confidence interval.",
)
@click.option(
    "--seed",
    type=SEED,
    default=default_of(view_for_results, "seed"),
    show_default=True,
    help="Seed of the bootstrap (same seed, same interval).",
)
@format_option
def score(
    answers: Path,
    predictions: Path | None,
    from_lm_eval: Path | None,
    from_inspect: Path | None,
    prompts: Path | None,
    parser: str,
    save,
    label,
    others,
    model,
    cutoff,
    cutoffs_file,
    bootstrap: int,
    seed: int,
    fmt: str,
) -> None:
    """Score predictions: ExAcc, mean F1, precision, recall, Type I/II/III, unparseable; per file and overall.

    Predictions (or prompts) that do not belong to their answers file (other task ids or keys,
    another length in the file name, fewer documents than the answers name) are not scored: each
    such configuration is named in one line, the others are scored, and the exit code is 1.
    A `reflong-build human` folder is scored on the tasks its annotator was given.

    \b
    Contamination view: where the answers' build folder has its dataset rows (data/*.parquet),
    every task has a release (its `release` column, else its key paper's month), and the scores
    are also given per release, each marked before or after the model's knowledge cutoff (the
    shipped table of published cutoffs, --cutoffs FILE, or --cutoff), with after - before and a
    95% bootstrap confidence interval over tasks. A drop after the cutoff suggests leakage.
    """
    from reflong.common.errors import ReflongError
    from reflong.evaluate.cutoffs import Cutoff, find_cutoff, load_cutoffs
    from reflong.evaluate.files import run_label, run_timing

    refuse_unfinished(answers, prompts)
    given = [p for p in (predictions, from_lm_eval, from_inspect) if p is not None]
    if len(given) != 1:
        raise click.UsageError("give one of --predictions, --from-lm-eval and --from-inspect")
    if predictions is None:  # a harness's output, as predictions in a folder for this command only
        folder = click.get_current_context().with_resource(
            tempfile.TemporaryDirectory(prefix="reflong-harness-")
        )
        label = label or ("lm-eval:" if from_lm_eval else "inspect:") + given[0].name
        predictions = _harness_predictions(from_lm_eval, from_inspect, Path(folder))

    table = load_cutoffs(cutoffs_file)
    results, overall, not_scored = score_paths(answers, predictions, prompts, parser)
    if not results:  # nothing belongs together: say why, one line per configuration
        for item in not_scored[:-1]:
            click.echo(f"error: {item.reason}", err=True)
        raise ReflongError(not_scored[-1].reason)
    meta = {"label": label or run_label(predictions) or predictions.name, "parser": parser}
    if (timing := run_timing(predictions)) is not None:
        meta["human"] = timing  # time on task, for the report
    if not_scored:
        meta["not_scored"] = {item.name: item.reason for item in not_scored}
    agreement = _agreement(answers, predictions, meta["label"], others, prompts, parser) if others else None
    if agreement is not None:
        meta["agreement"] = [pair.as_json() for pair in agreement]
    who = _model_name(model, predictions, label)
    known = Cutoff(who, cutoff, "--cutoff") if cutoff else find_cutoff(table, who)
    view = view_for_results(results, who, known, bootstrap, seed)
    _emit(results, overall, fmt, save, meta, view, agreement)
    if not_scored:
        for item in not_scored:
            click.echo(f"error: {item.reason}", err=True)
        n = len(results) + len(not_scored)
        raise ReflongError(
            f"{len(not_scored)} of {n} configurations not scored (their files do not belong together, "
            f"listed above); the table and --save cover the other {len(results)}"
        )


def _harness_predictions(from_lm_eval: Path | None, from_inspect: Path | None, folder: Path) -> Path:
    from reflong.evaluate import harness_outputs

    found = (
        harness_outputs.from_lm_eval(from_lm_eval)
        if from_lm_eval
        else harness_outputs.from_inspect(from_inspect)
    )
    return harness_outputs.write_predictions(found, folder)


@eval_group.command("baseline", cls=ReflongCommand, renamed=ANSWERS_RENAMED)
@answers_option
@click.option(
    "--prompts",
    type=_PATH,
    default=None,
    help="The prompt files (documents' text for lexical; M for the others). Without it random/all/none "
    "take M from the file name (e.g. the released Paper answers, whose prompts were not published).",
)
@click.option(
    "--kind",
    "kinds",
    type=click.Choice(["random", "all", "none", "lexical"]),
    multiple=True,
    help="Baseline(s) to run (repeat the option) [default: every one that the inputs allow].",
)
@click.option(
    "--seed",
    type=SEED,
    default=default_of(score_baselines, "seed"),
    show_default=True,
    help="Seed of the random baseline.",
)
@click.option(
    "--threshold",
    type=click.FloatRange(0, 100),
    default=default_of(score_baselines, "threshold"),
    show_default=True,
    help="lexical: rapidfuzz partial_ratio needed when the key is not a plain substring.",
)
@click.option(
    "--out",
    "out_dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Write each baseline's predictions to OUT/<kind>/<config>.json (release format).",
)
@click.option("--save", type=click.Path(dir_okay=False, path_type=Path), help="Also write the JSON here.")
@format_option
def baseline(answers: Path, prompts, kinds, seed: int, threshold: float, out_dir, save, fmt: str) -> None:
    """Score answers that need no model: random, all documents, none, lexical key matching."""
    from reflong.common.atomic_files import write_atomic
    from reflong.evaluate.scoring import dumps, results_json, results_table

    kinds = tuple(kinds) or (("random", "all", "none", "lexical") if prompts else ("random", "all", "none"))
    refuse_unfinished(answers, prompts)
    scored = score_baselines(answers, prompts, kinds, seed, threshold, out_dir)
    data = {kind: results_json(results, overall) for kind, (results, overall) in scored.items()}
    if save is not None:
        meta = {"seed": seed, "lexical_threshold": threshold}
        write_atomic(save, (dumps({"meta": meta, "kinds": data}) + "\n").encode("utf-8"))
    if fmt == "json":
        click.echo(dumps(data))
        return
    for kind, (results, overall) in scored.items():
        click.echo(f"== baseline: {kind}")
        click.echo(results_table(results, overall))


@eval_group.command("run")
@click.option(
    "--prompts", type=_PATH, required=True, help='A prompts file {"i": [key, prompt]} or a folder of them.'
)
@click.option("--model", required=True, help="Model name as the endpoint knows it (e.g. gpt-4o-2024-08-06).")
@click.option(
    "--base-url",
    default="https://api.openai.com/v1",
    show_default=True,
    help="Any OpenAI-compatible endpoint (vLLM, SGLang, ...: usually http://HOST:PORT/v1).",
)
@click.option(
    "--out",
    "out_dir",
    type=click.Path(file_okay=False, path_type=Path),
    required=True,
    help="Predictions (<config>.json, release format) and run_manifest.json go here.",
)
@click.option(
    "--concurrency",
    type=click.IntRange(1, 256),
    default=default_of(run_prompts, "concurrency"),
    show_default=True,
    help="Requests in flight.",
)
@click.option("--temperature", type=float, default=default_of(RunSettings, "temperature"), show_default=True)
@click.option("--top-p", type=float, default=default_of(RunSettings, "top_p"), show_default=True)
@click.option(
    "--max-tokens",
    type=click.IntRange(1),
    default=default_of(RunSettings, "max_tokens"),
    help="Cap on response tokens (not sent if unset).",
)
@click.option(
    "--max-completion-tokens",
    type=click.IntRange(1),
    default=default_of(RunSettings, "max_completion_tokens"),
    help="Cap on response tokens, reasoning included, for reasoning models (OpenAI's o-series and "
    "gpt-5 refuse --max-tokens; not sent if unset).",
)
@click.option(
    "--reasoning-effort",
    type=click.Choice(["low", "medium", "high"]),
    default=default_of(RunSettings, "reasoning_effort"),
    help="Sent as reasoning_effort to reasoning models (not sent if unset: the model's default).",
)
@click.option(
    "--sampling/--no-sampling",
    "send_sampling",
    default=default_of(RunSettings, "send_sampling"),
    show_default=True,
    help="--no-sampling sends neither temperature nor top_p (reasoning models take only their "
    "defaults). Without it, a 400 'Unsupported parameter' for temperature, top_p or max_tokens "
    "drops that parameter (max_tokens: sent as max_completion_tokens), retries once, and keeps "
    "the change for the run; the manifest records it.",
)
@click.option(
    "--seed",
    type=SEED,
    default=default_of(RunSettings, "seed"),
    help="Sampling seed, for endpoints that take one (not sent if unset).",
)
@click.option(
    "--max-context",
    type=click.IntRange(1),
    default=default_of(run_prompts, "max_context"),
    help="Skip (never truncate) prompts whose system+user tokens exceed this; counted with --tokenizer.",
)
@click.option(
    "--tokenizer",
    default=default_of(run_prompts, "tokenizer"),
    show_default=True,
    callback=check_tokenizer,
    help="For --max-context: o200k_base, cl100k_base or tokenizer.json.",
)
@click.option(
    "--cache",
    "cache_dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=default_of(run_prompts, "cache_dir"),
    help="Response cache [default: OUT/.cache].",
)
@click.option(
    "--retries",
    type=click.IntRange(0),
    default=default_of(run_prompts, "retries"),
    show_default=True,
    help="Per request, on 429/5xx/connection errors.",
)
@click.option(
    "--api-key-env",
    default=default_of(run_prompts, "api_key_env"),
    show_default=True,
    help="Environment variable holding the key.",
)
@click.option(
    "--timeout",
    type=float,
    default=default_of(run_prompts, "timeout"),
    show_default=True,
    help="Seconds per request.",
)
def run(
    prompts,
    model,
    base_url,
    out_dir,
    concurrency,
    temperature,
    top_p,
    max_tokens,
    max_completion_tokens,
    reasoning_effort,
    send_sampling,
    seed,
    max_context,
    tokenizer,
    cache_dir,
    retries,
    api_key_env,
    timeout,
) -> None:
    """Ask a chat model every prompt (release's messages and sampling); cached, resumable, concurrent.

    \b
    System message "You are a helpful assistant.", the prompt as user message, temperature 0,
    top_p 1. A rerun sends only what is not cached yet. Score the result with
      reflong-build eval score --build TASKS --predictions OUT

    \b
    Reasoning models (o1, o3-mini, gpt-5, DeepSeek-R1, ...):
      reflong-build eval run ... --reasoning-effort low --max-completion-tokens 32000 --no-sampling
    The answer is the reply without its <think> reasoning; reasoning tokens are counted in
    run_manifest.json.
    """
    from reflong.common.progress import tqdm_progress

    if max_tokens is not None and max_completion_tokens is not None:
        raise click.UsageError("give --max-tokens or --max-completion-tokens, not both")
    refuse_unfinished(prompts)
    settings = RunSettings(
        model,
        base_url,
        temperature,
        top_p,
        max_tokens,
        seed,
        max_completion_tokens=max_completion_tokens,
        reasoning_effort=reasoning_effort,
        send_sampling=send_sampling,
    )
    result = run_prompts(
        prompts,
        out_dir,
        settings,
        concurrency,
        cache_dir,
        max_context,
        tokenizer,
        retries,
        api_key_env,
        timeout,
        progress=tqdm_progress,
    )
    for item in result.skipped[:10]:
        click.echo(f"skipped: {item['file']} task {item['task']}: {item['reason']}", err=True)
    for item in result.failed[:10]:
        click.echo(f"failed: prompt {item['prompt_sha256'][:12]}: {item['error']}", err=True)
    for param, change in result.adapted.items():
        click.echo(f"adapted: {param} {change['action']} for this run ({change['error']})", err=True)
    if result.cut_at_cap:
        cap = "--max-completion-tokens" if max_tokens is None else "--max-tokens"
        click.echo(
            f"warning: {result.cut_at_cap} answers stopped at the token cap (finish_reason length; "
            f"reasoning may have used it up): raise {cap}",
            err=True,
        )
    click.echo(result.line())


COMMANDS = [eval_group]
