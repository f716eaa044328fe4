"""PDF -> clean text with PyMuPDF: reading order, de-hyphenation, normalisation, no page furniture.

Why words, not ``get_text(sort=True)`` or ``"dict"``: those cost about 8x more than plain
extraction. ``get_text("words")`` costs about 10% more than ``get_text()`` yet gives every word's box
and its MuPDF block/line numbers, which is all the geometry needed to

* rebuild visual lines (MuPDF splits a justified line into several "lines"),
* order two-column pages: blocks are left column, right column or spanning; spanning blocks cut
  the page into bands, and each band is read left column first, then right column,
* find hanging indents and labels that start each reference entry (see ``sections``),
* drop running headers and footers (text that repeats near the top or bottom of many pages, with
  digits ignored), page numbers, margin line numbers, the rotated arXiv stamp, arXiv's "This
  figure is available in png format" pages, and blocks of bare numbers (axis ticks of figures).

Text is NFKC-normalised with zero-width characters removed; words hyphenated across a line break
are re-joined unless the hyphen is a real one (decided from the document's own vocabulary).
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import pymupdf

from reflong.common.errors import ReflongError

#: Bump when the output for the same PDF bytes changes: parses are keyed by (sha256, this).
PARSER_VERSION = "reflong-pymupdf/2"  # 2: page 1's title block is kept (not a running header)

# PyMuPDF's default word flags (as plain get_text() uses): ligatures are kept as single glyphs,
# which is cheaper than having MuPDF expand them, and NFKC expands them at the end anyway.
_WORD_FLAGS = pymupdf.TEXTFLAGS_WORDS

_MIN_CHARS_PER_PAGE = 40  # below this on average the PDF has no usable text layer (scanned)


class PdfError(ReflongError):
    """A PDF that cannot be parsed; ``reason`` is the short code recorded in the failure log."""

    def __init__(self, reason: str, message: str):
        super().__init__(message)
        self.reason = reason


@dataclass(slots=True)
class Line:
    x0: float
    y0: float
    x1: float
    y1: float
    text: str

    @property
    def height(self) -> float:
        return self.y1 - self.y0


@dataclass
class Block:
    """A MuPDF text block (roughly a paragraph) with its visual lines, on one page."""

    page: int
    lines: list[Line]
    column: str = "full"  # left | right | full
    x0: float = field(init=False)
    y0: float = field(init=False)
    x1: float = field(init=False)
    y1: float = field(init=False)

    def __post_init__(self) -> None:
        lines = self.lines
        if len(lines) == 1:
            ln = lines[0]
            self.x0, self.y0, self.x1, self.y1 = ln.x0, ln.y0, ln.x1, ln.y1
            return
        self.x0 = min([ln.x0 for ln in lines])
        self.y0 = min([ln.y0 for ln in lines])
        self.x1 = max([ln.x1 for ln in lines])
        self.y1 = max([ln.y1 for ln in lines])

    @property
    def text(self) -> str:
        return "\n".join(ln.text for ln in self.lines)


@dataclass
class ParsedText:
    """What ``parse_pdf`` returns: body, references section and appendix kept apart.

    ``references`` has one reference entry per line where entry starts could be found (labels or
    hanging indents), otherwise one printed line per line; entries never start mid-line.
    """

    body: str
    references: str
    appendix: str
    n_pages: int
    has_references: bool


# --- opening --------------------------------------------------------------------------------


def open_pdf(path: str | Path) -> pymupdf.Document:
    """Open ``path`` or raise ``PdfError`` with reason corrupt | encrypted | zero-pages."""
    try:
        doc = pymupdf.open(str(path), filetype="pdf")
    except FileNotFoundError:
        raise PdfError("missing-file", f"PDF not found: {path}") from None
    except Exception as exc:  # MuPDF raises FileDataError / RuntimeError for broken files
        raise PdfError("corrupt", f"cannot open {Path(path).name}: {exc}") from None
    if doc.needs_pass or doc.is_encrypted:
        doc.close()
        raise PdfError("encrypted", f"{Path(path).name} is password-protected")
    if doc.page_count == 0:
        doc.close()
        raise PdfError("zero-pages", f"{Path(path).name} has no pages")
    return doc


# --- normalisation --------------------------------------------------------------------------

_ZERO_WIDTH = re.compile("[\u200b-\u200f\u2060\ufeff\u00ad\u034f]")
# LaTeX sets accents as separate spacing glyphs ("Lo¨ıc"): turn them into combining marks.
_SPACING_ACCENTS = {
    "¨": "\u0308", "´": "\u0301", "ˆ": "\u0302", "˜": "\u0303", "¸": "\u0327", "ˇ": "\u030c",
    "˘": "\u0306", "˚": "\u030a", "˝": "\u030b", "˙": "\u0307",
}  # fmt: skip
_SPACING_ACCENT_RE = re.compile(r"([¨´ˆ˜¸ˇ˘˚˝˙])\s?([A-Za-zıȷ])")


def _fix_accent(m: re.Match) -> str:
    base = {"ı": "i", "ȷ": "j"}.get(m.group(2), m.group(2))
    return base + _SPACING_ACCENTS[m.group(1)]


def normalize_text(text: str) -> str:
    """NFKC (ligatures, full-width forms), no zero-width characters, LaTeX spacing accents fixed."""
    text = _ZERO_WIDTH.sub("", text)
    if any(ch in text for ch in _SPACING_ACCENTS):
        text = _SPACING_ACCENT_RE.sub(_fix_accent, text)
    return unicodedata.normalize("NFKC", text)


# --- page geometry --------------------------------------------------------------------------


def _page_blocks(page: pymupdf.Page, page_no: int) -> list[Block]:
    """Blocks of visual lines from ``get_text("words")``; vertical text dropped.

    This loop runs once per word of the corpus, so it is kept lean: a line's box is its first
    word's left/top/bottom and its last word's right edge (MuPDF gives words in line order). A
    line whose first and last words stack up rather than sit side by side is rotated text (the
    arXiv stamp, rotated table headers) and is dropped; so is a one-word line much taller than
    wide.
    """
    words = page.get_text("words", flags=_WORD_FLAGS)
    mid = page.rect.width / 2
    blocks: list[Block] = []
    cur_block = cur_line = -1
    lines: list[Line] = []
    pieces: list[str] = []
    lx0 = ly0 = lx1 = ly1 = ey0 = ey1 = 0.0

    def flush() -> None:
        height = max(ly1, ey1) - min(ly0, ey0)
        if pieces and not (height > 2 * (lx1 - lx0) and height > 20):
            lines.append(Line(lx0, ly0, lx1, ly1, " ".join(pieces)))

    for x0, y0, x1, y1, word, bno, lno, _wno in words:
        if lno != cur_line or bno != cur_block:
            flush()
            if bno != cur_block and lines:
                blocks.extend(_make_blocks(page_no, lines, mid))
                lines = []
            cur_block, cur_line = bno, lno
            lx0, ly0, ly1 = x0, y0, y1
            pieces = [word]
        else:
            pieces.append(word)
        lx1, ey0, ey1 = x1, y0, y1
    flush()
    if lines:
        blocks.extend(_make_blocks(page_no, lines, mid))
    return blocks


def _make_blocks(page_no: int, lines: list[Line], mid: float) -> list[Block]:
    """One block, or two when MuPDF interleaved the lines of both columns in one block (PDFs that
    draw text row by row across the page rather than column by column)."""
    if len(lines) > 1:
        lines = _merge_visual_lines(lines, mid)
    block = Block(page_no, lines)
    if len(lines) > 1 and block.x0 < mid - 3 and block.x1 > mid + 3:  # straddles the gutter
        left = [ln for ln in lines if ln.x1 <= mid + 3]
        right = [ln for ln in lines if ln.x0 >= mid - 3]
        if left and right and len(left) + len(right) == len(lines):
            return [Block(page_no, left), Block(page_no, right)]
    return [block]


def _merge_visual_lines(lines: list[Line], page_mid: float) -> list[Line]:
    """Join MuPDF lines that sit on the same baseline (justified text is split at wide gaps),
    but never across the column gutter."""
    out: list[Line] = []
    for ln in lines:
        if out:
            prev = out[-1]
            mid = (ln.y0 + ln.y1) / 2
            gutter = prev.x1 < page_mid < ln.x0 and ln.x0 - prev.x1 > prev.y1 - prev.y0
            if prev.y0 <= mid <= prev.y1 and ln.x0 >= prev.x1 - 1 and not gutter:
                out[-1] = Line(
                    prev.x0, min(prev.y0, ln.y0), ln.x1, max(prev.y1, ln.y1), f"{prev.text} {ln.text}"
                )
                continue
        out.append(ln)
    return out


def _order_page(blocks: list[Block], width: float) -> list[Block]:
    """Reading order: spanning blocks cut the page into bands; each band left column, then right."""
    mid = width / 2
    tol = width * 0.015
    for b in blocks:
        if b.x1 <= mid + tol:
            b.column = "left"
        elif b.x0 >= mid - tol:
            b.column = "right"
        else:
            b.column = "full"
    ordered: list[Block] = []
    band: list[Block] = []

    def flush() -> None:
        band.sort(key=lambda b: (b.column != "left", b.y0, b.x0))
        ordered.extend(band)
        band.clear()

    for b in sorted(blocks, key=lambda b: (b.y0, b.x0)):
        if b.column == "full":
            flush()
            ordered.append(b)
        else:
            band.append(b)
    flush()
    return ordered


# --- page furniture -------------------------------------------------------------------------

# arXiv appends pages for figures it could not embed: 'This figure "x.png" is available in ...'.
_ARXIV_FIGURE_NOTE = re.compile(r'^This figure ".*" is available in |^http://arxiv\.org/ps/\S+$')
_ARXIV_STAMP = re.compile(r"^arXiv:\s?[\w./-]+v\d+\s+\[[\w.-]+\]\s+\d{1,2}\s+\w{3}\s+\d{4}$")
_PAGE_NUMBER = re.compile(r"^(?:page\s+)?[-–—]?\s*(?:\d{1,4}|[ivxlc]{1,6})\s*[-–—]?(?:\s+of\s+\d+)?$", re.I)
_DIGITS = re.compile(r"\d+")


def _furniture_key(text: str) -> str:
    return _DIGITS.sub("#", " ".join(text.lower().split()))


_NUMBER = re.compile(r"^[-+−–(]?\d[\d.,]*(?<![.,])[%)]?$")  # "2017." ends a reference: not a tick


def _is_plot_debris(text: str) -> bool:
    """A few words, mostly bare numbers: axis ticks and the like from vector figures, no prose."""
    words = text.split()
    if not words or len(words) > 12:
        return False
    return sum(1 for w in words if _NUMBER.match(w)) >= 0.6 * len(words)


def _drop_furniture(pages: list[list[Block]], heights: list[float], widths: list[float]) -> None:
    """Remove running headers/footers, page numbers, line numbers and the arXiv stamp in place."""
    n_pages = len(pages)
    zone = 0.12  # headers sit in the top or bottom 12% of the page, in blocks of one or two lines

    def in_zone(b: Block, h: float) -> bool:
        return len(b.lines) <= 2 and (b.y0 < zone * h or b.y1 > (1 - zone) * h)

    counts: Counter[str] = Counter()
    for blocks, h in zip(pages, heights, strict=False):
        seen = set()
        for b in blocks:
            if in_zone(b, h):
                seen.add(_furniture_key(b.text))
        counts.update(seen)
    repeat = 3 if n_pages > 4 else 2
    # Page 1's title block often sits in the header zone and later pages repeat the title as their
    # running header; in a larger font than the body it is the paper's title, not furniture.
    first_lines = sorted(ln.height for b in pages[0] for ln in b.lines) if pages else []
    body_height = first_lines[len(first_lines) // 2] if first_lines else 0.0
    for i, (blocks, h, w) in enumerate(zip(pages, heights, widths, strict=False)):
        keep = []
        for b in blocks:
            text = " ".join(b.text.split())
            if _ARXIV_STAMP.match(text) or _ARXIV_FIGURE_NOTE.match(text):
                continue
            title_block = i == 0 and body_height > 0 and min(ln.height for ln in b.lines) >= 1.2 * body_height
            repeated = counts[_furniture_key(text)] >= repeat and not title_block
            if in_zone(b, h) and (_PAGE_NUMBER.match(text) or repeated):
                continue
            if (b.x1 < 0.12 * w or b.x0 > 0.88 * w) and all(ln.text.isdigit() for ln in b.lines):
                continue  # margin line numbers
            if _is_plot_debris(text):
                continue
            keep.append(b)
        pages[i] = keep


# --- lines to text --------------------------------------------------------------------------

_HYPHEN_END = re.compile(r"([^\W\d_]+(?:-[^\W\d_]+)*)-$")
_WORD_ENDS = ("", ",", ".", ";", ":", ")", "s", "s,", "s.", "s)")
_LOWER_START = re.compile(r"^([^\W\d_A-Z][^\W\d_]*)")


class Dehyphenator:
    """Re-joins ``exam-`` + ``ple`` and keeps ``state-of-the-`` + ``art`` as a real hyphen.

    Evidence comes from the document itself: if the joined word occurs elsewhere it was a line-break
    hyphen; if the hyphenated form occurs (or the left part already holds a hyphen) it is real;
    otherwise typesetting hyphenation is far more common, so the hyphen is dropped.
    """

    def __init__(self, text: str):
        # Whitespace-split tokens, counted in C; a lookup also tries the few punctuated and plural
        # spellings a word takes in running text, which is cheaper than stripping every token.
        self.tokens = Counter(text.lower().split())

    def count(self, form: str) -> int:
        form = form.lower()
        get = self.tokens.get
        return sum(get(form + end, 0) + get("(" + form + end, 0) for end in _WORD_ENDS)

    def seam(self, left: str, right: str) -> str:
        """How two lines meet: " " (a space), "" (a real hyphen, kept) or "-" (hyphen dropped)."""
        if not left.endswith("-"):
            # A URL broken after its scheme or a slash continues without a space.
            return "" if left.endswith(("://", "https:", "http:", "/")) else " "
        m = _HYPHEN_END.search(left[-80:])
        if not m or not right:
            return " "
        r = _LOWER_START.match(right)
        if r is None:
            # "Sentence-" + "BERT", "GPT-" + "3": a compound, kept whole unless the document
            # spells it joined elsewhere ("SciB-" + "ERT" -> "SciBERT").
            if not right[0].isalnum():
                return " "
            head = m.group(1).split("-")[-1]
            tail = re.match(r"\w+", right)
            joined = (head + tail.group(0)).lower() if tail else ""
            return "-" if joined and self.count(joined) > 0 else ""
        head, tail = m.group(1), r.group(1)
        last = head.split("-")[-1]
        if "-" in head or right[len(tail) : len(tail) + 1] == "-":
            return ""  # part of a longer compound: "state-of-the-" + "art", "English-" + "to-German"
        if self.count(f"{last}-{tail}") > self.count(last + tail):
            return ""
        return "-"

    def join(self, left: str, right: str) -> str:
        """Join two consecutive lines of one paragraph or reference entry."""
        if not left:
            return right
        seam = self.seam(left, right)
        return left[:-1] + right if seam == "-" else left + seam + right

    def join_lines(self, lines: list[str]) -> str:
        pieces: list[str] = []
        for ln in lines:
            if not pieces:
                pieces.append(ln)
                continue
            seam = self.seam(pieces[-1], ln)
            if seam == "-":
                pieces[-1] = pieces[-1][:-1]
            elif seam:
                pieces.append(seam)
            pieces.append(ln)
        return "".join(pieces)


def _ends_sentence(text: str) -> bool:
    return text.rstrip().endswith((".", "!", "?", ":", ".)", '."', ".”"))


def render_paragraphs(blocks: list[Block], dehyph: Dehyphenator) -> str:
    """Blocks -> paragraphs separated by blank lines; a block that continues a sentence is merged."""
    paras: list[str] = []
    for b in blocks:
        text = dehyph.join_lines([ln.text for ln in b.lines])
        if not text:
            continue
        if paras and not _ends_sentence(paras[-1]) and _LOWER_START.match(text):
            paras[-1] = dehyph.join(paras[-1], text)
        else:
            paras.append(text)
    return "\n\n".join(paras)


# --- the whole document ---------------------------------------------------------------------


def extract_blocks(doc: pymupdf.Document) -> list[Block]:
    """Every page's blocks in reading order, page furniture removed."""
    pages, heights, widths = [], [], []
    for i, page in enumerate(doc):
        rect = page.rect
        pages.append(_page_blocks(page, i))
        heights.append(rect.height)
        widths.append(rect.width)
    _drop_furniture(pages, heights, widths)
    out: list[Block] = []
    for blocks, w in zip(pages, widths, strict=False):
        out.extend(_order_page(blocks, w))
    return out


def parse_pdf(path: str | Path) -> ParsedText:
    """Parse one PDF into body, references and appendix text; raises ``PdfError`` on bad input."""
    from reflong.ingest.parse.sections import split_sections

    doc = open_pdf(path)
    try:
        n_pages = doc.page_count
        try:
            blocks = extract_blocks(doc)
        except MemoryError:
            raise PdfError("memory-limit", f"{Path(path).name}: memory cap reached while reading") from None
        except Exception as exc:  # MuPDF errors mid-document: damaged content streams, failed mallocs
            reason = (
                "memory-limit" if re.search(r"[mc]alloc|realloc|out of memory", str(exc), re.I) else "corrupt"
            )
            raise PdfError(reason, f"cannot read {Path(path).name}: {exc}") from None
    finally:
        doc.close()
    n_chars = sum(len(ln.text) for b in blocks for ln in b.lines)
    if n_chars < _MIN_CHARS_PER_PAGE * n_pages:
        raise PdfError(
            "no-text-layer", f"{Path(path).name}: {n_chars} characters on {n_pages} pages (scanned images?)"
        )
    return split_sections(blocks, n_pages)
