"""Seeded choices of which papers to fetch: keys across citation bands, samples, strata.

Pure functions of their inputs and a seed (``random.Random`` seeded with a string, stable across
processes and Python versions), so the same store and ``--seed`` give the same plan.
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
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
    total = len(items)
    quotas = {s: n * len(g) / total for s, g in groups.items()}
    alloc = {s: int(q) for s, q in quotas.items()}
    left = n - sum(alloc.values())
    for s in sorted(groups, key=lambda s: (-(quotas[s] - alloc[s]), s))[:left]:
        alloc[s] += 1
    out: list[T] = []
    for s in sorted(groups):
        out.extend(seeded_sample(groups[s], alloc[s], seed, f"stratum:{s}", key=key))
    return sorted(out, key=key)


def scale_to_budget(wanted: dict[str, int], budget: int | None) -> dict[str, int]:
    """Shrink per-role counts in proportion so their sum fits ``budget`` (floors, remainder to the
    largest roles first); unchanged when they fit."""
    total = sum(wanted.values())
    if budget is None or total <= budget:
        return dict(wanted)
    exact = {r: n * budget / total for r, n in wanted.items()}
    out = {r: int(x) for r, x in exact.items()}
    for r in sorted(wanted, key=lambda r: (-(exact[r] - out[r]), r))[: budget - sum(out.values())]:
        out[r] += 1
    return out
