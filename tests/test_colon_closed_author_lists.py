"""resolve-14: the PMC dev set's misses (issue 19: recall >= 0.99 per style, precision kept).

Each case is a real reference string of tests/data/real/citation_pmc (PDF-extracted references of
PMC papers, BioMed Central's "Surname AB, Surname CD: Title. Journal Year, Vol:Pages." among them)
with the real seed of that set, and each rule is checked on a case it must NOT accept: a single
name before a colon (a title's head), a title that goes on after the seed's words, another name
in the place of the seed's name prefix, the last word changed by a citer with another year.
The parse fix is also counted on every dev set: parsed titles equal to the gold title must not
fall anywhere.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from _labelled_sets import parsed_titles_equal_to_gold

from reflong.citations.evidence.colon_authors import NOTE as COLON_NOTE
from reflong.citations.evidence.colon_authors import list_end
from reflong.citations.fields.entry_parse import parse_entry
from reflong.citations.fields.normalize import cased_words, words_with_boundaries
from reflong.citations.resolve import SeedIndex, SeedTitle, Thresholds

REPO = Path(__file__).resolve().parents[1]
REAL = REPO / "tests" / "data" / "real"


def _best(seed: SeedTitle, ref: str):
    matches = SeedIndex([seed], Thresholds()).resolve(ref)
    assert matches, f"no edge at all for {ref!r}"
    return matches[0]


# --- 1. an author list closed by a colon: the parse ----------------------------------------------

BMC_PARSES = [
    (
        "Ellis RJ, van der Vies SM: Molecular chaperones. Annu Rev Biochem 1991, 60:321-347.",
        "Molecular chaperones",
        ["ellis", "vies"],
    ),
    (
        "McCallister JW, Adkins EJ, O'Brien JM Jr: Obesity and acute lung injury. Clin Chest Med 2009, "
        "30:495-508, viii.",
        "Obesity and acute lung injury",
        ["mccallister", "adkins", "o'brien"],
    ),
    (
        "Ostertag EM, Kazazian HH Jr: Biology of mammalian L1 retrotransposons. Annu Rev Genet 2001, "
        "35:501-538.",
        "Biology of mammalian L1 retrotransposons",
        ["ostertag", "kazazian"],
    ),
    (
        "Hughes IA, Northstone K, Golding J, ALSPAC Study Team: Reduced birth weight in boys with "
        "hypospadias: an index of androgen dysfunction? Arch Dis Child Fetal Neonatal Ed 2002, 87:150-151.",
        "Reduced birth weight in boys with hypospadias: an index of androgen dysfunction?",
        ["hughes", "northstone", "golding"],
    ),
]


@pytest.mark.parametrize(("raw", "title", "authors"), BMC_PARSES)
def test_an_author_list_closed_by_a_colon_ends_before_the_title(raw, title, authors):
    # resolve-13's parse took the journal for the title ("Annu Rev Biochem", "Clin Chest Med").
    parsed = parse_entry(raw)
    assert parsed.title == title
    assert parsed.authors == authors


@pytest.mark.parametrize(
    ("raw", "end"),
    [
        ("12. Ellis RJ, van der Vies SM: Molecular chaperones.", "SM"),
        ("Jang HH, Lee KO, Yun JW, et al: Two enzymes in one.", "al"),
        ("Berlin CM Jr, et al: Hepatic granulomata.", "al"),
        # One name alone ("Hepatitis A:" prints like "Hamza A:") is left to the readers that need
        # the seed's surname; prose before a comma is no name; a colon inside a title is no end.
        ("Hepatitis A: epidemiology and prevention.", None),
        ("Cancer in Europe, Asia: a review.", None),
        ("Smith AB, Jones CD. CMMLU: Measuring massive multitask language understanding.", None),
    ],
)
def test_the_author_list_closed_by_a_colon_is_read_from_the_entrys_start(raw, end):
    words, bounds = words_with_boundaries(raw)
    cased, colons = cased_words(raw, words)
    at = list_end(cased, bounds, colons)
    assert (cased[at] if at is not None else None) == end


@pytest.mark.parametrize(
    ("folder", "split", "resolve_13", "resolve_14"),
    [
        ("citation_pmc", "pmc", 2192, 2260),
        ("citation_styles", "dev", 3868, 3874),
        ("citation_fresh", "fresh", 665, 665),
        ("citation_holdout", "holdout", 1638, 1638),
        ("citation_plos", "plos", 2183, 2183),
    ],
)
def test_parsed_titles_equal_to_the_gold_title_gain_and_fall_nowhere(folder, split, resolve_13, resolve_14):
    # Counted with resolve-13's parser before the change (the first figure): every set holds or gains
    # (resolve-15's parser gains more on pmc: tests/test_venue_like_titles_after_author_lists.py pins its figures).
    assert parsed_titles_equal_to_gold(folder, split) >= resolve_14 >= resolve_13


# --- 2. the colon as a field boundary: authorless seeds of the PMC set --------------------------

AUTHORLESS = [
    (
        SeedTitle("w01599", "Occupational injuries in Bahrain", "1995-01-01"),
        "Al-Arrayed A, Hamza A: Occupational injuries in Bahrain. Occupational Medicine 1995, 45(1):231-233.",
        "'Hamza A:'",
    ),
    (
        SeedTitle("w00667", "Developing pharmacological therapies for Alzheimer disease", "2007-01-01"),
        "Iqbal K, Grundke-Iqbal I: Developing pharmacological therapies for Alzheimer disease. Cell Mol Life "
        "Sci 2007, 64:2234-2244.",
        "'Grundke-Iqbal I:'",
    ),
    (
        SeedTitle("w01627", "Oral vaccination: where we are?", "2007-01-01"),
        "Silin DS, Lyubomska OV, Jirathitikal V, Bourinbaiar AS: Oral vaccination: where we are? Expert "
        "Opin Drug Deliv 2007, 4:323-340.",
        "'Bourinbaiar AS:'",
    ),
    (
        SeedTitle("w00749", "Do we know what works, and if not why not?", "2008-01-01"),
        "Killackey E, Jorm A, Alvarez-Jimenez M, McCann TV, Hides L, Couineau A: Do we know what works, and "
        "if not why not?. ANZJP 2008, 42:439-444.",
        "'Couineau A:'",
    ),
    (
        SeedTitle("w01061", "Growth in very preterm children: a longitudinal study", "2003-01-01"),
        "Niklasson A, Engstrom E, Hard AL, Wikland KA, Hellstrom A: Growth in very preterm children: a "
        "longitudinal study. Pediatr Res 2003, 54(6):899-905.",
        "'Hellstrom A:'",
    ),
    (
        SeedTitle("w00946", "Fanciful FRET", "2006-01-01"),
        "Vogel SS, Thaler C, Koushik SV: Fanciful FRET. Sci STKE 2006, 2006:re2.",
        "the short title printed verbatim as a field of its own and the seed's year 2006 printed",
    ),
    (
        SeedTitle("w01472", "Molecular chaperones", "1991-01-01"),
        "Ellis RJ, van der Vies SM: Molecular chaperones. Annu Rev Biochem 1991, 60:321-347.",
        "the short title printed verbatim as a field of its own and the seed's year 1991 printed",
    ),
]


@pytest.mark.parametrize(("seed", "raw", "evidence"), AUTHORLESS)
def test_a_title_after_an_author_list_closed_by_a_colon_is_its_own_field(seed, raw, evidence):
    # resolve-13 scored the field "hamza a occupational injuries in bahrain" (88.9): review.
    m = _best(seed, raw)
    assert (m.band, m.title_score) == ("accept", 100.0), m.reason
    assert COLON_NOTE in m.reason and evidence in m.reason


def test_a_title_that_goes_on_after_the_seeds_words_stays_out_of_accept():
    seed = SeedTitle("w01599", "Occupational injuries in Bahrain", "1995-01-01")
    m = _best(
        seed, "Al-Arrayed A, Hamza A: Occupational injuries in Bahrain and Kuwait. Occup Med 1995, 45:231."
    )
    assert m.band != "accept", m.reason


def test_a_short_title_without_the_seeds_year_stays_out_of_accept():
    seed = SeedTitle("w01472", "Molecular chaperones", "1991-01-01")
    m = _best(seed, "Ellis RJ, van der Vies SM: Molecular chaperones. Annu Rev Biochem 1999, 60:321-347.")
    assert m.band != "accept", m.reason


def test_a_titles_head_before_a_colon_still_joins_the_title():
    # "CMMLU: Measuring ..." is no author list: the seed inside the longer title keeps a low score.
    seed = SeedTitle(
        "2009.03300", "Measuring massive multitask language understanding", "2020-09-07", "Hendrycks"
    )
    m = _best(
        seed,
        "H. Li, Y. Zhang. CMMLU: Measuring massive multitask language understanding in Chinese. arXiv 2023.",
    )
    assert m.band != "accept", m.reason
    assert COLON_NOTE not in m.reason


# --- 3. a seed's name prefix left out by the citer ------------------------------------------------

DS14 = SeedTitle(
    "w00755",
    "DS14: standard assessment of negative affectivity, social inhibition, and Type D personality",
    "2005-01-01",
    "Denollet",
)
DENOLLET = (
    "Denollet, J. ({year}). {name}Standard assessment of negative affectivity, social inhibition, and type D "
    "personality. Psychosomatic Medicine, 67, 89-97."
)


def test_the_seeds_name_prefix_left_out_is_no_version_number():
    # resolve-13: "sequel/version number differs (ds14)", a reject.
    m = _best(DS14, DENOLLET.format(year=2005, name=""))
    assert m.band == "accept", m.reason
    assert "the seed's name prefix 'DS14:' left out by the reference; first author and year agree" in m.reason


def test_the_name_prefix_left_out_without_author_or_year_goes_to_review():
    other = _best(DS14, DENOLLET.format(year=2005, name="").replace("Denollet, J.", "Smith, J."))
    later = _best(DS14, DENOLLET.format(year=2012, name=""))
    assert (other.band, later.band) == ("review", "review"), (other.reason, later.reason)
    assert "without the seed's first author and year" in later.reason


def test_another_name_in_the_prefixs_place_is_another_work():
    m = _best(DS14, DENOLLET.format(year=2005, name="DS16: "))
    assert m.band == "reject" and "sequel/version number differs (ds14, ds16)" in m.reason


def test_the_name_printed_without_its_number_is_still_a_sequel():
    # The seed's name "FlashAttention-2" left out would pass the rule; its letters printed say the
    # citer names the first work (tests/test_resolve.py holds the NimFlow cases beside it).
    seed = SeedTitle(
        "2307.08691", "FlashAttention-2: Faster attention with better parallelism", "2023-07-17", "Dao"
    )
    m = _best(seed, "T. Dao. FlashAttention: Faster attention with better parallelism. arXiv, 2023.")
    assert m.band == "reject", m.reason
    assert "left out by the reference" not in m.reason


# --- 4. the last content word changed ---------------------------------------------------------------

SLUDGE = SeedTitle("w00146", "Anaerobic degradation of nonylphenol in sludge", "2005-01-01", "Chang")


def test_a_changed_last_word_keeps_a_near_title_out_of_accept():
    # resolve-13 accepted this at 93.3: the same first author's study of soil, two years later.
    m = _best(
        SLUDGE,
        "Chang BV, Chiang BW, Yuan SY (2007) Anaerobic degra-dation of nonylphenol in soil. J Environ Sci "
        "Health Part B 42:387-392",
    )
    assert m.band == "review", m.reason
    assert "'soil' printed where the seed title ends in 'sludge'" in m.reason


def test_a_typo_in_the_last_word_is_no_other_study():
    m = _best(
        SLUDGE,
        "Chang BV, Chiang BW, Yuan SY (2005) Anaerobic degradation of nonylphenol in sludges. J Environ Sci 42:387",
    )
    assert m.band == "accept", m.reason
    assert "printed where the seed title ends in" not in m.reason


def test_a_misquoted_last_word_with_first_author_and_year_is_the_work():
    # citation_styles dev e02932: "Instance-based Learning Methods" for "... algorithms", Aha 1991.
    seed = SeedTitle("w00001", "Instance-based learning algorithms", "1991-01-01", "Aha")
    m = _best(
        seed, "Aha DW, Kibler D, Albert MK. Instance-based Learning Methods, Machine Learning 1991; 6: 37-66."
    )
    assert m.band == "accept", m.reason
    assert "'methods' printed where the seed title ends in 'algorithms'" in m.reason
    assert "first author and year agree" in m.reason


# --- 5. the PMC set per style ----------------------------------------------------------------------

