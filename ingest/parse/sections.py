"""Body, references section and appendix: where the bibliography starts and ends.

The references heading comes in many forms ("References", "REFERENCES", "R EFERENCES" from small
caps, "7 References", "References and Notes", "Bibliography", "Literature Cited"). A heading-like
line also occurs in tables of contents, so every candidate is scored by how much the lines after
it look like bibliography entries (years, "et al.", venues, initials, labels) and the first one
that does wins. Papers without a heading (RevTeX physics papers) are caught by a run of numbered
entries starting at "[1]" or "1.".

After the references, an appendix may follow ("A Proofs", "Appendix", "Checklist"): it is cut off
as ``appendix`` at the first heading-like line whose following text stops looking like entries.

References are rendered one entry per line: entry starts are found from labels ("[12]", "12.",
"[Vas+17]") or else hanging indents (continuation lines indented within their column).
"""

from __future__ import annotations

import functools
import itertools
import re
from collections import defaultdict

from reflong.ingest.parse.pdf_text import (
    Block,
    Dehyphenator,
    Line,
    ParsedText,
    normalize_text,
    render_paragraphs,
)

_HEADING_WORDS = {
    "references",
    "reference",
    "bibliography",
    "referencesandnotes",
    "literaturecited",
    "workscited",
    "referencelist",
    "referencescited",
}
_HEADING_HINT = re.compile(r"(?i)r\s?e\s?f\s?e\s?r|bibliog|literature|works")  # cheap pre-filter
_NUMBERING = re.compile(r"^(?:\d{1,2}|[ivx]{1,4}|[a-h])[.)]?", re.I)

_REFLIKE = re.compile(
    r"\b(?:1[89]|20)\d\d[a-z]?\b|et al|\bIn\b|Proc\.|Proceedings|arXiv|Journal|Conference|\bpp\.|"
    r"\bvol\.|\bdoi\b|https?://|\b[A-Z]\.\s?[A-Z]?\.?\s?[A-Z][a-z]|^\[\w+\]|Phys\.|Rev\.|Trans\."
)
_DECIMAL = re.compile(r"(?<![\w.])\d+\.\d+(?![\w.])")
_YEAR = re.compile(r"\b(?:1[89]|20)\d\d[a-z]?\b")

_LABEL = re.compile(
    r"^(?:\[(\d{1,4})\]|\[[A-Za-z][\w+.\- ]{0,14}\d{2,4}[a-z]?\]|\((\d{1,4})\)\s|(\d{1,4})\.\s)"
)

_APPENDIX_WORDS = re.compile(
    r"^(?:[A-Z](?:\.\d+)*\.?\s+)?(?:appendix|appendices|supplementary|supplemental|checklist|"
    r"neurips paper checklist|author contributions?|contributions|acknowledge?ments?|"
    r"broader impact|ethics statement|limitations)\b",
    re.I,
)
_TITLE_LIKE = re.compile(r"^[A-Z][A-Za-z][A-Za-z\-–:'’ ()&/]{0,70}[A-Za-z)]$")
_CAPTION = re.compile(r"^(?:Figure|Fig\.|Table)\s*\d+[.:]")
_LETTER_HEADING = re.compile(r"^[A-Z](?:\.\d{1,2})*\.?\s+[A-Z][\w\-–:,'’ ()&/]{2,80}$")


def _compact(text: str) -> str:
    return re.sub(r"[\s:.]+", "", text).lower()


def is_references_heading(text: str) -> bool:
    """True for a line that is a references heading in one of its common forms."""
    if len(text) > 48:
        return False
    text = text.strip()
    if len(text) > 40:
        return False
    words = text.split()
    if len(words) > 1 and _NUMBERING.fullmatch(words[0]):
        text = " ".join(words[1:])
    return _compact(text) in _HEADING_WORDS


def _ref_score(lines: list[str]) -> float:
    """Fraction of ``lines`` that look like parts of bibliography entries."""
    if not lines:
        return 0.0
    return sum(map(_reflike, lines)) / len(lines)


