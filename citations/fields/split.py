"""A references section (plain text, one PDF line per line) -> one string per bibliography entry.

Three styles cover nearly every bibliography:

* bracket-numbered ``[1] ...`` (and ``(1)``), the most reliable: entries start at markers that
  form an increasing sequence 1, 2, 3, ... (a few missing numbers tolerated). The sequence check
  keeps "[12]" inside an entry or a page number from starting a new entry.
* dot-numbered ``1. ...`` / bare ``1 ...`` at line starts, with the same sequence check.
* author-year (ACL, ICLR, NeurIPS natbib, ICML), with no marker at all: a new entry starts on a
  line that follows a line ending an entry (". " at the end, a URL, a page range) and that itself
  begins like an author list ("Jacob Devlin, ...", "T. B. Brown, ...", "He, K., ...",
  "DeepSeek-AI.", "OpenAI. 2023."), but not like the continuation of a venue ("In Proceedings",
  "Advances in ...", "arXiv preprint"); or that begins with a ditto dash ("———. Title": the same
  authors as the entry before, humanities styles), dated or not.

Lines are joined with line-break hyphens removed only where the next line starts in lower case
("lan-\\nguage" -> "language"; "Memory-\\nEfficient" keeps its hyphen).

A list whose every line starts with a marker of one kind, numbers strictly increasing, is one
entry per line whatever the gaps (``[3] ...``, ``[17] ...``): that is what assembly's document
fitting writes when it keeps a sample of a bibliography with its original numbering, and the
sequence check above exists only to tell entry starts from markers inside wrapped entries, which a
list of one entry per line does not have.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass

from reflong.citations.fields.ditto import is_ditto

# 3: sampled numbered lists; 4: long entries keep their tail; 5: ditto dashes; 6: the entry parser reads an
# author list closed by a colon (BMC, resolve-14), so stores cited before re-parse their built-in lists
# 7: that list may close with an organisation, print initials glued to a given name, or run to hundreds
# of names (resolve-15); 8: its names may open with a capitalised particle ("De la Fe T") or print one
# glued to the surname ("deDombal FT") (resolve-17)
SPLITTER_VERSION = "split-8"
MAX_ENTRY_CHARS = 4000  # a longer "entry" is a run-on of several, or a huge author list; it is cut
_KEEP_HEAD = 600  # of a cut entry: its first authors ...
_CUT_MARK = " [...] "  # ... and, after this mark, its tail: title, venue, ids come after the authors

_BRACKET = re.compile(r"^\s*\[(\d{1,4})\]\s*")
_LABEL = re.compile(r"^\s*\[[^\]\d][^\]]{1,80}\]\s+")  # "[Askell et al., 2021] Askell, A., ..."
_PAREN = re.compile(r"^\s*\((\d{1,4})\)\s+")
_DOTNUM = re.compile(r"^\s*(\d{1,4})\.\s+(?=\S)")
_BARENUM = re.compile(r"^\s*(\d{1,4})\s+(?=[A-Z\u00c0-\u024f])")

_NAME = r"[A-Z\u00c0-\u024f][\w'\u2019\u00b4\u00a8`\-]*"
_INIT = r"(?:[A-Z]\.(?:\s?-?[A-Z]\.)*)"
_PARTICLE = r"(?:van|von|de|der|den|da|di|la|le|du|del|dos|ten|ter|al|el|bin)"
# "Jacob Devlin," "Diederik P. Kingma and" "Alan Akbik, " "Le Hou." "Tri Dao." "A. Vaswani," "He, K.,"
_AUTHOR_START = re.compile(
    rf"^(?:{_INIT}\s?)+(?:{_PARTICLE}\s)*{_NAME}\s*(?:,|\.|\s+and\s|\s*&)"  # A. B. Last,
    rf"|^{_NAME}(?:\s+(?:{_INIT}|{_NAME}|{_PARTICLE}))*?\s+(?:{_PARTICLE}\s)*{_NAME}\s*(?:,|\.\s|\.$|\s+and\s|\s*&|\s*\()"
    rf"|^{_NAME},\s*(?:{_INIT}|{_NAME})"  # Last, F.  /  Last, First
    rf"|^{_NAME}(?:[-\s]{_NAME})?\.\s+(?:(?:19|20)\d\d|[A-Z])"  # OpenAI. 2023. / DeepSeek-AI. Title
)
_NOT_START = re.compile(
    r"^(?:In|Proc|Proceedings|Advances|Journal|Transactions|Conference|International|Annual|Workshop|"
    r"Association|Computational|Neural|arXiv|ArXiv|CoRR|URL|https?:|doi|DOI|Technical|Springer|IEEE|"
    r"ACM|Curran|MIT|Cambridge|Oxford|Morgan|PMLR|OpenReview|Online|Volume|Vol|pages|Pages|"
    r"Available|Retrieved|Accessed|Publisher|Press|University|Findings|Empirical|Machine|Natural|"
    r"European|North|American|Meeting|Symposium|The\s+\d|\d)\b"
)
_YEARISH = re.compile(r"(?:19|20)\d\d|\bn\.\s?d\.|\bforthcoming|\bin press")
_ENDS_ENTRY = re.compile(r"(?:[.\u3002]|\)\.?|\d{4}[a-z]?|\d+\s*[-\u2013]\s*\d+|https?://\S+|\]|\u201d)\s*$")


@dataclass(frozen=True)
class RefEntry:
    """One bibliography entry: its printed marker (``[3]``, ``(3)``, ``3.``, ``[Lee et al., 2024]``;
    empty for author-year lists) and its text without the marker, lines joined."""

    marker: str
    text: str

    @property
    def line(self) -> str:
        """The entry on one line as printed, marker first (what document fitting writes)."""
        text = self.text.strip()
        return f"{self.marker} {text}" if self.marker else text


def _join(lines: list[str]) -> str:
    out = ""
    for line in lines:
        line = line.strip()
        if not line:
            continue
        if out.endswith("-") and len(out) > 1 and out[-2].isalpha() and line[:1].islower():
            out = out[:-1] + line
        elif out:
            out += " " + line
        else:
            out = line
    return out


def _numbered_chain(lines: list[str], pattern: re.Pattern) -> list[int]:
    """Indexes of the lines whose markers form the sequence 1, 2, 3, ... (gaps of up to 2)."""
    chain: list[int] = []
    expected = 1
    for i, line in enumerate(lines):
        m = pattern.match(line)
        if not m:
            continue
        n = int(m.group(1))
        # The sequence may start at 2 or 3 when the first entries were lost before the split.
        if (chain and expected <= n <= expected + 2) or (not chain and 1 <= n <= 3):
            chain.append(i)
            expected = n + 1
    return chain


def _split_numbered(lines: list[str], chain: list[int], pattern: re.Pattern) -> list[RefEntry]:
    entries = []
    for k, start in enumerate(chain):
        end = chain[k + 1] if k + 1 < len(chain) else len(lines)
        m = pattern.match(lines[start])
        marker = m.group(0).strip() if m else ""
        first = pattern.sub("", lines[start], count=1)
        entries.append(RefEntry(marker, _join([first, *lines[start + 1 : end]])))
    return entries


def _one_per_line(lines: list[str]) -> tuple[list[int], re.Pattern, str] | None:
    """Every line starts with a marker of one kind, numbers strictly increasing (or every line
    with a text label): a list of one entry per line, e.g. a kept sample of a bibliography."""
    if len(lines) < 2:
        return None
    for pattern, style in ((_BRACKET, "bracket"), (_PAREN, "paren"), (_DOTNUM, "dot"), (_BARENUM, "bare")):
        numbers = [m and int(m.group(1)) for m in (pattern.match(ln) for ln in lines)]
        if all(numbers) and all(a < b for a, b in itertools.pairwise(numbers)):
            return list(range(len(lines))), pattern, style
    if all(_LABEL.match(ln) for ln in lines):
        return list(range(len(lines))), _LABEL, "label"
    return None


def _looks_like_start(line: str) -> bool:
    s = line.strip()
    # A ditto dash ("———. Distant Reading.") is the author block of a new entry: the same
    # authors as the entry before, which the resolver reads from it.
    return bool(s) and (is_ditto(s) or (not _NOT_START.match(s) and bool(_AUTHOR_START.match(s))))


def _split_author_year(lines: list[str]) -> list[str]:
    entries: list[list[str]] = []
    current: list[str] = []
    for line in lines:
        if not line.strip():
            continue
        prev = current[-1].strip() if current else ""
        starts = not current or (_ENDS_ENTRY.search(prev) is not None and _looks_like_start(line))
        # An entry needs a title after its authors: a one-line "entry" that is only names is a wrap.
        if starts and current and len(_join(current)) < 25:
            starts = False
        if starts and current:
            entries.append(current)
            current = []
        current.append(line)
    if current:
        entries.append(current)
    joined: list[str] = []
    for entry in (_join(e) for e in entries):
        # Every real entry carries a year; a short yearless piece is a wrapped venue line (not
        # one that opens with a ditto dash: that is an entry of its own, dated or not).
        if joined and len(entry) < 150 and not _YEARISH.search(entry) and not is_ditto(entry):
            joined[-1] += " " + entry
        else:
            joined.append(entry)
    return joined


def split_references(text: str) -> tuple[list[str], str]:
    """Entries of a references section and the style that was detected.

    Returns ``([], "empty")`` for empty text. Entries longer than ``MAX_ENTRY_CHARS`` are cut so a
    garbled section cannot produce one giant string that matches everything.
    """
    entries, style = split_reference_entries(text)
    return [e.text for e in entries], style


def split_reference_entries(text: str) -> tuple[list[RefEntry], str]:
    """``split_references`` with each entry's printed marker kept (for rewriting a bibliography)."""
    lines = [ln for ln in (text or "").splitlines() if ln.strip()]
    if not lines:
        return [], "empty"
    listed = _one_per_line(lines)
    if listed is not None:
        chain, pattern, style = listed
        return _cut(_split_numbered(lines, chain, pattern)), style
    best: tuple[list[int], re.Pattern, str] | None = None
    for pattern, style in ((_BRACKET, "bracket"), (_PAREN, "paren"), (_DOTNUM, "dot"), (_BARENUM, "bare")):
        chain = _numbered_chain(lines, pattern)
        if len(chain) >= 3 and (best is None or len(chain) > len(best[0])):
            best = (chain, pattern, style)
    author_year = _split_author_year(lines)
    if best is not None and len(best[0]) >= 0.5 * len(author_year):
        chain, pattern, style = best
        return _cut(_split_numbered(lines, chain, pattern)), style
    labelled = [i for i, ln in enumerate(lines) if _LABEL.match(ln)]
    if len(labelled) >= 3 and len(labelled) >= 0.5 * len(author_year):
        return _cut(_split_numbered(lines, labelled, _LABEL)), "label"
    # One entry per line already (the parse stage puts each entry on its own line when it can
    # see entry starts): astronomy-style "Surname, F. 2015, ApJ, 741, 90" has no final period,
    # so the author-year rule above would glue such lines together.
    yearly = [ln for ln in lines if _YEARISH.search(ln)]
    if len(yearly) >= 0.7 * len(lines) and len(author_year) < 0.5 * len(yearly):
        return _cut([RefEntry("", e) for e in _split_lines(lines)]), "line"
    return _cut([RefEntry("", e) for e in author_year]), "author-year"


