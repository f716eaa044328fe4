"""The printed years that let a title printed differently count as the seed's.

Why this exists
---------------
The variant rule (``resolve``) accepts a title scoring from 80 to 90 when the entry names the
seed's first author and prints a year near the seed's: the title alone is not enough, the author
and the year together are. "Near" was the same window for every seed, from a year before to two
after, because an arXiv seed's date is its first version and the journal printing, often retitled
("Bridging nonlinearities ..." -> "Gaussian error linear units"), follows a year or two later.

A seed known by another id (a labelled set's work, a local list) is dated by its printing, and
there a later year with another title is as often the author's next paper on the same subject:
PLOS's "Mayer DC ... (2004) Polymorphism in the Plasmodium falciparum erythrocyte-binding ligand
JESEBL/EBA-181 alters its receptor specificity" is not the seed "Polymorphism in a Plasmodium
falciparum erythrocyte-binding ligand changes its receptor specificity" (Mayer, 2002), and it
scored 88.2. In the four real labelled sets every variant title accepted rightly printed the
seed's own year (38 of 38), so for such seeds the window ends a year after the seed's (a printing
dated by its issue, not its online date); an arXiv seed keeps the preprint's window.
"""

from __future__ import annotations

PRINTED_LATE_YEARS = 1  # a seed dated by its printing: the year after the online one


def late_years(arxiv_like: bool, preprint_late: int) -> int:
    """How many years after the seed's a variant title's printed year may be."""
    return preprint_late if arxiv_like else min(preprint_late, PRINTED_LATE_YEARS)


def variant_years(seed_year: int | None, years: list[int], arxiv_like: bool, preprint_late: int) -> list[int]:
    """The printed years that agree with the seed's for a variant title, sorted: from a year
    before the seed's to ``late_years`` after it."""
    if not seed_year:
        return []
    late = late_years(arxiv_like, preprint_late)
    return sorted({y for y in years if seed_year - 1 <= y <= seed_year + late})


def too_late_note(score: float, year: int, seed_year: int | None) -> str:
    """The edge's sentence for a variant title held back by its year (a seed dated by its
    printing, printed later with another title: maybe the author's next paper)."""
    return (
        f"title printed differently (score {score:.1f}); first author agrees, but the year {year} is "
        f"after the seed's printing ({seed_year}): another paper of the author?"
    )
