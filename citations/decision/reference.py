"""One reference's decisions ranked, and at most one accept kept.

Why: a reference cites one work, so a second accepted seed is demoted to review, with the
reason. Ties (two variant titles both lifted to the accept score) go to the closer title, then to
the title printed first: an entry prints its own title before its container's ("Chapter. In
Editors, Volume"), so a tie is never settled by the seeds' ids.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

from reflong.citations.evidence import edition_evidence as ee
from reflong.citations.records import Match, Reference, Seed


def rank(
    matches: list[Match], ref: Reference, seeds: Sequence[Seed], by_id: Mapping[str, int], late_years: int
) -> list[Match]:
    """The matches best first, every accept after the first demoted to review."""

    def seed(m: Match) -> Seed:
        return seeds[by_id[m.seed_id]]

    ranked = sorted(
        matches,
        key=lambda m: (
            m.band != "accept",
            -m.score,
            -m.title_score,
            seed(m).name_like,  # "Kent, J": an author, no title
            m.at if m.at >= 0 else 1 << 30,
            # Printed at the same place: the seed whose year is printed, then the longer title
            # ("Der Codex Millenarius. Faksimilie-Ausgabe", 1974, over its head "Der Codex
            # Millenarius", 1959): two printings of one title, the entry names one.
            not ee.year_printed(seed(m).year, ref.years, late_years),
            -seed(m).n_words,
            -len(seed(m).plain),  # the longer title printed in full
            m.seed_id,
        ),
    )
    out = ranked[:1]
    for m in ranked[1:]:
        if m.band == "accept":
            why = (
                "; the seed title reads as a person's name (an author of the list)"
                if seed(m).name_like
                else ""
            )
            m = replace(m, band="review", reason=f"also matches {ranked[0].seed_id} better{why}; " + m.reason)
        out.append(m)
    return out
