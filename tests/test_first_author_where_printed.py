"""The first author where humanities bibliographies print it (``citations/author_evidence``; issue 19).

Every string is a real reference of the fresh LinkedBooks dev set (tests/data/real/citation_fresh)
with the seed its work got there (title, first author and year as the set's builder made them,
junk authors such as "M" or "di)" included). Each case was a miss of resolve-10: the first author
read as "another" where the entry prints none, names nobody ("Id.", "AA. VV.") or prints editors;
a name glued to the title by a dash; an author block in surname-initials order closed by a colon.
The guards beside them keep what must not change: chapters stay out of their volume, editors who
are not the seed's author are another author, dashes inside names are no boundary.
"""

from __future__ import annotations

import pytest

from reflong.citations.evidence.author_evidence import author_keys, unglue_name_dash
from reflong.citations.fields.ditto import inherited_authors, is_ditto, same_author_as_before
from reflong.citations.fields.entry_parse import ParsedEntry
from reflong.citations.resolve import SeedIndex, SeedTitle, Thresholds


def _best(raw: str, *seeds: SeedTitle):
    found = SeedIndex(list(seeds), Thresholds()).resolve(raw)
    assert found, raw
    return found[0]


# --- a name glued to the title by a dash ------------------------------------------------------

GREENHALGH = SeedTitle(
    "w01839",
    "The discovery of Roman Sculpture in the Middle Ages: Venice and Northern Italy",
    None,
    "Greenhalgh",
)
GHEDINI = SeedTitle("w01096", "La testa di Talìa del Museo Archeologico di Venezia", None, "Ghedini")


@pytest.mark.parametrize(
    ("raw", "seed"),
    [
        (
            "Michael Greenhalgh-The discovery of Roman Sculpture in the Middle Ages: Venice and Northern Italy",
            GREENHALGH,
        ),
        ("Francesca Ghedini-La testa di Talìa del Museo Archeologico di Venezia.", GHEDINI),
    ],
)
def test_a_name_glued_to_the_title_by_a_dash_ends_the_author_block(raw, seed):
    m = _best(raw, seed)
    assert (m.seed_id, m.band, m.author) == (seed.arxiv_id, "accept", "match"), m.reason
    assert m.title_score == 100.0
    assert "run into the title (a dash, an opening quote)" in m.reason


@pytest.mark.parametrize(
    "raw",
    [
        "Tim Berners-Lee, Robert Cailliau, Jean-Francois Groff, and Bernd Pollermann. WorldWideWeb: the information",
        "Irma Becerra-Fernandez and David W. Aha. Case-based problem solving for knowledge management systems",
        "W. Neumüller-K. Holter, Der Codex Millenarius. Faksimilie-Ausgabe, Graz 1974.",
        "Aikema B.-Meijers D., Nel regno dei poveri. Arte e storia dei grandi ospedali",
        "Flandrin, Jean-Louis. “Contraception, mariage et relations amoureuses dans l’occident chrétien.”",
        "Pouradier Duteil-Loïzidou Anne, La communauté française a Chypre a la fine du XVIIe",
        "Perocco, Guido-Alvadori, Antonio, Civiltà di Venezia, vol. I, Venezia 1973.",
    ],
)
def test_dashes_inside_names_and_between_coauthors_are_no_boundary(raw):
    entry = ParsedEntry(raw=raw)
    got, at = unglue_name_dash(entry)
    assert (got.raw, at) == (raw, -1)


# --- editors heading the entry --------------------------------------------------------------

CALENDAR = SeedTitle(
    "w00176",
    "Calendar of state papers and manuscripts relating to English affairs, existing in the archives "
    "and collections of Venice, and in other libraries of Northern Italy",
    "1864-01-01",
    "Brown",
)
MUSICA = SeedTitle("w01001", "La musica a Roma attraverso le fonti di archivio", "1994-01-01", "Antolini")
BASILICA = SeedTitle("w00139", "Basilica diSanMarco. Arte e simbologia", "1998-01-01", None)


@pytest.mark.parametrize(
    ("raw", "seed"),
    [
        (
            "Brown, H. F., Brown, R. e Hinds, A. B., a cura di, Calendar of state papers and manuscripts "
            "relating to English affairs, existing in the archives and collections of Venice, and in other "
            "libraries of Northern Italy, 38 voli., London 1864-1947.",
            CALENDAR,
        ),
        (
            "Bianca Maria Antolini et ahi (a cura di), La musica a Roma attraverso le fonti di archivio, "
            "Lucca, Libreria musicale italiana, 1994.",
            MUSICA,
        ),
        ("B. Bertoli (a cura di), La Basilica diSanMarco. Arte e simbologia, Venezia 1998", BASILICA),
    ],
)
def test_editors_heading_the_entry_are_its_author_block_not_a_container(raw, seed):
    m = _best(raw, seed)
    assert (m.seed_id, m.band) == (seed.arxiv_id, "accept"), m.reason
    assert "edited volume" not in m.reason and "title-like field" not in m.reason


