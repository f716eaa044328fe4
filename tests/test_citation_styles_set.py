"""The real multi-style labelled set (tests/data/real/citation_styles) and its bench.

The set's invariants (what the resolver is measured against must be consistent): every gold seed
is in its split's seed list, a citing document is in one split only, every style is there on both
splits. The bench (bench/resolve_styles.py) is run on a slice of dev and its counts are checked
against the files: these tests do not assert the resolver's quality, only that the figures are
computed over what the set holds.
"""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
DATA = REPO / "tests" / "data" / "real" / "citation_styles"
STYLES = {"apa", "biomedical", "cs_older", "humanities", "other", "physics"}


def _text(path: Path) -> str:
    """A file of the set; the entries are gzipped (they would pass 1 MiB as plain text)."""
    return (
        gzip.decompress(path.read_bytes()).decode("utf-8")
        if path.suffix == ".gz"
        else path.read_text("utf-8")
    )


def _rows(name: str) -> list[dict]:
    return [json.loads(line) for line in _text(DATA / name).splitlines()]


@pytest.mark.parametrize("split", ["dev", "test"])
def test_every_gold_seed_is_in_its_splits_seed_list(split):
    seeds = {s["arxiv_id"]: s for s in _rows(f"seeds.{split}.jsonl")}
    entries = _rows(f"entries.{split}.jsonl.gz")
    gold = [e["gold"] for e in entries if e["gold"] is not None]
    assert len(entries) > 4000 and len(gold) > 3000
    assert set(gold) <= set(seeds)
    assert all(seeds[g]["cited"] for g in gold)
    # Entries citing a held-out work, and seeds nobody cites (volumes, series), are both there.
    assert sum(e["gold"] is None for e in entries) > 500
    assert sum(not s["cited"] for s in seeds.values()) > 100
    assert {e["split"] for e in entries} == {split}


def test_a_citing_document_is_in_one_split_only_and_every_style_is_in_both():
    dev, test = _rows("entries.dev.jsonl.gz"), _rows("entries.test.jsonl.gz")
    assert not {e["citing"] for e in dev} & {e["citing"] for e in test}
    assert len({e["id"] for e in dev + test}) == len(dev) + len(test)
    for rows in (dev, test):
        styles = Counter(e["style"] for e in rows)
        assert set(styles) == STYLES and min(styles.values()) >= 300, styles
    assert {e["source"] for e in dev + test} == {"grobid", "grobid-cs", "anystyle", "cora"}


def test_cora_clusters_give_one_seed_many_printed_titles():
    """The same work printed differently: CORA mentions of one cluster share one gold seed while
    their annotated titles differ (the 'title printed differently' cases)."""
    rows = [
        e for e in _rows("entries.dev.jsonl.gz") + _rows("entries.test.jsonl.gz") if e["source"] == "cora"
    ]
    by_gold: dict[str, set[str]] = {}
    for e in rows:
        if e["gold"]:
            by_gold.setdefault(e["gold"], set()).add(e["title"].lower())
    assert sum(len(t) > 1 for t in by_gold.values()) >= 25


def test_bench_counts_what_the_set_holds(tmp_path):
    n = 150
    misses = tmp_path / "misses.jsonl"
    out = subprocess.run(
        [
            sys.executable,
            str(REPO / "bench" / "resolve_styles.py"),
            "--splits",
            "dev",
            "--limit",
            str(n),
            "--corpus",
            str(REPO / "no-such-corpus"),
            "--misses",
            str(misses),
        ],
        capture_output=True,
        text=True,
        timeout=600,
        check=True,
    )
    lines = out.stdout.strip().splitlines()
    assert len(lines) == 1  # one JSON line
    result = json.loads(lines[0])
    assert result["corpus_labels"] is None and "test" not in result
    dev = result["dev"]
    entries = _rows("entries.dev.jsonl.gz")[:n]
    gold = sum(e["gold"] is not None for e in entries)
    assert dev["entries"] == n and dev["gold_pairs"] == gold
    assert dev["seeds"] == len(_rows("seeds.dev.jsonl"))
    assert dev["styles"] == dict(sorted(Counter(e["style"] for e in entries).items()))
    for system in ("ours", "naive"):
        overall = dev[system]["overall"]
        # Every gold pair is either found or missed; per-style counts add up to the overall ones.
        assert overall["tp"] + overall.get("fn", 0) == gold
        assert set(dev[system]) == {"overall", *dev["styles"]}
        for key in ("tp", "fp", "fn"):
            assert sum(dev[system][s].get(key, 0) for s in dev["styles"]) == overall.get(key, 0)
        assert 0.0 <= overall["precision"] <= 1.0 and 0.0 <= overall["recall"] <= 1.0
    # Every entry either system got wrong is listed once, with its evidence; no right one is.
    wrong = [json.loads(line) for line in misses.read_text(encoding="utf-8").splitlines()]
    assert all(w["ours"] != w["gold"] or w["naive"] != w["gold"] for w in wrong)
    assert len({w["id"] for w in wrong}) == len(wrong)
    ours_wrong = sum(w["ours"] != w["gold"] for w in wrong)
    assert max(dev["ours"]["overall"].get("fn", 0), dev["ours"]["overall"].get("fp", 0)) <= ours_wrong