def _split_lines(lines: list[str]) -> list[str]:
    entries: list[str] = []
    for line in lines:
        if entries and not _YEARISH.search(line) and len(line) < 150 and not is_ditto(line):
            entries[-1] = _join([entries[-1], line])
        else:
            entries.append(line.strip())
    return entries


def _cut_text(e: str) -> str:
    """Bound one entry to ``MAX_ENTRY_CHARS``, keeping its head (first authors) and its tail.

    Big technical reports list hundreds of authors (GPT-4's entry has ~280, 4,215 characters) and
    put the title, venue and arXiv id last: cutting the end would lose exactly what identifies the
    work. The bound itself stays, so a garbled run-on cannot become one string that matches
    everything."""
    if len(e) <= MAX_ENTRY_CHARS:
        return e
    tail = MAX_ENTRY_CHARS - _KEEP_HEAD - len(_CUT_MARK)
    head_end = e.rfind(", ", 0, _KEEP_HEAD)  # cut between two names, not inside one
    head = e[: head_end + 1 if head_end > 0 else _KEEP_HEAD]
    start = e.find(", ", len(e) - tail)
    return head + _CUT_MARK + (e[start + 2 :] if 0 <= start < len(e) - 200 else e[-tail:])


def _cut(entries: list[RefEntry]) -> list[RefEntry]:
    return [RefEntry(e.marker, _cut_text(e.text)) for e in entries if e.text.strip()]
