"""Label bibliography entries by the phenomena that make real ones hard to resolve.

Why this exists: a synthetic world that prints every seed title verbatim measures little, so
the worlds draw messy entries (``reflong.demo.messy``), and this classifier checks that their
shares follow real bibliographies. It runs the same way on both sides, on entry strings as the
pipeline reads them (``parse_pdf`` + ``split_reference_entries``), never inside the pipeline.

Two populations, because some phenomena need to know which work an entry cites:

* every entry (title unknown): ``venue_only`` (no title at all: "Mommert, M., et al. 2014a,
  ApJ, 786, 148"), ``truncated`` (cut mid-sentence), ``hyphen_break`` (a line-end hyphen left
  inside a word: "grav- itational"), ``glued`` (words run together by the PDF's text layer:
  "instruments69", "Google.Carbon");
* entries citing a known title (the corpus labels' cites; the world's seed citations), compared
  with the work's current arXiv title: ``exact`` (the title modulo case, punctuation and
  spacing), ``typo`` (a few characters differ), ``subtitle_dropped`` ("X: Y" printed as "X"),
  ``title_changed`` (words inserted, dropped or changed: a paraphrase or an earlier version's
  title), ``no_title`` (the title is not there at all: an id or venue alone), and
  ``unpunctuated_title`` (the printed title is followed by no punctuation: IOP/Vancouver-like
  styles and glue, where a parser's title field runs on into the venue).
"""

from __future__ import annotations

import difflib
import re
from collections import Counter
from collections.abc import Iterable

from rapidfuzz import fuzz

ENTRY_PHENOMENA = ("venue_only", "truncated", "hyphen_break", "glued")
TITLE_PHENOMENA = ("exact", "typo", "subtitle_dropped", "title_changed", "no_title", "unpunctuated_title")

_URLISH = re.compile(
    r"(?i)https?://\S+|www\.\S+|\bdoi:?\s*10\.\S+|\b10\.\d{4,9}/\S+|arxiv[:\s]*\S+|abs/\S+|\S+\.(?:html?|pdf)\b"
)
_HYPHEN_BREAK = re.compile(r"\b[A-Za-z][a-z]+- (?!(?:and|or|to|und|et)\b)[a-z]{2,}")
_GLUED = re.compile(r"[a-z]{3}\d{2}(?![a-z\d])|[a-z]{2}[.,](?:[A-Z][a-z]+|arXiv)|[a-z]{3}\s\.[A-Z]")
_WORD = re.compile(r"[A-Za-z\u00c0-\u024f][\w'\u2019-]*[.,;:]?")
_TITLE_END = set(".,;:?!\"'\u201d\u2019()[]")
_FUNCTION = frozenset(
    [
        "a",
        "an",
        "the",
        "of",
        "for",
        "and",
        "or",
        "in",
        "on",
        "to",
        "with",
        "from",
        "by",
        "at",
        "as",
        "via",
        "is",
        "are",
        "its",
    ]
)


def _norm(text: str) -> str:
    """Lower-case letters and digits only (case, punctuation and spacing do not count)."""
    return re.sub(r"[^a-z0-9]", "", text.lower())


def _plain(text: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"[^a-z0-9 ]", " ", text.lower())).strip()


_VENUE_WORDS = frozenset(
    [
        "proceedings",
        "advances",
        "conference",
        "journal",
        "transactions",
        "association",
        "computational",
        "linguistics",
        "neural",
        "information",
        "processing",
        "systems",
        "international",
        "annual",
        "meeting",
        "workshop",
        "findings",
        "machine",
        "learning",
        "research",
        "curran",
        "associates",
        "press",
        "university",
        "volume",
        "short",
        "long",
        "papers",
        "main",
        "track",
        "preprint",
        "publisher",
        "publishers",
        "springer",
        "society",
        "letters",
        "review",
        "physical",
    ]
)


def _has_title_run(text: str) -> bool:
    """Three words in a row with no punctuation between them (a title's words, not initials,
    abbreviations, a list of names with commas or the words of a venue's name): what a venue-only
    entry lacks."""
    run = 0
    for m in _WORD.finditer(_URLISH.sub(" ", text)):
        w = m.group(0)
        core = w.rstrip(".,;:")
        if (
            len(core) < 2
            or (core.isupper() and len(core) <= 4)
            or any(c.isdigit() for c in core)
            or core.lower() in _VENUE_WORDS
        ):
            run = 0
            continue
        run += 1
        if run >= 3:
            return True
        if w != core:  # punctuation after the word ends the run
            run = 0
    return False


_VENUE_START = re.compile(r"^(?:In\b|arXiv|ArXiv|CoRR|Proc|Proceedings|Advances|Journal|Transactions|\d|\()")


