"""A title printed word for word but for its last content word ("... nonylphenol in soil" for the
seed "... nonylphenol in sludge") (resolve-14).

Why: authors reuse a title's frame for the next study, changing the object, the organism or the
place ("Anaerobic degradation of nonylphenol in soil" and "... in sludge", the same first author,
a year apart, accepted at 93.3 by resolve-13 for the wrong paper). Every word but
one agrees, so the fuzzy score stays high; but the one word is where the two works differ. A typo
or an inflection of that word ("sludges", "slduge") leaves it recognisable and is no doubt, nor is
a word the reference prints elsewhere (a title run on into its next field). Held back to review,
never rejected: a person decides.
"""

from __future__ import annotations

from collections.abc import Collection
from difflib import SequenceMatcher

from rapidfuzz import fuzz

from reflong.citations.thresholds import LAST_WORD_SIMILAR

MIN_LETTERS = 3
_FUNCTION_TEXT = "a an the of for and or in on to with by at as from into via vs is are be its"
_FUNCTION = frozenset(_FUNCTION_TEXT.split())


def _content(word: str) -> bool:
    return word.isalpha() and len(word) >= MIN_LETTERS and word not in _FUNCTION


def changed_last_word(
    seed_words: list[str], printed: list[str], ref_words: Collection[str]
) -> tuple[str, str] | None:
    """(the seed's last word, the word printed in its place) when the printed title is the seed's
    word for word but for its last word, both content words and not one a typo of the other, and
    the reference prints the seed's word nowhere; else None."""
    if len(seed_words) < 2 or not printed or seed_words[-1] in ref_words:
        return None  # (checked first: the alignment below is the costly part)
    ops = [
        op
        for op in SequenceMatcher(None, seed_words, printed, autojunk=False).get_opcodes()
        if op[0] != "equal"
    ]
    if len(ops) != 1:
        return None
    tag, i1, i2, j1, j2 = ops[0]
    if tag != "replace" or i2 - i1 != 1 or j2 - j1 != 1 or i2 != len(seed_words) or j2 != len(printed):
        return None
    a, b = seed_words[i1], printed[j1]
    if not (_content(a) and _content(b)) or fuzz.ratio(a, b) > LAST_WORD_SIMILAR:
        return None
    return a, b


def note(pair: tuple[str, str]) -> str:
    """The edge's doubt, with both words."""
    return f"'{pair[1]}' printed where the seed title ends in '{pair[0]}' (another study of the same frame?)"
