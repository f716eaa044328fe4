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
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from _labelled_sets import builder_command, builder_module

# a labelled set's data checks: in the full suite (-m slow), not the fast one
pytestmark = pytest.mark.slow

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
    n = 450
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
    # (wrong as labelled, or an audited entry, wrong or left out as audited)
    assert all(w["ours"] != w["gold"] or w["naive"] != w["gold"] or w["audit"] for w in wrong)
    assert len({w["id"] for w in wrong}) == len(wrong)
    ours_wrong = sum(w["ours"] != w["gold"] for w in wrong)
    assert max(dev["ours"]["overall"].get("fn", 0), dev["ours"]["overall"].get("fp", 0)) <= ours_wrong
    # The same decisions as audited, beside the figures as labelled: the slice holds one entry
    # the audit leaves out (e00851, two titles run together), and the counts add up.
    rows = [r for r in _rows("audit.jsonl") if r["id"] in {e["id"] for e in entries}]
    assert [r["id"] for r in rows] == ["e00851"]
    audited = dev["audited"]
    assert audited["left_out"] == 1 and audited["regolded"] == 0 and audited["entries"] == n - 1
    assert audited["gold_pairs"] == gold - 1
    for system in ("ours", "naive"):
        overall = audited[system]["overall"]
        assert overall["tp"] + overall.get("fn", 0) == audited["gold_pairs"]


# The label audit (citations/quality/builders/audit.py, SOURCES.md "Label audit"): the entries keep the
# sources' labels; audit.jsonl lists the changes the bench applies for its "audited" figures.
AUDIT_COUNTS = {
    ("dev", "errata", "cluster_merges_works"): 5,
    ("dev", "errata", "not_a_title"): 3,
    ("dev", "errata", "seed_title_corrupt"): 15,
    ("dev", "errata", "work_split"): 7,
    ("dev", "rule", "titles_run_together"): 8,
    ("dev", "rule", "venue_as_title"): 25,
    ("test", "errata", "cluster_merges_works"): 3,
    ("test", "errata", "not_a_title"): 3,
    ("test", "errata", "not_one_reference"): 2,
    ("test", "errata", "seed_title_corrupt"): 7,
    ("test", "errata", "venue_as_title"): 1,
    ("test", "errata", "work_split"): 12,
    ("test", "rule", "titles_run_together"): 7,
    ("test", "rule", "venue_as_title"): 52,
}


def _audit_module():
    return builder_module("audit")


def test_the_audit_counts_per_split_and_category_and_what_is_left_to_score():
    rows = _rows("audit.jsonl")
    assert Counter((r["split"], r["by"], r["category"]) for r in rows) == AUDIT_COUNTS
    assert len({r["id"] for r in rows}) == len(rows) == 150
    for split, left_out, regolded, kept, pairs in (("dev", 54, 9, 4815, 3762), ("test", 81, 6, 4534, 3438)):
        entries = _rows(f"entries.{split}.jsonl.gz")
        mine = [r for r in rows if r["split"] == split]
        assert sum(r["field"] == "scored" for r in mine) == left_out
        assert sum(r["field"] == "gold" for r in mine) == regolded
        audited = _audit_module().apply_audit(entries, mine)
        assert len(audited) == kept == len(entries) - left_out
        assert sum(e["gold"] is not None for e in audited) == pairs
        # The raw labels stay in the entries: the audit is a list of changes beside them.
        by_id = {e["id"]: e for e in entries}
        for r in mine:
            assert by_id[r["id"]]["gold"] == r["old"] if r["field"] == "gold" else r["old"] is True


def test_every_audit_row_names_an_entry_a_category_and_a_reason():
    audit = _audit_module()
    seeds = {sp: {s["arxiv_id"] for s in _rows(f"seeds.{sp}.jsonl")} for sp in ("dev", "test")}
    ids = {e["id"]: e["split"] for sp in ("dev", "test") for e in _rows(f"entries.{sp}.jsonl.gz")}
    errata = _rows("errata.jsonl")
    assert len(errata) == 58
    rows = {r["id"]: r for r in _rows("audit.jsonl")}
    for row in errata:
        assert row["id"] in ids, row
        assert row["category"] in audit.CATEGORIES and row["note"].strip(), row
        assert rows[row["id"]]["by"] == "errata" and rows[row["id"]]["new"] == row["new"]
    for row in rows.values():
        assert ids[row["id"]] == row["split"] and row["note"].strip()
        if row["field"] == "gold" and row["new"] is not None:
            assert row["new"] in seeds[row["split"]]  # a new gold is a seed of the entry's split


