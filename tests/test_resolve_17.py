"""resolve-17: the second LinkedBooks test split's false accepts and misses (issue 19).

Each case is a real reference string of tests/data/real/citation_fresh_test2 (humanities
footnotes, OCR) with its real seeds from the same split. A seed that is a chapter ("Il Settecento,
in La Repubblica di Venezia ...") is not the volume it appeared in: an entry printing only the
volume's title goes to review with that sentence, while the entries that print the chapter's own
title are still accepted.
"""

from __future__ import annotations

from reflong.citations import chapter_seed as cs
from reflong.citations.resolve import RESOLVER_VERSION, SeedIndex, SeedTitle, Thresholds

# Real seeds of the split (seeds.fresh_test2.jsonl): id, title, date, first author.
SETTECENTO = SeedTitle(
    "w00744",
    "Il Settecento, in La < Repubblica di Venezia nell’età moderna. Dal 1517 alla fine della Repubblica, Torino",
    "1992-01-01",
    "Scarabello",
)
INTRODUZIONE = SeedTitle(
    "w00781",
    "Introduzione allinventarìo, in L’archivio di Santa Maria di Mogliano e San Teonisto di Treviso",
    "2001-01-01",
    "Romanelli",
)
SALINE = SeedTitle("w01116", "Le saline, in Storia di Venezia", None, "Hocquet")
# Other seeds of the split, so each decision is made among more than one seed.
OTHERS = [
    SeedTitle("w00887", "La compagnia di Gesù a Venezia (1550-1657)", "1995-01-01", "Cozzi"),
    SeedTitle(
        "w01726",
        'Una vicenda della Venezia barocca: Marco Trevisan e la sua" eroica amicizia',
        "1960-01-01",
        "Cozzi",
    ),
]
SEEDS = [SETTECENTO, INTRODUZIONE, SALINE, *OTHERS]

# m00263: the volume by Cozzi, Knapton and Scarabello, not Scarabello's chapter (resolve-16 accepted it).
VOLUME = (
    "Cozzi, M. Knapton, G. Scarabello, La Repubblica di Venezia nell’età moderna: dal 1J17 alla fine "
    "della Repubblica, in Storia d’Italia, dir. da G. Galasso, voi. xii, t. 11, Torino, utet, 1992, pp. 5-17."
)
# m00477: the edition of the archive by Cavazzana Romanelli and Orlando, not the introduction.
ARCHIVE = (
    "F. Cavazzana Romanelli, E. Or-lando, L’archivio di Santa Maria di Mogliano e San Teonisto di "
    "Treviso, in Mogliano e il suo monastero: 1000 anni di sto-ria. Atti del Convegno, Abbazia di S. "
    "Maria di Mogliano Veneto (Treviso), 6-7 giugno 1997, a c. di F. G. B. Trolese, Ce-sena, 2000 "
    "(Pubblicazioni Centro Storico Benedettino Italiano. Italia Benedettina, 19), p. 177 e nt. 10,"
)
# m00340 and m00715: the chapters themselves (gold w00744, w01116).
CHAPTER = (
    "G. Scarabello, Il Settecento, in La < Repubblica di Venezia nell’età moderna. Dal 1517 alla fine "
    "della Repubblica, Torino 1992, pp .( 553-681,"
)
SALINE_RAW = "J. C. Hocquet, Le saline, in Storia di Venezia. I, Origini-Età ducale, Roma, 1992, p. 518;"


def _resolve(raw: str):
    return SeedIndex(SEEDS, Thresholds()).resolve(raw)


def test_the_version_is_resolve_17():
    assert RESOLVER_VERSION == "resolve-17"


def test_a_chapter_seed_is_split_at_its_in():
    assert cs.chapter_part(SETTECENTO.title) == "il settecento"
    assert cs.chapter_part(INTRODUZIONE.title) == "introduzione allinventario"
    # "in" inside a title, no comma before it, is no container.
    assert cs.chapter_part("Rom und Venedig bis ins XII Jahrhundert in Quellen und Forschungen") is None
    assert cs.chapter_part("La compagnia di Gesù a Venezia (1550-1657)") is None


def test_the_volume_is_not_its_chapter():
    for raw, seed in ((VOLUME, SETTECENTO), (ARCHIVE, INTRODUZIONE)):
        matches = _resolve(raw)
        edge = next((m for m in matches if m.seed_id == seed.arxiv_id), None)
        assert edge is not None, raw
        assert edge.band != "accept", (raw, edge.reason)
        assert "the seed is a chapter" in edge.reason and "the entry cites the volume" in edge.reason
        assert all(m.band != "accept" for m in matches), raw


def test_the_chapter_itself_is_still_accepted():
    for raw, seed in ((CHAPTER, SETTECENTO), (SALINE_RAW, SALINE)):
        best = _resolve(raw)[0]
        assert (best.seed_id, best.band) == (seed.arxiv_id, "accept"), best.reason
        assert "the seed is a chapter" not in best.reason
