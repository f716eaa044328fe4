"""Write a synthetic arXiv catalog (PDFs + papers.jsonl + seeds.jsonl + truth.jsonl) to a folder.

The catalog follows the local catalog format shared with ``ingest --source`` and the local
arXiv-protocol server, with the extension fields ``first_published``, ``categories``, ``doi`` and
``versions``, so both read it like any other. ``truth.jsonl`` is the known answer: for each paper
version, the seeds its bibliography cites (with the entry text and its evidence form) and the near
misses (entries for a confusable work that is *not* the seed). ``generator.json`` records the
settings, the date windows and the near-miss families.

Rendering is the slow part, so PDFs are rendered in a process pool (``jobs``); each job depends
only on the plan, so output bytes do not depend on the number of workers.
"""

from __future__ import annotations

import json
import os
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path

from reflong import __version__
from reflong.common.errors import ReflongError
from reflong.common.progress import ProgressFactory, null_progress
from reflong.demo.document import compose
from reflong.demo.messy import earlier_title
from reflong.demo.references import Entry, bibliography
from reflong.demo.render import save_pdf
from reflong.demo.world import Paper, SynthConfig, Version, World, plan_world

GENERATOR_FILE = "generator.json"
WHY = {
    "sequel": "same name, one with a sequel number (X vs X 2): a different work",
    "hyphen": "same name, one with a hyphenated successor number (X vs X-2): a different work",
    "prefix": "same title prefix, different ending: a different work",
    "predecessor": "the older work with the same name is the predecessor, not the seed",
}


@dataclass(frozen=True)
class SynthSummary:
    out: Path
    papers: int
    pdfs: int
    seconds: float
    roles: dict[str, int]


def pdf_name(arxiv_id: str, version: str) -> str:
    return f"pdf/{arxiv_id}{version}.pdf"


_EARLIER: list[tuple[World, dict[str, str]]] = []  # the last world's, computed once (render jobs)


def earlier_titles(world: World) -> dict[str, str]:
    """{arXiv id: v1 title} of the papers retitled in a later version (only in a messy world)."""
    if not world.config.messy:
        return {}
    if _EARLIER and _EARLIER[0][0] is world:
        return _EARLIER[0][1]
    out = {}
    for key, p in world.papers.items():
        old = earlier_title(key, p.work.title, len(p.versions), world.config.seed)
        if old:
            out[key] = old
    _EARLIER[:] = [(world, out)]
    return out


def entries_for(
    world: World, paper: Paper, version: Version, earlier: dict[str, str] | None = None
) -> list[Entry]:
    works = [world.works[k] for k in version.refs]
    stream = f"reflong-demo:{world.config.seed}:{paper.arxiv_id}:bib"
    if earlier is None:
        earlier = earlier_titles(world)
    return bibliography(works, paper.style, stream, paper.long_entries, world.config.messy, earlier)


def _render_job(world: World, arxiv_id: str, vi: int, out: Path) -> tuple[str, str]:
    """Render one paper version into ``out``; return (relative path, sha256)."""
    paper = world.papers[arxiv_id]
    version = paper.versions[vi]
    doc = compose(paper, version, entries_for(world, paper, version), world.works, world.config.seed)
    rel = pdf_name(arxiv_id, version.version)
    return rel, save_pdf(doc, paper.style, out / rel)


# Workers get the plan once (pool initializer) and then only (id, version index) per job.
_WORKER: tuple[World, Path] | None = None


def _init_worker(world: World, out: Path) -> None:
    global _WORKER
    _WORKER = (world, out)


def _pool_job(job: tuple[str, int]) -> tuple[str, str]:
    assert _WORKER is not None
    return _render_job(_WORKER[0], *job, _WORKER[1])


def _atomic_write(path: Path, data: bytes) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)


def _jsonl(records: list[dict]) -> bytes:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records).encode("utf-8")


def render_all(
    world: World, out: Path, jobs: int, progress: ProgressFactory = null_progress
) -> dict[str, str]:
    """Write every paper version's PDF under ``out``; return {relative path: sha256}."""
    todo = [(k, i) for k, p in world.papers.items() for i in range(len(p.versions))]
    sha: dict[str, str] = {}
    with progress(total=len(todo), desc="render PDFs", unit="pdf") as bar:
        if jobs <= 1 or len(todo) < 40:
            for k, i in todo:
                rel, digest = _render_job(world, k, i, out)
                sha[rel] = digest
                bar.update()
        else:
            with ProcessPoolExecutor(jobs, initializer=_init_worker, initargs=(world, out)) as pool:
                for rel, digest in pool.map(_pool_job, todo, chunksize=8):
                    sha[rel] = digest
                    bar.update()
    return dict(sorted(sha.items()))


def catalog_records(world: World) -> tuple[list[dict], list[dict]]:
    """papers.jsonl and seeds.jsonl records (top-level fields describe the latest version)."""
    papers, seeds = [], []
    earlier = earlier_titles(world)
    for key, p in world.papers.items():
        last = p.versions[-1]
        rec = {
            "arxiv_id": key,
            "version": last.version,
            "file": pdf_name(key, last.version),
            "title": p.work.title,
            "authors": p.work.authors,
            "published": last.published.isoformat(),
            "primary_category": p.categories[0],
            "first_published": p.work.first_date.isoformat(),
            "categories": p.categories,
            "versions": [
                {"version": v.version, "published": v.published.isoformat(), "file": pdf_name(key, v.version)}
                for v in p.versions
            ],
            "abstract": p.abstract,
        }
        if key in earlier:  # retitled: v1 carried another title (arXiv lists only the current one)
            rec["versions"][0]["title"] = earlier[key]
        if p.work.doi:
            rec["doi"] = p.work.doi
        papers.append(rec)
        if p.role == "seed":
            seeds.append(
                {
                    "arxiv_id": key,
                    "title": p.work.title,
                    "published": p.work.first_date.isoformat(),
                    "first_author": p.work.authors[0].rpartition(" ")[2],
                    "in_corpus": True,
                    "file": None,
                }
            )
    return papers, seeds