def _venue_only(text: str) -> bool:
    """No title: the project's entry parser's title guess is none, a venue, a year or an
    abbreviation ("2014b, ApJL, 789, 22", "Rev"), and no three words in a row outside venue names
    could be one (the guess misses titles in comma-separated physics styles)."""
    from reflong.citations.fields.entry_parse import parse_entry

    guess = (parse_entry(text).title or "").strip()
    words = [w for w in re.findall(r"[A-Za-z][\w'-]*\.?", guess) if len(w) >= 3 and not w.endswith(".")]
    no_guess = not guess or bool(_VENUE_START.match(guess)) or len(words) < 2
    return no_guess and not _has_title_run(text)


def entry_phenomena(entry: str) -> set[str]:
    """The title-free phenomena of one entry (``ENTRY_PHENOMENA``)."""
    found = set()
    text = entry.strip()
    if _venue_only(text):
        found.add("venue_only")
    bare = _URLISH.sub(" ", text)
    if _HYPHEN_BREAK.search(bare):
        found.add("hyphen_break")
    if _GLUED.search(bare):
        found.add("glued")
    last = text.rsplit(" ", 1)[-1] if text else ""
    if text and (text[-1] in ",-:&" or last.lower() in _FUNCTION or last.lower() in ("in", "proc")):
        found.add("truncated")
    return found


def title_phenomena(entry: str, title: str) -> set[str]:
    """How ``entry`` prints ``title`` (``TITLE_PHENOMENA``; exactly one of exact, typo,
    subtitle_dropped, title_changed, no_title, plus unpunctuated_title where it applies)."""
    found = set()
    n_title, n_entry = _norm(title), _norm(entry)
    p_title, p_entry = _plain(title), _plain(entry)
    head, sep, sub = title.partition(":")
    if n_title and n_title in n_entry:
        found.add("exact")
    elif sep and _norm(head) and _norm(head) in n_entry and fuzz.partial_ratio(_plain(sub), p_entry) < 75:
        found.add("subtitle_dropped")
    elif fuzz.partial_ratio(p_title, p_entry) >= 60:
        found.add(_typo_or_changed(p_title, p_entry))
    else:
        found.add("no_title")
        return found
    printed = title if "subtitle_dropped" not in found else head
    if _title_unpunctuated(entry, printed):
        found.add("unpunctuated_title")
    return found


def _typo_or_changed(p_title: str, p_entry: str) -> str:
    """ "typo" when the printed title has the same words with a few letters wrong; "title_changed"
    when a word was inserted, dropped or replaced by another word."""
    al = fuzz.partial_ratio_alignment(p_title, p_entry)
    # the aligned window, widened to whole words on both sides
    start, end = al.dest_start, al.dest_end
    while start > 0 and p_entry[start - 1] != " ":
        start -= 1
    while end < len(p_entry) and p_entry[end] != " ":
        end += 1
    want, got = p_title.split(), p_entry[start:end].split()
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(a=want, b=got, autojunk=False).get_opcodes():
        if op == "equal":
            continue
        if op != "replace" or i2 - i1 != j2 - j1:
            # the window may end a word early or late; only a change inside the title counts
            if (i1 == 0 or i2 == len(want)) and op in ("delete", "insert") and max(i2 - i1, j2 - j1) == 1:
                continue
            return "title_changed"
        if any(fuzz.ratio(a, b) < 70 for a, b in zip(want[i1:i2], got[j1:j2], strict=True)):
            return "title_changed"
    return "typo"


def _title_unpunctuated(entry: str, title: str) -> bool:
    """The printed title (aligned in the lower-cased entry) is followed by no punctuation."""
    low = entry.lower()
    al = fuzz.partial_ratio_alignment(title.lower(), low, score_cutoff=60)
    if al is None:
        return False
    end = al.dest_end
    # the aligned window may take in the punctuation after the title (a printed title shorter by
    # a hyphen) or stop short of its last letters: back off to a letter, then walk to the word's end
    while end > al.dest_start and not low[end - 1].isalnum():
        end -= 1
    while end < len(low) and low[end].isalnum():
        end += 1
    rest = entry[end:].lstrip()
    if not rest or title.rstrip()[-1:] in _TITLE_END:
        return False  # the entry ends with the title: nothing runs into it
    return entry[end : end + 1] not in _TITLE_END and rest[0] not in _TITLE_END


def shares(labels: Iterable[set[str]], names: tuple[str, ...]) -> dict[str, float]:
    """The share of entries with each phenomenon (``n``: how many entries were labelled)."""
    counts: Counter[str] = Counter()
    n = 0
    for found in labels:
        n += 1
        counts.update(found)
    out: dict[str, float] = {name: round(counts[name] / n, 4) if n else 0.0 for name in names}
    out["n"] = n
    return out
