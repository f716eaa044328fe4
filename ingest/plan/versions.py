"""Which version of a distractor to read: the newest one dated before the seed window.

arXiv papers get revised: a v3 from August can cite a March seed. A distractor is therefore read at
the newest version whose date is strictly before the seed window's first day (docs/architecture.md,
invariant 2), never at "latest" unless latest qualifies. Dates of older versions come from versioned
``id_list`` look-ups (``2201.12091v1``), batched into as few requests as possible.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date

from reflong.ingest.metadata import PaperMeta, versioned_id


def is_date_safe(meta: PaperMeta, cutoff: date) -> bool:
    """A known version whose own date is before ``cutoff`` (unknown version or date: not safe)."""
    return bool(meta.version and meta.version_date and meta.version_date < cutoff.isoformat())


def older_version_ids(meta: PaperMeta) -> list[str]:
    """Versioned ids to look up, newest first; for an unknown version only v1 is certain to exist."""
    if meta.version == 0:
        return [versioned_id(meta.arxiv_id, 1)]
    return [versioned_id(meta.arxiv_id, n) for n in range(meta.version - 1, 0, -1)]


def pick_versions(
    latest: list[PaperMeta],
    cutoff: date,
    lookup: Callable[[list[str]], list[PaperMeta]],
) -> dict[str, PaperMeta | None]:
    """For each paper (given at its latest version) the version to use, or None if none is safe.

    ``lookup`` takes versioned ids and returns the metadata of those it knows (one request batch).
    """
    chosen: dict[str, PaperMeta | None] = {}
    wanted: list[str] = []
    for meta in latest:
        if is_date_safe(meta, cutoff):
            chosen[meta.arxiv_id] = meta
        else:
            chosen[meta.arxiv_id] = None
            wanted.extend(older_version_ids(meta))
    if wanted:
        found: dict[str, list[PaperMeta]] = {}
        for meta in lookup(wanted):
            found.setdefault(meta.arxiv_id, []).append(meta)
        for arxiv_id, metas in found.items():
            if arxiv_id not in chosen or chosen[arxiv_id] is not None:
                continue
            safe = [m for m in metas if is_date_safe(m, cutoff)]
            if safe:
                chosen[arxiv_id] = max(safe, key=lambda m: m.version)
    return chosen
