"""Inspect's file: ``reflong.py``, one ``@task`` per configuration and one per subset.

The tasks use the export's ``utils.py`` (loaded from beside this file, under a name of its own,
so no other ``utils`` module on the path can shadow it) for the samples and the scoring.

Why a solver of our own: a sample over ``-T max_context=N`` is not sent (``generate`` is skipped
and the output left empty), and scores 0 with ``over_context`` 1, as ``eval run --max-context N``
+ ``eval score`` count it; Inspect would otherwise send it and turn the endpoint's
``context_length_exceeded`` into a silent 0.
"""

from __future__ import annotations

from reflong.evaluate.export.lm_eval_files import MAX_GEN_TOKS
from reflong.evaluate.export.samples import Config

HEADER = '''"""Ref-Long tasks for Inspect, written by reflong-build {version}.

    inspect eval reflong.py@{example} --model openai-api/<service>/<model>
    inspect eval reflong.py@{example} -T max_context=30000 ...

Every task takes ``max_context`` (tokens of system + prompt, the build's tokenizer; tasks over it
score 0 and count in ``over_context``), ``max_tokens`` (default {max_tokens}; raise it for
reasoning models) and ``per_config`` (the first N tasks of each configuration, for a quick look;
Inspect's own ``--limit`` takes the first N samples of the whole task).
"""

import importlib.util
import sys
from pathlib import Path

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import GenerateConfig, ModelOutput
from inspect_ai.scorer import Score, Target, grouped, mean, metric, scorer
from inspect_ai.solver import Generate, TaskState, solver, system_message


def _load_utils():
    name = "reflong_export_utils"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, Path(__file__).resolve().parent / "utils.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


utils = _load_utils()
METRICS = ("exacc", "f1", "precision", "recall", "over_context")


@metric
def mean_of_fit():
    """The mean over the samples that fit the context limit (a None value marks one that does not)."""

    def compute(scores):
        return utils.mean_of_fit([s.score.value for s in scores])

    return compute


def _dataset(configs, max_context, per_config):
    samples = []
    for config in configs:
        loaded = utils.load_samples(config)
        for s in loaded[:per_config] if per_config is not None else loaded:
            fit = utils.fits(s, max_context)
            samples.append(
                Sample(
                    id=s["id"],
                    input=s["input"],
                    target=[str(i) for i in s["target"]],
                    metadata={{**s["metadata"], "fits": fit, "gold": s["target"]}},
                )
            )
    return MemoryDataset(samples, name=",".join(configs))


@solver
def generate_if_it_fits():
    async def solve(state: TaskState, generate: Generate) -> TaskState:
        if not state.metadata["fits"]:
            state.output = ModelOutput.from_content(model=str(state.model), content="")
            state.completed = True
            return state
        return await generate(state)

    return solve


def _metrics(by_config):
    def one(name):
        if by_config:
            return grouped(mean(), "config")
        return mean()

    out = {{name: [one(name)] for name in METRICS}}
    if not by_config:
        out.update({{name: [mean_of_fit()] for name in ("exacc_fit", "f1_fit")}})
    return out


def _scorer(by_config):
    @scorer(metrics=_metrics(by_config))
    def reflong_score():
        async def score(state: TaskState, target: Target) -> Score:
            meta = state.metadata
            values = utils.score_response(
                meta["gold"], meta["n_documents"], state.output.completion, meta["fits"]
            )
            if by_config:
                values = {{k: v for k, v in values.items() if k in METRICS}}
            return Score(value=values, answer=state.output.completion)

        return score

    return reflong_score()


def _task(configs, max_context, max_tokens, per_config, by_config=False):
    max_context = int(max_context) if max_context is not None else None
    per_config = int(per_config) if per_config is not None else None
    return Task(
        dataset=_dataset(configs, max_context, per_config),
        solver=[system_message(utils.SYSTEM_PROMPT), generate_if_it_fits()],
        scorer=_scorer(by_config),
        config=GenerateConfig(temperature=0.0, top_p=1.0, max_tokens=int(max_tokens)),
    )
'''

TASK = '''

@task
def {name}(max_context: int | None = None, max_tokens: int = {max_tokens}, per_config: int | None = None) -> Task:
    """{doc}"""
    return _task({configs!r}, max_context, max_tokens, per_config{extra})
'''


def inspect_text(configs: list[Config], tool_version: str) -> str:
    parts = [
        HEADER.format(
            version=tool_version, example=configs[0].task if configs else "", max_tokens=MAX_GEN_TOKS
        )
    ]
    for c in configs:
        doc = f"{c.name}: {len(c.samples)} tasks"
        parts.append(TASK.format(name=c.task, max_tokens=MAX_GEN_TOKS, doc=doc, configs=[c.name], extra=""))
    by_subset: dict[str, list[str]] = {}
    for c in configs:
        by_subset.setdefault(c.subset, []).append(c.name)
    for subset, names in sorted(by_subset.items()):
        doc = f"every {subset} configuration, metrics per configuration and pooled ('all')"
        parts.append(
            TASK.format(
                name=f"reflong_{subset}",
                max_tokens=MAX_GEN_TOKS,
                doc=doc,
                configs=names,
                extra=", by_config=True",
            )
        )
    return "".join(parts)
