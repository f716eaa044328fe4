"""The 2024-sized world grown month by month, with a citation truth for every seed window.

The rehearsal's world (``rehearsal.build_world``) has a truth for one seed window (2024-03): pool
papers cite its seeds and nothing else. A living benchmark builds window after window on a world
that grows, so here every month from ``FIRST`` on is a seed window, each with its own power-law
popularity (``citation_graph.generate_graph`` with a seed per window), and a paper cites the seeds
of every window whose pool it falls in (the six months before it, by default).

Growth keeps the past: ``write_catalog(until=M+1)`` over ``until=M`` only adds lines, and a paper's
citations depend on its own date and the (complete) seed months before it, so growing the world
never changes what an existing paper cites; the text of a PDF fetched earlier stays true. Only the
index view moves (its spurious links are drawn over the whole truth, its off-arXiv citers grow
with each seed's citers), as a real index does between two refreshes.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from reflong.demo.citation_graph import INDEX_FILE, TRUTH_FILE, IndexConfig, generate_graph, index_view
from reflong.ingest.catalog.reader import read_catalog
from reflong.ingest.plan.windows import add_months, parse_month

FIRST = "2024-03"


@dataclass(frozen=True)
class GrownWorld:
    folder: Path
    until: str
    papers: int
    true_pairs: int
    index_rows: int


def seed_months(until: str, first: str = FIRST) -> list[str]:
    """Every month from ``first`` up to ``until`` whose seeds exist (``until`` included)."""
    out, month, end = [], parse_month(first), parse_month(until)
    while month <= end:
        out.append(f"{month:%Y-%m}")
        month = add_months(month, 1)
    return out


def grow_world(
    folder: Path | str, scale: float, until: str, seed: int = 0, pool_months: int = 6, first: str = FIRST
) -> GrownWorld:
    """Write (or grow) the catalog up to ``until`` and the truth and index view of every window."""
    from reflong.demo.catalog2024 import write_catalog

    folder = Path(folder)
    summary = write_catalog(folder, scale=scale, seed=seed, until=until)
    catalog = read_catalog(folder)
    truth: set[tuple[str, str]] = set()
    for i, month in enumerate(seed_months(until, first)):
        # the first window keeps the rehearsal's graph (seed 0); each later one its own popularity
        truth.update(generate_graph(catalog, month, 1, pool_months, seed + i))
    pairs = sorted(truth)
    view = index_view(pairs, catalog, IndexConfig(seed=seed))
    _write_jsonl(folder / TRUTH_FILE, [{"citing": c, "cited": d} for c, d in pairs])
    _write_jsonl(folder / INDEX_FILE, view)
    return GrownWorld(folder, until, summary.papers, len(pairs), len(view))


def _write_jsonl(path: Path, rows: list[dict]) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text("".join(json.dumps(r, sort_keys=True) + "\n" for r in rows), encoding="utf-8")
    tmp.replace(path)