def test_the_rules_read_the_annotation_not_a_resolver():
    rule = _audit_module().rule_category
    # Venue designations GROBID annotates as titles (3GPP meeting lines, proceedings, series).
    for title in (
        "Meeting #105",
        "Proc. 30th ICRC (icrc0639)",
        "Proceedings of the Eighth IEEE European Test Workshop (ETW\u201903)",
        "SPE Western Regional Meeting",
        "14th Symp. (Int.) on Combustion",
        "APNOMS 2009",
        "Oxford Mathematical Mono-graphs",
    ):
        assert rule(title, 1) == "venue_as_title", title
    # Work titles that look like venues are not (a law, a paper "... 30 years on", a book).
    for title in (
        "FAA Modernization and Reform Act H.R. 658 112th Congress",
        "Dopamine and reward: the anhedonia hypothesis 30 years on",
        "Conference interpreting explained",
        "Advanced LIGO",
    ):
        assert rule(title, 1) is None, title
    assert rule("The University of", 1) == "not_a_title"
    assert rule("Formula and Meter Oral Literature and the Formula", 2) == "titles_run_together"


def test_an_erratum_without_a_reason_or_with_a_wrong_old_value_is_refused(tmp_path):
    audit = _audit_module()
    path = tmp_path / "errata.jsonl"
    row = {"id": "e05525", "field": "scored", "old": True, "new": False, "category": "venue_as_title"}
    path.write_text(json.dumps({**row, "note": " "}) + "\n", encoding="utf-8")
    with pytest.raises(ValueError, match="justification"):
        audit.read_errata(path)
    path.write_text(
        json.dumps({**row, "category": "resolver_disagrees", "note": "x"}) + "\n", encoding="utf-8"
    )
    with pytest.raises(ValueError, match="category"):
        audit.read_errata(path)
    path.write_text('{"id": "e05525"\n', encoding="utf-8")
    with pytest.raises(ValueError, match=r"errata\.jsonl:1: not a JSON object"):
        audit.read_errata(path)
    entries = [{"id": "e05525", "split": "test", "gold": "w04228"}]
    wrong_old = {**row, "field": "gold", "old": None, "new": None, "note": "x"}
    with pytest.raises(ValueError, match="is 'w04228'"):
        audit.audit_rows(entries, {}, [wrong_old], {"test": {"w04228"}})
    elsewhere = {**row, "field": "gold", "old": "w04228", "new": "w09999", "note": "x"}
    with pytest.raises(ValueError, match="no seed of the test split"):
        audit.audit_rows(entries, {}, [elsewhere], {"test": {"w04228"}})


# The three snapshots the set is built from (as the fetch tool leaves them); each may be pointed
# elsewhere by its environment variable. Without all three the rebuild test skips.
_SNAPSHOTS = {
    "--grobid": Path(os.environ.get("REFLONG_GROBID_GIT", "/work/.mirror/kermitt2+grobid/repo")),
    "--anystyle": Path(os.environ.get("REFLONG_ANYSTYLE_GIT", "/work/.mirror/inukshuk+anystyle/repo")),
    "--cora": Path(os.environ.get("REFLONG_CORA_GIT", "/work/.mirror/cleanzr+cora/repo")),
}


@pytest.mark.skipif(
    not all((p / "HEAD").is_file() for p in _SNAPSHOTS.values()),
    reason="needs the kermitt2/grobid, inukshuk/anystyle and cleanzr/cora snapshots, not on this machine "
    "(set REFLONG_GROBID_GIT, REFLONG_ANYSTYLE_GIT, REFLONG_CORA_GIT to their git directories)",
)
def test_the_builder_gives_the_committed_bytes_again(tmp_path):
    args = [a for flag, path in _SNAPSHOTS.items() for a in (flag, str(path))]
    out = subprocess.run(
        [*builder_command("styles"), *args, "--out", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert out.returncode == 0, out.stderr
    names = ["audit.jsonl", *(f"{k}.{s}.jsonl" for k in ("seeds",) for s in ("dev", "test"))]
    names += [f"entries.{s}.jsonl.gz" for s in ("dev", "test")]
    for name in names:
        assert (tmp_path / name).read_bytes() == (DATA / name).read_bytes(), name
