"""Which tasks a human annotator sees: one setting of a build, its first N tasks, split into documents.

Why the first N in task order and not a sample: two annotators given the same ``--limit N`` must see
the same tasks (agreement is measured on shared tasks), and a larger N later extends the same
session instead of starting another. Builds already draw their tasks at random, so the first N are
as good a sample as any.

A setting is named as ``eval score`` names it: the answers file's name without ``_answers.json``
(``hard_30K``, ``multi_stars_hard_8K``). A/F builds can hold the same configuration twice (question
first in ``before/``, last in ``ori/``); there the prompt file's path inside the build picks one
(``--setting ori/multi_stars_hard_8K``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from reflong.common.errors import ReflongError
from reflong.common.hashing import sha256_file
from reflong.evaluate import files


@dataclass(frozen=True)
class HumanTask:
    """One task as the page shows it."""

    task_id: str
    key: str
    documents: tuple[str, ...]
    instructions: str  # the prompt's text around the documents (head and tail), as models read it
    gold: tuple[int, ...]


@dataclass(frozen=True)
class HumanSetting:
    """The tasks of one setting an annotator answers, and where they came from (provenance)."""

    config: str
    prompts_path: Path
    answers_path: Path
    prompts_sha256: str
    answers_sha256: str
    tasks: tuple[HumanTask, ...]
    available: int  # tasks in the setting, of which ``tasks`` are the first ones

    def position(self, task_id: str) -> int:
        """1-based position of a task in this session ("task 3 of 50")."""
        for i, task in enumerate(self.tasks):
            if task.task_id == task_id:
                return i + 1
        raise KeyError(task_id)


def settings_in(build: Path) -> list[str]:
    """The settings a build offers, as ``--setting`` accepts them (for the error that lists them)."""
    build = Path(build)
    if build.is_file():
        return [files.config_name(build)]
    configs = {files.config_name(p) for p in files.answers_files(build)}
    names = []
    for path in files.prompt_files(build):
        if files.config_name(path) not in configs:
            continue
        rel = path.relative_to(build).with_suffix("").as_posix()
        names.append(rel if _ambiguous(build, files.config_name(path)) else files.config_name(path))
    return sorted(set(names))


def _prompt_candidates(build: Path, config: str) -> list[Path]:
    return [p for p in files.prompt_files(build) if files.config_name(p) == config]


def _ambiguous(build: Path, config: str) -> bool:
    return len(_prompt_candidates(build, config)) > 1


def find_setting_files(build: Path, setting: str | None) -> tuple[Path, Path, str]:
    """(prompts file, answers file, configuration name) for ``setting`` in ``build``."""
    build = Path(build)
    if not build.exists():
        raise ReflongError(f"no such file or folder: {build}")
    if build.is_file():
        config = files.config_name(build)
        # beside the prompts (Paper's flat folder), or in the build above them (A/F: before/, answers/)
        answers = files.find_partner(build.parent, config, ("{config}_answers.json",)) or files.find_partner(
            build.parent.parent, config, ("{config}_answers.json",)
        )
        if answers is None:
            raise ReflongError(
                f"no {config}_answers.json beside {build}: the page needs the answers to score"
            )
        return build, answers, config
    offered = settings_in(build)
    if setting is None:
        if len(offered) != 1:
            raise ReflongError(
                f"{build} holds {len(offered)} settings; choose one with --setting ({', '.join(offered[:12])})"
            )
        setting = offered[0]
    config = Path(setting).name
    candidates = _prompt_candidates(build, config)
    if "/" in setting:
        candidates = [p for p in candidates if p.relative_to(build).with_suffix("").as_posix() == setting]
    if not candidates:
        raise ReflongError(f"no setting {setting!r} in {build}; it holds: {', '.join(offered[:12])}")
    if len(candidates) > 1:
        names = ", ".join(p.relative_to(build).with_suffix("").as_posix() for p in candidates)
        raise ReflongError(f"{build} holds {config} more than once; name one with --setting ({names})")
    answers = files.find_partner(build, config, ("{config}_answers.json",))
    if answers is None:
        raise ReflongError(f"no {config}_answers.json under {build}: the page needs the answers to score")
    return candidates[0], answers, config


def load_setting(build: Path, setting: str | None, n_tasks: int) -> HumanSetting:
    """The first ``n_tasks`` tasks of ``setting`` (fewer if the setting has fewer), split for display."""
    prompts_path, answers_path, config = find_setting_files(build, setting)
    prompts = files.load_mapping(prompts_path)
    answers = files.load_mapping(answers_path)
    if not all(isinstance(v[1], str) for v in prompts.values()):
        raise ReflongError(f"{prompts_path} is not a prompts file: its values must be [key, prompt text]")
    order = [tid for tid in files.task_order(answers) if tid in prompts]
    if not order:
        raise ReflongError(f"{prompts_path} and {answers_path} share no task id: are they the same setting?")
    tasks = []
    for tid in order[:n_tasks]:
        key, prompt = prompts[tid]
        if key != answers[tid][0]:
            raise ReflongError(
                f"task {tid} has key {str(key)[:60]!r} in {prompts_path} but {str(answers[tid][0])[:60]!r} "
                f"in {answers_path}: they are not the same build"
            )
        split = files.prompt_documents(prompt)
        instructions = "\n\n".join(part.strip() for part in (split.head, split.tail) if part.strip())
        gold = tuple(i for i in answers[tid][1] if isinstance(i, int))
        tasks.append(HumanTask(tid, str(key), split.documents, instructions, gold))
    return HumanSetting(
        config=config,
        prompts_path=prompts_path,
        answers_path=answers_path,
        prompts_sha256=sha256_file(prompts_path),
        answers_sha256=sha256_file(answers_path),
        tasks=tuple(tasks),
        available=len(order),
    )
