"""LinkedBooks' SECOND TEST split (tests/data/real/citation_fresh_test2, ``fresh_test2``).

Built by ``citations/quality/builders/fresh.py --part test2`` after the first test split (fresh_test)
was scored once and became a dev set: another ninth of the works of LinkedBooks' training file
(the same salted hash, residue 1), leaving out every work and string of every earlier set,
fresh_test included, and every work printed two ways across the two samples. These tests pin what
it holds (counts per style as its SOURCES.md reports them, every gold a cited seed, the audit:
rules plus hand errata, each with a reason), that it shares no work key, work or string with the
earlier sets, that the naive baseline alone scores it (our resolver is never run on it here: it
was scored once by the lead, resolve-16, and is a dev set since), and, when the snapshot is on this machine, that the builder
gives the committed bytes again for this split (each earlier part's own test rebuilds it).
"""

from __future__ import annotations

import gzip
import json

import pytest
from _labelled_sets import (
    REAL,
    LabelledSet,
    assert_audit_is_rules_plus_errata,
    assert_counts,
    assert_errata_reasoned,
    assert_gold_is_cited_seed,
    assert_gzip_header_fixed,
    assert_ids_and_order,
    assert_multi_cited,
    assert_no_work_of_the_prior_sets,
    assert_rebuild_equals_committed,
    assert_sources_table,
    assert_wrong_snapshot_one_error,
    bench_baseline,
    builder_module,
    sets_built_before,
)
from test_citation_fresh_set import BUILDER

# a labelled set's data checks: in the full suite (-m slow), not the fast one
pytestmark = pytest.mark.slow

# (entries, gold pairs) per style, as SOURCES.md reports them
FRESH_TEST2 = LabelledSet(
    "citation_fresh_test2",
    split="fresh_test2",
    source="linkedbooks",
    id_prefix="m",
    style_counts={
        "given_surname": (196, 142),
        "initials_first": (799, 589),
        "other": (372, 285),
        "surname_comma_given": (114, 87),
        "surname_initials": (150, 113),
        "title_first": (481, 362),
    },
)
FRESH_TEST = LabelledSet("citation_fresh_test", split="fresh_test", source="linkedbooks", style_counts={})


def test_the_split_holds_the_counts_its_sources_file_reports():
    assert_counts(FRESH_TEST2, entries=2112, seeds=1408, cited=1378, containers=30)
    assert_ids_and_order(FRESH_TEST2)
    assert_multi_cited(FRESH_TEST2, 108)
    text = assert_sources_table(FRESH_TEST2)
    assert "scored once with our resolver by the lead (resolve-16" in text
    assert "from resolve-17 on it is a dev set" in text
    assert "--splits fresh_test2 --corpus /nonexistent" in text
    assert_gzip_header_fixed(FRESH_TEST2)


def test_every_gold_is_a_cited_seed_and_held_out_works_have_none():
    assert_gold_is_cited_seed(FRESH_TEST2, held_out=534)


def test_test2_is_the_next_residue_and_its_own_id_letter():
    fresh = builder_module("fresh")
    part, first = fresh.PARTS["test2"], fresh.PARTS["test"]
    assert (part.folder, part.split, part.prefix) == (
        FRESH_TEST2.data,
        FRESH_TEST2.split,
        FRESH_TEST2.id_prefix,
    )
    assert (part.residue, part.merge_with) == (1, (0,)) and (first.residue, first.merge_with) == (0, ())
    assert len({p.prefix for p in fresh.PARTS.values()}) == len(fresh.PARTS)
    # every entry's own work is in residue 1, none in fresh_test's residue 0
    assert all(fresh.share_of(e["title"]) == 1 for e in FRESH_TEST2.entries())
    assert not any(fresh.in_test_share(e["title"]) for e in FRESH_TEST2.entries())
    assert all(fresh.in_test_share(e["title"]) for e in FRESH_TEST.entries())  # fresh_test as it was
    assert all(e["citing"].startswith("linkedbooks:clean_train.txt#") for e in FRESH_TEST2.entries())