def test_a_name_run_into_a_title_in_single_quotes_ends_the_author_block():
    raw = (
        "Toumay, Petra ‘Challenging Shakespeare’. In Refracting the Canon in Contemporary British "
        "Literature and Film, ed. Susan Onega and Christian Gutleben. Amsterdam: Rodopi, 2004."
    )
    m = _best(raw, SeedTitle("w00218", "Challenging Shakespeare", "2004-01-01", "Toumay"))
    assert (m.band, m.author, m.title_score) == ("accept", "match", 100.0), m.reason


def test_a_chapter_is_still_kept_from_its_edited_volume():
    # Guard: the editors here follow the chapter's own title and an "In": the volume is a container.
    volume = SeedTitle(
        "c00023", "Refracting the Canon in Contemporary British Literature and Film", "2004-01-01", "Onega"
    )
    raw = (
        "Toumay, Petra ‘Challenging Shakespeare’. In Refracting the Canon in Contemporary British "
        "Literature and Film, ed. Susan Onega and Christian Gutleben. Amsterdam: Rodopi, 2004."
    )
    assert _best(raw, volume).band != "accept"


# --- a title printed first; "Id." and "AA. VV." name nobody ------------------------------------

LANE = SeedTitle("w01090", "Storia di Venezia", "1978-01-01", "Lane")


def test_a_title_printed_first_has_no_author_to_contradict_the_seed():
    m = _best("Storia di Venezia, Torino 1978.", LANE)
    assert (m.band, m.author) == ("accept", "unknown"), m.reason
    assert "the title printed first" in m.reason


def test_an_editor_after_a_title_printed_first_is_another_author():
    # Guard: "a cura di Gaetano Cozzi" is where this entry prints its names: not Lane.
    raw = (
        "Storia di Venezia, VI, Dal Rinascimento al Barocco, a cura di Gaetano Cozzi e Paolo Prodi, Roma, "
        "Istituto della En-ciclopedia Italiana 1994, pp. 449-467"
    )
    m = _best(raw, LANE)
    assert (m.band, m.author) == ("review", "mismatch"), m.reason


@pytest.mark.parametrize(
    ("raw", "seed", "marker"),
    [
        (
            "AA. W., L'art mosan, Atti del Convegno a cura di P. Francastel, Parigi 1953.",
            SeedTitle("w01063", "L'art mosan", "1953-01-01", "Francastel"),
            "'AA. VV.' (various authors) names nobody",
        ),
        (
            "Id., Venezia nel Cinquecento, a cura di U. Tucci, Istituto della Enciclopedia Italiana, "
            "Bibliotheca Biographica, 10, Roma 1974.",
            SeedTitle("w02050", "Venezia nel Cinquecento", "1974-01-01", "Tucci"),
            "'Id.' (the author of the entry before) names nobody",
        ),
    ],
)
def test_an_author_block_naming_nobody_takes_the_editor_after_the_title(raw, seed, marker):
    m = _best(raw, seed)
    assert (m.band, m.author) == ("accept", "match"), m.reason
    assert marker in m.reason and "printed after the title ('a cura di')" in m.reason


def test_the_editors_of_a_container_are_not_the_works_author():
    # Guard: "in Statuti ..., a cura di G. Chittolini e D. Willo-weit" edits the volume, after an "in".
    raw = (
        "Id., Statuti e autonomie urbane. Introduzione, in Statuti, città e territori in Italia e Germania "
        "tra Medioevo ed Età moderna, a cura di G. Chittolini e D. Willo-weit, Bologna 1991, pp. 7-45."
    )
    volume = SeedTitle(
        "c00029",
        "Statuti, città e territori in Italia e Germania tra Medioevo ed Età moderna",
        "1991-01-01",
        "Chittolini",
    )
    assert _best(raw, volume).band != "accept"


def test_id_is_a_ditto_in_words_for_the_resolver_but_no_entry_start_for_the_splitter():
    connell = "Connell, W. C., Il Commissario e lo Stato territoriale fiorentino, “Ricerche stori-che”, III (1988), pp. 591-617."
    idem = "Id., Dowries and Kinsmen in Early Renaissance Venice, “Journal of Interdisci-plinary History”, IV (1975), pp. 571-600."
    assert same_author_as_before(idem) and not is_ditto(idem)
    assert not same_author_as_before("Ibid., p. 12.") and not same_author_as_before(
        "Idea e realtà, Roma 1990."
    )
    got = inherited_authors([connell, idem])
    assert got == [None, ("connell",)]


