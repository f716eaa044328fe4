"""LinkedBooks' FIFTH TEST split (tests/data/real/citation_fresh_test5, ``fresh_test5``).

Built by ``citations/quality/builders/fresh.py --part test5`` after the fourth test split (fresh_test4)
was scored once and became a dev set: another ninth of the works of LinkedBooks' training file
(the same salted hash, residue 4), leaving out every work and string of every citation_* set on
merge30 when it was made, fresh_test4 and pmc_test4 included, and every work printed two ways
across this sample and the four earlier ones. Scored once by the lead (resolve-19), a dev set since. These
tests pin what it holds (counts per style as its SOURCES.md reports them, every gold a cited
seed, the audit: rules plus hand errata, each with a reason), that it shares no work or string
with the earlier sets, that the naive baseline alone scores it (our resolver is never run on it
here), and, when the snapshot is on this machine, that the builder gives the committed bytes
again for this split (each earlier part's own test rebuilds it).
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
FRESH_TEST5 = LabelledSet(
    "citation_fresh_test5",
    split="fresh_test5",
    source="linkedbooks",
    id_prefix="r",
    style_counts={
        "given_surname": (177, 123),
        "initials_first": (743, 555),
        "other": (353, 277),
        "surname_comma_given": (97, 77),
        "surname_initials": (152, 125),
        "title_first": (537, 420),
    },
)
EARLIER_SAMPLES = {
    0: LabelledSet("citation_fresh_test", split="fresh_test", source="linkedbooks", style_counts={}),
    1: LabelledSet("citation_fresh_test2", split="fresh_test2", source="linkedbooks", style_counts={}),
    2: LabelledSet("citation_fresh_test3", split="fresh_test3", source="linkedbooks", style_counts={}),
    3: LabelledSet("citation_fresh_test4", split="fresh_test4", source="linkedbooks", style_counts={}),
}


def test_the_split_holds_the_counts_its_sources_file_reports():
    assert_counts(FRESH_TEST5, entries=2059, seeds=1373, cited=1351, containers=22)
    assert_ids_and_order(FRESH_TEST5)
    assert_multi_cited(FRESH_TEST5, 112)
    text = assert_sources_table(FRESH_TEST5)
    assert "scored once with our resolver by the lead (resolve-19" in text
    assert "--splits fresh_test5 --corpus /nonexistent" in text
    assert_gzip_header_fixed(FRESH_TEST5)


def test_every_gold_is_a_cited_seed_and_held_out_works_have_none():
    seeds = assert_gold_is_cited_seed(FRESH_TEST5, held_out=482)
    assert sum(not x["first_author"] for x in seeds.values() if x["cited"]) == 387


def test_test5_is_the_fifth_residue_and_its_own_id_letter():
    fresh = builder_module("fresh")
    part = fresh.PARTS["test5"]
    assert (part.folder, part.split, part.prefix) == (
        FRESH_TEST5.data,
        FRESH_TEST5.split,
        FRESH_TEST5.id_prefix,
    )
    assert (part.residue, part.merge_with) == (4, (0, 1, 2, 3))
    test4 = fresh.PARTS["test4"]
    assert (test4.residue, test4.merge_with) == (3, (0, 1, 2))  # test4 as it was
    assert len({p.prefix for p in fresh.PARTS.values()}) == len(fresh.PARTS)
    # no committed set uses the letter r for its entry ids or its seed ids
    for folder in sets_built_before(FRESH_TEST5):
        for path in folder.glob("entries.*.jsonl.gz"):
            assert not any(
                json.loads(line)["id"].startswith("r")
                for line in gzip.decompress(path.read_bytes()).splitlines()
            )
        for path in folder.glob("seeds.*.jsonl"):
            assert not any(
                json.loads(line)["arxiv_id"].startswith("r")
                for line in path.read_text(encoding="utf-8").splitlines()
            )
    # every entry's own work is in residue 4, none in the residues of the earlier samples
    assert all(fresh.share_of(e["title"]) == 4 for e in FRESH_TEST5.entries())
    for residue, earlier in EARLIER_SAMPLES.items():
        assert all(fresh.share_of(e["title"]) == residue for e in earlier.entries())
    assert all(e["citing"].startswith("linkedbooks:clean_train.txt#") for e in FRESH_TEST5.entries())


def test_no_work_or_string_of_an_earlier_set_is_in_the_split():
    earlier = sets_built_before(FRESH_TEST5)
    fresh = builder_module("fresh")
    assert set(earlier) == set(fresh.TEST5_PRIOR_SETS) == set(fresh.PARTS["test5"].prior_sets)
    assert REAL / "citation_fresh_test4" in earlier and REAL / "citation_pmc_test4" in earlier
    assert fresh.PARTS["test4"].prior_sets == fresh.TEST4_PRIOR_SETS  # fresh_test4 as it was
    assert_no_work_of_the_prior_sets(FRESH_TEST5, "fresh", earlier)
    seen = set().union(*(fresh.styles_titles(p) for p in earlier))
    assert not any(fresh.norm(e["title"]) in seen for e in FRESH_TEST5.entries())
    raws = set()
    for folder in earlier:
        for path in folder.glob("entries.*.jsonl.gz"):
            raws.update(json.loads(line)["raw"] for line in gzip.decompress(path.read_bytes()).splitlines())
    assert not raws & {e["raw"] for e in FRESH_TEST5.entries()}


def test_every_erratum_has_a_reason_and_names_an_entry_of_the_split():
    errata = assert_errata_reasoned(
        FRESH_TEST5,
        {
            "work_split": 53,
            "venue_as_title": 24,
            "seed_title_corrupt": 19,
            "cluster_merges_works": 13,
            "not_a_title": 13,
            "container_as_title": 4,
        },
    )
    assert len(errata) == 126
    assert sum(r["field"] == "gold" for r in errata) == 7
    # back-references seeded beside their full title, and some held out: every one left out
    bassignano = {r["id"] for r in errata if "Bassignano" in r["note"]}
    assert len(bassignano) == 9 and all(r["field"] == "scored" for r in errata if r["id"] in bassignano)
    # a full print held out beside its seeded back-reference: re-golded to that seed
    simeoni = {(r["id"], r["new"]) for r in errata if "Simeoni" in r["note"]}
    assert simeoni == {("r00302", "w00939")}


def test_the_audit_file_is_the_rules_rows_plus_the_errata():
    rules = assert_audit_is_rules_plus_errata(FRESH_TEST5, rules=None, rows=182, kept=1884, kept_gold=1436)
    assert len(rules) == 56


def test_the_bench_scores_the_split_with_the_baseline_only():
    result = bench_baseline(FRESH_TEST5)
    audited = result["audited"]
    assert (audited["entries"], audited["left_out"], audited["regolded"]) == (1884, 175, 7)
    labelled = result["naive"]["overall"]
    assert (labelled["tp"], labelled["fp"], labelled["fn"]) == (1474, 174, 103)
    naive = audited["naive"]["overall"]
    assert naive["tp"] + naive["fn"] == 1436
    assert (naive["tp"], naive["fp"], naive["fn"]) == (1351, 141, 85)


@BUILDER.needs_snapshot()
def test_the_builder_gives_the_committed_bytes_again(tmp_path):
    # Its own part only: every part's set test rebuilds that part (test_citation_fresh_set the
    # dev part), so together they check every part; each test rebuilding all the parts before
    # it made the suite's time grow with the square of the number of parts.
    assert_rebuild_equals_committed(FRESH_TEST5, BUILDER, tmp_path / "test5", ("--part", "test5"))


def test_a_wrong_snapshot_is_one_clear_error(tmp_path):
    assert_wrong_snapshot_one_error(
        BUILDER,
        tmp_path,
        "builders.fresh: cannot read d00ca1ff3a3b:dataset.tar.gz in {dir} (git exit 128)",
        ("--part", "test5"),
    )
