"""Running the baselines over files (``eval baseline``) and into a build's dataset card.

Card design (one-way): the card is written by assemble, which must not import evaluate. Assemble's
writers accept ``card_sections`` (``assemble.dataset_card.CardSection``: ``add(config, tasks)`` while
configurations are written, ``render(out_dir)`` before the card is written); the CLI hands them a
``BaselineCardSection`` from here. So the card and the manifest are written once, with the
baseline table inside (their sha256 in the manifest and the store's build row stay true), assemble
knows nothing of baselines, and evaluate reads only assemble's records. The section also writes
``OUT/eval/baselines.json`` (the same figures, per kind and configuration, for ``reflong-build
report``), listed in the manifest like every output.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from reflong.common.errors import ReflongError
from reflong.evaluate import baselines, files
from reflong.evaluate.metrics import Summary, summarize
from reflong.evaluate.scoring import FileResult, results_json, score_mapping

EVAL_DIR = "eval"
BASELINES_FILE = "baselines.json"


def score_baselines(
    answers: Path,
    prompts: Path | None,
    kinds: Sequence[str],
    seed: int = 0,
    threshold: float = baselines.DEFAULT_THRESHOLD,
    out_dir: Path | None = None,
) -> dict[str, tuple[list[FileResult], Summary]]:
    """Every baseline in ``kinds`` over every answers file under ``answers``.

    Documents come from the prompts file of each configuration when ``prompts`` is given; without
    it only random/all/none can run (M from the configuration name). With ``out_dir`` the
    predictions are written as ``out_dir/<kind>/<config>.json`` (release format)."""
    from reflong.assemble.writers.reflong_json import reflong_json_bytes
    from reflong.common.atomic_files import write_atomic

    out: dict[str, tuple[list[FileResult], Summary]] = {k: ([], None) for k in kinds}  # type: ignore[misc]
    for path in files.answers_files(answers):
        config = files.config_name(path)
        answer_map = files.load_mapping(path)
        prompt_path = files.find_partner(prompts, config, ("{config}.json",)) if prompts else None
        if prompt_path is not None:
            tasks = baselines.tasks_from_prompts(files.load_mapping(prompt_path))
        else:
            m = files.nominal_documents(config)
            if m is None:
                raise ReflongError(
                    f"{path.name}: no prompts file and no document count in the name; give --prompts"
                )
            if "lexical" in kinds:
                raise ReflongError(f"the lexical baseline needs the prompts of {config}: give --prompts")
            tasks = baselines.tasks_from_answers(answer_map, m)
        n_docs = {t.task_id: t.n_documents for t in tasks}
        for kind in kinds:
            preds = baselines.predictions(kind, tasks, config, seed, threshold)
            if out_dir is not None:
                write_atomic(Path(out_dir) / kind / f"{config}.json", reflong_json_bytes(preds))
            scored = score_mapping(answer_map, preds, "prompt", n_docs, source=f"{kind} baseline")
            out[kind][0].append(FileResult(path.name, config, summarize(scored.values()), scored))
    return {k: (r, summarize(s for f in r for s in f.tasks.values())) for k, (r, _) in out.items()}


class BaselineCardSection:
    """Baseline ExAcc/F1 per configuration for a build's dataset card (see the module doc)."""

    def __init__(self, seed: int = 0, threshold: float = baselines.DEFAULT_THRESHOLD) -> None:
        self.seed = seed
        self.threshold = threshold
        # kind -> configuration (in write order) -> task id -> score: a few numbers per task, so
        # the section stays small while assemble streams its tasks to disk.
        self.scores: dict[str, dict[str, dict]] = {k: {} for k in baselines.KINDS}

    def add(self, config: str, task) -> None:
        """One of assemble's TaskRecords of ``config``, as it is written (tasks arrive one by one)."""
        base = baselines.BaselineTask(
            str(task.task_id), task.key, len(task.documents), [d.text for d in task.documents]
        )
        answers = {base.task_id: [task.key, list(task.answer)]}
        for kind in baselines.KINDS:
            preds = baselines.predictions(kind, [base], config, self.seed, self.threshold)
            scored = score_mapping(answers, preds, "prompt", base.n_documents)
            self.scores[kind].setdefault(config, {}).update(scored)

    @property
    def results(self) -> dict[str, list[FileResult]]:
        return {
            kind: [
                FileResult(f"{config}_answers.json", config, summarize(scored.values()), scored)
                for config, scored in per_config.items()
            ]
            for kind, per_config in self.scores.items()
        }

    def figures(self) -> dict:
        results = self.results
        return {
            "seed": self.seed,
            "lexical_threshold": self.threshold,
            "kinds": {
                kind: results_json(r, summarize(s for f in r for s in f.tasks.values()))
                for kind, r in results.items()
            },
        }

    def render(self, out_dir: Path) -> tuple[str, list[Path]]:
        from reflong.common.atomic_files import write_atomic

        saved = Path(out_dir) / EVAL_DIR / BASELINES_FILE
        write_atomic(saved, (json.dumps(self.figures(), indent=2) + "\n").encode("utf-8"))
        results = self.results
        configs = [r.config for r in results["all"]]
        lines = [
            "",
            "## Baselines (no model)",
            "",
            "ExAcc / mean F1 of answers that need no model, scored like a model's "
            "(`reflong-build eval baseline`): random = each document with probability 1/2 "
            f"(seed {self.seed}); all = every document; none = no document; lexical = the key as a "
            "normalised whole-word substring of the document, or rapidfuzz partial_ratio >= "
            f"{self.threshold:g} for keys of {baselines.FUZZY_MIN_CHARS}+ characters. A high lexical "
            "ExAcc means surface matching solves the setting.",
            "",
            "| config | random | all | none | lexical |",
            "|---|---|---|---|---|",
        ]
        by_kind = {k: {r.config: r.summary for r in v} for k, v in results.items()}
        for config in configs:
            cells = [f"{by_kind[k][config].exacc:.2f} / {by_kind[k][config].f1:.2f}" for k in baselines.KINDS]
            lines.append(f"| {config} | " + " | ".join(cells) + " |")
        return "\n".join(lines) + "\n", [saved]
