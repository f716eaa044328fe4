"""Cut text into ~1K-token chunks at paragraph or sentence boundaries, with exact token counts.

Bounds: every chunk has at most ``max_tokens`` tokens and, except the last chunk of a section, at
least ``min_tokens`` (default half of ``max_tokens``). Whole paragraphs are packed while they fit;
once a chunk holds ``min_tokens`` it is closed at the paragraph boundary. A paragraph that would
leave the chunk too short is split at sentence boundaries to fill it (and a "sentence" longer than
a quarter chunk, e.g. a table dump, at word boundaries), so the bounds always hold.

Counts are exact: each chunk's count is the tokenizer's count of the chunk's own text (BPE counts
are not additive across joins, so sums are only used to propose a cut, never stored).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from reflong.common.tokenizer import Tokenizer

DEFAULT_CHUNK_TOKENS = 1000

_SENTENCE_END = re.compile(r"(?<=[.!?])[\"')\]]*\s+(?=[\"'(\[]?[A-Z0-9])")
PARA_SEP = "\n\n"


@dataclass(frozen=True)
class TextChunk:
    section: str
    text: str
    n_tokens: int


def _sentences(paragraph: str, tok: Tokenizer, cap: int) -> list[tuple[str, int]]:
    """Sentences of ``paragraph`` with their token counts; any longer than ``cap`` tokens is cut
    at word boundaries (and an unbroken run of characters by characters)."""
    out: list = []  # sentences with counts, or word-cut pieces counted at the end
    start = 0
    pieces = []
    for m in _SENTENCE_END.finditer(paragraph):
        pieces.append(paragraph[start : m.start()] + paragraph[m.start() : m.end()].rstrip())
        start = m.end()
    pieces.append(paragraph[start:])
    for s in pieces:
        s = s.strip()
        if not s:
            continue
        n = tok.count(s)
        if n <= cap:
            out.append((s, n))
            continue
        words = s.split(" ")
        cur: list[str] = []
        for w in words:
            while tok.count(w) > cap:  # one unbroken "word" longer than the cap: cut by characters
                cut = max(1, len(w) // 2)
                while tok.count(w[:cut]) > cap:
                    cut //= 2
                if cur:
                    out.append(" ".join(cur))
                    cur = []
                out.append(w[:cut])
                w = w[cut:]
            if cur and tok.count(" ".join([*cur, w])) > cap:
                out.append(" ".join(cur))
                cur = []
            cur.append(w)
        if cur:
            out.append(" ".join(cur))
    return [p if isinstance(p, tuple) else (p, tok.count(p)) for p in out]


_MARGIN = 24  # below the limit by this much, the running estimate decides; nearer, an exact count


def chunk_text(
    text: str,
    tok: Tokenizer,
    max_tokens: int = DEFAULT_CHUNK_TOKENS,
    min_tokens: int | None = None,
    section: str = "body",
    paragraph_sep: str = PARA_SEP,
) -> list[TextChunk]:
    """Chunks of ``text`` (paragraphs separated by ``paragraph_sep``) within the token bounds.

    Each paragraph or sentence is counted once; a chunk's running size is the sum of its parts'
    counts plus one per join. Only near the limit is the candidate chunk counted exactly, so the
    cost stays close to one tokenizer pass over the text. Stored counts are always exact.
    """
    if max_tokens < 16:
        raise ValueError("max_tokens must be at least 16")
    min_tokens = max_tokens // 2 if min_tokens is None else min_tokens
    cap = max(8, max_tokens // 4)
    paragraphs = [p.strip() for p in text.split(paragraph_sep)]
    chunks: list[TextChunk] = []
    cur: list[tuple[str, str, int]] = []  # (separator before, part, its token count)
    est = 0

    def text_of(parts: list[tuple[str, str, int]]) -> str:
        return "".join((sep if i else "") + part for i, (sep, part, _) in enumerate(parts))

    def fits(sep: str, part: str, n: int) -> bool:
        if est + n + (1 if cur else 0) <= max_tokens - _MARGIN:
            return True
        return tok.count(text_of([*cur, (sep, part, n)])) <= max_tokens

    def add(sep: str, part: str, n: int) -> None:
        nonlocal est
        est += n + (1 if cur else 0)
        cur.append((sep, part, n))

    def big_enough() -> bool:
        return bool(cur) and (est >= min_tokens + _MARGIN or tok.count(text_of(cur)) >= min_tokens)

    def close() -> None:
        nonlocal est
        carry: list[tuple[str, str, int]] = []
        while cur:
            t = text_of(cur)
            n = tok.count(t)
            if n <= max_tokens or len(cur) == 1:
                chunks.append(TextChunk(section, t, n))
                break
            carry.insert(0, cur.pop())  # the estimate was off: move the last part on
        cur.clear()
        est = 0
        for item in carry:
            add(*item)

    for para in paragraphs:
        if not para:
            continue
        n = tok.count(para)
        if fits(paragraph_sep, para, n):
            add(paragraph_sep, para, n)
            continue
        if big_enough():
            close()
            if fits(paragraph_sep, para, n):
                add(paragraph_sep, para, n)
                continue
        # Split the paragraph into sentences and pack them, closing full chunks as we go.
        sep = paragraph_sep
        for sent, m in _sentences(para, tok, cap):
            if cur and not fits(sep, sent, m):
                close()
            add(sep, sent, m)
            sep = " "
    while cur:
        close()
    return chunks
