"""The PLOS builder's rules (citations/quality/builders/plos.py): the style read from the printed
author layout, a reference read as printed and as marked up, the articles it takes. What the set
it wrote holds is checked in tests/test_labelled_set_files.py."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import pytest
from _labelled_set_files import SETS
from _labelled_sets import builder_module

# moved with the set checks they sat beside, which are in the full suite (-m slow)
pytestmark = pytest.mark.slow


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


def test_the_set_takes_max_articles_articles_and_prints_a_space_before_initials():
    b = builder_module("plos")
    entries = next(f.set for f in SETS if f.set.split == "plos").entries()
    assert len({e["citing"] for e in entries}) == b.MAX_ARTICLES
    # names are printed with a space between surname and initials ("Lauth MR", never "LauthMR")
    assert not any(re.match(r"^[A-Z][a-z]+[A-Z]{1,3}, ", e["raw"]) for e in entries)
