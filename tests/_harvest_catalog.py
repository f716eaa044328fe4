"""Small metadata-only catalogs for the harvest tests (papers.jsonl in the ../shared/corpus format).

Papers are spread over 2024-01..2024-10 (or fewer months), 2 a day-slot, in cs.CL / cs.LG / cs.AI
and some outside them (math.CO, stat.ML cross-listed to cs.LG); every 7th paper has later versions,
every 11th is withdrawn by a notice version whose comment gives only a reason. Deterministic.
"""

from __future__ import annotations

import json
from datetime import date, timedelta
from pathlib import Path

CATS = [["cs.CL"], ["cs.LG", "cs.AI"], ["cs.AI"], ["math.CO"], ["stat.ML", "cs.LG"], ["cs.CV"]]


def paper(i: int, first: date, until: date) -> dict:
    cats = CATS[i % len(CATS)]
    versions = [{"version": "v1", "published": first.isoformat()}]
    comment = None
    if i % 7 == 3:  # revised: v2 ten days later, v3 seventy days later (if the catalog reaches it)
        for n, days in ((2, 10), (3, 70)):
            d = first + timedelta(days=days)
            if d <= until:
                versions.append({"version": f"v{n}", "published": d.isoformat()})
    if i % 11 == 5:  # withdrawn: a notice version; the comment does not say "withdrawn"
        d = first + timedelta(days=5)
        if d <= until:
            versions.append({"version": f"v{len(versions) + 1}", "published": d.isoformat(), "withdrawn": True})
            comment = "an error in the proof of Lemma 2"
    top = versions[-1]
    return {
        "arxiv_id": f"{first:%y%m}.{10000 + i:05d}",
        "version": top["version"],
        "title": f"Paper number {i} on topic {i % 13}",
        "authors": [f"Author {i % 17}", f"Coauthor {i % 5}"],
        "published": top["published"],
        "first_published": first.isoformat(),
        "categories": cats,
        "primary_category": cats[0],
        "versions": versions,
        **({"comment": comment} if comment else {}),
    }


def write_catalog(root: Path, until: str = "2024-10-31", start: str = "2024-01-01", per_day: float = 0.5) -> list[dict]:
    """Papers first submitted from ``start`` to ``until`` (``per_day`` papers a day), with versions up to ``until``."""
    lo, hi = date.fromisoformat(start), date.fromisoformat(until)
    papers, i, day = [], 0, lo
    step = timedelta(days=1 / per_day) if per_day < 1 else timedelta(days=1)
    per = max(1, round(per_day))
    while day <= hi:
        for _ in range(per):
            papers.append(paper(i, day, hi))
            i += 1
        day += step
    root.mkdir(parents=True, exist_ok=True)
    with (root / "papers.jsonl").open("w", encoding="utf-8") as fh:
        for p in papers:
            fh.write(json.dumps(p) + "\n")
    return papers
