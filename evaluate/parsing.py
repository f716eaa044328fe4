"""Turning a model's response into a set of document indexes.

Two parsers, because two questions are asked of a response:

- ``prompt`` (default): what did the model answer, read the way our prompts ask for it
  (``assemble/prompts.py``): A and F ask for ``Documents: {}``, Paper for ``Papers: {}`` (Figure 8;
  quoted ``"Papers: {}"`` with the question last). The answer is taken after the *last* such label
  (``Documents:``, ``Document:``, ``Papers:``, ``Paper:``, any case, markdown bold allowed), because
  a model that explains first answers last; inside braces/brackets when they follow the label, else
  to the end of that line. Without a label, a response that is nothing but a list (``{1, 3}``,
  ``[1, 3]``, ``1, 3``) or an empty answer (``{}``, ``none``) is read as such. Ranges ``a-b`` are
  expanded only when unambiguous: ``a < b`` and, when the task's document count M is known,
  ``b < M``; otherwise both ends are kept as two numbers and the range is noted. Indexes ``>= M``
  are kept in the prediction (the model did claim them; they count as extras) and reported as
  out of range. Anything else is *unparseable*: scored as the empty set and counted.
- ``reflong2025``: Ref-Long's released scoring, described from its behaviour (FORMAT.md, "Scoring
  used by the authors"): find the first occurrence of the exact word ``Document`` (case-sensitive;
  it also matches inside "Documents"), take the text after it up to the next newline, and collect
  every run of digits there as an integer; no ``Document`` anywhere gives the empty set. So a Paper
  answer written as its prompt asks ("Papers: {1, 3}") scores as empty under it.

A prediction that is already a list of integers (e.g. an answers file scored against itself) is
taken as the index set by both parsers.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

PARSERS = ("prompt", "reflong2025")

_LABEL = re.compile(r"(?:\*\*|__)?\b(?:documents?|papers?)\b(?:\*\*|__)?\s*:(?:\*\*|__)?", re.IGNORECASE)
_RANGE = re.compile(r"(\d+)\s*(?:-|\u2013|\u2014|to)\s*(\d+)")
_NUMBER = re.compile(r"\d+")
_EMPTY_WORDS = re.compile(r"^(?:none|no documents?|no papers?|n/?a|nothing|empty)\.?$", re.IGNORECASE)
_LIST_ONLY = re.compile(r"^[\[{(]?\s*\d+(?:\s*(?:,|;|and|-|\u2013)\s*\d+)*\s*[\]})]?\.?$", re.IGNORECASE)


@dataclass(frozen=True)
class Parsed:
    """What a response says: the index set, whether it could be read, and what looked odd."""

    indexes: frozenset[int]
    parseable: bool = True
    out_of_range: tuple[int, ...] = ()
    ambiguous_ranges: int = 0


def parse_response(response: object, n_documents: int | None = None, parser: str = "prompt") -> Parsed:
    """Parse one prediction with ``parser`` (``prompt`` or ``reflong2025``); see the module doc."""
    if isinstance(response, list):
        if not all(isinstance(i, int) and not isinstance(i, bool) for i in response):
            return Parsed(frozenset(), parseable=False)
        return _finish(set(response), n_documents)
    if response is None:
        return Parsed(frozenset(), parseable=False)
    text = str(response)
    if parser == "reflong2025":
        return _finish(reflong2025_indexes(text), n_documents)
    if parser != "prompt":
        raise ValueError(f"unknown parser {parser!r}; use one of {', '.join(PARSERS)}")
    return _parse_prompt_format(text, n_documents)


def reflong2025_indexes(text: str) -> set[int]:
    """The release's reading: digits after the first "Document" up to the end of that line."""
    at = text.find("Document")
    if at < 0:
        return set()
    line = text[at + len("Document") :].split("\n", 1)[0]
    return {int(m) for m in _NUMBER.findall(line)}


def _parse_prompt_format(text: str, n_documents: int | None) -> Parsed:
    labels = list(_LABEL.finditer(text))
    if labels:
        content = _answer_after(text, labels[-1].end())
    else:
        content = text.strip().strip("`").strip()
        if not (_LIST_ONLY.match(content) or _is_empty_answer(content)):
            return Parsed(frozenset(), parseable=False)
    if _is_empty_answer(content):
        return Parsed(frozenset())
    if not _NUMBER.search(content):
        return Parsed(frozenset(), parseable=False)
    indexes, ambiguous = _numbers(content, n_documents)
    parsed = _finish(indexes, n_documents)
    return Parsed(parsed.indexes, True, parsed.out_of_range, ambiguous)


def _answer_after(text: str, start: int) -> str:
    rest = text[start:].lstrip(" \t\"'`*")
    if rest and rest[0] in "{[(":
        close = {"{": "}", "[": "]", "(": ")"}[rest[0]]
        end = rest.find(close)
        if end >= 0:
            return rest[1:end]
    return rest.split("\n", 1)[0]


def _is_empty_answer(content: str) -> bool:
    stripped = content.strip().strip("\"'`*.").strip()
    return stripped in ("", "{}", "[]", "()") or bool(_EMPTY_WORDS.match(stripped))


def _numbers(content: str, n_documents: int | None) -> tuple[set[int], int]:
    found: set[int] = set()
    ambiguous = 0
    consumed = []
    for m in _RANGE.finditer(content):
        a, b = int(m.group(1)), int(m.group(2))
        if a < b and (n_documents is None or b < n_documents):
            found.update(range(a, b + 1))
        else:
            found.update((a, b))
            ambiguous += 1
        consumed.append(m.span())
    for m in _NUMBER.finditer(content):
        if not any(s <= m.start() < e for s, e in consumed):
            found.add(int(m.group()))
    return found, ambiguous


def _finish(indexes: set[int], n_documents: int | None) -> Parsed:
    out = tuple(sorted(i for i in indexes if n_documents is not None and i >= n_documents))
    return Parsed(frozenset(indexes), True, out)
