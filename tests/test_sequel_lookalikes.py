"""resolve-22: two kinds of number that read as a sequel mark and are none, and a team that closes
an author list, from the PMC set's last share (``pmc_test5``) read after its one run.

Each case is a real reference string with its real seed from the same set. resolve-21 read:

- "MEGA 4: Molecular Evolu-tionary Genetic analysis ..." for the seed "MEGA4: ..." as another
  version ("sequel/version number differs (mega4)") and rejected the edge at title score 98.6; on
  pmc_test3 "Technecium-99 m" for the seed "Technecium- 99 m" the same way;
- "... evolutionary history of its untranslated region" for the seed's "... its 3′ untranslated
  region" (GROBID lost the "3′") as a sequel numbered 3, and rejected it at 95.2;
- "..., McGrowther C, Leicestershire MRC Incontinence Study: An epidemiological study ..." as a
  title field starting inside the author list, held in review at 88.4.

This file also holds the one version test of the resolver: the per-version files before it pin
their rules' decisions and the labelled sets' counts, not the version string, so a new version
edits one line here.
"""

from __future__ import annotations

from reflong.citations.evidence import colon_authors as ca
from reflong.citations.evidence import sequel_lookalikes as sl
from reflong.citations.fields.normalize import cased_words, words_with_boundaries
from reflong.citations.resolve import SeedIndex, SeedTitle, Thresholds

# Real seeds of citation_pmc_test5 (and v01558's of citation_pmc_test3).
MEGA4 = SeedTitle(
    "w01367",
    "MEGA4: Molecular Evolutionary Genetics Analysis (MEGA) software version 4.0",
    "2007-01-01",
    "Tamura",
)
ZAVALA = SeedTitle(
    "w01430",
    "Molecular epidemiology of avian leukosis virus subgroup J and evolutionary history of its 3′ untranslated region",
    "2007-01-01",
    "Zavala SC",
)
PERRY = SeedTitle(
    "w00146",
    "An epidemiological study to establish the prevalence of urinary symptoms and felt need in the community: "
    "The Leicestershire MRC Incontinence Study",
    "2000-01-01",
    None,
)
MILLER = SeedTitle("w02202", "Technecium- 99 m sestamibi infarct size predicts mortality", "1998-01-01", None)
SEEDS = [MEGA4, ZAVALA, PERRY, MILLER]

MEGA_RAW = (
    "K.D.J. Tamura, M. Nei, S. Kumar, MEGA 4: Molecular Evolu-tionary Genetic analysis (MEGA) software "
    "version 4.0. Mol. Biol. Evol. 24, 1596-1599 (2007)"
)
ZAVALA_RAW = (
    "Zavala SC, M.W. Jackwood: Molecular epidemiology of avian leukosis virus subgroup J and evolutionary "
    "history of its untranslated region. Avian Dis 2007, 51(4):942-953."
)
PERRY_RAW = (
    "Perry S, Shaw C, Assassa RP, Dallosso H, Williams K, Brittain K, Mensah F, Smith NKG, Clarke M, Jagger C, "
    "Mayne C, Castleden CM, Jones JMG, McGrowther C, Leicestershire MRC Incontinence Study: An epidemiological "
    "study to establish the prevalence of urinary symptoms and felt need in the community: The Leicestershire "
    "MRC Incontinence Study. J Pub Health Med 2000, 22(3):427-434."
)
MILLER_RAW = (
    "Miller TD, Hodge DO, Sutton JM, Grines CL, O'Keefe JH, DeWood MA, Okada RD, Fletcher WO Jr, Gibbons RJ: "
    "Technecium-99 m sestamibi infarct size predicts mortality. Am J Cardiol 1998, 81:1491-1493."
)


def _best(raw: str, seeds=SEEDS):
    matches = SeedIndex(seeds, Thresholds()).resolve(raw)
    return matches[0] if matches else None


def test_a_name_spaced_from_its_number_is_the_same_version():
    m = _best(MEGA_RAW)
    assert (m.seed_id, m.band) == ("w01367", "accept"), m
    assert "name and number printed glued and spaced on the two sides (mega4)" in m.reason
    m = _best(MILLER_RAW)
    assert (m.seed_id, m.band) == ("w02202", "accept"), m
    assert "technecium99" in m.reason


def test_another_number_or_none_is_still_another_version():
    # The same name with another number, or none, is a sequel's: spacing explains only its own
    # number ("MEGA 4" against the seed "MEGA5", "NimFlow 2" against "NimFlow").
    mega5 = SeedTitle(
        "w9", "MEGA5: Molecular Evolutionary Genetics Analysis (MEGA) software", "2011-01-01", "Tamura"
    )
    m = _best("Tamura K: MEGA 4: Molecular Evolutionary Genetics Analysis (MEGA) software. 2011.", [mega5])
    assert m.band != "accept" and "sequel/version number differs" in m.reason, m
    nim = SeedTitle("w8", "NimFlow: fast normalizing flows on graphs", "2024-01-01", "Ode")
    m = _best("Ode A: NimFlow 2: fast normalizing flows on graphs. 2024.", [nim])
    assert m.band != "accept" and "sequel/version number differs (2)" in m.reason, m
    # the helper itself: the pair must be printed as neighbours, with the same number
    assert sl.spaced_names({"mega4"}, ["mega4", "software"], ["mega", "4", "software"]) == {"mega4"}
    assert sl.spaced_names({"mega5", "4"}, ["mega5"], ["mega", "4"]) == set()
    assert sl.spaced_names({"mega4"}, ["mega4"], ["mega", "software", "4"]) == set()


def test_a_nucleic_acid_locant_is_no_sequel_number():
    m = _best(ZAVALA_RAW)
    assert (m.seed_id, m.band) == ("w01430", "accept"), m
    assert "'3' printed as a nucleic-acid locant" in m.reason
    # a prime, or an apostrophe before a locant word; not an apostrophe of prose
    assert sl.locant_numbers({"3"}, "its 3′ untranslated region", "") == {"3"}
    assert sl.locant_numbers({"5"}, "", "the 5'-end of the gene") == {"5"}
    assert sl.locant_numbers({"3"}, "", "a 3'UTR variant") == {"3"}
    assert sl.locant_numbers({"3"}, "", "see Part 3' of the series") == set()
    assert sl.locant_numbers({"3"}, "Learning to rank 3", "Learning to rank") == set()


def test_a_study_closes_a_colon_ended_author_list_as_a_team():
    m = _best(PERRY_RAW)
    assert (m.seed_id, m.band, m.title_score) == ("w00146", "accept", 100.0), m
    closed = (
        "an author list closed by a colon ends before the title ('Leicestershire MRC Incontinence Study:')"
    )
    assert closed in m.reason
    # a study alone is no list (two names at least): a title may open "... Heart Study: ..."
    for raw, end in (
        ("Smith J, Jones K, Framingham Heart Study: Fifty years of data. Lancet 2001.", 6),  # "Study"
        ("The Framingham Heart Study: Fifty years of data. Lancet 2001.", None),
    ):
        words, bounds = words_with_boundaries(raw)
        cased, colons = cased_words(raw, words)
        assert ca.list_end(cased, bounds, colons) == end, raw

