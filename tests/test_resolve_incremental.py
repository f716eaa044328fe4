"""Incremental resolution equals a full re-resolve: four releases resolved one after another give
the same edges, with the same evidence, as the final store resolved from scratch.

Real reference strings and seeds from the committed labelled sets (tests/data/real: modern-ML
styles, PMC, LinkedBooks under the books profile), dealt into four monthly releases: each adds a
quarter of the reference lists and a quarter of the seeds. On the way, as in a real refresh, a
harvested paper turns out to share a seed's exact title (a title twin, release 2), an older
seed's title is corrected (release 3), and its first author too (release 4). A release reads
again only the old references that a new or changed seed can reach (``reference_words``); the test
also holds it to that, so a regression to a full pass fails here as well as one that misses edges.
"""

from __future__ import annotations

import gzip
import json
import zlib
from pathlib import Path

import pytest
from sqlmodel import Session, select

from reflong.citations.fields.entry_parse import parse_entry
from reflong.citations.resolve import Thresholds
from reflong.citations.stages.cite_stage import store_entries
from reflong.citations.stages.resolve_stage import run_resolve
from reflong.db.audits import EdgeKey, record_verdict
from reflong.db.citations import Citation, Reference, ReferenceList
from reflong.db.engine import open_store
from reflong.db.harvest import ArxivRecordRow
from reflong.db.papers import Paper
from reflong.db.stats import store_rows

REAL = Path(__file__).resolve().parent / "data" / "real"
RELEASES = 4
LIST_LENGTH = 60
# dev in the fast suite (18 s on 2 cores); the others with the slow tests.
SETS = [
    pytest.param("citation_styles", "dev", "default", id="dev"),
    pytest.param("citation_pmc", "pmc", "default", id="pmc", marks=pytest.mark.slow),
    pytest.param("citation_fresh", "fresh", "books", id="fresh-books", marks=pytest.mark.slow),
]


def _release_of(key: str) -> int:
    """A stable release (0-3) for a list or a seed: crc32, so every run deals the same hands."""
    return zlib.crc32(key.encode()) % RELEASES


def _load(folder: str, split: str) -> tuple[list[dict], dict[str, list[str]]]:
    seeds = [json.loads(x) for x in (REAL / folder / f"seeds.{split}.jsonl").read_text().splitlines() if x]
    by_citing: dict[str, list[str]] = {}
    with gzip.open(REAL / folder / f"entries.{split}.jsonl.gz", "rt", encoding="utf-8") as fh:
        for line in fh:
            row = json.loads(line)
            by_citing.setdefault(row["citing"], []).append(row["raw"])
    # A set's sample of one source is one "citing" of thousands of entries: cut into lists of a
    # paper's length (the corpus's modern-ML papers print about 65 entries).
    lists = {
        f"{citing}|{start // LIST_LENGTH}": raws[start : start + LIST_LENGTH]
        for citing, raws in by_citing.items()
        for start in range(0, len(raws), LIST_LENGTH)
    }
    return seeds, lists


def _seeds_at(seeds: list[dict], release: int) -> list[dict]:
    """The seeds a run of ``release`` knows, with the metadata corrections made by then."""
    out = [dict(s) for s in seeds if _release_of(s["arxiv_id"]) <= release]
    first = out[0]  # a seed of release 0 (the seeds are in id order)
    if release >= 2:
        first["title"] = first["title"] + ": a corrected subtitle"
    if release >= 3:
        first["first_author"] = "Corrected"
    return out


def _write_seeds(path: Path, seeds: list[dict]) -> str:
    path.write_text("".join(json.dumps(s) + "\n" for s in seeds), encoding="utf-8")
    return str(path)


