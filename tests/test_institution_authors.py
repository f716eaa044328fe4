"""resolve-12: institutions printed as authors, abbreviations in a main title, the numero sign
(issue 19, the SciELO set's misses after resolve-11).

Each case is a real reference string of tests/data/real/citation_holdout (SciELO, scored once
with resolve-11 and read: a dev set since) with the real seed of that set. The edge must carry
the evidence that decided it, and the rule must not let a title of the entry's own through.
"""

from __future__ import annotations

from reflong.citations.candidates.title_heads import head_of
from reflong.citations.evidence.institution_author import institution_field
from reflong.citations.fields.normalize import norm
from reflong.citations.resolve import SeedIndex, SeedTitle, Thresholds

YEARBOOK = SeedTitle("w00397", "China Labour Statistical Yearbook, several editions", None, None)
PLANO = SeedTitle(
    "w01548",
    "Plano de Manejo do Parque Nacional de Aparados da Serra e Serra Geral. Encarte 3 - Contextualização da UC",
    "2004-01-01",
    None,
)
MANUAL = SeedTitle("w01228", "Manual técnico da vegetação brasileira", "2012-01-01", None)
LEI = SeedTitle(
    "w01160",
    "Lei n° 13.146, de 6 de julho de 2015. Institui a Lei Brasileira de Inclusão da Pessoa com "
    "Deficiência (Estatuto da Pessoa com Deficiência)",
    "2015-01-01",
    None,
)
CAMPYLO = SeedTitle(
    "w01841",
    "Taxonomic revision of Campylocentrum sect. Campylocentrum Cogn. (Orchidaceae-Vandae-Angraecinae) in Brazil",
    "2018-01-01",
    "Pessoa",
)


def _field(text: str) -> list[str]:
    return text.split()


def _best(seed: SeedTitle, ref: str):
    matches = SeedIndex([seed], Thresholds()).resolve(ref)
    assert matches, f"no edge at all for {ref!r}"
    return matches[0]


# --- 1. an institution printed as the author -------------------------------------------------------


def test_an_institution_with_its_acronym_after_a_dash_is_an_author_block():
    m = _best(
        YEARBOOK,
        "NBS – National Bureau of Statistics of China. China Labour Statistical Yearbook, several editions.",
    )
    assert m.band == "accept", m.reason
    assert "institution printed as the author ('NBS National Bureau of Statistics of China')" in m.reason


def test_two_institutions_with_acronyms_in_brackets_are_an_author_block():
    ref = (
        "Instituto Brasileiro do Meio Ambiente e dos Recursos Naturais Renováveis (IBAMA) & Ministério do "
        "Meio Ambiente (MMA). 2004. Plano de Manejo do Parque Nacional de Aparados da Serra e Serra Geral. "
        "Encarte 3 - Contextualização da UC. Brasília, MMA."
    )
    m = _best(PLANO, ref)
    assert m.band == "accept", m.reason
    assert "institution printed as the author ('Instituto Brasileiro do Meio Ambiente e" in m.reason


def test_an_acronym_then_a_year_then_the_institutions_name_is_an_author_block():
    ref = (
        "IBGE. 2012. Fundação Instituto Brasileiro de geografia e Estatística. Manual técnico da vegetação "
        "brasileira. 2ed, Rio de Janeiro."
    )
    m = _best(MANUAL, ref)
    assert m.band == "accept", m.reason
    assert "institution printed as the author" in m.reason


def test_a_title_of_the_entrys_own_after_the_institution_still_holds_the_seed_back():
    ref = (
        "NBS – National Bureau of Statistics of China. Migrant workers and the labour market in rural areas. "
        "China Labour Statistical Yearbook, several editions."
    )
    m = _best(YEARBOOK, ref)
    assert m.band == "review" and "another title-like field comes first ('Migrant workers" in m.reason, (
        m.reason
    )


def test_a_prose_title_with_an_acronym_is_no_institution():
    assert institution_field(_field("Trends in the use of GDP statistics in rural areas")) is None
    assert institution_field(_field("The National Bureau and its critics in the press")) is None
    ref = "Trends in the use of GDP statistics in rural areas. China Labour Statistical Yearbook, several editions."
    m = _best(YEARBOOK, ref)
    assert m.band == "review" and "another title-like field comes first" in m.reason, m.reason


def test_institution_fields_read_as_names():
    assert institution_field(_field("NBS National Bureau of Statistics of China"))
    assert institution_field(_field("Ministerio do Meio Ambiente"))
    assert institution_field(_field("Fundacao Instituto Brasileiro de geografia e Estatistica"))
    assert institution_field(_field("BRASIL Presidencia da Republica"))


# --- 2. an abbreviation is no subtitle boundary ----------------------------------------------------


