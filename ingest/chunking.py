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

from reflong.ingest.tokenizer import Tokenizer

DEFAULT_CHUNK_TOKENS = 1000

_SENTENCE_END = re.compile(r"(?<=[.!?])[\"')\]]*\s+(?=[\"'(\[]?[A-Z0-9])")
PARA_SEP = "\n\n"


@dataclass(frozen=True)
class TextChunk:
    section: str
    text: str
    n_tokens: int


def _sentences(paragraph: str, tok: Tokenizer, cap: int) -> list[str]:
    """Sentences of ``paragraph``; any longer than ``cap`` tokens is cut at word boundaries."""
    out: list[str] = []
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
        if tok.count(s) <= cap:
            out.append(s)
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
    return out


def chunk_text(
    text: str,
    tok: Tokenizer,
    max_tokens: int = DEFAULT_CHUNK_TOKENS,
    min_tokens: int | None = None,
    section: str = "body",
    paragraph_sep: str = PARA_SEP,
) -> list[TextChunk]:
    """Chunks of ``text`` (paragraphs separated by ``paragraph_sep``) within the token bounds."""
    if max_tokens < 16:
        raise ValueError("max_tokens must be at least 16")
    min_tokens = max_tokens // 2 if min_tokens is None else min_tokens
    cap = max(8, max_tokens // 4)
    paragraphs = [p.strip() for p in text.split(paragraph_sep)]
    paragraphs = [p for p in paragraphs if p]
    chunks: list[TextChunk] = []
    cur: list[str] = []  # paragraphs (or paragraph parts) in the open chunk
    cur_sep: list[str] = []  # separator placed before each part (first is unused)

    def cur_text() -> str:
        return "".join(sep + part for sep, part in zip(["", *cur_sep[1:]], cur, strict=False))

    def close() -> None:
        if cur:
            t = cur_text()
            chunks.append(TextChunk(section, t, tok.count(t)))
            cur.clear()
            cur_sep.clear()

    def fits(part: str, sep: str) -> bool:
        return tok.count(cur_text() + (sep if cur else "") + part) <= max_tokens

    for para in paragraphs:
        if fits(para, paragraph_sep):
            cur.append(para)
            cur_sep.append(paragraph_sep)
            continue
        if cur and tok.count(cur_text()) >= min_tokens:
            close()
            if fits(para, paragraph_sep):
                cur.append(para)
                cur_sep.append(paragraph_sep)
                continue
        # Split the paragraph into sentences and pack them, closing full chunks as we go.
        sep = paragraph_sep
        for sent in _sentences(para, tok, cap):
            if not fits(sent, sep):
                close()
            cur.append(sent)
            cur_sep.append(sep)
            sep = " "
    close()
    return chunks
