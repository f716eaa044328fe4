"""Which documents go into each Paper task, at every length (pure, deterministic).

Follows what the released Ref-Long-Paper files show (see ../shared/data/reflong/FORMAT.md):
a task is one key (a seed title) with *all* m papers citing it plus M - m negatives; the key and
its positives stay fixed across lengths, negatives only grow (the 8-document task is a subset of
the 12-document one, and so on up: cumulative sampling), and the order is reshuffled per length so
answer positions change. Keys repeat across the 100 tasks of a setting with fresh negatives.

Keys with many citers (more than a task takes: 5) are not skipped: each task of such a key draws
its own positives, a seeded sample of k citers with k uniform in the difficulty's range (easy 2-5,
hard 4-5). The sample is fixed across the task's lengths (cumulative, as for every key) and the
key's other citers never appear as negatives (the pools exclude every paper with any edge to the
key or a resolver hit on its final text). Since the key is drawn per task, a key with many citers
yields several tasks with different positive samples: that is how 100 tasks per setting come from
a few dozen keys when the best-known keys (Ref-Long's "Chatbot Arena", "Yi", "InternLM2") have
hundreds of citers. ``sample_many=False`` restores skipping ("6 positives, outside 2-5").

Difficulty is the number of positives (easy 2-5, hard 4-5 as released) and how confusable the
negatives are: hard tasks fill up to half their negatives with *confusers*, papers that cite a
seed whose title resembles the key (but not the key), the rest with date-safe distractors.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass, field

from reflong.assemble.paper.model import KeyCandidate

DEFAULT_LENGTHS: tuple[tuple[str, int], ...] = (("30K", 8), ("45K", 12), ("60K", 16), ("75K", 20))
DIFFICULTY_POSITIVES: dict[str, tuple[int, int]] = {"easy": (2, 5), "hard": (4, 5)}


@dataclass(frozen=True)
class NegativePools:
    """Negatives allowed for one key, each list sorted (refs of PaperDoc)."""

    distractors: tuple[str, ...]  # date-safe: text version predates the key's first version
    confusers: tuple[str, ...] = ()  # cite a similar-titled seed, verified not to cite the key


@dataclass(frozen=True)
class TaskPlan:
    difficulty: str
    task_index: int
    key: KeyCandidate
    documents: dict[str, tuple[str, ...]]  # length label -> doc refs in prompt order
    answers: dict[str, tuple[int, ...]]  # length label -> sorted positions of positives
    n_confusers: int = 0
    positives: tuple[str, ...] = ()  # this task's positives (a sample, for a key with many citers)


@dataclass
class PlanReport:
    difficulty: str
    eligible_keys: list[str] = field(default_factory=list)
    skipped_keys: dict[str, str] = field(default_factory=dict)  # seed id -> reason


def _rng(seed: int, difficulty: str) -> random.Random:
    # A string seed is hashed with SHA-512 by CPython's random (version 2): stable across runs and
    # platforms, and each difficulty gets its own independent stream.
    return random.Random(f"reflong-paper:{seed}:{difficulty}")


def plan_tasks(
    keys: list[KeyCandidate],
    pools: dict[str, NegativePools],
    difficulty: str,
    n_tasks: int,
    seed: int,
    lengths: tuple[tuple[str, int], ...] = DEFAULT_LENGTHS,
    positives_range: tuple[int, int] | None = None,
    sample_many: bool = True,
) -> tuple[list[TaskPlan], PlanReport]:
    """Plan ``n_tasks`` tasks of one difficulty; keys that cannot fill every length are skipped."""
    plans, report = iter_plans(keys, pools, difficulty, n_tasks, seed, lengths, positives_range, sample_many)
    return list(plans), report


def iter_plans(
    keys: list[KeyCandidate],
    pools: dict[str, NegativePools],
    difficulty: str,
    n_tasks: int,
    seed: int,
    lengths: tuple[tuple[str, int], ...] = DEFAULT_LENGTHS,
    positives_range: tuple[int, int] | None = None,
    sample_many: bool = True,
) -> tuple[Iterator[TaskPlan], PlanReport]:
    """``plan_tasks`` as a lazy iterator (the report is complete at once): a build regenerates the
    same plans from the seed for each pass instead of holding ``n_tasks`` of them (issue 12)."""
    lo, hi = positives_range or DIFFICULTY_POSITIVES[difficulty]
    max_docs = max(n for _, n in lengths)
    # Every length holds all of a task's positives and at least one negative.
    hi = min(hi, min(n for _, n in lengths) - 1)
    report = PlanReport(difficulty)
    eligible: list[KeyCandidate] = []
    for key in sorted(keys, key=lambda k: k.arxiv_id):
        m = len(key.positives)
        pool = pools.get(key.arxiv_id, NegativePools(()))
        many = sample_many and m > hi
        need = max_docs - (lo if many else m)  # a sampled task may take as few as lo positives
        available = len(pool.distractors) + (len(pool.confusers) if difficulty == "hard" else 0)
        if hi < lo:  # the shortest task cannot hold lo positives and one negative
            report.skipped_keys[key.arxiv_id] = (
                f"M={min(n for _, n in lengths)} leaves no room for {lo} positives and a negative"
            )
        elif not (lo <= m <= hi or many):
            report.skipped_keys[key.arxiv_id] = f"{m} positives, outside {lo}-{hi}"
        elif available < need:
            report.skipped_keys[key.arxiv_id] = f"only {available} negatives, {need} needed for M={max_docs}"
        else:
            eligible.append(key)
    report.eligible_keys = [k.arxiv_id for k in eligible]
    return _plans(eligible, pools, difficulty, n_tasks, seed, lengths, lo, hi), report


def _plans(
    eligible: list[KeyCandidate],
    pools: dict[str, NegativePools],
    difficulty: str,
    n_tasks: int,
    seed: int,
    lengths: tuple[tuple[str, int], ...],
    lo: int,
    hi: int,
) -> Iterator[TaskPlan]:
    if not eligible:
        return
    max_docs = max(n for _, n in lengths)
    rng = _rng(seed, difficulty)
    for index in range(n_tasks):
        key = rng.choice(eligible)
        positives = tuple(sorted(key.positives))
        if len(positives) > hi:  # many citers: this task's own sample (rng calls only here)
            positives = tuple(sorted(rng.sample(positives, rng.randint(lo, hi))))
        pool = pools[key.arxiv_id]
        need = max_docs - len(positives)
        n_conf = min(len(pool.confusers), need // 2) if difficulty == "hard" else 0
        # Too few distractors: take more confusers (eligibility guarantees there are enough).
        n_conf = max(n_conf, need - len(pool.distractors))
        negatives = rng.sample(pool.confusers, n_conf) + rng.sample(pool.distractors, need - n_conf)
        rng.shuffle(negatives)  # spread confusers over the cumulative order
        documents: dict[str, tuple[str, ...]] = {}
        answers: dict[str, tuple[int, ...]] = {}
        for label, n_docs in lengths:
            docs = list(positives) + negatives[: n_docs - len(positives)]
            rng.shuffle(docs)
            documents[label] = tuple(docs)
            answers[label] = tuple(i for i, ref in enumerate(docs) if ref in positives)
        yield TaskPlan(difficulty, index, key, documents, answers, n_conf, positives)