@functools.lru_cache(maxsize=4096)
def _reflike(line: str) -> bool:
    # Candidate windows overlap, so the same lines are asked about again and again.
    # A table row ("KGI (Glass et al., 2021) 75.6 74.4 98.5 63.7") cites but is no entry.
    return _REFLIKE.search(line) is not None and len(_DECIMAL.findall(line)) < 3


def _flat_lines(blocks: list[Block]) -> list[tuple[int, int, Line]]:
    return [(bi, li, ln) for bi, b in enumerate(blocks) for li, ln in enumerate(b.lines)]


def find_references_start(texts: list[str]) -> int | None:
    """Index into the document's lines where the references begin (the line after the heading)."""
    best: tuple[float, int] | None = None
    for i, text in enumerate(texts):
        if len(text) <= 48 and _HEADING_HINT.search(text) and is_references_heading(text):
            score = _ref_score(texts[i + 1 : i + 41])
            if score >= 0.45:
                return i + 1
            if best is None or score > best[0]:
                best = (score, i + 1)
    if best is not None and best[0] >= 0.25:
        return best[1]
    # No heading: a numbered run "[1] ..., [2] ..." (or "1. ..., 2. ...") near the end.
    for i in range(len(texts) - 1, -1, -1):
        m = _LABEL.match(texts[i])
        if m and (m.group(1) == "1" or m.group(3) == "1") and i > len(texts) * 0.3:
            window = texts[i : i + 40]
            starts = sum(1 for t in window if _LABEL.match(t))
            if starts >= 3 and _ref_score(window) >= 0.5:
                return i
    return None


def find_appendix_start(flat: list[tuple[int, int, Line]], texts: list[str], start: int) -> int | None:
    """First line after ``start`` that opens an appendix: a heading followed by non-entry text."""
    for i in range(start + 1, len(flat)):
        _bi, li, ln = flat[i]
        text = ln.text.strip()
        if li != 0:
            continue
        table_row = len(_DECIMAL.findall(text)) >= 3
        if (len(text) > 90 or _YEAR.search(text)) and not (_CAPTION.match(text) or table_row):
            continue
        strong = (
            _APPENDIX_WORDS.match(text) or _LETTER_HEADING.match(text) or _CAPTION.match(text) or table_row
        )
        # An unnumbered heading ("Attention Visualizations") needs clearer evidence after it.
        weak = not strong and _TITLE_LIKE.match(text) and len(text.split()) <= 12
        if not (strong or weak):
            continue
        after = texts[i + 1 : i + 31]
        if (len(after) < 3 and strong) or (len(after) >= 3 and _ref_score(after) < (0.35 if strong else 0.2)):
            if table_row and i > start + 1 and flat[i - 1][1] == 0 and _TITLE_LIKE.match(texts[i - 1]):
                return i - 1  # the table's header row goes with it
            return i
    return None


def _labelled(texts: list[str]) -> list[bool]:
    """Which lines open with an entry label. "[12]" and "[Vas+17]" always count; "12." and "(12)"
    only as the next number in sequence, since "2020. Title..." also opens continuation lines."""
    out = []
    last = 0
    for t in texts:
        m = _LABEL.match(t)
        if not m:
            out.append(False)
            continue
        num = m.group(2) or m.group(3)
        if num is None:
            if m.group(1):
                last = int(m.group(1))
            out.append(True)
        elif int(num) == last + 1:
            last = int(num)
            out.append(True)
        else:
            out.append(False)
    return out


