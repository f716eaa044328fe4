"""Seeded choices of which papers to fetch: keys across citation bands, samples, strata.

Pure functions of their inputs and a seed (``random.Random`` seeded with a string, stable across
processes and Python versions), so the same store and ``--seed`` give the same plan.
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

T = TypeVar("T")

MIN_CITATIONS = 2  # a key needs at least two citing papers to make a task


def rng(seed: int, label: str) -> random.Random:
    return random.Random(f"reflong-plan:{seed}:{label}")


def seeded_sample(items: Sequence[T], n: int | None, seed: int, label: str, key: Callable = str) -> list[T]:
    """``n`` of ``items`` at random (all of them when ``n`` is None or large), in a stable order."""
    ordered = sorted(items, key=key)
    if n is None or n >= len(ordered):
        return ordered
    picked = rng(seed, label).sample(ordered, max(0, n))
    return sorted(picked, key=key)


def sample_positions(count: int, n: int | None, seed: int, label: str) -> list[int] | None:
    """The positions, ascending, of what ``seeded_sample(items, n, seed, label)`` picks from
    ``count`` items in key order (keys distinct); None when it takes them all.

    ``random.Random.sample`` draws positions from the random stream and the population's length
    alone, whatever the items are (the docs' ``sample(range(10000000), k=60)``), so a sample of rows
    in a store can be chosen from their count and then read, instead of holding every row."""
    if n is None or n >= count:
        return None
    return sorted(rng(seed, label).sample(range(count), max(0, n)))


def month_and_category(first_published: str | None, primary_category: str | None) -> str:
    """The stratum of a paper in pool samples: month of its first version and primary category."""
    return f"{(first_published or '')[:7]}|{primary_category or ''}"


def band_of(count: int) -> str:
    """Log2 citation bands: 2-3, 4-7, 8-15, ... (the famous and the obscure in separate bands)."""
    lo = 1 << (max(count, 1).bit_length() - 1)
    return f"{lo}-{2 * lo - 1}"


def key_order(counts: dict[str, int], seed: int) -> list[tuple[str, str]]:
    """Every paper cited at least twice, as (arxiv id, band), in the order keys are tried.

    Bands are visited round-robin, most cited band first, and papers within a band in a seeded
    random order: the first N of this list spread over every band instead of taking the N most
    cited (Ref-Long's keys mix papers with hundreds of citers and obscure ones)."""
    bands: dict[str, list[str]] = defaultdict(list)
    for arxiv_id, count in counts.items():
        if count >= MIN_CITATIONS:
            bands[band_of(count)].append(arxiv_id)
    order = sorted(bands, key=lambda b: -int(b.split("-")[0]))
    queues = {b: seeded_sample(bands[b], None, seed, f"band:{b}") for b in order}
    for b in order:
        rng(seed, f"band-order:{b}").shuffle(queues[b])
    out: list[tuple[str, str]] = []
    while any(queues.values()):
        for b in order:
            if queues[b]:
                out.append((queues[b].pop(0), b))
    return out


def stratified_sample(
    items: Iterable[T], n: int | None, seed: int, stratum: Callable[[T], str], key: Callable[[T], str]
) -> list[T]:
    """``n`` items spread over strata in proportion to their size (largest remainders), seeded
    within each stratum; all items when ``n`` is None or not smaller. Never "the first n"."""
    items = sorted(items, key=key)
    if n is None or n >= len(items):
        return items
    groups: dict[str, list[T]] = defaultdict(list)
    for item in items:
        groups[stratum(item)].append(item)
    alloc = stratum_quotas({s: len(g) for s, g in groups.items()}, n)
    out: list[T] = []
    for s in sorted(groups):
        out.extend(seeded_sample(groups[s], alloc[s], seed, f"stratum:{s}", key=key))
    return sorted(out, key=key)


def stratum_quotas(sizes: Mapping[str, int], n: int) -> dict[str, int]:
    """How many of each stratum (of ``sizes[stratum]`` items) a stratified sample of ``n`` takes:
    in proportion to their size, remainders to the largest fractions first (ties by name)."""
    total = sum(sizes.values())
    quotas = {s: n * size / total for s, size in sizes.items()}
    alloc = {s: int(q) for s, q in quotas.items()}
    left = n - sum(alloc.values())
    for s in sorted(sizes, key=lambda s: (-(quotas[s] - alloc[s]), s))[:left]:
        alloc[s] += 1
    return alloc


# What a Ref-Long-Paper task takes (assemble/paper/sampling.py; ingest cannot import assemble):
TASK_POSITIVES = 5  # at most 5 positives a task (easy 2-5, hard 4-5)
NEGATIVES_FLOOR = 20  # the longest default task (75K) has 20 documents, its negatives are distractors


@dataclass
class CappedPicks:
    """What ``cap_plan`` keeps: each kept key's citers (keys in the order they were chosen)."""

    citers: dict[str, list[str]]
    controls: list = field(default_factory=list)
    distractors: list = field(default_factory=list)

    def total(self) -> int:
        return len({a for v in self.citers.values() for a in v}) + len(self.controls) + len(self.distractors)


def cap_plan(
    citers: dict[str, list[str]],
    order: Sequence[str],
    controls: Sequence[T],
    distractors: Sequence[T],
    cap: int | None,
    seed: int,
) -> CappedPicks:
    """The largest plan of at most ``cap`` PDFs that keeps a build usable, cutting in this order:

    1. a key's citers past ``TASK_POSITIVES`` (a task takes at most 5 positives; more only vary
       which ones its tasks draw), lowered one a key at a time, only as far as needed;
    2. controls (they measure false positives and feed confusers; tasks are made without them);
    3. distractors past ``NEGATIVES_FLOOR`` (the negatives of every task are distractors: with
       fewer than the longest task needs, no key can make a task);
    4. whole keys, the last chosen first, down to one (a key keeps its citers or goes: thinning
       every key to 2 citers would leave no key for hard tasks, which take 4-5 positives);
    5. distractors below the floor, then the last key's citers down to 2 (a key needs two).

    Room freed by a whole key is given back to distractors, then controls. ``citers`` maps a key
    to its citers (a citer may serve several keys: it is counted once); ``order`` is the order
    the keys were chosen in. Pure and seeded: the same inputs give the same picks."""
    keys = [k for k in order if k in citers]
    limit = {k: len(citers[k]) for k in keys}
    n_controls, n_distractors = len(controls), len(distractors)

    def kept() -> dict[str, list[str]]:
        return {k: seeded_sample(citers[k], limit[k], seed, f"citers-cap:{k}") for k in keys}

    def total() -> int:
        return len({a for v in kept().values() for a in v}) + n_controls + n_distractors

    if cap is None or total() <= cap:
        return CappedPicks(kept(), list(controls), list(distractors))
    while total() > cap and max(limit.values(), default=0) > TASK_POSITIVES:
        top = max(limit.values()) - 1
        limit = {k: min(n, top) for k, n in limit.items()}
    n_controls = max(0, n_controls - max(0, total() - cap))
    n_distractors = max(min(n_distractors, NEGATIVES_FLOOR), n_distractors - max(0, total() - cap))
    while total() > cap and len(keys) > 1:
        keys.pop()
    n_distractors = max(0, n_distractors - max(0, total() - cap))
    while total() > cap and keys and limit[keys[0]] > MIN_CITATIONS:
        limit[keys[0]] -= 1
    if total() > cap:
        keys = []
    room = cap - total()
    n_distractors += min(room, len(distractors) - n_distractors)
    n_controls += min(cap - total(), len(controls) - n_controls)
    return CappedPicks(
        kept(),
        seeded_sample(controls, n_controls, seed, "controls-cap", key=_sort_key),
        seeded_sample(distractors, n_distractors, seed, "distractors-cap", key=_sort_key),
    )


def _sort_key(item) -> str:
    return getattr(item, "arxiv_id", None) or str(item)
