"""What every committed labelled set's files hold, checked on every entry of the table
tests/_labelled_set_files.py (one entry per set: LinkedBooks' fresh and its test splits, SciELO's
holdout, PLOS, PMC and its test shares).

Per set: the counts per style as its SOURCES.md reports them (the table there read from the
file), ids in (citing, raw) order, every gold a cited seed and every title printed in its
string, no work or string of a set built before it and an id letter of its own, the builder's
prior sets, the hand errata (each with a reason and naming an entry) and the audit (rules plus
errata), that bench/resolve_styles.py scores it with the naive baseline only (our resolver is
never run on a held-out set here), and that its builder gives the committed bytes again when the
snapshot is on this machine (else the test skips, naming the snapshot). The PMC shares add the
label scan and the faults of PDFs and NLM records; LinkedBooks' samples their hash residue.
"""

from __future__ import annotations

import re
import subprocess
import sys
from collections import Counter

import pytest
from _labelled_set_files import GLUTTON, LINKEDBOOKS, SETS, SetFiles
from _labelled_sets import (
    REAL,
    RESOLVE_STYLES,
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
    label_scan,
    sets_built_before,
)

# a labelled set's data checks: in the full suite (-m slow), not the fast one
pytestmark = pytest.mark.slow

# the shape flags of a string that holds more than one reference
JOINED_FLAGS = {"two_years", "long", "authors_after_title"}


def each(where=lambda f: True, marks=lambda f: ()) -> list:
    """The table's entries (those ``where`` keeps), each test named by its split."""
    return [pytest.param(f, id=f.set.split, marks=marks(f)) for f in SETS if where(f)]


def built_part(f: SetFiles):
    """The set's part of its builder (fresh.PARTS, pmc.SHARES), or None."""
    if f.part is None:
        return None
    b = builder_module(f.builder.script)
    return (b.PARTS if f.builder is LINKEDBOOKS else b.SHARES)[f.part]


def test_the_table_has_one_entry_per_set_of_its_kind():
    names = [f.set.name for f in SETS]
    assert len(set(names)) == len(names)
    assert set(names) == {p.name for p in REAL.glob("citation_*") if p.is_dir()} - {"citation_styles"}


@pytest.mark.parametrize("f", each())
def test_the_set_holds_the_counts_its_sources_file_reports(f):
    s = f.set  # every file small enough for the repository
    assert_counts(s, entries=f.entries, seeds=f.seeds, cited=f.cited, containers=f.containers)
    assert_multi_cited(s, f.multi_cited)
    seeds = s.seeds()
    assert sum(x["first_author"] is None for x in seeds) == f.no_first_author
    assert sum(not x["first_author"] for x in seeds if x["cited"]) == f.no_first_author
    assert sum(x["published"] is None for x in seeds) == f.no_published
    citing = {e["citing"] for e in s.entries()}
    assert len(citing) == f.citing_docs and all(re.fullmatch(f.citing, c) for c in citing)


@pytest.mark.parametrize("f", each())
def test_ids_follow_the_citing_and_raw_order_and_no_string_keeps_a_line_break(f):
    assert_ids_and_order(f.set)  # identical strings kept once
    # no PDF line break is left in a string (a word hyphenated across one keeps its hyphen)
    assert not any("\n" in e["raw"] for e in f.set.entries())


@pytest.mark.parametrize("f", each())
def test_the_sources_file_tables_are_the_committed_counts(f):
    text = assert_sources_table(f.set)
    b = builder_module(f.builder.script)
    # the command that scores the split with the baseline alone
    assert f"--splits {f.set.split} --corpus /nonexistent" in text
    for phrase in f.sources_md:
        assert phrase.format(b=b) in text, phrase


@pytest.mark.parametrize("f", each())
def test_the_gzip_header_is_fixed(f):
    assert_gzip_header_fixed(f.set)


@pytest.mark.parametrize("f", each())
def test_every_gold_is_a_cited_seed_and_every_title_is_printed_in_its_string(f):
    assert_gold_is_cited_seed(f.set, held_out=f.held_out)
    assert_titles_printed(f.set, seed_title_differs=f.seed_title_differs)