def _written_on(citing: str) -> str:
    """A version date for a list (the sets' citing papers have none): seeds first published after
    it are never matched, in both paths (``SeedIndex.allowed``)."""
    return ("1995-06-01", "2008-06-01", "2030-01-01")[zlib.crc32(citing.encode()) // RELEASES % 3]


def _add_lists(engine, lists: dict[str, list[str]], release: int | None) -> None:
    with Session(engine) as session:
        for citing, raws in sorted(lists.items()):
            if release is None or _release_of(citing) == release:
                session.add(Paper(arxiv_id=citing, version=1, title=citing, version_date=_written_on(citing)))
                entries = [parse_entry(raw) for raw in raws]
                store_entries(session, citing, 1, entries, "builtin-test", f"key:{citing}", None)
        session.commit()


def _add_twin(engine, seed: dict) -> None:
    """A harvested paper with a seed's exact title, by another author (``title_twins``)."""
    with Session(engine) as session:
        session.add(ArxivRecordRow(arxiv_id="2499.00001", title=seed["title"], authors_json='["Q. Other"]'))
        session.commit()


def _seed_to_twin(engine, seeds: list[dict]) -> tuple[dict, tuple]:
    """A seed accepted by title with no first author printed (a twin makes that a doubt), and
    the edge: (citing, version, seed, order)."""
    with Session(engine) as session:
        edge = session.exec(
            select(Citation)
            .where(Citation.band == "accept", Citation.method == "title", Citation.author == "unknown")
            .order_by(Citation.seed_arxiv_id, Citation.citing_arxiv_id)
        ).first()
    assert edge is not None
    seed = next(s for s in seeds if s["arxiv_id"] == edge.seed_arxiv_id)
    return seed, (edge.citing_arxiv_id, edge.citing_version, edge.seed_arxiv_id, edge.ref_order)


def _dropped(engine) -> dict[tuple, int]:
    """Near misses under the floor, counted per reference and not stored."""
    with Session(engine) as session:
        return {
            (r.arxiv_id, r.version, r.order): r.near_misses_dropped for r in session.exec(select(Reference))
        }


def _edges(engine) -> set[tuple]:
    with Session(engine) as session:
        return {
            (
                c.citing_arxiv_id,
                c.citing_version,
                c.seed_arxiv_id,
                c.ref_order,
                c.reference,
                c.method,
                c.score,
                c.title_score,
                c.author,
                c.band,
                c.reason,
                c.resolver,
            )
            for c in session.exec(select(Citation))
        }


@pytest.mark.parametrize(("folder", "split", "profile"), SETS)
def test_four_releases_resolved_incrementally_equal_one_resolve_from_scratch(
    tmp_path, folder, split, profile
):
    seeds, lists = _load(folder, split)
    thresholds = Thresholds(profile=profile)
    monthly = open_store(tmp_path / "monthly.db")
    scored = []
    for release in range(RELEASES):
        _add_lists(monthly, lists, release)
        if release == 1:
            twin_seed, twin_edge = _seed_to_twin(monthly, seeds)
            _add_twin(monthly, twin_seed)
        seeds_file = _write_seeds(tmp_path / f"seeds{release}.jsonl", _seeds_at(seeds, release))
        report = run_resolve(monthly, seeds_file=seeds_file, thresholds=thresholds)
        assert report.lists == sum(_release_of(c) <= release for c in lists)
        scored.append(report.references_scored)

    scratch = open_store(tmp_path / "scratch.db")
    _add_lists(scratch, lists, None)
    _add_twin(scratch, twin_seed)
    full = run_resolve(scratch, seeds_file=seeds_file, thresholds=thresholds)

    monthly_edges, scratch_edges = _edges(monthly), _edges(scratch)
    assert len(scratch_edges) > 100 and sum(e[9] == "accept" for e in scratch_edges) > 100
    assert monthly_edges == scratch_edges
    assert _dropped(monthly) == _dropped(scratch) and sum(_dropped(scratch).values()) > 0
    # No text is matched to a seed first published after it was written.
    published = {s["arxiv_id"]: s.get("published") or "" for s in _seeds_at(seeds, RELEASES - 1)}
    assert all(published[e[2]][:10] <= _written_on(e[0]) for e in scratch_edges)
    assert any(_written_on(e[0]) == "1995-06-01" for e in scratch_edges)
    # The twin, harvested after its seed's references were resolved, changed their decision.
    assert twin_edge in {e[:4] for e in monthly_edges if e[9] != "accept"}
    assert full.references_scored == sum(len(v) for v in lists.values())
    if profile == "default":
        # Each later release reads its own new lists whole and a part of the old ones: in a labelled
        # set every entry cites a seed, so a quarter of the seeds dealt at random reach about 30%
        # of the old entries (in a refresh, old papers rarely cite the month's seeds at all).
        new_refs = [sum(len(v) for c, v in lists.items() if _release_of(c) == r) for r in range(RELEASES)]
        for release in range(1, RELEASES):
            old_refs = sum(new_refs[:release])
            assert new_refs[release] <= scored[release] < new_refs[release] + 0.45 * old_refs, (
                release,
                scored,
            )
    with Session(monthly) as session:
        marks = {rl.resolved_seq for rl in session.exec(select(ReferenceList))}
    assert len(marks) == 1  # every list is resolved up to the last seed


def test_the_store_keeps_near_misses_above_the_floor_and_those_a_verdict_touched(tmp_path):
    """Item 2: a reject under ``near_miss_floor`` is counted on its reference, not stored, unless a
    verdict was recorded on its pair; a store kept under a lower floor sheds the rest in place
    (its fingerprint changed, so every list is resolved again)."""
    seeds, lists = _load("citation_styles", "dev")
    few = dict(sorted(lists.items())[:40])
    engine = open_store(tmp_path / "s.db")
    _add_lists(engine, few, None)
    seeds_file = _write_seeds(tmp_path / "seeds.jsonl", seeds)
    run_resolve(engine, seeds_file=seeds_file, thresholds=Thresholds(near_miss_floor=0.0))
    floor = Thresholds().near_miss_floor
    with Session(engine) as session:
        rejects = session.exec(select(Citation).where(Citation.band == "reject")).all()
        low = [c for c in rejects if c.score < floor and c.title_score < Thresholds().review]
        assert low and len(low) < len(rejects) and sum(_dropped(engine).values()) == 0
        audited = low[0]
        key = EdgeKey(audited.citing_arxiv_id, audited.citing_version, audited.seed_arxiv_id)
        assert record_verdict(session, key, "reject", why="another work", who="tester")
        session.commit()
        audited_key = (audited.citing_arxiv_id, audited.seed_arxiv_id, audited.ref_order)

    report = run_resolve(engine, seeds_file=seeds_file)  # the default floor: the upgrade in place
    assert report.lists_resolved == len(few)
    with Session(engine) as session:
        now = session.exec(select(Citation).where(Citation.band == "reject")).all()
        stats = store_rows(session)
    kept = {(c.citing_arxiv_id, c.seed_arxiv_id, c.ref_order) for c in now}
    assert audited_key in kept  # a verdict touched it: kept under the floor
    assert all(
        c.score >= floor or c.title_score >= Thresholds().review
        for c in now
        if c.seed_arxiv_id != audited_key[1]
    )
    assert len(now) == len(rejects) - len(low) + 1
    assert sum(_dropped(engine).values()) == stats["near_misses_dropped"] == len(low) - 1
