"""LinkedBooks' held-out TEST split (tests/data/real/citation_fresh_test, split ``fresh_test``).

Built by ``citations/quality/builders/fresh.py --part test`` from LinkedBooks' training file, which no
earlier set read: one work in nine (a hash of the work key, every string of a work together),
leaving out every work and string of every earlier set, so it measures the humanities style held
out. These tests pin what it holds (counts per style as its SOURCES.md reports them, every gold a
cited seed, the audit: rules plus hand errata, each with a reason), that it shares no work or
string with the earlier sets, that the naive baseline alone scores it (our resolver is never run
on it here), and, when the snapshot is on this machine, that the builder gives the committed bytes
again for this split (test_citation_fresh_set rebuilds the ``fresh`` dev set).
"""

from __future__ import annotations

import gzip
import json
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
    assert_wrong_snapshot_one_error,
    bench_baseline,
    builder_command,
    builder_module,
    sets_built_before,
)
from test_citation_fresh_set import BUILDER

# a labelled set's data checks: in the full suite (-m slow), not the fast one
pytestmark = pytest.mark.slow

# (entries, gold pairs) per style, as SOURCES.md reports them
FRESH_TEST = LabelledSet(
    "citation_fresh_test",
    split="fresh_test",
    source="linkedbooks",
    id_prefix="k",
    style_counts={
        "given_surname": (160, 127),
        "initials_first": (759, 542),
        "other": (424, 328),
        "surname_comma_given": (85, 70),
        "surname_initials": (169, 122),
        "title_first": (520, 400),
    },
)


def test_the_split_holds_the_counts_its_sources_file_reports():
    assert_counts(FRESH_TEST, entries=2117, seeds=1336, cited=1316, containers=20)
    assert_ids_and_order(FRESH_TEST)
    assert_multi_cited(FRESH_TEST, 125)
    assert_sources_table(FRESH_TEST)
    assert_gzip_header_fixed(FRESH_TEST)


def test_every_gold_is_a_cited_seed_and_held_out_works_have_none():
    assert_gold_is_cited_seed(FRESH_TEST, held_out=528)


def test_no_work_or_string_of_an_earlier_set_is_in_the_split():
    earlier = sets_built_before(FRESH_TEST)
    assert set(earlier) == set(builder_module("fresh").TEST_PRIOR_SETS)
    assert_no_work_of_the_prior_sets(FRESH_TEST, "fresh", earlier)
    fresh = builder_module("fresh")
    seen = set().union(*(fresh.styles_titles(p) for p in earlier))
    assert not any(fresh.norm(e["title"]) in seen for e in FRESH_TEST.entries())
    raws = set()
    for folder in earlier:
        for path in folder.glob("entries.*.jsonl.gz"):
            raws.update(json.loads(line)["raw"] for line in gzip.decompress(path.read_bytes()).splitlines())
    assert not raws & {e["raw"] for e in FRESH_TEST.entries()}


def test_the_sample_takes_whole_works_one_in_nine():
    fresh = builder_module("fresh")
    assert fresh.TEST_SHARE == 9
    # every entry's own title is in the sample (all strings of a work go together)
    assert all(fresh.in_test_share(e["title"]) for e in FRESH_TEST.entries())
    # the citing blocks are places in the training file
    assert all(e["citing"].startswith("linkedbooks:clean_train.txt#") for e in FRESH_TEST.entries())


def test_every_erratum_has_a_reason_and_names_an_entry_of_the_split():
    errata = assert_errata_reasoned(
        FRESH_TEST,
        {
            "work_split": 36,  # 1 re-golded from resolve-16's accept, 2 from resolve-19's
            "seed_title_corrupt": 23,  # 17 read from resolve-16's misses
            "venue_as_title": 6,
            "cluster_merges_works": 5,
            "not_a_title": 6,  # 3 read from resolve-16's misses
            "container_as_title": 1,
        },
    )
    assert len(errata) == 77


def test_the_audit_file_is_the_rules_rows_plus_the_errata():
    rules = assert_audit_is_rules_plus_errata(FRESH_TEST, rules=None, rows=138, kept=1985, kept_gold=1474)
    assert len(rules) == 61


def test_the_bench_scores_the_split_with_the_baseline_only():
    result = bench_baseline(FRESH_TEST)
    audited = result["audited"]
    assert (audited["entries"], audited["left_out"], audited["regolded"]) == (1985, 132, 6)
    naive = audited["naive"]["overall"]
    assert naive["tp"] + naive["fn"] == 1474
    assert (naive["tp"], naive["fp"], naive["fn"]) == (1412, 103, 62)


def test_an_author_field_of_punctuation_alone_is_title_first():
    b = builder_module("fresh")
    T = b.Token
    assert b.style_of([T(",", "author"), T("Romanus", "title"), T("bilinguis", "title")]) == "title_first"


@BUILDER.needs_snapshot()
def test_the_builder_gives_the_committed_bytes_again(tmp_path):
    # Its own part only: every part's set test rebuilds that part (test_citation_fresh_set the
    # dev part), so together they check every part; each test rebuilding all the parts before
    # it made the suite's time grow with the square of the number of parts.
    assert_rebuild_equals_committed(FRESH_TEST, BUILDER, tmp_path / "test", ("--part", "test"))


def test_a_wrong_snapshot_is_one_clear_error(tmp_path):
    assert_wrong_snapshot_one_error(
        BUILDER,
        tmp_path,
        "builders.fresh: cannot read d00ca1ff3a3b:dataset.tar.gz in {dir} (git exit 128)",
        ("--part", "test"),
    )


def test_an_unknown_part_is_refused_by_the_command_line(tmp_path):
    out = subprocess.run(
        [
            *builder_command("fresh"),
            "--linkedbooks",
            str(tmp_path),
            "--part",
            "x",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 2 and "Traceback" not in out.stderr and "invalid choice: 'x'" in out.stderr
