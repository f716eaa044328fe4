"""Numbers that look like a sequel or version mark and are not one (resolve-22).

Why this exists
---------------
The sequel rule (``title_evidence.sequel_marks``) rejects a title whose version number is
printed on one side only: "NimFlow 2" is not "NimFlow", "Llama 2" not "LLaMA". Two kinds of
number read as such a mark on real biomedical strings, where both sides name one work (the PMC
set's last share, ``pmc_test5``, read after its one run):

- **A name and its number, spaced on one side and glued on the other.** "MEGA 4: Molecular
  Evolutionary Genetics Analysis ..." cites the seed "MEGA4: ...": normalising reads
  one word "mega4" on the seed's side and two words, "mega" "4", on the string's, so the mark
  "mega4" looked one-sided. The same name with the same number is the same version; a number
  missing from a side altogether ("Llama 2" against "LLaMA") is still a sequel's.
- **A nucleic-acid locant.** "... evolutionary history of its 3′ untranslated region":
  the "3" of 3′ (the prime of a sugar carbon: 3′ and 5′ ends, 3′-UTR) names a position on a
  molecule, never a sequel, and a PDF extraction drops the prime and often the number with it
  ("... of its untranslated region"). A number printed with a prime (U+2032), or with an
  apostrophe before a locant word ("5' end", "3'-UTR"), on either side is not a sequel mark.

Each is evidence on the edge (``SPACED_NOTE``, ``LOCANT_NOTE``); every other one-sided number is
still a sequel's.
"""

from __future__ import annotations

import re
from itertools import pairwise

SPACED_NOTE = "name and number printed {forms} on the two sides ({marks}): the same version"
LOCANT_NOTE = "'{marks}' printed as a nucleic-acid locant (3′, 5′), not a sequel number"

# A name glued to its number as normalising leaves it: "mega4", "gpt-4" (two letters or more,
# so "v2" stays a version mark of its own).
_NAME_NUMBER = re.compile(r"^([a-z]{2,})-?(\d{1,2})$")
# A prime after a one- or two-digit number; or an apostrophe before a locant word, which an
# apostrophe after a number in prose ("the '70s", "Part 3' of") is not followed by.
_LOCANT = re.compile(
    r"(?<![\w.])(\d{1,2})\s?(?:[\u2032\u2033]|['\u2019](?=\s?-?\s?(?:ends?|utrs?|untranslated|terminal|terminus"
    r"|flanking|splice|overhangs?|cap|regions?|[a-z]{0,2}utr)\b))",
    re.IGNORECASE,
)


def spaced_names(marks: set[str], seed_words: list[str], ref_words: list[str]) -> set[str]:
    """Of the marks found on one side only, those of a name glued to its number ("mega4") that
    the other side prints as two words ("mega 4"), and the bare number that spacing made a mark
    of its own: the same name, the same version."""
    same: set[str] = set()
    for words, other in ((seed_words, ref_words), (ref_words, seed_words)):
        pairs = set(pairwise(other))
        for w in words:
            m = _NAME_NUMBER.match(w)
            if m and w in marks and (m.group(1), m.group(2)) in pairs:
                same.add(w)
                if m.group(2) in marks and m.group(2) not in words:
                    same.add(m.group(2))
    return same


def locant_numbers(marks: set[str], seed_title: str, raw: str) -> set[str]:
    """Of the marks found on one side only, the numbers either side prints as a nucleic-acid
    locant (``_LOCANT``): positions on a molecule, not versions."""
    printed = {m.group(1).lstrip("0") or "0" for text in (seed_title, raw) for m in _LOCANT.finditer(text)}
    return {m for m in marks if m.isdigit() and (m.lstrip("0") or "0") in printed}
