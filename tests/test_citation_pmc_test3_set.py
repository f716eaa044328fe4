"""The PMC set's THIRD test split (tests/data/real/citation_pmc_test3, split ``pmc_test3``).

Why a third one: the first and second test splits (shares 1 and 2) have each been scored once with
our resolver and their misses read, so both are dev sets now. This split is share 3 of the same
file, built and audited with the naive baseline only, then scored ONCE with our resolver by the
lead (resolve-16); a dev set from resolve-17 on. The tests still run the baseline alone (the bench
runs with ``--no-ours`` and the test checks that ours was not run): they pin the data, not ours. These tests pin what the committed files hold (counts per
style as its SOURCES.md reports them, every gold a cited seed, no work and no raw string of ANY
set on main before it, the audit: no rule row fired, only hand errata, each with a reason), that
the label scan finds every string the errata leave out for its shape, and, when the
biblio-glutton snapshot is on this machine, that ``--share 3`` gives the committed bytes again.
"""

from __future__ import annotations

import pytest
from _labelled_sets import (
    REPO,
    LabelledSet,
    assert_audit_is_rules_plus_errata,
    assert_counts,
    assert_errata_reasoned,
    assert_gold_is_cited_seed,
    assert_gzip_header_fixed,
    assert_ids_and_order,
    assert_multi_cited,
    assert_no_title_or_string_of,
    assert_no_work_of_the_prior_sets,
    assert_own_id_letter,
    assert_rebuild_equals_committed,
    assert_sources_table,
    assert_titles_printed,
    assert_wrong_snapshot_one_error,
    bench_baseline,
    builder_module,
    sets_built_before,
)
from test_citation_pmc_set import BUILDER
from test_citation_pmc_test_set import _scan

# a labelled set's data checks: in the full suite (-m slow), not the fast one
pytestmark = pytest.mark.slow

REAL = REPO / "tests" / "data" / "real"
# (entries, gold pairs) per style, as SOURCES.md reports them
PMC_TEST3 = LabelledSet(
    "citation_pmc_test3",
    split="pmc_test3",
    source="glutton",
    id_prefix="v",
    style_counts={"apa": (1297, 991), "name_year": (43, 31), "other": (242, 181), "vancouver": (1027, 739)},
)


def _builder():
    return builder_module("pmc")


def test_the_third_test_split_holds_the_counts_its_sources_file_reports():
    assert_counts(PMC_TEST3, entries=2609, seeds=1927, cited=1927, containers=0)
    assert {e["citing"] for e in PMC_TEST3.entries()} == {"glutton:pmc_sample_1943"}
    assert_ids_and_order(PMC_TEST3)
    assert_multi_cited(PMC_TEST3, 14)
    assert not any("\n" in e["raw"] for e in PMC_TEST3.entries())
    seeds = PMC_TEST3.seeds()
    assert sum(s["first_author"] is None for s in seeds) == 564  # the NLM record names none
    assert sum(s["published"] is None for s in seeds) == 12


def test_the_sources_file_tables_are_the_committed_counts_and_say_it_was_scored_once():
    text = assert_sources_table(PMC_TEST3)
    b = _builder()
    assert b.GLUTTON_COMMIT in text and b.GLUTTON_PATH in text
    # held out until the lead's one run (resolve-16), a dev set since
    assert "scored ONCE with resolve-16, a dev set from resolve-17 on" in text
    assert "--share 3" in text and "_digest(doi) % SHARE == 3" in text
    assert "--splits pmc_test3" in text


def test_share_3_is_the_third_test_split_and_leaves_out_every_earlier_set():
    b = _builder()
    test3 = b.SHARES[3]
    assert (test3.folder, test3.split, test3.prefix) == (PMC_TEST3.data, PMC_TEST3.split, PMC_TEST3.id_prefix)
    # its own id letter: no id of another share can be mistaken for one ...
    assert len({s.prefix for s in b.SHARES.values()}) == len(b.SHARES)
    # ... nor of any other set on main (its entries' and seeds' ids)
    earlier = sets_built_before(PMC_TEST3)
    assert_own_id_letter(PMC_TEST3, earlier)
    # every set committed before it (_labelled_sets.BUILD_ORDER), and nothing else
    assert test3.prior_sets == earlier and len(earlier) == 8
    assert all((p / "SOURCES.md").is_file() for p in earlier)
    # the earlier shares are built as they were
    assert b.SHARES[2].prior_sets == (*b.PRIOR_SETS, REAL / "citation_pmc", REAL / "citation_pmc_test")


