"""The SciELO builder's rules (citations/quality/builders/holdout.py): the style read from the
printed shape, a reference read as printed and as annotated. What the set it wrote holds is
checked in tests/test_labelled_set_files.py."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest
from _labelled_sets import builder_module

# moved with the set checks they sat beside, which are in the full suite (-m slow)
pytestmark = pytest.mark.slow


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
