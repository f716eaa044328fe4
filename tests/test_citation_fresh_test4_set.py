"""LinkedBooks' FOURTH TEST split (tests/data/real/citation_fresh_test4, ``fresh_test4``).

Built by ``citations/quality/builders/fresh.py --part test4`` after the third test split (fresh_test3)
was scored once and became a dev set: another ninth of the works of LinkedBooks' training file
(the same salted hash, residue 3), leaving out every work and string of every citation_* set on
main when it was made, fresh_test3 included, and every work printed two ways across this sample
and the three earlier ones. Scored once by the lead (resolve-18), a dev set since. These
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
FRESH_TEST4 = LabelledSet(
    "citation_fresh_test4",
    split="fresh_test4",
    source="linkedbooks",
    id_prefix="q",
    style_counts={
        "given_surname": (170, 118),
        "initials_first": (779, 568),
        "other": (523, 365),
        "surname_comma_given": (119, 84),
        "surname_initials": (151, 118),
        "title_first": (517, 373),
    },
)
EARLIER_SAMPLES = {
    0: LabelledSet("citation_fresh_test", split="fresh_test", source="linkedbooks", style_counts={}),
    1: LabelledSet("citation_fresh_test2", split="fresh_test2", source="linkedbooks", style_counts={}),
    2: LabelledSet("citation_fresh_test3", split="fresh_test3", source="linkedbooks", style_counts={}),
}


def test_the_split_holds_the_counts_its_sources_file_reports():
    assert_counts(FRESH_TEST4, entries=2259, seeds=1360, cited=1335, containers=25)
    assert_ids_and_order(FRESH_TEST4)
    assert_multi_cited(FRESH_TEST4, 128)
    text = assert_sources_table(FRESH_TEST4)
    assert "scored once with our resolver by the lead (resolve-18" in text
    assert "--splits fresh_test4 --corpus /nonexistent" in text
    assert_gzip_header_fixed(FRESH_TEST4)


def test_every_gold_is_a_cited_seed_and_held_out_works_have_none():
    seeds = assert_gold_is_cited_seed(FRESH_TEST4, held_out=633)
    assert sum(not x["first_author"] for x in seeds.values() if x["cited"]) == 332


def test_test4_is_the_fourth_residue_and_its_own_id_letter():
    fresh = builder_module("fresh")
    part = fresh.PARTS["test4"]
    assert (part.folder, part.split, part.prefix) == (
        FRESH_TEST4.data,
        FRESH_TEST4.split,
        FRESH_TEST4.id_prefix,
    )
    assert (part.residue, part.merge_with) == (3, (0, 1, 2))
    assert (fresh.PARTS["test3"].residue, fresh.PARTS["test3"].merge_with) == (2, (0, 1))  # test3 as it was
    assert len({p.prefix for p in fresh.PARTS.values()}) == len(fresh.PARTS)
    # no committed set uses the letter q for its entry ids
    for folder in sets_built_before(FRESH_TEST4):
        for path in folder.glob("entries.*.jsonl.gz"):
            assert not any(
                json.loads(line)["id"].startswith("q")
                for line in gzip.decompress(path.read_bytes()).splitlines()
            )
    # every entry's own work is in residue 3, none in the residues of the earlier samples
    assert all(fresh.share_of(e["title"]) == 3 for e in FRESH_TEST4.entries())
    for residue, earlier in EARLIER_SAMPLES.items():
        assert all(fresh.share_of(e["title"]) == residue for e in earlier.entries())
    assert all(e["citing"].startswith("linkedbooks:clean_train.txt#") for e in FRESH_TEST4.entries())


def test_no_work_or_string_of_an_earlier_set_is_in_the_split():
    earlier = sets_built_before(FRESH_TEST4)
    fresh = builder_module("fresh")
    assert set(earlier) == set(fresh.TEST4_PRIOR_SETS) == set(fresh.PARTS["test4"].prior_sets)
    assert REAL / "citation_fresh_test3" in earlier
    assert fresh.PARTS["test3"].prior_sets == fresh.TEST3_PRIOR_SETS  # fresh_test3 as it was
    assert_no_work_of_the_prior_sets(FRESH_TEST4, "fresh", earlier)
    seen = set().union(*(fresh.styles_titles(p) for p in earlier))
    assert not any(fresh.norm(e["title"]) in seen for e in FRESH_TEST4.entries())
    raws = set()
    for folder in earlier:
        for path in folder.glob("entries.*.jsonl.gz"):
            raws.update(json.loads(line)["raw"] for line in gzip.decompress(path.read_bytes()).splitlines())
    assert not raws & {e["raw"] for e in FRESH_TEST4.entries()}


def test_every_erratum_has_a_reason_and_names_an_entry_of_the_split():
    errata = assert_errata_reasoned(
        FRESH_TEST4,
        {
            "work_split": 60,
            "venue_as_title": 37,
            "container_as_title": 29,
            "cluster_merges_works": 27,
            "seed_title_corrupt": 15,
            "not_a_title": 1,
        },
    )
    assert len(errata) == 169
    assert sum(r["field"] == "gold" for r in errata) == 27
    # a back-reference seeded beside its full title: both seeds' entries left out
    monacis = {r["id"] for r in errata if "De Monacis" in r["note"]}
    assert monacis == {"q00188", "q00190"}
    # a full print held out beside its seeded back-reference: re-golded to that seed
    alberti = {(r["id"], r["new"]) for r in errata if "Venezia e la Russia" in r["note"]}
    assert alberti == {("q01800", "w01713"), ("q01809", "w01713")}


def test_the_audit_file_is_the_rules_rows_plus_the_errata():
    rules = assert_audit_is_rules_plus_errata(FRESH_TEST4, rules=None, rows=240, kept=2046, kept_gold=1476)
    assert len(rules) == 71


def test_the_bench_scores_the_split_with_the_baseline_only():
    result = bench_baseline(FRESH_TEST4)
    audited = result["audited"]
    assert (audited["entries"], audited["left_out"], audited["regolded"]) == (2046, 213, 27)
    labelled = result["naive"]["overall"]
    assert (labelled["tp"], labelled["fp"], labelled["fn"]) == (1555, 149, 71)
    naive = audited["naive"]["overall"]
    assert naive["tp"] + naive["fn"] == 1476
    assert (naive["tp"], naive["fp"], naive["fn"]) == (1419, 97, 57)


@BUILDER.needs_snapshot()
def test_the_builder_gives_the_committed_bytes_again(tmp_path):
    # Its own part only: every part's set test rebuilds that part (test_citation_fresh_set the
    # dev part), so together they check every part; each test rebuilding all the parts before
    # it made the suite's time grow with the square of the number of parts.
    assert_rebuild_equals_committed(FRESH_TEST4, BUILDER, tmp_path / "test4", ("--part", "test4"))


def test_a_wrong_snapshot_is_one_clear_error(tmp_path):
    assert_wrong_snapshot_one_error(
        BUILDER,
        tmp_path,
        "builders.fresh: cannot read d00ca1ff3a3b:dataset.tar.gz in {dir} (git exit 128)",
        ("--part", "test4"),
    )
