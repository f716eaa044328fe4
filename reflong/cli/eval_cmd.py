"""``reflong-build eval``: score predictions, run a model on prompts, score no-model baselines."""

from __future__ import annotations

from pathlib import Path

import click

from reflong.cli.options import format_option

_PATH = click.Path(exists=True, path_type=Path)


@click.group("eval")
def eval_group() -> None:
    """Evaluate on built tasks: Ref-Long's ExAcc, F1 and error types (Type I/II/III).

    \b
      reflong-build eval score --answers OUT --predictions PRED      score responses
      reflong-build eval run --prompts OUT --model M --base-url URL  ask a chat model
      reflong-build eval baseline --prompts OUT --answers OUT --kind lexical
    """


def _emit(results, overall, fmt: str, save: Path | None, meta: dict) -> None:
    from reflong.assemble.outputs import write_atomic
    from reflong.evaluate.scoring import dumps, results_json, results_table

    data = results_json(results, overall)
    if save is not None:
        write_atomic(save, (dumps(results_json(results, overall, meta)) + "\n").encode("utf-8"))
    click.echo(dumps(data) if fmt == "json" else results_table(results, overall))


@eval_group.command("score")
@click.option("--answers", type=_PATH, required=True, help="An answers file or a folder of *_answers.json.")
@click.option(
    "--predictions",
    type=_PATH,
    required=True,
    help='A predictions file {"i": [key, response]} or a folder holding <config>.json for each answers file.',
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
    default="prompt",
    show_default=True,
    help="prompt: read the answer format the prompt asks for; reflong2025: the release's own scoring.",
)
@click.option("--save", type=click.Path(dir_okay=False, path_type=Path), help="Also write the JSON here.")
@click.option("--label", default=None, help="Name of what was scored (model or baseline), kept with --save.")
@format_option
def score(answers: Path, predictions: Path, prompts: Path | None, parser: str, save, label, fmt: str) -> None:
    """Score predictions: ExAcc, mean F1, precision, recall, Type I/II/III, unparseable; per file and overall."""
    from reflong.evaluate.scoring import score_paths

    results, overall = score_paths(answers, predictions, prompts, parser)
    _emit(results, overall, fmt, save, {"label": label or predictions.name, "parser": parser})


@eval_group.command("baseline")
@click.option("--answers", type=_PATH, required=True, help="An answers file or a folder of *_answers.json.")
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
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the random baseline.")
@click.option(
    "--threshold",
    type=click.FloatRange(0, 100),
    default=90.0,
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
    from reflong.assemble.outputs import write_atomic
    from reflong.evaluate.baseline_run import score_baselines
    from reflong.evaluate.scoring import dumps, results_json, results_table

    kinds = tuple(kinds) or (("random", "all", "none", "lexical") if prompts else ("random", "all", "none"))
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


COMMANDS = [eval_group]
