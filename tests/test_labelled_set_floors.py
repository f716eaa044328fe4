"""Every labelled set holds the resolver to its floor of precision and recall, under its profile.

One data-driven test over tests/data/labelled_set_floors.csv: a row per set and profile, with the
figures recorded before the resolver's restructure (issue 37) and the floor below which a change
fails (recorded - 0.002). It pins no exact counts and no wording of a set's SOURCES.md: a change
that moves a few entries either way passes as long as no set falls below its floor, and a set
that does better just does better. The sets' own data checks (their builders, audits, counts)
live beside them; this is the resolver's yardstick.
"""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from reflong.citations.quality.labelled_sets import (
    accepted,
    audited_overall,
    decide,
    load_corpus_labels,
    score,
)
from reflong.citations.thresholds import PROFILES

REPO = Path(__file__).resolve().parents[1]
REAL = REPO / "tests" / "data" / "real"
FLOORS = REPO / "tests" / "data" / "labelled_set_floors.csv"


def _rows() -> list[dict]:
    lines = [x for x in FLOORS.read_text(encoding="utf-8").splitlines() if not x.startswith("#")]
    return list(csv.DictReader(lines))


ROWS = _rows()


def test_every_committed_set_has_a_floor():
    on_disk = {
        seeds.name.removeprefix("seeds.").removesuffix(".jsonl")
        for folder in REAL.glob("citation_*")
        for seeds in folder.glob("seeds.*.jsonl")
    }
    with_floor = {r["split"] for r in ROWS if r["folder"].startswith("citation_")}
    assert on_disk == with_floor
    assert {r["profile"] for r in ROWS} <= set(PROFILES)
    for r in ROWS:  # a floor is never above what was recorded, nor more than 0.002 below it
        for fig in ("precision", "recall"):
            gap = float(r[f"recorded_{fig}"]) - float(r[f"floor_{fig}"])
            assert 0.0 <= gap <= 0.0021, r


@pytest.mark.slow  # 16 s on 2 cores for all sets: the full suite
@pytest.mark.parametrize(
    "row", [r for r in ROWS if r["folder"].startswith("citation_")], ids=lambda r: r["split"]
)
def test_the_resolver_holds_its_floor_on_the_set(row):
    overall = audited_overall(REAL / row["folder"], row["split"], row["profile"])
    assert overall["tp"] > 0
    assert overall["precision"] >= float(row["floor_precision"]), overall
    assert overall["recall"] >= float(row["floor_recall"]), overall


def test_the_resolver_holds_its_floor_on_the_corpus_labels(shared_dir):
    (row,) = [r for r in ROWS if r["split"] == "corpus"]
    seeds, entries = load_corpus_labels(shared_dir / "corpus")
    overall = score(entries, accepted(decide(seeds, entries, row["profile"])))["overall"]
    assert overall["tp"] >= 70
    assert overall["precision"] >= float(row["floor_precision"]), overall
    assert overall["recall"] >= float(row["floor_recall"]), overall