def test_every_gold_is_a_cited_seed_and_no_work_or_string_is_shared_with_an_earlier_set():
    assert_gold_is_cited_seed(PMC_TEST3, held_out=667)  # entries citing a held-out work
    assert_titles_printed(PMC_TEST3, "pmc", seed_title_differs=352)
    prior = _builder().SHARES[3].prior_sets
    assert_no_work_of_the_prior_sets(PMC_TEST3, "pmc", prior)
    assert_no_title_or_string_of(PMC_TEST3, prior)


def test_the_gzip_header_is_fixed():
    assert_gzip_header_fixed(PMC_TEST3)


def test_the_audit_file_is_the_errata_each_with_a_reason_and_no_rule_fired():
    errata = assert_errata_reasoned(
        PMC_TEST3, {"not_one_reference": 16, "seed_title_corrupt": 7, "cluster_merges_works": 2}
    )
    rows = {e["id"]: e for e in PMC_TEST3.entries()}
    b = _builder()
    # a title whose first words are in italics lost them in the record: the string prints them
    # right before it (v01899's first word is glued to an author's initial: "Port FCreation:")
    corrupt = {r["id"] for r in errata if r["category"] == "seed_title_corrupt"}
    for eid in corrupt - {"v01899"}:
        at = b.title_start(rows[eid]["raw"], rows[eid]["title"])
        assert at > 0 and rows[eid]["raw"][:at].rstrip()[-1:].isalnum(), eid
    assert "FCreation: Cannulation" in rows["v01899"]["raw"]
    # the two records of another work: the seed's title is printed, the work is not the seed's
    regolded = {r["id"]: r for r in errata if r["category"] == "cluster_merges_works"}
    assert set(regolded) == {"v00445", "v00530"} and all(r["new"] is None for r in regolded.values())
    assert_audit_is_rules_plus_errata(PMC_TEST3, rules={}, rows=25, kept=2586, kept_gold=1923)


def test_the_bench_scores_the_third_test_split_with_the_baseline_only():
    result = bench_baseline(PMC_TEST3)  # checks that our resolver was not run
    assert (result["entries"], result["gold_pairs"], result["seeds"]) == (2609, 1942, 1927)
    overall = result["naive"]["overall"]
    # as labelled: three strings citing a work on primary aldosteronism taken for the short seed
    # "Primary aldosteronism" (the baseline's own errors; the labels are right)
    assert (overall["tp"], overall.get("fp", 0), overall.get("fn", 0)) == (1940, 3, 2)
    audited = result["audited"]
    assert (audited["entries"], audited["left_out"], audited["regolded"]) == (2586, 23, 2)
    # the two re-golded strings print their record's title: now the baseline's false accepts
    naive = audited["naive"]["overall"]
    assert (naive["tp"], naive.get("fp", 0), naive.get("fn", 0)) == (1921, 5, 2)


def test_the_scan_finds_every_string_the_errata_leave_out_for_its_shape():
    audit = builder_module("audit")
    flagged = _scan(PMC_TEST3.data, PMC_TEST3.split)
    assert len(flagged) == 37
    errata = audit.read_errata(PMC_TEST3.data / "errata.jsonl")
    joined = {r["id"] for r in errata if r["category"] == "not_one_reference"}
    assert len(joined) == 16 and all(
        {"two_years", "long", "authors_after_title"} & set(flagged[i]) for i in joined
    )
    # every gold title whose first italic words the record lost; v01899 ("Creation:" after a colon)
    # was found by the sample, the two records of other works by the volume/page check
    after_word = {i for i, f in flagged.items() if "title_after_word" in f}
    corrupt = {r["id"] for r in errata if r["category"] == "seed_title_corrupt"}
    assert corrupt - {"v01899"} == {"v00671", "v01059", "v01142", "v01459", "v02354", "v02562"}
    assert after_word >= corrupt - {"v01899"}


@BUILDER.needs_snapshot()
def test_the_builder_gives_the_committed_third_test_split_bytes_again(tmp_path):
    assert_rebuild_equals_committed(PMC_TEST3, BUILDER, tmp_path, ("--share", "3"))


def test_a_wrong_snapshot_is_one_clear_error_for_the_third_test_share(tmp_path):
    assert_wrong_snapshot_one_error(
        BUILDER,
        tmp_path,
        "builders.pmc: cannot read acda234c54b9:doc/references-doi-matching.json.gz in {dir} (git exit 128)",
        ("--share", "3"),
    )