def truth_records(world: World, sha: dict[str, str]) -> list[dict]:
    """For every paper version: the seeds it cites (entry text, evidence form) and near misses.

    In a messy world a venue-only entry of a seed (no title, arXiv id or DOI) goes under
    ``ambiguous``, not ``cites``: the truth is what reading the PDF can prove, and such pairs count
    neither way, as in the corpus labels."""
    seeds = {k for k, p in world.papers.items() if p.role == "seed"}
    earlier = earlier_titles(world)
    out = []
    for key, p in world.papers.items():
        for v in p.versions:
            entries = entries_for(world, p, v, earlier)
            cited = {e.key for e in entries}
            cites, near, ambiguous = [], [], []
            for e in entries:
                ref = f"{e.label} {e.text}".strip()
                if e.key in seeds and not e.provable:
                    why = "venue-only entry: no title, arXiv id or DOI to tie it to the seed"
                    ambiguous.append({"seed": e.key, "reference": ref, "why": why})
                elif e.key in seeds:
                    cites.append({"seed": e.key, "reference": ref, "form": e.form})
                fam = world.family_of(e.key)
                for other in fam.members if fam else []:
                    if other not in (e.key, key) and other in seeds and other not in cited:
                        near.append({"seed": other, "reference": ref, "why_not": WHY[fam.kind]})
            out.append(
                {
                    "paper": key,
                    "version": v.version,
                    "role": p.role,
                    "published": v.published.isoformat(),
                    "first_published": p.work.first_date.isoformat(),
                    "file": pdf_name(key, v.version),
                    "sha256": sha[pdf_name(key, v.version)],
                    "style": p.style,
                    "n_references": len(entries),
                    "cites": sorted(cites, key=lambda c: c["seed"]),
                    "near_misses": sorted(near, key=lambda c: (c["seed"], c["reference"])),
                }
            )
            if ambiguous:
                out[-1]["ambiguous"] = sorted(ambiguous, key=lambda c: c["seed"])
    return out


def generator_record(world: World, counts: dict) -> dict:
    return {
        "generator": "reflong-build synth-arxiv",
        "complete": True,
        "tool_version": __version__,
        "config": asdict(world.config),
        "windows": world.windows,
        "counts": counts,
        "families": [
            {"kind": f.kind, "members": f.members, "titles": [world.works[m].title for m in f.members]}
            for f in world.families
        ],
    }


def _prepare_out(out: Path, cfg: SynthConfig) -> None:
    """Refuse to write into a folder that is not ours, and mark it ours before writing anything.

    generator.json is written first with ``"complete": false`` (and rewritten whole at the end), so
    an interrupted run leaves a folder that a rerun recognises and finishes, and readers can tell a
    partial catalog from a whole one. Leftover temporary files of a killed run are removed.
    """
    out.mkdir(parents=True, exist_ok=True)
    marker = out / GENERATOR_FILE
    if any(out.iterdir()) and not marker.exists():
        raise ReflongError(
            f"{out} is not empty and holds no {GENERATOR_FILE}: give an empty or new --out folder"
        )
    (out / "pdf").mkdir(exist_ok=True)
    for tmp in [*out.glob(".*.tmp"), *(out / "pdf").glob(".*.tmp")]:
        tmp.unlink()
    provisional = {"generator": "reflong-build synth-arxiv", "complete": False, "config": asdict(cfg)}
    _atomic_write(marker, (json.dumps(provisional, indent=2) + "\n").encode())


def generate(
    out: Path | str, cfg: SynthConfig, jobs: int | None = None, progress: ProgressFactory = null_progress
) -> SynthSummary:
    """Generate the catalog for ``cfg`` into ``out`` (same config -> byte-identical files)."""
    start = time.perf_counter()
    out = Path(out)
    try:
        world = plan_world(cfg)
    except ValueError as exc:
        raise ReflongError(str(exc)) from None
    _prepare_out(out, cfg)
    jobs = jobs if jobs is not None else min(4, os.cpu_count() or 1)
    sha = render_all(world, out, jobs, progress)
    for f in (out / "pdf").glob("*.pdf"):  # what an earlier, different run left behind
        if f"pdf/{f.name}" not in sha:
            f.unlink()
    papers, seeds = catalog_records(world)
    truth = truth_records(world, sha)
    roles: dict[str, int] = {}
    for p in world.papers.values():
        roles[p.role] = roles.get(p.role, 0) + 1
    counts = {
        "papers": len(papers),
        "pdfs": len(sha),
        "roles": dict(sorted(roles.items())),
        "families": len(world.families),
        "citing_edges": sum(len(t["cites"]) for t in truth),
    }
    _atomic_write(out / "papers.jsonl", _jsonl(papers))
    _atomic_write(out / "seeds.jsonl", _jsonl(seeds))
    _atomic_write(out / "truth.jsonl", _jsonl(truth))
    _atomic_write(
        out / GENERATOR_FILE, (json.dumps(generator_record(world, counts), indent=2) + "\n").encode()
    )
    return SynthSummary(out, len(papers), len(sha), time.perf_counter() - start, counts["roles"])
