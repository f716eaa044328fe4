"""A title led by a system's name, printed with another name of the same shape: another paper.

Why a module of its own: modern ML names its benchmarks, models and datasets with short coined
tokens before a colon, and a group often reuses its own title template for the next work:
"IndoNLU: Benchmark and resources for evaluating Indonesian natural language understanding" and
"IndoNLG: Benchmark and resources for evaluating Indonesian natural language generation" differ
in one letter of the name and one word of the rest, so the title scores 92 and the shared
authors agree; the resolver accepted one for the other. A coined name is an identifier, not a
phrase: one letter changed names another work, as a sequel number does, so the pair is a reject
(kept as a near miss), never a typo to forgive.

The rule reads only a name that leads the seed title before a colon and is coined (a capital
after its first letter or a digit: "IndoNLU", "GPT-4", "mT5"); a plain word there ("Transformers:
...") is left to the title score, and so is a plural "s".
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from rapidfuzz.distance import Hamming

from reflong.citations.evidence.base import Evidence, reject
from reflong.citations.fields.normalize import norm
from reflong.citations.records import word_at

if TYPE_CHECKING:
    from reflong.citations.evidence.pair import Pair

# The seed title's leading name: one token (letters, digits, hyphens) before a colon.
_LEADING_NAME = re.compile(r"^\s*([^\W_][\w\-]*)\s*:")
_MAX_EDITS = 2
_SHARED_HEAD = 3  # "Indo": the names share their first letters (a family), else it is no lookalike

NOTE = "the name '{printed}' printed where the seed title's is '{seed}': another work of the same template"


def _coined(token: str) -> bool:
    """Whether a printed token reads as a coined name: a capital after the first letter or a digit."""
    return any(c.isupper() for c in token[1:]) or any(c.isdigit() for c in token)


def _letters(token: str) -> str:
    return "".join(c for c in token if not c.isdigit())


def seed_name(title: str) -> str | None:
    """The coined name leading a seed title ("IndoNLU: ..." -> "indonlu", normalised), or None."""
    found = _LEADING_NAME.match(title)
    if found is None or not _coined(found.group(1)):
        return None
    name = norm(found.group(1)).replace(" ", "")
    return name or None


def differing_name(name: str | None, printed_first: str | None) -> tuple[str, str] | None:
    """(seed's name, printed token) when the reference prints, where the seed's coined name
    stands, another token of the same shape: as long, the same first letters, one or two letters
    substituted. A letter dropped, added or two letters swapped is how a typo or a PDF's text
    misprints a name ("Llam", "SentenceBRET"), not how a family names its next work; numbers
    are the sequel rules' to read. None when the names agree or the printed word is no lookalike."""
    if not name or not printed_first or printed_first == name:
        return None
    if _letters(printed_first) == _letters(name):
        return None  # "MEGA 4" for "MEGA4", "GPT-3" for "GPT-4"
    if len(printed_first) != len(name) or printed_first[:_SHARED_HEAD] != name[:_SHARED_HEAD]:
        return None
    if Hamming.distance(name, printed_first) > _MAX_EDITS or _swapped(name, printed_first):
        return None
    return name, printed_first


def _swapped(a: str, b: str) -> bool:
    """Whether ``b`` is ``a`` with two adjacent letters swapped ("bloom" / "blomo")."""
    diff = [i for i, (x, y) in enumerate(zip(a, b, strict=True)) if x != y]
    return len(diff) == 2 and diff[1] == diff[0] + 1 and a[diff[0]] == b[diff[1]] and a[diff[1]] == b[diff[0]]


def read(pair: Pair, provisional: float) -> list[Evidence]:
    """A veto where the reference prints another coined name where the seed title's stands."""
    seed = pair.seed
    renamed = differing_name(seed.name, word_at(pair.ref, pair.field[3])) if seed.name else None
    if not renamed:
        return []
    return [reject("name_tokens", NOTE.format(seed=renamed[0], printed=renamed[1]), veto=True)]
