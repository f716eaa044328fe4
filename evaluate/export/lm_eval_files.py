"""lm-evaluation-harness's files: a shared template, one task per configuration, and groups.

Why ``custom_dataset`` and not ``dataset_path: json`` with ``data_files``: lm-eval resolves
``data_files`` against the working directory, not the YAML's folder, so an export would run only
from one directory. ``utils.lm_eval_dataset`` finds ``data/`` beside its own file. It also takes
``--metadata '{"max_context": N}'``, lm-eval's way to hand a task its options.

Why groups are weighted by size: ``eval score``'s overall pools every task (each task weighs the
same); a group's mean of its tasks' means weighted by their sizes is that pooled figure. The
``*_fit`` metrics are per task only: a group would weight them by all its tasks, not by those that
fit, so at group level they would not be ``eval score``'s.

Generation: temperature 0 and no stop sequence (lm-eval's default stop for ``generate_until`` is a
blank line, which would cut an answer a model writes after its reasoning), 256 new tokens as
lm-eval's own default; the system message goes on the command line (``--system_instruction``).
"""

from __future__ import annotations

import json
from collections.abc import Iterable

from reflong.evaluate.export.samples import Config

TEMPLATE = "_default_template_yaml"  # lm-eval's convention for an included file that is no task
TASK_METRICS = ("exacc", "f1", "precision", "recall", "over_context")
FIT_METRICS = ("exacc_fit", "f1_fit")
MAX_GEN_TOKS = 256


def _q(text: str) -> str:
    return json.dumps(text)  # a JSON string is a YAML scalar, quoted and escaped


def template_text(tool_version: str) -> str:
    lines = [
        f"# Shared by every reflong task; written by reflong-build {tool_version}.",
        "output_type: generate_until",
        "test_split: test",
        "dataset_path: json  # unused: custom_dataset reads data/ beside utils.py",
        "custom_dataset: !function utils.lm_eval_dataset",
        "doc_to_text: !function utils.doc_to_text",
        "doc_to_target: target",
        "process_results: !function utils.process_results",
        "generation_kwargs:",
        "  until: []",
        f"  max_gen_toks: {MAX_GEN_TOKS}",
        "  temperature: 0.0",
        "  do_sample: false",
        "metric_list:",
    ]
    for name in TASK_METRICS:
        better = "false" if name == "over_context" else "true"
        lines += [f"  - metric: {name}", "    aggregation: mean", f"    higher_is_better: {better}"]
    for name in FIT_METRICS:
        lines += [
            f"  - metric: {name}",
            "    aggregation: !function utils.mean_of_fit",
            "    higher_is_better: true",
        ]
    lines += ["metadata:", "  version: 1.0"]
    return "\n".join(lines) + "\n"


def task_text(config: Config) -> str:
    return "\n".join(
        [
            f"include: {TEMPLATE}",
            f"task: {config.task}",
            "dataset_kwargs:",
            f"  config: {_q(config.name)}",
            "",
        ]
    )


def group_text(name: str, tasks: Iterable[str]) -> str:
    lines = [f"group: {name}", "task:"]
    lines += [f"  - {t}" for t in tasks]
    lines.append("aggregate_metric_list:")
    for metric in TASK_METRICS:
        lines += [f"  - metric: {metric}", "    aggregation: mean", "    weight_by_size: true"]
    lines += ["metadata:", "  version: 1.0", ""]
    return "\n".join(lines)


def groups(configs: list[Config]) -> dict[str, list[str]]:
    """Group name -> its tasks: the subset, each length and each setting (a name that would equal
    a task's is left out)."""
    out: dict[str, list[str]] = {}
    for c in configs:
        out.setdefault(f"reflong_{c.subset}", []).append(c.task)
        if c.length:
            out.setdefault(f"reflong_{c.subset}_{c.length}", []).append(c.task)
        out.setdefault(f"reflong_{c.subset}_{c.setting}", []).append(c.task)
    tasks = {c.task for c in configs}
    return {g: ts for g, ts in sorted(out.items()) if g not in tasks}


def lm_eval_files(configs: list[Config], tool_version: str) -> dict[str, str]:
    """File name (under ``lm_eval/``) -> text."""
    out = {TEMPLATE: template_text(tool_version)}
    for c in configs:
        out[f"{c.task}.yaml"] = task_text(c)
    for name, tasks in groups(configs).items():
        out[f"{name}.yaml"] = group_text(name, tasks)
    return out
