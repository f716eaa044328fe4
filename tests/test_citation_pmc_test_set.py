"""The PMC set's test split (tests/data/real/citation_pmc_test, split ``pmc_test``).

The dev set tests/data/real/citation_pmc (share 0 of the DOIs) has been read and is tuned on; this
split is share 1 of the same file, built and audited with the naive baseline only, and scored ONCE
with our resolver by the lead (resolve-14); since then it is a dev set too (its misses were read,
tests/test_venue_like_titles_after_author_lists.py scores it). Nothing here runs our resolver on it (the bench runs with
``--no-ours`` and the test checks that ours was not run). These tests pin what the committed files
hold (counts per style as its SOURCES.md reports them, every gold a cited seed, no work shared with
the dev share or the four older sets, the audit: one rule row plus hand errata, each with a
reason), that the label scan finds every string the errata leave out as two references, and, when
the biblio-glutton snapshot is on this machine, that ``--share 1`` gives the committed bytes again.
"""

from __future__ import annotations

import subprocess

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
    builder_command,
    builder_module,
)
from test_citation_pmc_set import BUILDER, PMC

# a labelled set's data checks: in the full suite (-m slow), not the fast one
pytestmark = pytest.mark.slow

# (entries, gold pairs) per style, as SOURCES.md reports them
PMC_TEST = LabelledSet(
    "citation_pmc_test",
    split="pmc_test",
    source="glutton",
    id_prefix="t",
    style_counts={"apa": (1339, 960), "name_year": (45, 33), "other": (231, 176), "vancouver": (1083, 824)},
)


def _builder():
    return builder_module("pmc")


def test_the_test_split_holds_the_counts_its_sources_file_reports():
    assert_counts(PMC_TEST, entries=2698, seeds=1969, cited=1969, containers=0)
    assert {e["citing"] for e in PMC_TEST.entries()} == {"glutton:pmc_sample_1943"}
    assert_ids_and_order(PMC_TEST)
    assert_multi_cited(PMC_TEST, 24)
    assert not any("\n" in e["raw"] for e in PMC_TEST.entries())
    seeds = PMC_TEST.seeds()
    assert sum(s["first_author"] is None for s in seeds) == 639  # the NLM record names none
    assert sum(s["published"] is None for s in seeds) == 11


def test_the_sources_file_tables_are_the_committed_counts_and_say_it_is_a_dev_set_now():
    text = assert_sources_table(PMC_TEST)
    b = _builder()
    assert b.GLUTTON_COMMIT in text and b.GLUTTON_PATH in text
    assert "A dev set since the lead's one run (resolve-14)" in text  # its misses were read after it
    assert "--share 1" in text and "_digest(doi) % SHARE == 1" in text


def test_the_shares_are_the_dev_set_and_the_test_split():
    b = _builder()
    dev, test = b.SHARES[0], b.SHARES[1]
    assert (dev.folder, dev.split, dev.prefix) == (PMC.data, PMC.split, PMC.id_prefix)
    assert (test.folder, test.split, test.prefix) == (PMC_TEST.data, PMC_TEST.split, PMC_TEST.id_prefix)
    # the dev set is built as it always was; the test split leaves out the dev set's works too
    assert dev.prior_sets == b.PRIOR_SETS
    assert test.prior_sets == (*b.PRIOR_SETS, PMC.data)


def test_every_gold_is_a_cited_seed_and_no_work_is_shared_with_the_dev_set():
    assert_gold_is_cited_seed(PMC_TEST, held_out=705)  # entries citing a held-out work
    assert_titles_printed(PMC_TEST, "pmc", seed_title_differs=300)
    # no work of the four older sets nor of the dev share (its entries' titles included)
    assert_no_work_of_the_prior_sets(PMC_TEST, "pmc", _builder().SHARES[1].prior_sets)
    fresh = builder_module("fresh")
    dev_titles = {fresh.norm(e["title"]) for e in PMC.entries()}
    assert not any(fresh.norm(s["title"]) in dev_titles for s in PMC_TEST.seeds())
    # and no raw string of the dev set is here: the shares hold different DOIs
    assert not {e["raw"] for e in PMC.entries()} & {e["raw"] for e in PMC_TEST.entries()}


def test_the_gzip_header_is_fixed():
    assert_gzip_header_fixed(PMC_TEST)


def test_the_audit_file_is_the_rule_row_plus_the_errata_each_with_a_reason():
    errata = assert_errata_reasoned(
        PMC_TEST,
        {"not_one_reference": 16, "seed_title_corrupt": 11, "cluster_merges_works": 2, "work_split": 2},
    )
    # a title whose first words are in italics lost them in the record: the string prints them
    # (the eleventh, t01235, is a footnote digit the record's title ends with, found from our
    # resolver's miss after the lead's one run)
    corrupt = {r["id"] for r in errata if r["category"] == "seed_title_corrupt" and "italics" in r["note"]}
    assert len(corrupt) == 10
    rows = {e["id"]: e for e in PMC_TEST.entries()}
    b = _builder()
    for eid in corrupt:
        at = b.title_start(rows[eid]["raw"], rows[eid]["title"])
        assert at > 0 and rows[eid]["raw"][:at].rstrip()[-1:].isalnum(), eid
    # the rule's one row: "Acute liver failure: summary of a workshop" read as a meeting's name
    assert_audit_is_rules_plus_errata(
        PMC_TEST, rules={"t01408": "venue_as_title"}, rows=32, kept=2668, kept_gold=1966
    )