def test_an_unresolved_id_accepts_a_short_title_printed_as_its_own_field_with_the_year():
    raw = 'Id., “Quasi città ". Borghi e Terre in area lombarda nel tardo Medioevo, “Società e storia”, 47 (1990), pp. 3-26.'
    m = _best(raw, SeedTitle("w01551", "Quasi città", "1990-01-01", None))
    assert m.band == "accept", m.reason


# --- surname-initials closed by a colon; seed authors that name nobody --------------------------


@pytest.mark.parametrize(
    ("raw", "seed"),
    [
        (
            "GASPARETTO A.: Il vetro di Murano dalle origini ad oggi, Venezia 1958.",
            SeedTitle("w00817", "Il vetro di Murano dalle origini ad oggi", "1958-01-01", "A"),
        ),
        (
            "CORONELLI V. M.: Ìsolario dell’Atlante Veneto, Venezia 1696.",
            SeedTitle("w00864", "Ìsolario dell’Atlante Veneto", "1696-01-01", "M"),
        ),
    ],
)
def test_surnames_then_initials_closed_by_a_colon_are_an_author_block(raw, seed):
    m = _best(raw, seed)
    assert (m.band, m.title_score) == ("accept", 100.0), m.reason
    assert "surname-initials order closed by a colon" in m.reason


@pytest.mark.parametrize(
    ("name", "keys"),
    [
        ("M", ("", "")),
        ("di)", ("", "")),
        ("ed", ("", "")),
        ("Da Mosto", ("da mosto", "mosto")),
        ("Du", ("du", "du")),
    ],
)
def test_a_seed_author_of_one_letter_or_a_particle_is_no_key(name, keys):
    assert author_keys(name) == keys


def test_a_longer_seed_title_printed_in_full_wins_a_tie_with_its_head():
    raw = (
        "Storia di Venezia, espressa in centocinquanta tavole inventate e disegnate da Giu-seppe Gatteri, "
        "ecc., ed illustrate da Francesco Zanotto, Venezia, appresso gli am-ministratori dell’eredità Viviani, 1856."
    )
    full = SeedTitle(
        "w01767",
        "Storia di Venezia, espressa in centocinquanta tavole inventate e disegnate da Giu-seppe Gatteri, "
        "ecc., ed illustrate da Francesco Zanotto",
        "1856-01-01",
        None,
    )
    m = _best(raw, LANE, full)
    assert (m.seed_id, m.band) == ("w01767", "accept"), m.reason


# --- short titles of seeds that name no first author -------------------------------------------


@pytest.mark.parametrize(
    ("raw", "seed"),
    [
        (
            "ANGELI, D., Venera intabarrata, in “Giornale dltaia”, 15 dicembre 1911.",
            SeedTitle("w02006", "Venera intabarrata", "1911-01-01", None),
        ),
        (
            "L. GRODECKI, Stile 1200, in Encyclopaedia Universalis, II, 1980, p. 1337.",
            SeedTitle("w01714", "Stile 1200", "1980-01-01", None),
        ),
    ],
)
def test_a_short_title_of_a_seed_without_author_is_accepted_as_its_own_field_with_the_year(raw, seed):
    m = _best(raw, seed)
    assert m.band == "accept", m.reason
    assert "the seed names no first author, the entry does" in m.reason


def test_an_entry_printing_no_author_needs_the_title_side_rule_for_its_short_title():
    # No author on either side, only title and year: the title side's own-field-and-year rule
    # (title_evidence.own_field_with_year) decides, and the gold agrees (f00835 cites w01455).
    # A seed that names a first author still waits for it.
    raw = "Pacta veneta, in «Archivio veneto», serie v, voi. in, 1928."
    m = _best(raw, SeedTitle("w01455", "Pacta veneta", "1928-01-01", None))
    assert m.band == "accept" and "the seed names no first author, the entry does" not in m.reason, m.reason
    assert "a short title printed verbatim as a field of its own and the seed's year 1928" in m.reason
    assert _best(raw, SeedTitle("w01455", "Pacta veneta", "1928-01-01", "Cessi")).band == "review"


def test_without_the_seeds_year_a_short_title_of_a_seed_without_author_stays_in_review():
    # Guard: "Venera intabarrata" printed as its own field, but 1913 is not the seed's year.
    raw = "ANGELI, D., Venera intabarrata, in “Giornale dltaia”, 15 dicembre 1913."
    assert _best(raw, SeedTitle("w02006", "Venera intabarrata", "1911-01-01", None)).band == "review"