def test_no_work_or_string_of_an_earlier_set_is_in_the_split():
    earlier = sets_built_before(FRESH_TEST2)
    fresh = builder_module("fresh")
    assert set(earlier) == set(fresh.TEST2_PRIOR_SETS) and REAL / "citation_fresh_test" in earlier
    assert fresh.PARTS["test2"].prior_sets == fresh.TEST2_PRIOR_SETS
    assert fresh.PARTS["test"].prior_sets == fresh.TEST_PRIOR_SETS  # fresh_test as it was
    assert_no_work_of_the_prior_sets(FRESH_TEST2, "fresh", earlier)
    seen = set().union(*(fresh.styles_titles(p) for p in earlier))
    assert not any(fresh.norm(e["title"]) in seen for e in FRESH_TEST2.entries())
    raws = set()
    for folder in earlier:
        for path in folder.glob("entries.*.jsonl.gz"):
            raws.update(json.loads(line)["raw"] for line in gzip.decompress(path.read_bytes()).splitlines())
    assert not raws & {e["raw"] for e in FRESH_TEST2.entries()}


def test_a_work_printed_two_ways_across_the_samples_is_left_out():
    """``seed_works`` drops a work any of whose references belongs to the earlier sample, and
    counts the strings of this sample it drops; works of the earlier sample alone count nothing."""
    from collections import Counter

    fresh = builder_module("fresh")

    def item(title: str, raw: str, year: int, earlier: bool = False) -> dict:
        it = {
            "file": "clean_train.txt",
            "citing": "linkedbooks:clean_train.txt#000",
            "raw": raw,
            "title": title,
            "fields": 1,
            "surname": "Targhetta",
            "author": "R. Targhetta",
            "year": year,
            "style": "initials_first",
            "volumes": [],
        }
        return {**it, "_earlier_sample": True} if earlier else it

    counts: Counter = Counter()
    items = [
        item("La Massoneria veneta dalle origini alla chiusura delle logge", "a", 1988, earlier=True),
        item("La massoneria veneta delle origini alla chiusura delle logge", "b", 1988),
        item("Un'altra opera del tutto diversa", "c", 1990),
        item("Solo del campione precedente", "d", 1970, earlier=True),
    ]
    _, seeds, entries = fresh.seed_works(
        items, set(), counts, source="linkedbooks", split="fresh_test2", seen_count="seen"
    )
    assert [e["raw"] for e in entries] == ["c"]
    assert {x["title"] for x in seeds} <= {"Un'altra opera del tutto diversa"}  # the work may be held out
    assert counts["merged_with_earlier_sample"] == 1
    assert all(not e["_item"].get("_earlier_sample") for e in entries)


def test_every_erratum_has_a_reason_and_names_an_entry_of_the_split():
    errata = assert_errata_reasoned(
        FRESH_TEST2,
        {
            "work_split": 73,
            "venue_as_title": 32,
            "not_a_title": 17,
            "cluster_merges_works": 14,
            "container_as_title": 8,
            "seed_title_corrupt": 7,
        },
    )
    assert len(errata) == 151
    assert sum(r["field"] == "gold" for r in errata) == 24


def test_the_audit_file_is_the_rules_rows_plus_the_errata():
    rules = assert_audit_is_rules_plus_errata(FRESH_TEST2, rules=None, rows=201, kept=1935, kept_gold=1431)
    assert len(rules) == 50


def test_the_bench_scores_the_split_with_the_baseline_only():
    result = bench_baseline(FRESH_TEST2)
    audited = result["audited"]
    assert (audited["entries"], audited["left_out"], audited["regolded"]) == (1935, 177, 24)
    labelled = result["naive"]["overall"]
    assert (labelled["tp"], labelled["fp"], labelled["fn"]) == (1490, 131, 88)
    naive = audited["naive"]["overall"]
    assert naive["tp"] + naive["fn"] == 1431
    assert (naive["tp"], naive["fp"], naive["fn"]) == (1346, 113, 85)


@BUILDER.needs_snapshot()
def test_the_builder_gives_the_committed_bytes_again(tmp_path):
    # Its own part only: every part's set test rebuilds that part (test_citation_fresh_set the
    # dev part), so together they check every part; each test rebuilding all the parts before
    # it made the suite's time grow with the square of the number of parts.
    assert_rebuild_equals_committed(FRESH_TEST2, BUILDER, tmp_path / "test2", ("--part", "test2"))


def test_a_wrong_snapshot_is_one_clear_error(tmp_path):
    assert_wrong_snapshot_one_error(
        BUILDER,
        tmp_path,
        "builders.fresh: cannot read d00ca1ff3a3b:dataset.tar.gz in {dir} (git exit 128)",
        ("--part", "test2"),
    )
