"""bench/resolve_styles.py --all: every labelled set in one run, each read from its own folder,
with the recall on seeds that name a first author and a date (as arXiv records do) beside it.

The figures of docs/parse-and-citations.md's "Where the resolver stands" table come from this
command, so these tests check that it reads every set whole (the same counts as the set files)
and that the complete-seed slice counts what its name says."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from _labelled_sets import REAL

from reflong.citations.quality import labelled_sets
from reflong.citations.quality.labelled_sets import SPLITS, apply_audit, complete_seed_recall, folder_of
from reflong.citations.resolve import SeedTitle

REPO = Path(__file__).resolve().parents[1]
BENCH = REPO / "bench"


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(BENCH / "resolve_styles.py"), *args, "--corpus", str(REPO / "no-such-corpus")],
        capture_output=True,
        text=True,
        timeout=900,
    )


def test_every_split_has_its_own_folder():
    # A set added to SPLITS without its folder (or a folder the bench cannot name) fails here.
    for split in SPLITS:
        folder = folder_of(split, REAL)
        assert (folder / f"seeds.{split}.jsonl").is_file(), split
    assert folder_of("dev", REAL) == REAL / "citation_styles"
    assert folder_of("pmc_test5", REAL) == REAL / "citation_pmc_test5"
    assert folder_of("pmc", REAL / "elsewhere") == REAL / "elsewhere" / "citation_pmc"
    # ...and the other way round: a set folder whose split the bench cannot name fails too.
    on_disk = {
        seeds.name.removeprefix("seeds.").removesuffix(".jsonl")
        for folder in REAL.glob("citation_*")
        for seeds in folder.glob("seeds.*.jsonl")
    }
    assert on_disk == set(SPLITS)


@pytest.mark.slow
def test_all_scores_every_set_from_its_own_folder():
    n = 40
    out = _run("--all", "--no-naive", "--limit", str(n), "--jobs", "2")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.strip().splitlines()
    assert len(lines) == 1  # one JSON line
    result = json.loads(lines[0])
    assert result["set"] == "tests/data/real" and result["corpus_labels"] is None
    assert [k for k in result if k not in ("set", "corpus_labels")] == list(SPLITS)
    for split in SPLITS:
        seeds, entries = labelled_sets.load_set(folder_of(split, REAL), split, n)
        figures = result[split]
        assert (figures["entries"], figures["seeds"]) == (n, len(seeds)), split
        assert figures["gold_pairs"] == sum(e["gold"] is not None for e in entries), split
        assert figures["naive"] is None and figures["audited"]["naive"] is None
        complete = figures["audited"]["complete_seed_recall"]["ours"]
        assert complete["pairs"] <= figures["audited"]["gold_pairs"]
    # A human line per split on stderr, after the progress lines.
    summary = [x for x in out.stderr.splitlines() if " ours P " in x]
    assert [x.split()[0] for x in summary] == list(SPLITS)


def test_a_named_split_reads_its_own_folder_without_data():
    out = _run("--splits", "pmc_test5", "--no-naive", "--limit", "25")
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    assert result["set"] == "tests/data/real/citation_pmc_test5"
    assert result["pmc_test5"]["entries"] == 25
    assert result["pmc_test5"]["seeds"] == 1884  # the PMC set's last share (its SOURCES.md)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--all", "--data", str(REAL / "citation_pmc")), "--all reads every set from its own folder"),
        (("--splits", "nonesuch"), "unknown split 'nonesuch'"),
        (("--all", "--jobs", "0"), "--jobs: at least 1"),
    ],
)
def test_bad_arguments_give_one_line_and_exit_2(args, message):
    out = _run(*args)
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr.strip().splitlines() == [out.stderr.strip()] and message in out.stderr


def test_complete_seed_recall_counts_only_seeds_with_author_and_date():
    seeds = [
        SeedTitle("a", "A full record", "2020-01-01", "Rossi"),
        SeedTitle("b", "No author", "2020-01-01", None),
        SeedTitle("c", "No date", None, "Bianchi"),
        SeedTitle("d", "Another full record", "1999-01-01", "Verdi"),
    ]
    entries = [
        {"gold": "a", "style": "apa"},  # found
        {"gold": "a", "style": "apa"},  # missed
        {"gold": "b", "style": "apa"},  # not counted: no first author
        {"gold": "c", "style": "other"},  # not counted: no date
        {"gold": None, "style": "other"},  # not counted: no gold pair
        {"gold": "d", "style": "other", "ambiguous": ["a"]},  # an ambiguous accept: neither found nor missed
        {"gold": "d", "style": "apa"},  # found
    ]
    predicted = ["a", None, "b", None, "a", "a", "d"]
    assert complete_seed_recall(seeds, entries, predicted) == {
        "pairs": 3,
        "tp": 2,
        "recall": 0.6667,
    }


@pytest.mark.slow
def test_complete_seed_recall_on_a_real_set_matches_a_count_from_the_files():
    # pmc_test5 is a dev set since its one run; its complete-seed slice is recounted here from
    # the set files with the same decisions, so the bench cannot count another population.
    folder = REAL / "citation_pmc_test5"
    out = _run("--splits", "pmc_test5", "--no-naive")
    assert out.returncode == 0, out.stderr
    figures = json.loads(out.stdout)["pmc_test5"]["audited"]
    seeds, entries = labelled_sets.load_set(folder, "pmc_test5")
    kept = apply_audit(entries, labelled_sets.load_audit(folder))
    complete = {s.arxiv_id for s in seeds if s.first_author and s.published}
    assert figures["complete_seed_recall"]["ours"]["pairs"] == sum(e["gold"] in complete for e in kept)
    assert figures["complete_seed_recall"]["ours"] == {"pairs": 1297, "tp": 1295, "recall": 0.9985}
    assert figures["ours"]["overall"]["tp"] == 1878 and figures["ours"]["overall"].get("fn") == 6
