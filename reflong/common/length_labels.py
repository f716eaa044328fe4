"""Length labels as people write them: ``8K``, ``128k``, ``1M``, ``1.5M``, or a plain token count.

Why one module: ``paper`` and the A/F commands each parsed ``--lengths`` with their own pattern,
and both knew only ``K``, so ``1M`` (how long-context papers and model cards write a million
tokens) was refused while ``1000K`` worked. Both now read a label here.

Why ``1M`` becomes ``1000K`` and not the other way round: every label in the outputs is in K
(file names ``easy_1000K.json``, the manifest's lengths, the M that ``eval score`` reads back from a
file name), so ``1M`` and ``1000K`` name the same setting and give byte-identical outputs, and a
build made with ``1000K`` before this change keeps its file names.
"""

from __future__ import annotations

import re

ACCEPTED = "8K, 128k, 1M, 1.5M (M = 1000K, a million tokens) or a plain token count such as 8000"
"""How ``--help`` and the errors describe an accepted label."""

_LABEL = re.compile(r"^(\d+(?:\.\d+)?)([kKmM]?)$")
_SCALE = {"": 1, "k": 1000, "m": 1_000_000}


def label_tokens(text: str) -> int | None:
    """Tokens a label stands for (``1M`` -> 1000000, ``8K`` -> 8000, ``8000`` -> 8000), or None
    when ``text`` is no label: a fraction is allowed only where it gives whole tokens
    (``1.5M``, ``0.5K``), never for a plain count."""
    m = _LABEL.match(text.strip())
    if not m:
        return None
    number, unit = m.group(1), m.group(2).lower()
    if "." in number and not unit:
        return None
    whole, _, frac = number.partition(".")
    scale = _SCALE[unit]
    if frac and (int(frac) * scale) % (10 ** len(frac)):
        return None  # e.g. 1.0005K: not a whole number of tokens
    return int(whole) * scale + (int(frac) * scale) // (10 ** len(frac)) if frac else int(whole) * scale


def canonical_label(tokens: int) -> str:
    """The label the outputs use: whole thousands in K (``1000000`` -> ``1000K``), else the count."""
    return f"{tokens // 1000}K" if tokens % 1000 == 0 else str(tokens)
