"""The third held-out set (tests/data/real/citation_holdout, SciELO) and the bench reading it.

The set is held out: nothing here runs our resolver on it. These tests pin what the committed
files hold (counts per style as SOURCES.md reports them, every gold a cited seed, unique ids,
the audit: rules plus hand errata, each with a reason and naming an entry), that
bench/resolve_styles.py scores it with ``--splits holdout`` (the naive baseline only), the
builder's rules on strings as SciELO prints them, and, when the packtools snapshot is on this
machine, that the builder gives the committed bytes again.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest
from _labelled_sets import (
    Builder,
    LabelledSet,
    assert_audit_is_rules_plus_errata,
    assert_counts,
    assert_errata_reasoned,
    assert_gold_is_cited_seed,
    assert_gzip_header_fixed,
    assert_ids_and_order,
    assert_multi_cited,
    assert_rebuild_equals_committed,
    assert_sources_table,
    assert_titles_printed,
    assert_wrong_snapshot_one_error,
    bench_baseline,
    builder_module,
)

# a labelled set's data checks: in the full suite (-m slow), not the fast one
pytestmark = pytest.mark.slow

# (entries, gold pairs) per style, as SOURCES.md reports them
HOLDOUT = LabelledSet(
    "citation_holdout",
    split="holdout",
    source="scielo",
    id_prefix="h",
    style_counts={
        "abnt": (383, 280),
        "apa": (231, 154),
        "name_year": (399, 302),
        "other": (344, 256),
        "vancouver": (793, 590),
    },
)
# The packtools snapshot the set is built from (as the fetch tool leaves it); $REFLONG_SCIELO_GIT
# points elsewhere. Without it the rebuild test skips; every other test reads the committed files.
BUILDER = Builder(
    "holdout",
    flag="--scielo",
    env="REFLONG_SCIELO_GIT",
    default="/work/.mirror/scieloorg+packtools/repo",
    repo_name="scieloorg/packtools",
)


def test_the_set_holds_the_counts_its_sources_file_reports():
    assert_counts(HOLDOUT, entries=2150, seeds=1604, cited=1560, containers=44)
    assert len({e["citing"] for e in HOLDOUT.entries()}) == 74  # one citing document per SciELO article
    # ids numbered in (citing, raw) order, identical strings kept once
    assert_ids_and_order(HOLDOUT)
    # works cited by more than one entry (printed by several articles or in several forms)
    assert_multi_cited(HOLDOUT, 19)


def test_the_sources_file_tables_are_the_committed_counts():
    """SOURCES.md's per-style table (entries, gold pairs, left out by the audit) and its naive
    figures are read from the file itself, so the file and the data cannot drift apart."""
    assert_sources_table(HOLDOUT)


def test_every_gold_is_a_cited_seed_and_containers_are_never_gold():
    assert_gold_is_cited_seed(HOLDOUT, held_out=568)  # entries citing a held-out work
    # gold entries whose string prints the seed's title differently (a typo, glue, a subtitle);
    # the labelled title of each entry is printed in its string (the source annotates the
    # mixed-citation it stands beside)
    assert_titles_printed(HOLDOUT, "holdout", seed_title_differs=16)


def test_the_gzip_header_is_fixed():
    assert_gzip_header_fixed(HOLDOUT)


def test_every_erratum_has_a_reason_and_names_an_entry_of_the_set():
    assert_errata_reasoned(
        HOLDOUT, {"not_a_title": 11, "seed_title_corrupt": 2, "venue_as_title": 1, "work_split": 2}
    )


def test_the_audit_file_is_the_rules_rows_plus_the_errata():
    # a workshop's web page, annotated as the title
    assert_audit_is_rules_plus_errata(
        HOLDOUT, rules={"h01979": "venue_as_title"}, rows=17, kept=2137, kept_gold=1574
    )


def test_the_bench_scores_the_holdout_split_with_the_baseline_only():
    result = bench_baseline(HOLDOUT)
    assert (result["entries"], result["gold_pairs"], result["seeds"]) == (2150, 1582, 1604)
    overall = result["naive"]["overall"]
    assert overall["tp"] + overall["fn"] == 1582
    assert (overall["tp"], overall["fp"], overall["fn"]) == (1524, 88, 58)
    audited = result["audited"]
    assert (audited["entries"], audited["left_out"], audited["regolded"]) == (2137, 13, 4)
    assert audited["naive"]["overall"]["tp"] + audited["naive"]["overall"]["fn"] == 1574


def test_the_style_rule_reads_the_printed_shape():
    b = builder_module("holdout")
    assert (
        b.style_of(
            "Mendes, L. (2017). Gentrificação turística em Lisboa. Cadernos",
            "Gentrificação turística em Lisboa",
        )
        == "apa"
    )
    assert (
        b.style_of(
            "AKSOY, S., 2003. Control of tsetse flies. Veterinary Parasitology", "Control of tsetse flies"
        )
        == "name_year"
    )
    assert (
        b.style_of(
            "Brand-Williams, W. & Berset, C. 1995. Use of a free radical method. LWT",
            "Use of a free radical method",
        )
        == "name_year"
    )
    assert (
        b.style_of(
            "Abreu MGL, Germano F. Impact of oral health. Glob Pediatr Health", "Impact of oral health"
        )
        == "vancouver"
    )
    assert (
        b.style_of("SEARLE, J. R. Expression and Meaning. New York: Cambridge", "Expression and Meaning")
        == "abnt"
    )
    assert (
        b.style_of("Bufrem, L. S. Perspectivas da pesquisa. In: Guimarães", "Perspectivas da pesquisa")
        == "other"
    )


def test_the_converter_reads_a_scielo_reference_as_printed_and_as_annotated():
    b = builder_module("holdout")
    ref = ET.fromstring(
        "<ref><label>5</label><mixed-citation>5. BAKHTIN, M. Os gêneros do discurso. <italic>In:</italic>"
        " BAKHTIN, M. <italic>Os gêneros do discurso</italic> Trad. Paulo Bezerra. São Paulo: Editora 34,"
        "\n 2016. p.11-107.</mixed-citation><element-citation publication-type='book'><person-group"
        " person-group-type='author'><name><surname>BAKHTIN</surname><given-names>M.</given-names></name>"
        "</person-group><chapter-title>Os gêneros do discurso</chapter-title><person-group"
        " person-group-type='editor'><name><surname>BAKHTIN</surname></name></person-group>"
        "<source>In: Os gêneros do discurso</source><year>2016</year></element-citation></ref>"
    )
    assert b.raw_of(ref.find("mixed-citation")) == (
        "BAKHTIN, M. Os gêneros do discurso. In: BAKHTIN, M. Os gêneros do discurso Trad. Paulo Bezerra."
        " São Paulo: Editora 34, 2016. p.11-107."
    )
    fields = b.annotated(ref.find("element-citation"))
    assert (fields["title"], fields["container"], fields["editor"], fields["surname"], fields["year"]) == (
        "Os gêneros do discurso",
        "Os gêneros do discurso",
        "BAKHTIN",
        "BAKHTIN",
        2016,
    )
    # a journal reference printed without its article's title names no work
    journal = ET.fromstring(
        "<element-citation publication-type='journal'><source>Cerâm. Ind.</source><year>2018</year>"
        "</element-citation>"
    )
    assert b.annotated(journal)["title"] == ""
    # HTML entities a file uses without its DTD are read as their characters
    root = b._parse(b"<article><p>a&nbsp;b &amp; c</p></article>")
    assert root.find("p").text == "a\u00a0b & c"
    assert b.redistributable("http://creativecommons.org/licenses/by-nc/4.0")
    assert not b.redistributable("http://creativecommons.org/licenses/by-nc-nd/4.0")
    assert not b.redistributable(None)


@BUILDER.needs_snapshot()
def test_the_builder_gives_the_committed_bytes_again(tmp_path):
    assert_rebuild_equals_committed(HOLDOUT, BUILDER, tmp_path)


def test_a_wrong_snapshot_is_one_clear_error(tmp_path):
    assert_wrong_snapshot_one_error(
        BUILDER, tmp_path, "builders.holdout: cannot read fe1ada8cd7cc in {dir} (git exit 128)"
    )