@pytest.mark.parametrize("f", each())
def test_no_work_or_string_of_an_earlier_set_is_in_the_set(f):
    earlier = sets_built_before(f.set)
    assert_no_work_of_the_prior_sets(f.set, earlier)
    assert_no_title_or_string_of(f.set, earlier)


@pytest.mark.parametrize("f", each())
def test_the_entry_ids_use_a_letter_no_earlier_set_uses(f):
    # no entry or seed id of an earlier set begins with it (every set's works are w..., its
    # edited volumes c...), and no seed id of its own: an id names one row of one file
    assert_own_id_letter(f.set, sets_built_before(f.set))


@pytest.mark.parametrize("f", each())
def test_the_builder_leaves_out_every_set_built_before_and_nothing_else(f):
    earlier = sets_built_before(f.set)
    part = built_part(f)
    prior = part.prior_sets if part else builder_module(f.builder.script).PRIOR_SETS
    assert len(earlier) == f.built_after and all((p / "SOURCES.md").is_file() for p in earlier)
    assert set(prior) == set(earlier) and len(prior) == len(earlier)
    if f.builder is GLUTTON:  # a share names them in the order they were built
        assert prior == earlier
    assert {REAL / name for name in f.built_after_sets} <= set(earlier)


@pytest.mark.parametrize("f", each(lambda f: f.part is not None))
def test_the_builders_part_writes_the_sets_folder_split_and_id_letter(f):
    part = built_part(f)
    assert (part.folder, part.split, part.prefix) == (f.set.data, f.set.split, f.set.id_prefix)


@pytest.mark.parametrize("f", each(lambda f: f.residue is not None))
def test_a_linkedbooks_sample_is_the_works_of_its_residue(f):
    """One work in nine of LinkedBooks' training file per sample (a salted hash of the work key,
    every string of a work together), grouped with the earlier samples' works only to leave out
    a work printed two ways across two samples."""
    fresh = builder_module("fresh")
    part = built_part(f)
    assert part.sampled and (part.residue, part.merge_with) == (f.residue, tuple(range(f.residue)))
    assert all(fresh.share_of(e["title"]) == f.residue for e in f.set.entries())


@pytest.mark.parametrize("f", each())
def test_every_erratum_has_a_reason_and_names_an_entry_of_the_set(f):
    errata = assert_errata_reasoned(f.set, f.errata)
    assert sum(r["field"] == "gold" for r in errata) == f.errata_regolded
    for word, new in f.errata_notes.items():
        assert {r["id"]: r["new"] for r in errata if word in r["note"]} == new, word


@pytest.mark.parametrize("f", each())
def test_the_audit_file_is_the_rules_rows_plus_the_errata(f):
    fired = assert_audit_is_rules_plus_errata(
        f.set, rules=f.rules, rows=f.audit_rows, kept=f.kept, kept_gold=f.kept_gold
    )
    if f.rule_counts is not None:
        assert Counter(fired.values()) == f.rule_counts
    rows = {e["id"]: e for e in f.set.entries()}
    for eid, end in f.title_ends.items():
        assert rows[eid]["title"].endswith(end), eid


@pytest.mark.parametrize("f", each())
def test_the_bench_scores_the_split_with_the_baseline_only(f):
    result = bench_baseline(f.set)  # checks the counts it read and that ours was not run
    labelled = result["naive"]["overall"]
    assert (labelled["tp"], labelled.get("fp", 0), labelled.get("fn", 0)) == f.naive
    audited = result["audited"]
    assert (audited["entries"], audited["left_out"], audited["regolded"]) == (
        f.kept,
        f.entries - f.kept,
        f.errata_regolded,
    )
    naive = audited["naive"]["overall"]
    assert (naive["tp"], naive.get("fp", 0), naive.get("fn", 0)) == f.naive_audited
    assert naive["tp"] + naive.get("fn", 0) == audited["gold_pairs"] == f.kept_gold


