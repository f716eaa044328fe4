"""resolve-21: three field boundaries real entries print without the punctuation the rules read.

Each case is a real reference string with its real seed from the same set. resolve-20 read:

- a title between single curly quotes ("Burgess, ‘A Fond Thing ... England’ in S Wright ed.,
  Parish , Church and People (1988)") as running on into the container's editor: the quotes were
  dropped as apostrophes, the title field scored 92.5 and the container seed was accepted instead;
- a volume's own title after its number in a set ("Of Revelation and Revolution, vol. 2: The
  Dialectics of Modernity ...") as a sequel numbered 2 of the seed, and dropped the edge;
- an author in capitals after initials with the title glued on ("B. CECCHETTI Vita dei veneziani
  nel 1300, Venezia 1885") as one field, held in review at a title score of 84.4;
- an em dash printed with spaces between author and title ("Micfaolo Amari —· Storia dei
  Musulmani di Sicilia, Firenze-L Mounier, 1854") as nothing at all: dashes join words, so name and
  title were one field (score 80.5, review).
"""

from __future__ import annotations

from reflong.citations.evidence import title_evidence as te
from reflong.citations.fields.normalize import words_with_boundaries
from reflong.citations.resolve import SeedIndex, SeedTitle, Thresholds

# Real seeds of citation_styles (seeds.test.jsonl) and citation_fresh_test5.
BURGESS = SeedTitle(
    "w00248",
    "A Fond Thing Vainly Invented: an Essay on Purgatory and Pious Motive in late Medieval England",
    "1988-01-01",
    "Burgess",
)
PARISH = SeedTitle("c00175", "Parish , Church and People", "1988-01-01", "Wright")
COMAROFF = SeedTitle(
    "w06657", "The Dialectics of Modernity on a South African Frontier", "1997-01-01", "Comaroff"
)
CECCHETTI = SeedTitle("w01756", "Vita dei veneziani nel 1300", "1885-01-01", None)
MOLMENTI = SeedTitle("w00170", "Calli e canali di Venezia", "1883-01-01", None)
AMARI = SeedTitle("w01484", "Storia dei Musulmani di Sicilia", "1854-01-01", None)  # citation_fresh_test
SEEDS = [BURGESS, PARISH, COMAROFF, CECCHETTI, MOLMENTI, AMARI]

BURGESS_RAW = (
    "C Burgess, ‘A Fond Thing Vainly Invented: an Essay on Purgatory and Pious Motive in late Medieval "
    "England’ in S Wright ed., Parish , Church and People (1988) - argues fear not the main motive in "
    "establishing prayer for the dead."
)
COMAROFF_RAW = (
    "Comaroff, J. L. and J. Comaroff (1997a) Of Revelation and Revolution, vol. 2: The Dialectics of "
    "Modernity on a South African Frontier. Chicago: University of Chicago Press."
)


def _best(raw: str, seeds=SEEDS):
    matches = SeedIndex(seeds, Thresholds()).resolve(raw)
    return matches[0] if matches else None


def test_a_title_in_single_curly_quotes_closes_its_field():
    m = _best(BURGESS_RAW)
    assert (m.seed_id, m.band, m.title_score) == ("w00248", "accept", 100.0), m
    words, bounds = words_with_boundaries("‘A Fond Thing Vainly Invented’ in S Wright ed.")
    assert words[:6] == ["a", "fond", "thing", "vainly", "invented", "in"]
    assert bounds[4] and not bounds[5]


def test_an_apostrophe_alone_or_inside_a_quoted_title_is_no_boundary():
    # An elision inside the quotes ("d’Assise") and a possessive with no opening mark stay words.
    words, bounds = words_with_boundaries("‘Saint François d’Assise’ in Opera")
    assert words[:4] == ["saint", "francois", "dassise", "in"] and bounds[2] and not bounds[1]
    words, bounds = words_with_boundaries("The students’ work in class")
    assert words == ["the", "students", "work", "in", "class"] and not any(bounds)
    # An opening mark inside a word ("nel ‘300" is a century, read before) is no quotation.
    words, bounds = words_with_boundaries("dell’arte e l’Italia’ in Studi")
    assert not any(bounds[:4])


def test_a_volume_title_after_its_number_in_a_set_is_no_sequel():
    m = _best(COMAROFF_RAW)
    assert (m.seed_id, m.band) == ("w06657", "accept"), m
    # A part stays a sequel ("Part 2: Probabilistic semantics", test_volumes_glued_words_and_physics_order), and a
    # number with no volume word before it names another work ("R3: Reinforced mnemonic ...").
    assert te.leading_sequel(["vol", "2", "the"], [True, False, False], 2) == set()
    assert te.leading_sequel(["part", "2", "the"], [True, False, False], 2) == {"2"}
    assert te.leading_sequel(["models", "2", "the"], [True, False, False], 2) == {"2"}


def test_an_author_in_capitals_after_initials_closes_its_field():
    for raw, seed in (
        ("B. CECCHETTI Vita dei veneziani nel 1300, Venezia 1885", "w01756"),
        ("P. MOLMENTI Calli e canali di Venezia, Venezia 1883", "w00170"),
    ):
        m = _best(raw)
        assert (m.seed_id, m.band) == (seed, "accept"), (raw, m)
    words, bounds = words_with_boundaries("A. CASTAGNETTA I conti di Vicenza")
    assert words[:3] == ["a", "castagnetta", "i"] and bounds[1]
    # No initials: a title opening with an acronym keeps its words together.
    assert not any(words_with_boundaries("NATO Expansion and the Baltic States")[1])
    # Capitals followed by more capitals (another name) or a comma: read as before.
    assert not words_with_boundaries("B. CECCHETTI E. MOLMENTI")[1][1]


def test_a_spaced_em_dash_between_fields_is_a_boundary():
    m = _best(
        "Micfaolo Amari —· Storia dei Musulmani di Sicilia, Firenze-L Mounier, 1854, Voi. 1. pag. 59 e segg."
    )
    assert (m.seed_id, m.band) == ("w01484", "accept"), m
    words, bounds = words_with_boundaries("Riebet — Trattato pratico di anatomia medico-chirurgica pag. 693")
    assert words[:5] == ["riebet", "trattato", "pratico", "di", "anatomia"] and bounds[0]
    # A dash inside a word or a hyphen between words joins them as before.
    words, bounds = words_with_boundaries("Sozial-und Wirtschaftsgeschichte, anatomia medico-chirurgica")
    assert words == ["sozialund", "wirtschaftsgeschichte", "anatomia", "medicochirurgica"]
    assert bounds == [False, True, False, False]

