"""The PMC set's SECOND held-out test split (tests/data/real/citation_pmc_test2, split ``pmc_test2``).

Why a second one: the first test split (share 1, citation_pmc_test) has been scored once with our
resolver and its misses read, so it is a dev set now. This split is share 2 of the same file,
built and audited with the naive baseline only, to be scored ONCE with our resolver by the lead at
the end. So nothing here runs our resolver on it (the bench runs with ``--no-ours`` and the test
checks that ours was not run). These tests pin what the committed files hold (counts per style as
its SOURCES.md reports them, every gold a cited seed, no work and no raw string of ANY earlier set,
the audit: two rule rows plus hand errata, each with a reason), that the label scan finds every
string the errata leave out for its shape, and, when the biblio-glutton snapshot is on this
machine, that ``--share 2`` gives the committed bytes again.
"""

from __future__ import annotations

import pytest
from _labelled_sets import (
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
    assert_titles_printed,
    assert_wrong_snapshot_one_error,
    bench_baseline,
    builder_module,
    sets_built_before,
)
from test_citation_pmc_set import BUILDER, PMC
from test_citation_pmc_test_set import PMC_TEST, _scan

# a labelled set's data checks: in the full suite (-m slow), not the fast one
pytestmark = pytest.mark.slow

# (entries, gold pairs) per style, as SOURCES.md reports them
PMC_TEST2 = LabelledSet(
    "citation_pmc_test2",
    split="pmc_test2",
    source="glutton",
    id_prefix="u",
    style_counts={"apa": (1321, 1000), "name_year": (46, 35), "other": (220, 164), "vancouver": (1051, 775)},
)


def _builder():
    return builder_module("pmc")


def test_the_second_test_split_holds_the_counts_its_sources_file_reports():
    assert_counts(PMC_TEST2, entries=2638, seeds=1948, cited=1948, containers=0)
    assert {e["citing"] for e in PMC_TEST2.entries()} == {"glutton:pmc_sample_1943"}
    assert_ids_and_order(PMC_TEST2)
    assert_multi_cited(PMC_TEST2, 24)
    assert not any("\n" in e["raw"] for e in PMC_TEST2.entries())
    seeds = PMC_TEST2.seeds()
    assert sum(s["first_author"] is None for s in seeds) == 598  # the NLM record names none
    assert sum(s["published"] is None for s in seeds) == 6


def test_the_sources_file_tables_are_the_committed_counts_and_say_it_was_scored_once():
    text = assert_sources_table(PMC_TEST2)
    b = _builder()
    assert b.GLUTTON_COMMIT in text and b.GLUTTON_PATH in text
    # held out until the lead's one run (resolve-15); its misses were read after it
    assert "Scored once with our resolver by the lead (resolve-15" in text
    assert "a dev set from resolve-16 on" in text
    assert "--share 2" in text and "_digest(doi) % SHARE == 2" in text
    assert "--splits pmc_test2" in text


def test_share_2_is_the_second_test_split_and_leaves_out_every_earlier_set():
    b = _builder()
    test2 = b.SHARES[2]
    assert (test2.folder, test2.split, test2.prefix) == (PMC_TEST2.data, PMC_TEST2.split, PMC_TEST2.id_prefix)
    # its own id letter: no id of the dev set (g) or the first test split (t) can be mistaken for one
    assert len({s.prefix for s in b.SHARES.values()}) == len(b.SHARES)
    # every set committed before it, and nothing else (citation_fresh_test and every set after it
    # were built later: _labelled_sets.BUILD_ORDER)
    earlier = set(sets_built_before(PMC_TEST2))
    assert set(test2.prior_sets) == earlier and len(test2.prior_sets) == len(earlier) == 6
    assert b.SHARES[1].prior_sets == (*b.PRIOR_SETS, PMC.data)  # share 1 is built as it was