def entry_starts(blocks: list[Block]) -> list[tuple[Line, bool]]:
    """Reference lines in order, each marked True where a new entry starts."""
    lines: list[tuple[Block, Line]] = [(b, ln) for b in blocks for ln in b.lines]
    if not lines:
        return []
    texts = [ln.text for _, ln in lines]
    labelled = _labelled(texts)
    n_labels = sum(labelled)
    if (labelled[0] and n_labels >= 2) or n_labels >= max(3, len(texts) // 8):
        return [(ln, lab) for (_, ln), lab in zip(lines, labelled, strict=False)]
    # Hanging indents: entries start at the left edge of their column (or of the page when
    # single-column); columns come from line positions, since MuPDF blocks are not reliable here.
    span: dict[int, tuple[float, float]] = {}
    for b, ln in lines:
        lo, hi = span.get(b.page, (ln.x0, ln.x1))
        span[b.page] = (min(lo, ln.x0), max(hi, ln.x1))

    def side(b: Block, ln: Line) -> tuple[int, bool]:
        lo, hi = span[b.page]
        return b.page, ln.x0 >= (lo + hi) / 2 - 5

    left: dict[tuple[int, bool], float] = defaultdict(lambda: float("inf"))
    for b, ln in lines:
        key = side(b, ln)
        left[key] = min(left[key], ln.x0)
    indented = [ln.x0 > left[side(b, ln)] + 3 for b, ln in lines]
    share = sum(indented) / len(lines)
    if 0.15 <= share <= 0.9:
        return [(ln, not ind) for (_, ln), ind in zip(lines, indented, strict=False)]
    # No labels, no indents: entries are set apart by vertical space (MuPDF blocks sometimes hold
    # several entries, so they only help where a column starts).
    pitches = sorted(
        ln.y0 - prev.y0
        for (pb, prev), (b, ln) in itertools.pairwise(lines)
        if pb.page == b.page and side(pb, prev) == side(b, ln) and ln.y0 > prev.y0
    )
    pitch = pitches[len(pitches) // 2] if pitches else 0.0
    out = [(lines[0][1], True)]
    for (pb, prev), (b, ln) in itertools.pairwise(lines):
        if pb.page == b.page and side(pb, prev) == side(b, ln) and ln.y0 > prev.y0:
            out.append((ln, ln.y0 - prev.y0 > 1.15 * pitch))
        else:
            out.append((ln, prev.text.rstrip().endswith(".")))
    return out


def render_references(blocks: list[Block], dehyph: Dehyphenator) -> str:
    """One entry per line; continuation lines joined (hyphenation re-joined)."""
    entries: list[list[str]] = []
    for ln, start in entry_starts(blocks):
        if start or not entries:
            entries.append([ln.text])
        else:
            entries[-1].append(ln.text)
    return "\n".join(e for e in (dehyph.join_lines(parts).strip() for parts in entries) if e)


def _slice_blocks(blocks: list[Block], flat: list[tuple[int, int, Line]], a: int, b: int) -> list[Block]:
    """The blocks holding flat lines ``a`` to ``b`` (exclusive); cut blocks keep page and column."""
    if a >= b:
        return []
    bi_a, li_a, _ = flat[a]
    bi_b, li_b, _ = flat[b - 1]
    out = []
    for bi in range(bi_a, bi_b + 1):
        blk = blocks[bi]
        lo = li_a if bi == bi_a else 0
        hi = li_b + 1 if bi == bi_b else len(blk.lines)
        out.append(blk if (lo, hi) == (0, len(blk.lines)) else _sub_block(blk, blk.lines[lo:hi]))
    return out


def _sub_block(b: Block, lines: list[Line]) -> Block:
    out = Block(b.page, lines)
    out.column = b.column
    return out


def split_sections(blocks: list[Block], n_pages: int) -> ParsedText:
    """Cut the ordered blocks into body, references and appendix, and render each as text."""
    dehyph = Dehyphenator("\n".join(ln.text for b in blocks for ln in b.lines))
    flat = _flat_lines(blocks)
    texts = [ln.text for _, _, ln in flat]
    start = find_references_start(texts)
    if start is None:
        return ParsedText(normalize_text(render_paragraphs(blocks, dehyph)), "", "", n_pages, False)
    end = find_appendix_start(flat, texts, start)
    end = len(flat) if end is None else end
    heading_at = start - 1 if start > 0 and is_references_heading(texts[start - 1]) else start
    references = normalize_text(render_references(_slice_blocks(blocks, flat, start, end), dehyph))
    return ParsedText(
        body=normalize_text(render_paragraphs(_slice_blocks(blocks, flat, 0, heading_at), dehyph)),
        references=references,
        appendix=normalize_text(render_paragraphs(_slice_blocks(blocks, flat, end, len(flat)), dehyph)),
        n_pages=n_pages,
        has_references=bool(references),
    )
