"""Fitting a paper into a task's per-document token budget.

Ref-Long's Paper subset used papers shorter than 5,000 tokens, so by default a longer paper is
left out. With ``trim``, a longer paper is cut by one policy applied to positives and negatives
alike, so the document's shape never gives the answer away: the body is cut at a sentence or
paragraph boundary from its end, and the references section is always kept whole (so a citing
paper's reference entry to the key survives). A paper whose references alone exceed the budget is
left out with a reason.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from reflong.assemble.paper_model import PaperDoc
from reflong.ingest.tokenizer import Tokenizer

_BOUNDARY = re.compile(r"(?:\n\s*\n|(?<=[.!?])\s+)")


@dataclass(frozen=True)
class FitResult:
    doc: PaperDoc | None
    trimmed: bool = False
    reason: str = ""  # why the paper was left out, when doc is None


def _cut_to_tokens(text: str, budget: int, tokenizer: Tokenizer) -> str:
    """The longest prefix of ``text`` ending at a sentence/paragraph boundary within ``budget``."""
    if budget <= 0:
        return ""
    tokens = tokenizer.encode(text)
    if len(tokens) <= budget:
        return text
    prefix = tokenizer.decode(tokens[:budget])
    cut = 0
    for match in _BOUNDARY.finditer(prefix):
        cut = match.start()
    prefix = prefix[:cut].rstrip()
    # decode/encode is not always an exact round trip at the cut: shrink until it fits.
    while prefix and tokenizer.count(prefix) > budget:
        prefix = prefix[: int(len(prefix) * 0.95)].rstrip()
    return prefix


def fit_document(doc: PaperDoc, tokenizer: Tokenizer, max_tokens: int, trim: bool) -> FitResult:
    """Return the document as it will be shown (with exact ``n_tokens``), or why it cannot be."""
    n_tokens = tokenizer.count(doc.text)
    if n_tokens <= max_tokens:
        return FitResult(replace(doc, n_tokens=n_tokens))
    if not trim:
        return FitResult(None, reason=f"{n_tokens} tokens > max-doc-tokens {max_tokens}")
    ref_tokens = tokenizer.count("\n\n" + doc.references) if doc.references else 0
    if ref_tokens >= max_tokens:
        return FitResult(None, reason=f"references alone are {ref_tokens} tokens > budget {max_tokens}")
    body = _cut_to_tokens(doc.body, max_tokens - ref_tokens, tokenizer)
    trimmed = replace(doc, body=body)
    n_tokens = tokenizer.count(trimmed.text)
    while n_tokens > max_tokens and body:  # token merges across the join can add one or two
        body = _cut_to_tokens(body, tokenizer.count(body) - (n_tokens - max_tokens) - 1, tokenizer)
        trimmed = replace(doc, body=body)
        n_tokens = tokenizer.count(trimmed.text)
    return FitResult(replace(trimmed, n_tokens=n_tokens), trimmed=True)
