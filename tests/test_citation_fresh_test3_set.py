"""LinkedBooks' THIRD TEST split (tests/data/real/citation_fresh_test3, ``fresh_test3``).

Built by ``citations/quality/builders/fresh.py --part test3`` after the second test split (fresh_test2)
was scored once and became a dev set: another ninth of the works of LinkedBooks' training file
(the same salted hash, residue 2), leaving out every work and string of every earlier set,
fresh_test2 and pmc_test3 included, and every work printed two ways across this sample and the
two earlier ones. Scored once by the lead (resolve-17), a dev set since. These tests pin what
it holds (counts per style as its SOURCES.md reports them, every gold a cited seed, the audit:
rules plus hand errata, each with a reason), that it shares no work key, work or string with the
earlier sets, that the naive baseline alone scores it (our resolver is never run on it here), and,
when the snapshot is on this machine, that the builder gives the committed bytes again for this
split (each earlier part's own test rebuilds it).
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
FRESH_TEST3 = LabelledSet(
    "citation_fresh_test3",
    split="fresh_test3",
    source="linkedbooks",
    id_prefix="n",
    style_counts={
        "given_surname": (194, 143),
        "initials_first": (745, 552),
        "other": (403, 315),
        "surname_comma_given": (99, 68),
        "surname_initials": (156, 114),
        "title_first": (523, 408),
    },
)
FRESH_TEST = LabelledSet("citation_fresh_test", split="fresh_test", source="linkedbooks", style_counts={})
FRESH_TEST2 = LabelledSet("citation_fresh_test2", split="fresh_test2", source="linkedbooks", style_counts={})


def test_the_split_holds_the_counts_its_sources_file_reports():
    assert_counts(FRESH_TEST3, entries=2120, seeds=1349, cited=1326, containers=23)
    assert_ids_and_order(FRESH_TEST3)
    assert_multi_cited(FRESH_TEST3, 129)
    text = assert_sources_table(FRESH_TEST3)
    assert "scored once with our resolver by the lead (resolve-17" in text
    assert "--splits fresh_test3 --corpus /nonexistent" in text
    assert_gzip_header_fixed(FRESH_TEST3)


def test_every_gold_is_a_cited_seed_and_held_out_works_have_none():
    seeds = assert_gold_is_cited_seed(FRESH_TEST3, held_out=520)
    assert sum(not x["first_author"] for x in seeds.values() if x["cited"]) == 346


def test_test3_is_the_third_residue_and_its_own_id_letter():
    fresh = builder_module("fresh")
    part = fresh.PARTS["test3"]
    assert (part.folder, part.split, part.prefix) == (
        FRESH_TEST3.data,
        FRESH_TEST3.split,
        FRESH_TEST3.id_prefix,
    )
    assert (part.residue, part.merge_with) == (2, (0, 1))
    assert (fresh.PARTS["test2"].residue, fresh.PARTS["test2"].merge_with) == (1, (0,))  # test2 as it was
    assert len({p.prefix for p in fresh.PARTS.values()}) == len(fresh.PARTS)
    # every entry's own work is in residue 2, none in the residues of fresh_test and fresh_test2
    assert all(fresh.share_of(e["title"]) == 2 for e in FRESH_TEST3.entries())
    assert all(fresh.share_of(e["title"]) == 1 for e in FRESH_TEST2.entries())
    assert all(fresh.share_of(e["title"]) == 0 for e in FRESH_TEST.entries())
    assert all(e["citing"].startswith("linkedbooks:clean_train.txt#") for e in FRESH_TEST3.entries())


def test_no_work_or_string_of_an_earlier_set_is_in_the_split():
    earlier = sets_built_before(FRESH_TEST3)
    fresh = builder_module("fresh")
    assert set(earlier) == set(fresh.TEST3_PRIOR_SETS)
    assert {REAL / "citation_fresh_test2", REAL / "citation_pmc_test3"} <= set(earlier)
    assert fresh.PARTS["test3"].prior_sets == fresh.TEST3_PRIOR_SETS
    assert fresh.PARTS["test2"].prior_sets == fresh.TEST2_PRIOR_SETS  # fresh_test2 as it was
    assert_no_work_of_the_prior_sets(FRESH_TEST3, "fresh", earlier)
    seen = set().union(*(fresh.styles_titles(p) for p in earlier))
    assert not any(fresh.norm(e["title"]) in seen for e in FRESH_TEST3.entries())
    raws = set()
    for folder in earlier:
        for path in folder.glob("entries.*.jsonl.gz"):
            raws.update(json.loads(line)["raw"] for line in gzip.decompress(path.read_bytes()).splitlines())
    assert not raws & {e["raw"] for e in FRESH_TEST3.entries()}


def test_every_erratum_has_a_reason_and_names_an_entry_of_the_split():
    errata = assert_errata_reasoned(
        FRESH_TEST3,
        {
            "work_split": 36,
            "venue_as_title": 19,
            "not_a_title": 18,
            "seed_title_corrupt": 13,
            "cluster_merges_works": 7,
            "container_as_title": 5,
        },
    )
    assert len(errata) == 98
    assert sum(r["field"] == "gold" for r in errata) == 15
    # a back-reference seeded beside its full title: both seeds' entries left out
    fasoli = {r["id"] for r in errata if "I fondamenti" in r["note"]}
    assert fasoli == {"n00287", "n01628", "n01630", "n01633", "n01634", "n01635", "n01637"}


def test_the_audit_file_is_the_rules_rows_plus_the_errata():
    rules = assert_audit_is_rules_plus_errata(FRESH_TEST3, rules=None, rows=148, kept=1987, kept_gold=1490)
    assert len(rules) == 50


def test_the_bench_scores_the_split_with_the_baseline_only():
    result = bench_baseline(FRESH_TEST3)
    audited = result["audited"]
    assert (audited["entries"], audited["left_out"], audited["regolded"]) == (1987, 133, 15)
    labelled = result["naive"]["overall"]
    assert (labelled["tp"], labelled["fp"], labelled["fn"]) == (1550, 83, 50)
    naive = audited["naive"]["overall"]
    assert naive["tp"] + naive["fn"] == 1490
    assert (naive["tp"], naive["fp"], naive["fn"]) == (1445, 67, 45)


@BUILDER.needs_snapshot()
def test_the_builder_gives_the_committed_bytes_again(tmp_path):
    # Its own part only: every part's set test rebuilds that part (test_citation_fresh_set the
    # dev part), so together they check every part; each test rebuilding all the parts before
    # it made the suite's time grow with the square of the number of parts.
    assert_rebuild_equals_committed(FRESH_TEST3, BUILDER, tmp_path / "test3", ("--part", "test3"))


def test_a_wrong_snapshot_is_one_clear_error(tmp_path):
    assert_wrong_snapshot_one_error(
        BUILDER,
        tmp_path,
        "builders.fresh: cannot read d00ca1ff3a3b:dataset.tar.gz in {dir} (git exit 128)",
        ("--part", "test3"),
    )