@pytest.mark.parametrize("f", each(marks=lambda f: f.builder.needs_snapshot()))
def test_the_builder_gives_the_committed_bytes_again(f, tmp_path):
    # Its own part or share only: each set rebuilds its own, so together they check every one;
    # each rebuilding all the parts before it made the suite's time grow with the square of the
    # number of parts.
    assert_rebuild_equals_committed(f.set, f.builder, tmp_path / f.set.split, f.rebuild_args)


@pytest.mark.parametrize("f", each())
def test_a_wrong_snapshot_is_one_clear_error(f, tmp_path):
    assert_wrong_snapshot_one_error(f.builder, tmp_path, f.wrong_snapshot, f.rebuild_args)


@pytest.mark.parametrize("f", each(lambda f: f.pdf is not None))
def test_the_scan_finds_every_string_the_errata_leave_out_for_its_shape(f):
    flagged = label_scan(f.set)
    assert len(flagged) == f.pdf.flagged
    errata = builder_module("audit").read_errata(f.set.data / "errata.jsonl")
    # each string holding several references is flagged for it, and its erratum quotes them
    joined = [r for r in errata if r["category"] == "not_one_reference"]
    assert joined and all(JOINED_FLAGS & set(flagged[r["id"]]) for r in joined)
    assert all(r["note"].startswith("GROBID joined ") for r in joined)
    after_word = {i for i, flags in flagged.items() if "title_after_word" in flags}
    assert {r["id"] for r in errata} & after_word == f.pdf.after_word
    for eid, flags in f.pdf.flags.items():
        assert flagged[eid] == flags, eid


@pytest.mark.parametrize("f", each(lambda f: f.pdf is not None))
def test_a_record_that_lost_part_of_its_title_or_names_another_work_is_told_by_the_string(f):
    errata = builder_module("audit").read_errata(f.set.data / "errata.jsonl")
    rows = {e["id"]: e for e in f.set.entries()}
    seeds = {x["arxiv_id"]: x for x in f.set.seeds()}
    title_start = builder_module("pmc").title_start
    corrupt = {r["id"] for r in errata if r["category"] == "seed_title_corrupt"}
    assert corrupt == f.pdf.title_corrupt
    # a title whose first words are in italics lost them in the record: the string prints them
    # right before the record's title
    for eid in corrupt & f.pdf.after_word:
        at = title_start(rows[eid]["raw"], rows[eid]["title"])
        assert at > 0 and rows[eid]["raw"][:at].rstrip()[-1:].isalnum(), eid
    cut = {i for i in corrupt if (t := seeds[rows[i]["gold"]]["title"]).count("(") == t.count(")") + 1}
    assert cut == f.pdf.cut_in_parenthesis
    # the record of another work: its title is printed in the string, the work is not the record's
    merged = {r["id"]: r["new"] for r in errata if r["category"] == "cluster_merges_works"}
    assert merged == dict.fromkeys(f.pdf.merged, None)
    for eid in merged:
        assert rows[eid]["title"].lower().rstrip("?") in rows[eid]["raw"].lower(), eid
    for eid, text in f.pdf.prints.items():
        assert text in rows[eid]["raw"], eid


def test_a_split_the_data_does_not_hold_is_one_clear_error():
    data, bench = REAL / "citation_fresh", [sys.executable, str(RESOLVE_STYLES)]
    out = subprocess.run(
        [*bench, "--data", str(data), "--splits", "dev", "--no-ours", "--no-naive"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert out.stderr.strip().splitlines()[-1] == f"--splits: {data} has no dev split (seeds.dev.jsonl)"
    bad = subprocess.run([*bench, "--splits", "train"], capture_output=True, text=True, timeout=120)
    assert (
        bad.returncode == 2
        and "unknown split 'train' (dev, test, fresh, holdout, plos, pmc, pmc_test, pmc_test2, fresh_test, fresh_test2, pmc_test3, fresh_test3, fresh_test4, pmc_test4, fresh_test5, pmc_test5)"
        in bad.stderr
    )
