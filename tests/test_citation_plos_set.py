"""The fourth held-out set (tests/data/real/citation_plos, PLOS articles) and the bench reading it.

The set is held out: nothing here runs our resolver on it. These tests pin what the committed
files hold (counts per style as SOURCES.md reports them, every gold a cited seed, unique ids,
the audit: hand errata, each with a reason and naming an entry), that bench/resolve_styles.py
scores it with ``--splits plos`` (the naive baseline only), the builder's rules on references as
PLOS marks them up, and, when the allofplos snapshot is on this machine, that the builder gives
the committed bytes again.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import pytest
from _labelled_sets import (
    REPO,
    Builder,
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
)

# a labelled set's data checks: in the full suite (-m slow), not the fast one
pytestmark = pytest.mark.slow

# (entries, gold pairs) per style, as SOURCES.md reports them
PLOS = LabelledSet(
    "citation_plos",
    split="plos",
    source="plos",
    id_prefix="p",
    style_counts={"name_year": (1981, 1485), "other": (99, 73), "vancouver": (489, 357)},
)
# The allofplos snapshot the set is built from (as the fetch tool leaves it); $REFLONG_PLOS_GIT
# points elsewhere. Without it the rebuild test skips; every other test reads the committed files.
BUILDER = Builder(
    "plos",
    flag="--plos",
    env="REFLONG_PLOS_GIT",
    default="/work/.mirror/PLOS+allofplos/repo",
    repo_name="PLOS/allofplos",
)


def test_the_set_holds_the_counts_its_sources_file_reports():
    assert_counts(PLOS, entries=2569, seeds=1921, cited=1903, containers=18)
    entries = PLOS.entries()
    assert len({e["citing"] for e in entries}) == 50  # MAX_ARTICLES PLOS articles
    assert all(e["citing"].startswith("plos:10.1371/journal.") for e in entries)
    assert_ids_and_order(PLOS)
    assert_multi_cited(PLOS, 12)
    # names are printed with a space between surname and initials ("Lauth MR", never "LauthMR")
    assert not any(re.match(r"^[A-Z][a-z]+[A-Z]{1,3}, ", e["raw"]) for e in entries)


def test_the_sources_file_tables_are_the_committed_counts():
    """SOURCES.md's per-style table (entries, gold pairs, left out by the audit) is read from the
    file itself, so the file and the data cannot drift apart."""
    text = assert_sources_table(PLOS)
    b = builder_module("plos")
    assert (
        b.PLOS_COMMIT in text
        and f"MAX_ARTICLES = {b.MAX_ARTICLES}"
        in (REPO / "citations" / "quality" / "builders" / "plos.py").read_text()
    )


def test_every_gold_is_a_cited_seed_and_containers_are_never_gold():
    assert_gold_is_cited_seed(PLOS, held_out=654)  # entries citing a held-out work
    # one gold entry prints the seed's title differently ("morphometry—the" for "morphometry–the")
    assert_titles_printed(PLOS, "plos", seed_title_differs=1)
    # no work of the three other sets is here
    assert_no_work_of_the_prior_sets(PLOS, "plos")


def test_the_gzip_header_is_fixed():
    assert_gzip_header_fixed(PLOS)


def test_the_audit_file_is_the_errata_each_with_a_reason():
    errata = assert_errata_reasoned(PLOS, {"not_one_reference": 2, "not_a_title": 1})
    assert all(row["old"] is True for row in errata)
    # no audit rule fires on PLOS's markup
    assert_audit_is_rules_plus_errata(PLOS, rules={}, rows=3, kept=2566, kept_gold=1912)


def test_the_bench_scores_the_plos_split_with_the_baseline_only():
    result = bench_baseline(PLOS)
    assert (result["entries"], result["gold_pairs"], result["seeds"]) == (2569, 1915, 1921)
    overall = result["naive"]["overall"]
    assert (overall["tp"], overall["fp"], overall["fn"]) == (1885, 46, 30)
    audited = result["audited"]
    assert (audited["entries"], audited["left_out"], audited["regolded"]) == (2566, 3, 0)


def test_the_style_rule_reads_the_printed_author_layout():
    b = builder_module("plos")
    assert (
        b.style_of(
            "Leung L, Klopper AV (2011) Apical migration of nuclei. Development 138",
            "Apical migration of nuclei",
        )
        == "name_year"
    )
    assert (
        b.style_of(
            "Harms E, Kivimae S. Posttranscriptional regulation. J Biol Rhythms. 2004;19",
            "Posttranscriptional regulation",
        )
        == "vancouver"
    )
    assert (
        b.style_of("Guo T., Newmark P. A., “A bruno-like gene,” Dev. Cell, vol. 11", "A bruno-like gene")
        == "other"
    )
    assert (
        b.style_of(
            "National Research Council. A Framework for K-12 Science Education. 2012",
            "A Framework for K-12 Science Education",
        )
        == "other"
    )
    # the opening quote of a quoted title does not hide the year before it
    assert (
        b.style_of(
            "Wood JP, Maly MR (2009) “Holding me back”: living with arthritis. Arch",
            "“Holding me back”: living with arthritis",
        )
        == "name_year"
    )


def test_the_converter_reads_a_plos_reference_as_printed_and_as_marked():
    b = builder_module("plos")
    mixed = ET.fromstring(
        "<mixed-citation publication-type='book'><name><surname>Rice</surname><given-names>SO</given-names>"
        "</name> (<year>1954</year>) <article-title>Mathematical analysis of random noise</article-title>. In:"
        " <name><surname>Wax</surname><given-names>N</given-names></name>, editor, <source>Selected papers on"
        " noise and stochastic processes</source>, Dover Publications, New York. pp. <fpage>133</fpage>"
        "\u2013<lpage>294</lpage>.</mixed-citation>"
    )
    assert b.raw_of(mixed) == (
        "Rice SO (1954) Mathematical analysis of random noise. In: Wax N, editor, Selected papers on noise and"
        " stochastic processes, Dover Publications, New York. pp. 133\u2013294."
    )
    fields = b.annotated(mixed)
    assert (fields["title"], fields["container"], fields["editor"], fields["surname"], fields["year"]) == (
        "Mathematical analysis of random noise",
        "Selected papers on noise and stochastic processes",
        "Wax",
        "Rice",
        1954,
    )
    # a journal reference whose journal was marked inside the article title is flagged (left out)
    glued = ET.fromstring(
        "<mixed-citation publication-type='journal'><name><surname>Fogel</surname></name> (<year>2006</year>)"
        " <article-title>A dynamic mechanism. Genes Dev</article-title>. <volume>20</volume></mixed-citation>"
    )
    assert b.annotated(glued)["journal_unmarked"]
    # a book names its work by its source; an institution as author gives no surname
    book = ET.fromstring(
        "<mixed-citation publication-type='book'><collab>WHO</collab>. <source>Report on the Global Tobacco"
        " Epidemic</source>. Geneva; <year>2008</year>.</mixed-citation>"
    )
    fields = b.annotated(book)
    assert (fields["title"], fields["surname"], fields["container"]) == (
        "Report on the Global Tobacco Epidemic",
        "",
        "",
    )
    assert b.licence_kind("http://creativecommons.org/licenses/by/4.0", "") == "CC BY 4.0"
    assert (
        b.licence_kind("", "... under the terms of the Creative Commons Attribution License, ...")
        == "CC BY (no version)"
    )
    assert b.licence_kind("http://creativecommons.org/publicdomain/zero/1.0", "") == "CC0 / public domain"
    assert b.licence_kind("http://creativecommons.org/licenses/by-nd/4.0", "") is None


@BUILDER.needs_snapshot()
def test_the_builder_gives_the_committed_bytes_again(tmp_path):
    assert_rebuild_equals_committed(PLOS, BUILDER, tmp_path)


def test_a_wrong_snapshot_is_one_clear_error(tmp_path):
    assert_wrong_snapshot_one_error(
        BUILDER, tmp_path, "builders.plos: cannot read 07fdeed848b2 in {dir} (git exit 128)"
    )
