"""The PDF plan samples a build window inside the store and reads only its picks whole.

At arXiv's scale a window holds hundreds of thousands of papers (``bench/harvest.py`` at scale 4);
holding them all as ``PaperMeta`` made the plan's memory grow with the catalog. The samples are now
chosen from counts and id streams in SQLite (``plan.roles.RolePapers``), and must be exactly the
samples the pure functions (``plan.selection``) take from the whole window held in memory.

A small world through the real path: the rendered synthetic arXiv (120 papers) served by the arXiv
stand-in on 127.0.0.1, ``reflong-build ingest --dry-run``.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from reflong.cli import main
from reflong.db.engine import open_store, session_for
from reflong.demo.generate import generate
from reflong.demo.world import SynthConfig
from reflong.ingest import stage
from reflong.ingest.metadata import PaperMeta
from reflong.ingest.plan.roles import RolePapers
from reflong.ingest.plan.selection import (
    month_and_category,
    sample_positions,
    seeded_sample,
    stratified_sample,
)
from reflong.servers.arxiv_server import ArxivServer

SINCE = "2024-03"
WINDOW = "2024-03:s1:p6:d6"


@pytest.fixture(scope="module")
def world(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("world")
    generate(root / "catalog", SynthConfig(papers=120, seed=0, since=SINCE), jobs=1)
    return root / "catalog"


def _ingest(world: Path, db: Path, *extra: str) -> str:
    with ArxivServer(world) as ax:
        args = [
            "ingest", "--since", SINCE, "--distractor-months", "6", "--pool-months", "6", "--categories", "",
            "--arxiv-url", ax.url, "--oai-url", ax.oai_url, "--delay", "0", "--db", str(db), "--cache", str(db.parent / "cache"),
            "--citation-index", "none", "--dry-run", *extra,
        ]  # fmt: skip
        out = CliRunner().invoke(main, args)
    assert out.exit_code == 0, out.output
    return out.output


@pytest.fixture(scope="module")
def store(world, tmp_path_factory) -> Path:
    db = tmp_path_factory.mktemp("store") / "s.db"
    _ingest(world, db, "--distractors", "10", "--max-pdfs", "30")
    return db


def _window(db: Path, role: str) -> list[tuple[str, str | None, str | None]]:
    """(id, first version date, primary category) of the window's papers in ``role``, read with
    plain SQL (not through the code under test), in no particular order."""
    con = sqlite3.connect(db)
    rows = con.execute(
        "select p.arxiv_id, p.first_published, p.primary_category from paper_role r join paper p "
        "on p.arxiv_id = r.arxiv_id and p.version = r.version where r.window = ? and r.role = ? "
        "order by random()",
        (WINDOW, role),
    ).fetchall()
    con.close()
    return rows


def test_positions_drawn_from_a_count_are_what_seeded_sample_picks():
    # Both branches of random.sample (a pool copy for small populations, a set of picks for large).
    for count in (0, 1, 7, 21, 40, 200, 3000):
        items = [f"{i:05d}" for i in range(count)]
        for n in (None, -1, 0, 1, 2, 6, 30, count - 1, count, count + 5):
            picked = seeded_sample(items, n, 3, f"label:{n}")
            positions = sample_positions(count, n, 3, f"label:{n}")
            expected = items if positions is None else [items[i] for i in positions]
            assert picked == expected, (count, n)


@pytest.mark.slow
def test_the_plan_turns_only_its_picks_into_paper_versions(world, tmp_path, monkeypatch):
    """After the roles are assigned, the plan makes a ``PaperMeta`` of each paper it picks and of
    no other paper of the window (the whole window held as ``PaperMeta`` was what grew)."""
    made = {"after_roles": False, "n": 0}
    original_init, original_assign = PaperMeta.__init__, stage.assign_roles

    def counting_init(self, *args, **kwargs):
        made["n"] += made["after_roles"]
        original_init(self, *args, **kwargs)

    def assign_then_count(*args, **kwargs):
        counts = original_assign(*args, **kwargs)
        made["after_roles"] = True
        return counts

    monkeypatch.setattr(PaperMeta, "__init__", counting_init)
    monkeypatch.setattr(stage, "assign_roles", assign_then_count)
    output = _ingest(world, tmp_path / "s.db", "--distractors", "10", "--max-pdfs", "30")
    assert "10 distractors + 20 samples = 30" in output
    window = sum(len(_window(tmp_path / "s.db", role)) for role in ("seed", "pool", "distractor"))
    assert window >= 100  # the window is several times the plan
    assert made["n"] == 30


def test_samples_taken_in_the_store_are_the_samples_of_the_whole_window(store):
    engine = open_store(store)
    pool, distractors = RolePapers(engine, WINDOW, "pool"), RolePapers(engine, WINDOW, "distractor")
    everything = list(pool)
    assert [m.arxiv_id for m in everything] == sorted(a for a, *_ in _window(store, "pool"))
    assert len(pool) == len(everything) > 40
    by_id = {m.arxiv_id: m for m in everything}
    assert all(by_id[m.arxiv_id] == m for m in pool.metas(list(by_id)[::3]).values())

    def stratum(meta: PaperMeta) -> str:
        return month_and_category(meta.first_published, meta.primary_category)

    def vid(meta: PaperMeta) -> str:
        return meta.arxiv_id

    for seed in (0, 7):
        for n in (None, 0, 1, 5, 17, len(pool) - 1, len(pool)):
            assert pool.sample(n, seed, "controls") == seeded_sample(everything, n, seed, "controls", vid)
            assert pool.stratified(n, seed) == stratified_sample(everything, n, seed, stratum, vid)
        linked = {m.arxiv_id for m in everything[::4]}
        unlinked = [m for m in everything if m.arxiv_id not in linked]
        assert pool.sample(9, seed, "controls", exclude=linked) == seeded_sample(
            unlinked, 9, seed, "controls", vid
        )
        whole = list(distractors)
        assert distractors.sample(10, seed, "distractors") == seeded_sample(
            whole, 10, seed, "distractors", vid
        )
    some = [*list(by_id)[:5], "2499.99999", None]
    assert pool.among(some) == set(some[:5])
    assert RolePapers(engine, WINDOW, "seed").ids() == sorted(a for a, *_ in _window(store, "seed"))


def test_max_papers_keeps_the_stratified_sample_of_the_whole_pool(store, tmp_path):
    db = tmp_path / "s.db"
    with sqlite3.connect(store) as source, sqlite3.connect(db) as copy:
        source.backup(copy)  # the store's last commits may still be in its -wal file
    pool = _window(db, "pool")
    expected = stratified_sample(pool, 11, 5, lambda r: month_and_category(r[1], r[2]), lambda r: r[0])
    engine = open_store(db)
    with session_for(engine) as session:
        assert stage.sample_pool_roles(session, WINDOW, 11, 5) == 11
    assert sorted(a for a, *_ in _window(db, "pool")) == [a for a, *_ in expected]
    assert len(_window(db, "seed")) > 0 and len(_window(db, "distractor")) > 0  # other roles kept
