"""A world's citation graph (the truth) and the imperfect view a citation index serves of it.

Two sources of truth:

* a rendered demo catalog (``synth-arxiv``) already knows who cites whom (``truth.jsonl``: the
  seeds each paper version's bibliography cites); the graph is the latest version of every paper;
* a metadata-only catalog (the 2024-sized one of ``synth-catalog``) has none: ``generate_graph``
  makes one, pool papers citing seed-window papers with power-law popularity (a few seeds cited by
  hundreds, most by a handful or none), as real citation counts are distributed.

``index_view`` then makes what the stand-in Semantic Scholar serves, imperfect on purpose, as
real indexes are: a seeded share of true citations is missing, some spurious ones are added, and
some citers are not on arXiv at all (the index knows them; we cannot fetch them). The truth
(``citations.jsonl``) and the view (``s2_index.jsonl``) are separate files, so a bench can measure
our answers against the truth and the index's disagreement with it.

Every random draw is keyed by a string (``random.Random(f"...")``), so the same catalog and seed
give the same files.
"""

from __future__ import annotations

import hashlib
import json
import random
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from reflong.ingest.catalog.reader import Catalog, read_catalog
from reflong.ingest.plan.windows import add_months, parse_month

TRUTH_FILE = "citations.jsonl"
INDEX_FILE = "s2_index.jsonl"


@dataclass(frozen=True)
class IndexConfig:
    seed: int = 0
    missing: float = 0.03  # share of true citations the index lacks
    spurious: float = 0.01  # spurious citations, as a share of the true ones
    off_arxiv: float = 0.3  # extra citers not on arXiv, per true citer


def paper_id(key: str) -> str:
    """A 40-hex id in the shape of Semantic Scholar's paperId, stable for a key."""
    return hashlib.sha1(f"reflong-s2:{key}".encode()).hexdigest()


def truth_from_demo(catalog_dir: Path | str) -> list[tuple[str, str]]:
    """(citing, cited) pairs of a rendered demo catalog: every paper's latest version's citations."""
    latest: dict[str, tuple[int, list[str]]] = {}
    for line in (Path(catalog_dir) / "truth.jsonl").read_text(encoding="utf-8").splitlines():
        if not line:
            continue
        rec = json.loads(line)
        number = int(str(rec["version"]).lstrip("v"))
        if rec["paper"] not in latest or number > latest[rec["paper"]][0]:
            latest[rec["paper"]] = (number, [c["seed"] for c in rec["cites"]])
    return sorted({(p, s) for p, (_, seeds) in latest.items() for s in seeds})


def _in(day: str | None, start: date, end: date) -> bool:
    return bool(day) and start.isoformat() <= day < end.isoformat()


def generate_graph(
    catalog: Catalog,
    since: str,
    seed_months: int = 1,
    pool_months: int = 6,
    seed: int = 0,
    mean_cites: float = 2.0,
) -> list[tuple[str, str]]:
    """Pool papers cite seed-window papers with Zipf popularity (exponent 1.1); each pool paper
    cites 0 to a few of them (mean ``mean_cites``)."""
    start = parse_month(since)
    seed_end = add_months(start, seed_months)
    pool_end = add_months(seed_end, pool_months)
    papers = sorted(catalog.papers.values(), key=lambda p: p.arxiv_id)
    seeds = [p.arxiv_id for p in papers if _in(p.first_published, start, seed_end)]
    pool = [p.arxiv_id for p in papers if _in(p.first_published, seed_end, pool_end)]
    if not seeds:
        return []
    ranked = list(seeds)
    random.Random(f"graph:{seed}:popularity").shuffle(ranked)
    cum, total = [], 0.0
    for rank in range(len(ranked)):
        total += 1.0 / (rank + 1) ** 1.1
        cum.append(total)
    pairs = set()
    for citing in pool:
        r = random.Random(f"graph:{seed}:{citing}")
        k = min(len(ranked), sum(1 for _ in range(8) if r.random() < mean_cites / 8))
        chosen: set[str] = set()
        while len(chosen) < k:
            chosen.add(r.choices(ranked, cum_weights=cum)[0])
        pairs.update((citing, cited) for cited in chosen)
    return sorted(pairs)


