"""How a Paper task names its key: the seed's title (Ref-Long), its arXiv id, or its abstract.

Why (issue 22, item 4): with the title as the key, a plain substring scan for the title in each
reference list answers every task (the lexical baseline scores ExAcc 1.0 on real builds), so the
task measures reading only through the model's own failures. Naming the cited paper by its arXiv id
(which only some reference entries print) or by the opening of its abstract (which no reference
entry prints) asks the model to connect the key to a reference entry itself. Only the question's
wording and the key's text change; the ground truth is the resolver's edges, as with titles.

The abstract is cut to its first sentences (at most ``ABSTRACT_WORDS`` words, whole sentences when
the first one fits), so the key stays a short, fixed-cost part of every prompt.
"""

from __future__ import annotations

import re

from reflong.assemble.paper.model import KeyCandidate
from reflong.assemble.prompts import KEY_FORMS

ABSTRACT_WORDS = 60
#: Tokens reserved in the per-document budget for the key in the question, per key form (a title
#: or an arXiv id fits in 40; an abstract opening of ``ABSTRACT_WORDS`` words in about 120).
KEY_ALLOWANCE = {"title": 40, "arxiv-id": 40, "abstract": 120}
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9(])")
_ABSTRACT_HEADING = re.compile(r"\babstract\b[\s.:\u2014-]*", re.IGNORECASE)
_INTRO_HEADING = re.compile(r"\n\s*(?:1|I)?\.?\s*Introduction\b|\n\s*Keywords\b", re.IGNORECASE)


def abstract_opening(abstract: str, max_words: int = ABSTRACT_WORDS) -> str:
    """The abstract's first sentences, whole, up to ``max_words`` words (the first sentence cut at
    ``max_words`` when it alone is longer)."""
    text = " ".join(abstract.split())
    if not text:
        return ""
    out: list[str] = []
    n = 0
    for sentence in _SENTENCE_END.split(text):
        words = sentence.split()
        if out and n + len(words) > max_words:
            break
        out.append(" ".join(words[: max_words - n]))
        n += len(words)
        if n >= max_words:
            break
    return " ".join(out)


def abstract_from_body(body: str, window: int = 6000) -> str:
    """A paper's abstract read from its parsed text: what follows the word "Abstract" near the
    start, up to the introduction heading (or a blank line after enough text). Empty when the start
    of the text has no "Abstract" heading: a guess would make a key that names another text."""
    head = body[:window]
    m = _ABSTRACT_HEADING.search(head)
    if m is None:
        return ""
    rest = head[m.end() :]
    end = _INTRO_HEADING.search(rest)
    return " ".join((rest[: end.start()] if end else rest).split())


def key_text(key: KeyCandidate, form: str) -> str:
    """What the question names: the title, the arXiv id, or the abstract's opening."""
    if form == "title":
        return key.title
    if form == "arxiv-id":
        return key.arxiv_id
    if form == "abstract":
        return abstract_opening(key.abstract)
    raise ValueError(f"unknown key form {form!r}; use one of {', '.join(KEY_FORMS)}")


def missing_reason(key: KeyCandidate, form: str) -> str | None:
    """Why ``key`` cannot be named in ``form`` (None: it can)."""
    if form == "abstract" and not abstract_opening(key.abstract):
        return (
            "no abstract in the store (arXiv metadata or the seed's own parsed text) for --key-form abstract"
        )
    return None
