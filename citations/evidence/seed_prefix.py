"""A seed title opened by a one-word name and a colon ("DS14: standard assessment of ...") (resolve-14).

Why: a work that introduces an instrument or a system is often titled "Name: what it does", and
citers print it with or without the name ("Denollet, J. (2005). Standard assessment of negative
affectivity, social inhibition, and type D personality.", seed "DS14: standard
assessment of ..."). A name with digits reads as a sequel or version mark ("ds14"), and a mark on
one side only rejected the edge as another work. The mirror case, the citer printing a name the
seed title lacks ("ID5: An incremental ID3"), is ``title_evidence.name_prefix`` (resolve-9).

The name is left out by the citer, not changed: the reference prints no mark of its own in its
place ("DS16: ..." is another instrument, "GPT-3: ..." another model), and neither the name nor
its letters anywhere ("FlashAttention: ..." cites the first work, not "FlashAttention-2: ...").
The edge is then accepted with the seed's first author and a year near the seed's (the evidence the
mirror rule asks); without them it goes to review, never to accept.
"""

from __future__ import annotations

import re

_NAME = re.compile(r"^\s*([^\W\d_][\w-]{0,15})\s*:\s+\S")  # one word, a letter first, then the colon
_NOT_NAMES = frozenset({"part", "pt", "vol", "volume", "book", "chapter", "appendix", "section"})
LEFT_OUT = "the seed's name prefix '{name}:' left out by the reference"


def name_of(title: str) -> str | None:
    """The one-word name before a colon that opens the seed title, as printed ("DS14"), or None
    (a part word, a longer head such as "NimFlow 2:", no colon)."""
    m = _NAME.match(title)
    if not m or m.group(1).lower() in _NOT_NAMES:
        return None
    return m.group(1)


def left_out(title: str, differing: set[str], ref_words: list[str]) -> str | None:
    """The seed's name prefix when it is the only sequel mark the seed and the reference differ
    by (``differing``, folded) and the reference does not print it: the name, else None."""
    name = name_of(title)
    if name is None:
        return None
    key = re.sub(r"[^\w]", "", name.lower())
    stem = re.sub(r"[\W\d_]", "", name.lower())  # "FlashAttention" of "FlashAttention-2"
    if differing != {key} or key in ref_words or stem in ref_words:
        return None  # "FlashAttention: ..." for "FlashAttention-2: ...": the name printed, its number not
    return name