def test_the_bench_scores_the_test_split_with_the_baseline_only():
    result = bench_baseline(PMC_TEST)  # checks that our resolver was not run
    assert (result["entries"], result["gold_pairs"], result["seeds"]) == (2698, 1993, 1969)
    overall = result["naive"]["overall"]
    assert (overall["tp"], overall["fp"], overall.get("fn", 0)) == (1987, 7, 6)
    audited = result["audited"]
    assert (audited["entries"], audited["left_out"], audited["regolded"]) == (2668, 30, 2)
    assert (audited["naive"]["overall"]["tp"], audited["naive"]["overall"]["fp"]) == (1960, 9)


def _scan(data, split: str) -> set[str]:
    out = subprocess.run(
        [
            *builder_command("holdout_sample"),
            "scan",
            "--data",
            str(data),
            "--split",
            split,
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    assert out.stderr.strip().endswith("entries whose shape may hide a label fault")
    return {
        line.split()[0]: line.split()[1].split(",")
        for line in out.stdout.splitlines()
        if not line.startswith(" ")
    }


def test_the_scan_finds_every_string_the_errata_leave_out_for_its_shape():
    audit = builder_module("audit")
    joined_flags = {"two_years", "long", "authors_after_title"}
    for s, flagged_count in ((PMC, 32), (PMC_TEST, 40)):
        flagged = _scan(s.data, s.split)
        errata = audit.read_errata(s.data / "errata.jsonl")
        joined = {r["id"] for r in errata if r["category"] == "not_one_reference"}
        assert joined and all(joined_flags & set(flagged[i]) for i in joined)
        assert len(flagged) == flagged_count
    # on the test split: every title whose first words the record lost, and the misaligned
    # Firestein record ("Evolving concepts of" before "Rheumatoid arthritis")
    flagged = _scan(PMC_TEST.data, PMC_TEST.split)
    errata = audit.read_errata(PMC_TEST.data / "errata.jsonl")
    corrupt = {
        r["id"] for r in errata if r["category"] == "seed_title_corrupt" and "italics" in r["note"]
    } | {"t00687"}
    assert {i for i, f in flagged.items() if "title_after_word" in f} >= corrupt
    assert len(corrupt) == 11


def test_the_scan_reads_the_shape_of_a_string():
    scan = builder_module("holdout_sample")
    two = (
        "Pirt SJ (1975) Principles of microbe and cell cultivation. John Wiley and Sons, New York "
        "Pirt SJ (1983) Maximum photosynthetic efficiency: a problem to be resolved. Biotechnol Bioeng 25"
    )
    assert scan.shape_flags(two, "Maximum photosynthetic efficiency: a problem to be resolved") == [
        "two_years"
    ]
    glued = (
        "Bohl S, Wassmuth R. Delayed enhancement imaging reveals patterns. Int J Cardiovasc Imaging. "
        "2008;24(6):597-607. 24. van der Wall EE, Siebelink HM, Bax JJ. Evaluation of hypertrophy."
    )
    assert scan.shape_flags(glued, "Delayed enhancement imaging reveals patterns") == ["authors_after_title"]
    one = (
        "Marsh, H. W. (2004). In search of golden rules: Hu and Bentler's (1999) findings. SEM, 11, 320-341."
    )
    assert scan.shape_flags(one, "In search of golden rules: Hu and Bentler's (1999) findings") == [
        "two_years"
    ]
    head = "Uemura N, Yamamoto S (2001) Helicobacter pylori infection and the development of gastric cancer. N Engl J Med"
    assert scan.shape_flags(head, "infection and the development of gastric cancer") == ["title_after_word"]
    # a name-year style prints the year right before the title: no flag
    assert scan.shape_flags("Atoda, K. 1951 The larva of the coral. Sci Rep", "The larva of the coral") == []
    assert (
        scan.shape_flags(
            "Kudo S. Pharmacokinetics of haloperidol. Clin Pharmacokinet. 1999;37:435-56.",
            "Pharmacokinetics of haloperidol",
        )
        == []
    )


@BUILDER.needs_snapshot()
def test_the_builder_gives_the_committed_test_split_bytes_again(tmp_path):
    assert_rebuild_equals_committed(PMC_TEST, BUILDER, tmp_path, ("--share", "1"))


def test_a_wrong_snapshot_is_one_clear_error_for_the_test_share(tmp_path):
    assert_wrong_snapshot_one_error(
        BUILDER,
        tmp_path,
        "builders.pmc: cannot read acda234c54b9:doc/references-doi-matching.json.gz in {dir} (git exit 128)",
        ("--share", "1"),
    )


def test_a_share_never_built_is_refused(tmp_path):
    """The file has SHARE shares and each is built (shares 1-5 are the test splits,
    tests/test_citation_pmc_test*_set.py): a share past them is refused in one line, before any
    snapshot is read."""
    out = subprocess.run(
        [*builder_command("pmc"), "--glutton", str(tmp_path), "--share", "6"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert "--share: invalid choice: 6" in out.stderr
