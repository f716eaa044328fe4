"""Extra candidate keys read from a reference string as printed (resolve-13).

Why: normalising deletes hyphens (a line-break hyphen may or may not be a real one), so two words
a citer joins with a hyphen become one word no seed title has ("Venice-the Hinge of Europe" ->
"venicethe"), and the seed loses a key it needs to be a candidate at all. Each part of such a
word is a key as well. Only the candidate look-up sees them: the title is still scored on the
normalised string.
"""

from __future__ import annotations

import re

from reflong.citations.fields.normalize import fold

# Two runs of letters joined by a hyphen or dash, no space on either side ("Venice-the").
_JOINED = re.compile(r"([^\W\d_]+)[-\u2010\u2011\u2013]([^\W\d_]+)")


def hyphen_parts(raw: str) -> set[str]:
    """The folded parts of every hyphen-joined word of ``raw`` ("Venice-the" -> venice, the)."""
    if "-" not in raw and "\u2010" not in raw and "\u2011" not in raw and "\u2013" not in raw:
        return set()
    return {fold(part) for pair in _JOINED.findall(raw) for part in pair}