def test_an_abbreviation_with_a_period_does_not_end_a_main_title():
    assert head_of(CAMPYLO.title) != norm("Taxonomic revision of Campylocentrum sect")
    assert head_of("Flora of Brazil, vol. 3. The orchids of the south") == norm("Flora of Brazil, vol. 3")
    assert head_of("Notes on Festuca subsp. rubra in Chile") is None
    assert head_of("The letters of Dr. Johnson. A new edition") == norm("The letters of Dr. Johnson")


def test_another_section_of_the_same_genus_is_not_accepted_as_the_seed():
    ref = (
        "Pessoa, E. & Alves, M. 2019. Taxonomic revision of Campylocentrum sect. Laevigatum E.M. Pessoa & "
        "M.W. Chase (Orchidaceae-Vandeae-Angraecinae). Systematic Botany 44: 115-132."
    )
    matches = SeedIndex([CAMPYLO], Thresholds()).resolve(ref)
    assert not matches or matches[0].band != "accept", matches[0].reason


# --- 3. the numero sign ----------------------------------------------------------------------------


def test_the_numero_sign_compares_equal_in_every_printing():
    assert norm("Lei nº 13.146") == norm("Lei n° 13.146") == norm("Lei n.º 13.146") == "lei n 13 146"
    assert norm("Nº 5") == "n 5"
    assert norm("No. 5 of the series") == "no 5 of the series"  # an English "No." stays a word


def test_a_law_cited_with_another_numero_sign_is_accepted():
    ref = (
        "BRASIL. Lei nº 13.146, de 6 de julho de 2015. Institui a Lei Brasileira de Inclusão da Pessoa com "
        "Deficiência (Estatuto da Pessoa com Deficiência). Brasília, DF: Presidência da República, 2015."
    )
    m = _best(LEI, ref)
    assert m.band == "accept", m.reason


# --- a seed whose title is a person's name ---------------------------------------------------------

HOTSPOTS = SeedTitle("w00301", "Biodiversity hotspots for conservation priorities", "2000-01-01", "Myers")
KENT = SeedTitle("w01129", "Kent, J", "2000-01-01", "Myers")  # an author annotated as a title


def test_a_seed_titled_with_a_persons_name_loses_the_tie_to_the_real_title():
    for ref in (
        "Myers, N.; Mittermeier, R.A.; Mittermeier, C.G.; da Fonseca, G.A.B. & Kent, J. 2000. Biodiversity "
        "hotspots for conservation priorities. Nature, 403(6772): 853-858.",
        "Myers, N., Mittermeier, R.A., Mittermeier, C.G., Fonseca, G.A.B. 2000. Kent, J. Biodiversity hotspots "
        "for conservation priorities. Nature 403: 853-845.",
    ):
        matches = SeedIndex([KENT, HOTSPOTS], Thresholds()).resolve(ref)
        assert matches[0].seed_id == "w00301" and matches[0].band == "accept", matches[0].reason
        kent = next(m for m in matches if m.seed_id == "w01129")
        assert kent.band != "accept"
        assert "the seed title reads as a person's name" in kent.reason, kent.reason


# --- a part of the seed's own volume -------------------------------------------------------------


def test_a_part_of_the_seeds_own_volume_is_no_other_volume():
    seed = SeedTitle("w00906", "Genera Orchidacearum. vol. 6, Epidendroideae", "2014-01-01", "Pridgeon")
    ref = (
        "Pridgeon, A.M., Cribb, P.J., Chase, M.C., Rasmussen, F.N. 2014. Genera Orchidacearum. vol. 6, "
        "Epidendroideae (Part 3). New York: Oxford University Press."
    )
    m = _best(seed, ref)
    assert m.band == "accept", m.reason
    # Another volume of the same series is still another work.
    other = "Pridgeon, A.M., Cribb, P.J., Chase, M.C., Rasmussen, F.N. 2014. Genera Orchidacearum. vol. 6, Epidendroideae vol. 5."
    assert "another volume of a series" in _best(seed, other).reason


# --- a closing quote glued to the next field --------------------------------------------------------


def test_a_closing_quote_after_a_number_glued_to_the_journal_ends_the_title():
    assert norm("system 1509-1529’journal of Italian History") == "system 15091529 journal of italian history"
    assert norm("the 1990’s") == "the 1990s"  # a plural's apostrophe stays one
    seed = SeedTitle(
        "w01583",
        "Renaissance armies and political control: the Venetian proveditorial system 1509-1529",
        "1979-01-01",
        None,
    )
    ref = (
        "‘Renaissance armies and political control: the Venetian proveditorial system 1509-1529’journal "
        "of Italian History, ii, 1 (1979) 11-31."
    )
    m = _best(seed, ref)
    assert m.band == "accept", m.reason
