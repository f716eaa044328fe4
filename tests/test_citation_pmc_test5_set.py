"""The PMC set's FIFTH and last test split (tests/data/real/citation_pmc_test5, split ``pmc_test5``).

Why a fifth one: shares 1-4 have each been scored once with our resolver and their misses read,
so all are dev sets now, and every resolver version since resolve-18 (the last one measured on
an unread PMC split) was tuned on them. This split is share 5 of the same file, built and
audited with the naive baseline only, held out until the lead's one run (resolve-21), a dev set
since. So these tests run the baseline alone (the bench runs with ``--no-ours`` and the test
checks that ours was not run): they pin the data, not ours. They pin what the committed files
hold (counts per style as its SOURCES.md reports them, every gold a cited seed, no work and no
raw string of ANY set on main before it, entry ids of a letter no set uses for an entry or a
seed, the audit: one rule row and the hand errata, each with a reason), that the label scan
finds the strings the errata leave out for their shape, and, when the biblio-glutton snapshot is
on this machine, that ``--share 5`` gives the committed bytes again.
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

# (entries, gold pairs) per style, as SOURCES.md reports them
PMC_TEST5 = LabelledSet(
    "citation_pmc_test5",
    split="pmc_test5",
    source="glutton",
    id_prefix="y",
    style_counts={"apa": (1289, 969), "name_year": (46, 36), "other": (206, 159), "vancouver": (995, 740)},
)


def _builder():
    return builder_module("pmc")


def test_the_fifth_test_split_holds_the_counts_its_sources_file_reports():
    assert_counts(PMC_TEST5, entries=2536, seeds=1884, cited=1884, containers=0)
    assert {e["citing"] for e in PMC_TEST5.entries()} == {"glutton:pmc_sample_1943"}
    assert_ids_and_order(PMC_TEST5)
    assert_multi_cited(PMC_TEST5, 17)
    assert not any("\n" in e["raw"] for e in PMC_TEST5.entries())
    seeds = PMC_TEST5.seeds()
    assert sum(s["first_author"] is None for s in seeds) == 581  # the NLM record names none
    assert sum(s["published"] is None for s in seeds) == 6


def test_the_sources_file_tables_are_the_committed_counts_and_say_it_was_scored_once():
    text = assert_sources_table(PMC_TEST5)
    b = _builder()
    assert b.GLUTTON_COMMIT in text and b.GLUTTON_PATH in text
    # held out until the lead's one run (resolve-21), a dev set since
    assert "scored once with our resolver by the lead (resolve-21" in text
    assert "--share 5" in text and "_digest(doi) % SHARE == 5" in text
    assert "--splits pmc_test5 --corpus /nonexistent" in text


def test_share_5_is_the_fifth_test_split_and_leaves_out_every_earlier_set():
    b = _builder()
    test5 = b.SHARES[5]
    assert (test5.folder, test5.split, test5.prefix) == (PMC_TEST5.data, PMC_TEST5.split, PMC_TEST5.id_prefix)
    assert len({s.prefix for s in b.SHARES.values()}) == len(b.SHARES)
    # the last share of SHARE: the file has no other
    assert sorted(b.SHARES) == list(range(b.SHARE))
    # its own letter: no entry id of any earlier set begins with it, and no seed id of ANY set
    # (every set's works are w..., its edited volumes c...): an id names one row of one file
    earlier = sets_built_before(PMC_TEST5)
    assert_own_id_letter(PMC_TEST5, earlier)
    # every set committed before it (_labelled_sets.BUILD_ORDER), and nothing else
    assert test5.prior_sets == earlier and len(earlier) == 14
    assert all((p / "SOURCES.md").is_file() for p in earlier)


def test_every_gold_is_a_cited_seed_and_no_work_or_string_is_shared_with_an_earlier_set():
    assert_gold_is_cited_seed(PMC_TEST5, held_out=632)  # entries citing a held-out work
    assert_titles_printed(PMC_TEST5, "pmc", seed_title_differs=321)
    prior = _builder().SHARES[5].prior_sets
    assert_no_work_of_the_prior_sets(PMC_TEST5, "pmc", prior)
    assert_no_title_or_string_of(PMC_TEST5, prior)


def test_the_gzip_header_is_fixed():
    assert_gzip_header_fixed(PMC_TEST5)


def test_the_audit_file_is_one_rule_row_and_the_errata_each_with_a_reason():
    errata = assert_errata_reasoned(PMC_TEST5, {"not_one_reference": 17, "seed_title_corrupt": 8})
    rows = {e["id"]: e for e in PMC_TEST5.entries()}
    seeds = {s["arxiv_id"]: s for s in PMC_TEST5.seeds()}
    b = _builder()
    corrupt = {r["id"] for r in errata if r["category"] == "seed_title_corrupt"}
    # six records lost a title's first words, set in italics: the string prints them right
    # before the record's title
    lost_head = {"y00007", "y00169", "y00285", "y01412", "y01598", "y02163"}
    for eid in lost_head:
        at = b.title_start(rows[eid]["raw"], rows[eid]["title"])
        assert at > 0 and rows[eid]["raw"][:at].rstrip()[-1:].isalnum(), eid
    # two were cut at the italics and the builder's cut check missed them: the seed title ends
    # inside a parenthesis the string closes
    lost_tail = corrupt - lost_head
    assert lost_tail == {"y01225", "y01713"}
    for eid in lost_tail:
        title = seeds[rows[eid]["gold"]]["title"]
        assert title.count("(") == title.count(")") + 1, eid
    # each joined string quotes the references GROBID ran together
    joined = [r for r in errata if r["category"] == "not_one_reference"]
    assert len(joined) == 17 and all(r["note"].startswith("GROBID joined ") for r in joined)
    # the one rule row: "... results of the 2004 Perugia International Antiemetic Consensus
    # Conference" ends in a meeting word (a false alarm that leaves one right entry out, as the
    # rule's rows on earlier shares did)
    fired = assert_audit_is_rules_plus_errata(PMC_TEST5, rules=None, rows=26, kept=2510, kept_gold=1884)
    assert fired == {"y01894": "venue_as_title"}
    assert rows["y01894"]["title"].endswith("Consensus Conference")


def test_the_bench_scores_the_fifth_test_split_with_the_baseline_only():
    result = bench_baseline(PMC_TEST5)  # checks that our resolver was not run
    assert (result["entries"], result["gold_pairs"], result["seeds"]) == (2536, 1904, 1884)
    # the baseline resolves every entry as labelled: no disagreement to read
    overall = result["naive"]["overall"]
    assert (overall["tp"], overall.get("fp", 0), overall.get("fn", 0)) == (1904, 0, 0)
    audited = result["audited"]
    assert (audited["entries"], audited["left_out"], audited["regolded"]) == (2510, 26, 0)
    naive = audited["naive"]["overall"]
    assert (naive["tp"], naive.get("fp", 0), naive.get("fn", 0)) == (1884, 0, 0)


def test_the_scan_finds_the_strings_the_errata_leave_out_for_their_shape():
    audit = builder_module("audit")
    flagged = _scan(PMC_TEST5.data, PMC_TEST5.split)
    assert len(flagged) == 34
    errata = audit.read_errata(PMC_TEST5.data / "errata.jsonl")
    joined = {r["id"] for r in errata if r["category"] == "not_one_reference"}
    # two years in parentheses, or one reference too long (y02214's first is "(in press)")
    assert len(joined) == 17 and all(
        {"two_years", "long", "authors_after_title"} & set(flagged[i]) for i in joined
    )
    assert flagged["y02214"] == ["long"]
    # the records that lost a title's head were found by the scan; the two cut at the tail by
    # the title-end check beside it (the scan reads where a title starts, not where it ends)
    after_word = {i for i, f in flagged.items() if "title_after_word" in f}
    corrupt = {r["id"] for r in errata if r["category"] == "seed_title_corrupt"}
    assert corrupt - after_word == {"y01225", "y01713"}


@BUILDER.needs_snapshot()
def test_the_builder_gives_the_committed_fifth_test_split_bytes_again(tmp_path):
    assert_rebuild_equals_committed(PMC_TEST5, BUILDER, tmp_path, ("--share", "5"))


def test_a_wrong_snapshot_is_one_clear_error_for_the_fifth_test_share(tmp_path):
    assert_wrong_snapshot_one_error(
        BUILDER,
        tmp_path,
        "builders.pmc: cannot read acda234c54b9:doc/references-doi-matching.json.gz in {dir} (git exit 128)",
        ("--share", "5"),
    )