def index_view(truth: list[tuple[str, str]], catalog: Catalog, config: IndexConfig) -> list[dict]:
    """What the index serves: rows ``{"cited", "citing_key", "citing_arxiv", "date", "title"}``."""
    rows: dict[tuple[str, str], dict] = {}

    def arxiv_row(citing: str, cited: str) -> dict:
        paper = catalog.papers.get(citing)
        return {
            "cited": cited,
            "citing_key": paper_id(citing),
            "citing_arxiv": citing,
            "date": paper.first_published if paper else None,
            "title": paper.title if paper else None,
        }

    s = config.seed
    for citing, cited in truth:
        if random.Random(f"index:{s}:missing:{citing}:{cited}").random() >= config.missing:
            rows[(cited, paper_id(citing))] = arxiv_row(citing, cited)
    truth_set = set(truth)
    citing_ids = sorted({c for c, _ in truth})
    # Spurious links land on a cited paper as often as true ones do (a misattributed reference
    # names a well-known work far more often than an obscure one), so a key's sampled citers
    # carry about ``spurious`` of them whatever its citation band.
    cited_by_popularity = [d for _, d in truth]
    r = random.Random(f"index:{s}:spurious")
    for _ in range(round(config.spurious * len(truth))):
        if not citing_ids:
            break
        pair = (r.choice(citing_ids), r.choice(cited_by_popularity))
        if pair not in truth_set:
            rows[(pair[1], paper_id(pair[0]))] = arxiv_row(*pair)
    per_seed: dict[str, int] = {}
    for _, cited in truth:
        per_seed[cited] = per_seed.get(cited, 0) + 1
    for cited, n in sorted(per_seed.items()):
        r = random.Random(f"index:{s}:off-arxiv:{cited}")
        extra = int(n * config.off_arxiv) + (1 if r.random() < (n * config.off_arxiv) % 1 else 0)
        for i in range(extra):
            key = paper_id(f"off-arxiv:{cited}:{i}")
            rows[(cited, key)] = {
                "cited": cited,
                "citing_key": key,
                "citing_arxiv": None,
                "date": None,
                "title": f"A paper outside arXiv citing {cited} ({i + 1})",
            }
    return [rows[k] for k in sorted(rows)]


def write_world_index(
    catalog_dir: Path | str,
    out_dir: Path | str | None = None,
    since: str = "2024-03",
    config: IndexConfig | None = None,
    seed_months: int = 1,
    pool_months: int = 6,
) -> tuple[Path, Path, int, int]:
    """Write the truth (when the catalog has none of its own, generated) and the index view.

    Returns (truth path, index path, true pairs, index rows)."""
    config = config or IndexConfig()
    catalog_dir = Path(catalog_dir)
    out = Path(out_dir) if out_dir else catalog_dir
    out.mkdir(parents=True, exist_ok=True)
    catalog = read_catalog(catalog_dir)
    if (catalog_dir / "truth.jsonl").is_file():
        truth = truth_from_demo(catalog_dir)
    else:
        truth = generate_graph(catalog, since, seed_months, pool_months, config.seed)
    truth_path, index_path = out / TRUTH_FILE, out / INDEX_FILE
    _write_jsonl(truth_path, [{"citing": c, "cited": d} for c, d in truth])
    view = index_view(truth, catalog, config)
    _write_jsonl(index_path, view)
    return truth_path, index_path, len(truth), len(view)


def _write_jsonl(path: Path, rows: list[dict]) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text("".join(json.dumps(r, sort_keys=True) + "\n" for r in rows), encoding="utf-8")
    tmp.replace(path)


def read_truth_pairs(path: Path | str) -> set[tuple[str, str]]:
    lines = Path(path).read_text(encoding="utf-8").splitlines()
    return {(r["citing"], r["cited"]) for r in map(json.loads, filter(None, lines))}
