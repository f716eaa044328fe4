"""A reference printed before the seed existed: an earlier version, or another work.

Why: a technical report or a conference version printed a year or two before the version the
seed came from is the same work when the seed's first author is named (up to four years for a
report or preprint, ``earlier_version``); without that, an earlier year is a doubt; with another
first author as well, two independent facts say another work of the same title ("Can Diffusion
Models Reason?" 2019 vs 2024).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from reflong.citations.evidence import earlier_version as ev
from reflong.citations.evidence import edition_evidence as ee
from reflong.citations.evidence.base import Evidence, hold, note, reject

if TYPE_CHECKING:
    from reflong.citations.evidence.pair import Pair


def predates(pair: Pair) -> bool:
    return ee.predates(pair.seed.year, pair.ref.years, pair.author)


def read(pair: Pair, provisional: float) -> list[Evidence]:
    if not predates(pair):
        return []
    seed, ref, t = pair.seed, pair.ref, pair.t
    printed = max(ref.years)
    gap = (seed.year or 0) - max(ref.years, default=0)
    earlier = ev.window(ref.entry.raw)
    out: list[Evidence] = []
    if pair.author == "match" and gap <= t.early_years and provisional >= t.accept:
        why = f"reference year {printed} is {gap} years before the seed ({seed.year}); first author agrees: an earlier version"
        out.append(note("predates", why))
    elif earlier and pair.author == "match" and gap <= earlier[0] and provisional >= t.accept:
        why = (
            f"reference year {printed} is {gap} years before the seed ({seed.year}); "
            f"first author agrees and {earlier[1]}: an earlier version"
        )
        out.append(note("earlier_version", why))
    else:
        out.append(hold("predates", f"reference year {printed} predates the seed ({seed.year})"))
    if pair.author == "mismatch":
        out.append(reject("predates", "first author not found: another work of the same title"))
    return out