def test_every_gold_is_a_cited_seed_and_no_work_or_string_is_shared_with_an_earlier_set():
    assert_gold_is_cited_seed(PMC_TEST2, held_out=664)  # entries citing a held-out work
    assert_titles_printed(PMC_TEST2, "pmc", seed_title_differs=326)
    # no work of the four older sets, the dev share or the first test share (entries' titles too)
    assert_no_work_of_the_prior_sets(PMC_TEST2, "pmc", _builder().SHARES[2].prior_sets)
    fresh = builder_module("fresh")
    mine = {fresh.norm(s["title"]) for s in PMC_TEST2.seeds()}
    raws = {e["raw"] for e in PMC_TEST2.entries()}
    for s in (PMC, PMC_TEST):
        assert not mine & {fresh.norm(e["title"]) for e in s.entries()}, s.name
    # and no raw string read in any earlier set is here
    for prior in _builder().SHARES[2].prior_sets:
        for path in prior.glob("entries.*.jsonl.gz"):
            split = path.name.removeprefix("entries.").removesuffix(".jsonl.gz")
            earlier = LabelledSet(prior.name, split=split, source="", style_counts={})
            assert not raws & {e["raw"] for e in earlier.entries()}, path


def test_the_gzip_header_is_fixed():
    assert_gzip_header_fixed(PMC_TEST2)


def test_the_audit_file_is_the_rule_rows_plus_the_errata_each_with_a_reason():
    errata = assert_errata_reasoned(
        PMC_TEST2, {"not_one_reference": 21, "seed_title_corrupt": 4, "cluster_merges_works": 1}
    )
    # a title whose first words are in italics lost them in the record: the string prints them
    corrupt = {r["id"] for r in errata if r["category"] == "seed_title_corrupt"}
    rows = {e["id"]: e for e in PMC_TEST2.entries()}
    b = _builder()
    for eid in corrupt:
        at = b.title_start(rows[eid]["raw"], rows[eid]["title"])
        assert at > 0 and rows[eid]["raw"][:at].rstrip()[-1:].isalnum(), eid
    # the rules' two rows: "Guidelines for the management of" (the record cut before "Helicobacter
    # pylori", a right call) and "... recommendations of the 2007 St Gallen conference" (a false
    # alarm: a real title with "conference" in it)
    assert_audit_is_rules_plus_errata(
        PMC_TEST2,
        rules={"u00107": "not_a_title", "u01893": "venue_as_title"},
        rows=28,
        kept=2611,
        kept_gold=1949,
    )


def test_the_bench_scores_the_second_test_split_with_the_baseline_only():
    result = bench_baseline(PMC_TEST2)  # checks that our resolver was not run
    assert (result["entries"], result["gold_pairs"], result["seeds"]) == (2638, 1974, 1948)
    overall = result["naive"]["overall"]
    assert (overall["tp"], overall.get("fp", 0), overall.get("fn", 0)) == (1974, 0, 0)
    audited = result["audited"]
    assert (audited["entries"], audited["left_out"], audited["regolded"]) == (2611, 27, 1)
    # the re-golded entry (Ferris & Hirsch's "Methods for isolation and purification of
    # cyanobacteria" under Rippka's record) is now the baseline's one false accept
    naive = audited["naive"]["overall"]
    assert (naive["tp"], naive.get("fp", 0), naive.get("fn", 0)) == (1949, 1, 0)


def test_the_scan_finds_every_string_the_errata_leave_out_for_its_shape():
    audit = builder_module("audit")
    flagged = _scan(PMC_TEST2.data, PMC_TEST2.split)
    assert len(flagged) == 42
    errata = audit.read_errata(PMC_TEST2.data / "errata.jsonl")
    joined = {r["id"] for r in errata if r["category"] == "not_one_reference"}
    assert len(joined) == 21 and all(
        {"two_years", "long", "authors_after_title"} & set(flagged[i]) for i in joined
    )
    # every title whose first words the record lost, and the misaligned Rippka record ("Methods
    # for" before "Isolation and purification of cyanobacteria")
    after_word = {i for i, f in flagged.items() if "title_after_word" in f}
    regolded = {r["id"] for r in errata if r["category"] in ("seed_title_corrupt", "cluster_merges_works")}
    assert regolded == {"u00689", "u00991", "u01321", "u01715", "u02397"} and after_word >= regolded


@BUILDER.needs_snapshot()
def test_the_builder_gives_the_committed_second_test_split_bytes_again(tmp_path):
    assert_rebuild_equals_committed(PMC_TEST2, BUILDER, tmp_path, ("--share", "2"))


def test_a_wrong_snapshot_is_one_clear_error_for_the_second_test_share(tmp_path):
    assert_wrong_snapshot_one_error(
        BUILDER,
        tmp_path,
        "builders.pmc: cannot read acda234c54b9:doc/references-doi-matching.json.gz in {dir} (git exit 128)",
        ("--share", "2"),
    )
