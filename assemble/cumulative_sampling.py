"""Cumulative ("aggregative") task sampling, as recovered from the released Ref-Long files.

Why Python's ``random`` and these exact calls: the released A and F tasks were drawn with CPython's
Mersenne Twister (``random.sample``/``random.choice``, seed 2024); reproducing the release means
making the same calls in the same order (../shared/data/reflong/FORMAT.md, "Task sampling"):

1. seed; for each task: ``docs = sample(range(N), M0)`` (prompt order = sample order); the
   candidate keys are the distinct keys of those documents in order of first appearance;
   ``key = choice(candidates)`` (uniform over distinct keys, so it always occurs);
2. for each longer length: seed again (release) and, for each task, append
   ``sample(<candidates not yet in the task, ascending>, M - M_prev)``. The key is never redrawn:
   the first M_prev documents of a longer task are the shorter task, in the same order.

Our own default keeps one stream running instead of re-seeding per length (re-seeding makes every
growth step reuse the same random draws), and ``grow`` accepts any step size so lengths need not
be evenly spaced. The Paper subset reuses ``extend_from_pool`` (add negatives from a pool while the
positives stay) and ``reshuffled`` (new order per length).
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass
from typing import TypeVar

T = TypeVar("T")


@dataclass(frozen=True)
class SampledTask:
    """One task across lengths: its key and, per document count M, candidate indexes in prompt order."""

    task_id: int
    key: Hashable
    docs: dict[int, tuple[int, ...]]


def distinct_in_order(items: Iterable[T]) -> list[T]:
    """The distinct items in order of first appearance (the release's candidate-key order)."""
    seen: set = set()
    out: list[T] = []
    for item in items:
        if item not in seen:
            seen.add(item)
            out.append(item)
    return out


def extend_from_pool(rng: random.Random, current: Sequence[T], pool: Sequence[T], k: int) -> list[T]:
    """``current`` plus ``k`` items drawn with ``rng.sample`` from the pool items not in it.

    The remaining items keep the pool's order; that order is part of what the draw means (the
    release draws from the unused candidates in ascending order)."""
    chosen = set(current)
    remaining = [item for item in pool if item not in chosen]
    if k > len(remaining):
        raise ValueError(f"cannot add {k} items: only {len(remaining)} left in the pool")
    return [*current, *rng.sample(remaining, k)]


def reshuffled(rng: random.Random, items: Sequence[T]) -> list[T]:
    """A new random order of ``items`` (Paper: positions change at every length)."""
    return rng.sample(list(items), len(items))


def cumulative_tasks(
    keys_of: Callable[[int], Sequence[Hashable]],
    n_candidates: int,
    sizes: Sequence[int],
    n_tasks: int,
    seed: int,
    reseed_each_length: bool = True,
) -> list[SampledTask]:
    """Draw ``n_tasks`` tasks over candidates ``0..n_candidates-1`` for every M in ``sizes``.

    ``keys_of(d)`` lists the keys candidate ``d`` contains, in the order that defines the candidate
    key list (A: star numbers in draw order; F: ``insights_included`` order). ``sizes`` must be
    increasing. ``reseed_each_length=True`` is the release's procedure."""
    sizes = list(sizes)
    if not sizes or sizes != sorted(set(sizes)) or sizes[0] < 1:
        raise ValueError(f"document counts must be increasing and positive: {sizes}")
    if sizes[-1] > n_candidates:
        raise ValueError(f"{sizes[-1]} documents per task but only {n_candidates} candidates")
    rng = random.Random(seed)
    keys: list[Hashable] = []
    lists: list[list[int]] = []
    for task_id in range(n_tasks):
        docs = rng.sample(range(n_candidates), sizes[0])
        candidates = distinct_in_order(key for d in docs for key in keys_of(d))
        if not candidates:
            raise ValueError(f"task {task_id}: none of its documents holds a key")
        keys.append(rng.choice(candidates))
        lists.append(docs)
    per_size = {sizes[0]: [tuple(docs) for docs in lists]}
    pool = range(n_candidates)
    for prev, size in itertools.pairwise(sizes):
        if reseed_each_length:
            rng = random.Random(seed)
        lists = [extend_from_pool(rng, docs, pool, size - prev) for docs in lists]
        per_size[size] = [tuple(docs) for docs in lists]
    return [
        SampledTask(task_id, keys[task_id], {size: per_size[size][task_id] for size in sizes})
        for task_id in range(n_tasks)
    ]


def answer_positions(
    docs: Sequence[int], key: Hashable, keys_of: Callable[[int], Sequence[Hashable]]
) -> list[int]:
    """0-based prompt positions whose document holds ``key`` (a document counts once)."""
    return [pos for pos, d in enumerate(docs) if key in keys_of(d)]
