"""Build tests/data/real/citation_fresh/: a FRESH held-out set of real, labelled reference strings.

    python -m reflong.citations.quality.builders.fresh --linkedbooks DIR [--out DIR]

    python -m reflong.citations.quality.builders.fresh --linkedbooks DIR --part test   # the fresh_test split
    python -m reflong.citations.quality.builders.fresh --linkedbooks DIR --part test2  # the fresh_test2 split
    python -m reflong.citations.quality.builders.fresh --linkedbooks DIR --part test3  # the fresh_test3 split
    python -m reflong.citations.quality.builders.fresh --linkedbooks DIR --part test4  # the fresh_test4 split
    python -m reflong.citations.quality.builders.fresh --linkedbooks DIR --part test5  # the fresh_test5 split

DIR is a git directory of a snapshot of github.com/dhlab-epfl/LinkedBooksDeepReferenceParsing
(as the ``fetch`` tool leaves it); files are read with ``git show COMMIT:PATH`` at the commit
pinned below, so the same snapshot gives byte-identical output.

Parts (``--part``): ``dev`` (the default) is the set below, built from LinkedBooks' validation and
test files, split ``fresh`` (read and tuned on since resolve-11). ``test`` is a TEST split,
tests/data/real/citation_fresh_test, split ``fresh_test`` (entry ids ``k...``), from LinkedBooks'
training file, which no set had read: one work in ``TEST_SHARE`` (by a hash of its work key, so
every string of a work is taken together), leaving out every work (normalised title) and every raw
string of every set built before (all of tests/data/real/citation_*). The training file is absent
from the snapshot (over its 4 MiB limit), so it is read from the ``dataset.tar.gz`` of an earlier
commit (``TRAIN_TAR_COMMIT``), checked to be the very blob the pinned commit names
(``TRAIN_BLOB``). ``test2`` is a SECOND test split, tests/data/real/citation_fresh_test2, split
``fresh_test2`` (entry ids ``m...``), made after ``fresh_test`` had been scored once and become a
dev set: the works of the training file in another residue of the same salted hash (so no work key
of ``fresh_test``), leaving out every work and string of every set built before it, fresh_test
included, and every work that ``merge_works`` would merge with a work of fresh_test's sample (one
work printed two ways, with two work keys, one in each sample). ``test3`` is a THIRD test split,
tests/data/real/citation_fresh_test3, split ``fresh_test3`` (entry ids ``n...``), made after
``fresh_test2`` had been scored once and become a dev set: residue 2 of the same hash, leaving out
every work and string of every set built before it (fresh_test2 and pmc_test3 included) and every
work ``merge_works`` would merge with a work of the residue 0 or residue 1 samples. ``test4`` is a
FOURTH test split, tests/data/real/citation_fresh_test4, split ``fresh_test4`` (entry ids
``q...``), made after ``fresh_test3`` had been scored once and become a dev set: residue 3,
leaving out every work and string of every ``citation_*`` set on main when it was made
(fresh_test3 included) and every work ``merge_works`` would merge with a work of the residue 0, 1
or 2 samples. ``test5`` is a FIFTH test split, tests/data/real/citation_fresh_test5, split
``fresh_test5`` (entry ids ``r...``), made after ``fresh_test4`` had been scored once and become a
dev set: residue 4, leaving out every work and string of every ``citation_*`` set on merge30 when
it was made (fresh_test4 and pmc_test4 included) and every work ``merge_works`` would merge with a
work of the residue 0, 1, 2 or 3 samples. Each part names the sets it leaves out
(``Part.prior_sets``).

Why this set exists: tests/data/real/citation_styles has been used to tune the resolver and its
test split has been looked at more than once, so its figures are no longer a held-out measure.
This set comes from another source (LinkedBooks: bibliographies of Italian, English, French and
German humanities books and journals on the history of Venice, annotated by hand for the
LinkedBooks project's reference parser) and keeps the citation_styles format, so
bench/resolve_styles.py scores it with ``--splits fresh``. Works are grouped by title, then merged
when one work was printed two ways (OCR slips, a subtitle added: ``merge_works``), by rules on
the strings only. After the first scoring run its labels got the same audit as citation_styles:
the mechanical rules plus hand errata (``errata.jsonl`` beside the data, ``--errata``), each read
from the strings, never from which system a change helps.

What is written (format: SOURCES.md there):
- ``seeds.fresh.jsonl``: one seed per cited work, a quarter of the works held out as non-seeds;
- ``entries.fresh.jsonl.gz``: the raw strings with style, source, gold seed (or null);
- ``audit.jsonl``: the audit rules' rows (titles run together) and the hand errata's.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import io
import json
import re
import subprocess
import sys
import tarfile
from collections import Counter, defaultdict
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from rapidfuzz import fuzz

from reflong.citations.fields.normalize import fold
from reflong.citations.quality.builders.audit import audit_rows, read_errata, rule_category, venue_designation
from reflong.citations.quality.builders.styles import (
    _FULL_NAME,
    HOLD_OUT,
    _digest,
    _pick,
    _work_key,
    clean_title,
    first_surname,
    git_show,
    year_of,
)
from reflong.citations.quality.builders.styles import set_norm as norm
from reflong.citations.quality.labelled_sets import REAL

LINKEDBOOKS_COMMIT = "9411db4e918baffa361895c50ae9ce2046fafc3c"
# LinkedBooks' own validation and test files (its 22 MB training file is left out of this set to
# keep it small, and sampled for the fresh_test split: ``--part test``; none of the three is a
# subset of another).
LINKEDBOOKS_FILES = ("dataset/clean_valid.txt", "dataset/clean_test.txt")
STYLES_SET = REAL / "citation_styles"
BLOCK = 25  # entries per pseudo-document (the files have no document boundaries)
SPLIT = "fresh"
# The training file (22 MB): the pinned commit names it by this blob, which the snapshot lacks (it
# keeps no file of 4 MiB or more); the commit that added the compressed dataset holds the same
# bytes in a tar.gz, checked against the blob id before use.
TRAIN_PATH = "dataset/clean_train.txt"
TRAIN_BLOB = "27eae1b4bee1e705d922b030687e07ea36a0ed1f"
TRAIN_TAR_COMMIT = "d00ca1ff3a3baf358fafb946bc6d2bb986a69127"
TRAIN_TAR = "dataset.tar.gz"
# One work in TEST_SHARE of the training file is taken (a salted hash of its work key, so it is
# independent of HOLD_OUT's): about 2,250 strings, every file under 1 MiB.
TEST_SHARE = 9
TEST_SALT = "fresh_test:"


# The sets built before the fresh_test split, named (not globbed) so that a set built later does
# not change its rebuild: every work and string of these is left out of it.
TEST_PRIOR_SETS = tuple(
    REAL / name
    for name in (
        "citation_styles",
        "citation_fresh",
        "citation_holdout",
        "citation_plos",
        "citation_pmc",
        "citation_pmc_test",
        "citation_pmc_test2",
    )
)
# The fresh_test2 split leaves out every set built before it: those of fresh_test and fresh_test
# itself (scored once, a dev set since).
TEST2_PRIOR_SETS = (*TEST_PRIOR_SETS, REAL / "citation_fresh_test")
# The fresh_test3 split leaves out every set on the branch it was made from: fresh_test2's and
# the two built beside it that day (fresh_test2 itself, scored once, and pmc_test3).
TEST3_PRIOR_SETS = (*TEST2_PRIOR_SETS, REAL / "citation_fresh_test2", REAL / "citation_pmc_test3")
# The fresh_test4 split leaves out every citation_* set on main when it was made (de9e512):
# fresh_test3's and fresh_test3 itself (scored once, a dev set since).
TEST4_PRIOR_SETS = (*TEST3_PRIOR_SETS, REAL / "citation_fresh_test3")
# The fresh_test5 split leaves out every citation_* set on merge30 when it was made (4eecd4a):
# fresh_test4's, fresh_test4 itself (scored once, a dev set since) and pmc_test4, built beside it.
TEST5_PRIOR_SETS = (*TEST4_PRIOR_SETS, REAL / "citation_fresh_test4", REAL / "citation_pmc_test4")


@dataclass(frozen=True)
class Part:
    """One set built from LinkedBooks: where it is written, its split, the prefix of its entry
    ids, the files it reads, and whether it is a sample of works leaving out the prior sets. A
    sampled part takes the works whose salted hash is ``residue`` modulo ``TEST_SHARE``; the works
    of the ``merge_with`` residues (earlier samples) are grouped with it only so that a work
    printed two ways across two samples is left out, not split between two test sets.
    ``prior_sets`` are the sets whose works (and, for a sampled part, raw strings) it leaves out:
    every set built before it, named, not globbed, so a set built later cannot change its
    rebuild; kept on the part itself so that a new part names its own beside its residue."""

    folder: Path
    split: str
    prefix: str
    files: tuple[str, ...]
    sampled: bool
    residue: int = 0
    merge_with: tuple[int, ...] = ()
    prior_sets: tuple[Path, ...] = ()


PARTS = {
    "dev": Part(REAL / "citation_fresh", SPLIT, "f", LINKEDBOOKS_FILES, False, prior_sets=(STYLES_SET,)),
    "test": Part(
        REAL / "citation_fresh_test", "fresh_test", "k", (TRAIN_PATH,), True, prior_sets=TEST_PRIOR_SETS
    ),
    # made after fresh_test was scored once and became a dev set: the next residue of the hash
    "test2": Part(
        REAL / "citation_fresh_test2",
        "fresh_test2",
        "m",
        (TRAIN_PATH,),
        True,
        residue=1,
        merge_with=(0,),
        prior_sets=TEST2_PRIOR_SETS,
    ),
    # made after fresh_test2 was scored once and became a dev set: the residue after it
    "test3": Part(
        REAL / "citation_fresh_test3",
        "fresh_test3",
        "n",
        (TRAIN_PATH,),
        True,
        residue=2,
        merge_with=(0, 1),
        prior_sets=TEST3_PRIOR_SETS,
    ),
    # made after fresh_test3 was scored once and became a dev set: residue 3
    "test4": Part(
        REAL / "citation_fresh_test4",
        "fresh_test4",
        "q",
        (TRAIN_PATH,),
        True,
        residue=3,
        merge_with=(0, 1, 2),
        prior_sets=TEST4_PRIOR_SETS,
    ),
    # made after fresh_test4 was scored once and became a dev set: residue 4 (5-8 stay unread)
    "test5": Part(
        REAL / "citation_fresh_test5",
        "fresh_test5",
        "r",
        (TRAIN_PATH,),
        True,
        residue=4,
        merge_with=(0, 1, 2, 3),
        prior_sets=TEST5_PRIOR_SETS,
    ),
}

# Tokens printed without a space before them / after them (LinkedBooks stores tokens only).
_NO_SPACE_BEFORE = re.compile(r"^[.,;:!?)\]}»”’%]+[.,;:!?)\]}»”’\"]*$|^['\"]$")
_NO_SPACE_AFTER = re.compile(r"^[(\[{«“‘]+$")
_OPEN_QUOTE = ("“", "‘", '"', "'")
_CLOSE_QUOTE = re.compile(r"[”’\"']")
_CLOSE_DOUBLE = re.compile(r"[”\"]")
_INITIAL = re.compile(r"^[A-Z][a-z]?$")
_OPEN = ("«", "“", "‘", '"', "(")
_IN_WORD = re.compile(r"(?i)^(?:in|dans|en|im):?$")
# Titles of one author and year this alike (rapidfuzz ratio of the normalised titles) are one
# work printed with an OCR slip ("República"/"Repubblica", "Minere"/"Miniere", "allafine").
SAME_WORK_RATIO = 90
# A short title is compared with a longer one's head this strictly ("Nel regno dei poveri" ...).
SAME_HEAD_RATIO = 95
_EDITED_BY = re.compile(r"(?i)^\(?\s*(?:a\s+cura\s+di|ed\.|eds\.|edited\s+by|hrsg\.?\s*v\.|hg\.\s*v\.)\s*")


@dataclass
class Token:
    text: str
    field: str  # LinkedBooks' task-1 tag: author, title, year, conjunction, ...


def detokenise(tokens: list[str]) -> str:
    """The printed string from LinkedBooks' tokens: no space before closing punctuation or after
    an opening bracket or quote, hyphens and apostrophes joined to both neighbours."""
    out = ""
    glue = True
    for tok in tokens:
        if not out or glue or _NO_SPACE_BEFORE.match(tok) or tok in ("-", "’", "'"):
            out += tok
        else:
            out += " " + tok
        glue = bool(_NO_SPACE_AFTER.match(tok)) or tok in ("-", "’", "'")
    return out.strip()


def read_references(text: str) -> list[list[Token]]:
    """LinkedBooks' CoNLL file (CR line ends): ``token task1 task2 task3``; a reference runs from
    task-3 ``b-r`` to ``e-r``."""
    refs: list[list[Token]] = []
    cur: list[Token] = []
    for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n"):
        parts = line.split(" ")
        if len(parts) != 4 or parts[0] == "-DOCSTART-":
            continue
        tok, field, _, bound = parts
        if bound == "b-r":
            cur = []
        cur.append(Token(tok, field))
        if bound == "e-r":
            refs.append(cur)
            cur = []
    return refs


def _runs(tokens: list[Token], field: str) -> list[tuple[int, int]]:
    """(start, end) of each run of consecutive tokens of one field."""
    out: list[tuple[int, int]] = []
    for i, t in enumerate(tokens):
        if t.field == field:
            if out and out[-1][1] == i:
                out[-1] = (out[-1][0], i + 1)
            else:
                out.append((i, i + 1))
    return out


def title_of(tokens: list[Token]) -> tuple[str, int]:
    """The cited work's title and how many separate title fields the annotation has.

    LinkedBooks tags the journal or volume as ``title`` too: after ``in`` (a ``conjunction``
    token), in guillemets or double quotes right after the title ("..., « Recercare », X", "...,
    “Annali ...”"), or after the closing quote of a quoted article title ("“Contemporary Satire
    ...” Publications of the MLA", "«Gut strings», Early Music"). The
    work's title is the first title run up to such a part; a second title run not introduced by
    ``in`` counts as a second title field (the audit's ``titles_run_together``)."""
    runs = _runs(tokens, "title")
    if not runs:
        return "", 0
    start, end = runs[0]
    words = [t.text for t in tokens[start:end]]
    if words[0] in _OPEN_QUOTE:
        for j in range(1, len(words)):
            if _closes(words[0], words, j):
                words = words[: j + 1]
                break
    elif words[0] == "«":
        words = next((words[: j + 1] for j in range(1, len(words)) if "»" in words[j]), words)
    else:
        words = next((words[:j] for j in range(1, len(words)) if _opens_container(words, j)), words)
    fields = 1 + sum(not _introduced(tokens, s) for s, _ in runs[1:])
    return clean_title(detokenise(words)), fields


def _opens_container(words: list[str], j: int) -> bool:
    """Whether ``words[j]`` opens the journal or volume glued after an unquoted title: a « ("...,
    « Recercare »"), or a double quote after a comma ("... qualche problema, “Annali dell’Istituto
    ...”", "... ufficiali,\" Archivio Veneto”")."""
    word = words[j]
    if word == "«":
        return True
    if word.lstrip(",") not in ("“", '"') or not (word.startswith(",") or words[j - 1].endswith(",")):
        return False
    # a quoted phrase the title goes on after ("Stati padani, “Stato del Rinascimento”: problemi
    # di ricerca") is part of it
    close = next((k for k in range(j + 1, len(words)) if _CLOSE_DOUBLE.search(words[k])), None)
    after = words[close + 1] if close is not None and close + 1 < len(words) else ""
    return not (close is not None and (":" in words[close] or after.startswith(":")))


def _closes(opener: str, words: list[str], j: int) -> bool:
    """Whether ``words[j]`` closes a title opened by ``opener``. A double quote closes on a
    double quote (or ’’); a single quote on a ’ or ' that is not an elision or a possessive
    inside the title ("Canaletto’s Views", "dell’Istituto", "de’Benintendi"): one followed by
    punctuation, carrying punctuation itself, ending the run, or after a number."""
    word = words[j]
    if opener in ("“", '"'):
        return bool(_CLOSE_DOUBLE.search(word)) or "’’" in word  # ’’ printed for ”
    if not _CLOSE_QUOTE.search(word):
        return False
    if word.strip("’'") or j + 1 == len(words):
        return True  # "’," / ".’": the quote with punctuation
    # an elision follows a letter ("de’"); a quote after a number closes ("1509-1529’journal")
    return not words[j + 1][:1].isalnum() or not words[j - 1][-1:].isalpha()


def _introduced(tokens: list[Token], start: int) -> bool:
    """Whether the title run at ``start`` is a container: the last word before it, its
    editor's name skipped ("In Gaspar Contareno, The Commonwealth ..."), is "in" (tagged
    ``conjunction``, sometimes left untagged ``o``)."""
    before = [
        t
        for t in tokens[:start]
        if not _NO_SPACE_BEFORE.match(t.text) and t.text not in _OPEN and t.field != "author"
    ]
    return bool(before) and (before[-1].field == "conjunction" or _IN_WORD.match(before[-1].text) is not None)


def edited_volumes(tokens: list[Token]) -> list[tuple[str, str]]:
    """(volume title, editor surname) of each container the entry prints with its editor:
    "in <title run>, a cura di G. Cavallo" / "In <title run>, ed. Lauro Martines"."""
    out = []
    for s, e in _runs(tokens, "title")[1:]:
        if not _introduced(tokens, s):
            continue
        after = []
        for t in tokens[e:]:
            if t.field != "author":
                break
            after.append(t.text)
        text = detokenise(after)
        m = _EDITED_BY.match(text)
        if not m or text[m.end() :].lower().startswith("dello stesso"):
            continue
        editor = first_surname(text[m.end() :])
        title = clean_title(detokenise([t.text for t in tokens[s:e]]))
        if editor and title:
            out.append((title, editor))
    return out


def style_of(tokens: list[Token]) -> str:
    """The author style, from the shape of the first author as printed (first match wins):
    ``title_first`` (no author before the title), ``initials_first`` ("C. Agnoletti"),
    ``surname_comma_given`` ("Moore, Andrew.": Chicago / MLA), ``surname_initials`` ("Ackerman
    J. S.,", "Albasini C.,"), ``given_surname`` ("Patrizio Barbieri,"), else ``other``. An author
    field of punctuation alone (", Romanus bilinguis ...") prints no author: ``title_first``."""
    first_title = next((i for i, t in enumerate(tokens) if t.field == "title"), len(tokens))
    author = [t.text for t in tokens[:first_title] if t.field == "author"]
    words = [w for w in author if w not in (".", ",", "-", ";")]
    if not words:  # no author, or only a stray "." or "," tagged as one (the training file)
        return "title_first"
    text = detokenise(author)
    if _INITIAL.match(words[0]) and len(words) > 1:
        return "initials_first"
    if _FULL_NAME.match(text):
        return "surname_comma_given"
    if len(words) > 1 and _INITIAL.match(words[1]):
        return "surname_initials"
    if len(words) > 1 and words[0][:1].isupper() and words[1][:1].isupper():
        return "given_surname"
    return "other"


def _names(author: str) -> frozenset[str]:
    """The folded words (three letters or more) of the first author as printed: "Brusatin
    Manlio" and "Manlio Brusatin" give the same set, whichever word ``first_surname`` took."""
    first = re.split(r"\s*(?:,|;|&|\band\b|\be\b|\bet\b|\bund\b)\s*", author.strip(" ,.;-"))[0]
    return frozenset(w for w in norm(first).split() if len(w) >= 3)


# Cached like ``set_norm``: ``merge_works`` folds the same surnames millions of times.
_fold = cache(fold)


def _same_author(a: dict, b: dict) -> bool:
    """The same first author: equal surnames, or one's surname among the other's name words."""
    sa, sb = _fold(a["surname"]), _fold(b["surname"])
    return sa == sb or (bool(sa) and bool(sb) and (norm(sa) in b["names"] or norm(sb) in a["names"]))


def _extends(short: str, long_: str) -> bool:
    """Whether the title ``long_`` is ``short`` with more added after a punctuation mark (a
    subtitle: "Venezia nel Settecento. Stato, architettura" + ", territorio")."""
    ns = norm(short)
    if len(ns.split()) < 3:
        return False
    for m in re.finditer(r"[.,:;]\s", long_):
        head = norm(long_[: m.start()])
        if len(head) >= len(ns):
            return fuzz.ratio(ns, head) >= SAME_HEAD_RATIO
    return False


def same_work(a: dict, b: dict) -> bool:
    """Whether two title groups are one work printed two ways: the same first author (surname
    folded, or one's surname among the other's name words: "Brusatin Manlio" / "M. Brusatin";
    both without an author counts as the same), no two different years (another edition or
    volume), and titles equal up to OCR slips (ratio >= SAME_WORK_RATIO, titles of 15 characters
    or more) or one title, of three words or more, the other's head before a punctuation mark,
    with a subtitle added. Two different subtitles after one head ("Storia dell'arte marciana:
    l'architettura" / ": sculture") stay apart."""
    if not _same_author(a, b):
        return False
    if a["year"] and b["year"] and a["year"] != b["year"]:
        return False
    ta, tb = norm(a["title"]), norm(b["title"])
    if min(len(ta), len(tb)) >= 15 and fuzz.ratio(ta, tb) >= SAME_WORK_RATIO:
        return True
    short, long_ = (a["title"], b["title"]) if len(ta) <= len(tb) else (b["title"], a["title"])
    return _extends(short, long_)


def merge_works(works: dict[str, list[dict]]) -> dict[str, list[dict]]:
    """Title groups merged into works by ``same_work`` (on each group's most common title,
    surname and year; transitively), keyed by the smallest key of the merged groups. The source
    is OCR'd: without this one work printed "La República di Venezia" and "La Repubblica di
    Venezia" is two works, one of them perhaps held out, and a correct match counts as wrong."""
    keys = sorted(works)
    rep = {}
    for k in keys:
        group = works[k]
        years = Counter(g["year"] for g in group if g["year"])
        rep[k] = {
            "title": _pick(Counter(g["title"] for g in group)),
            "surname": _pick(Counter(g["surname"] for g in group if g["surname"]) or Counter({"": 1})),
            "year": sorted(years.items(), key=lambda kv: (-kv[1], kv[0]))[0][0] if years else None,
            "names": frozenset().union(*(_names(g["author"]) for g in group)),
        }
    parent = {k: k for k in keys}

    def root(k: str) -> str:
        while parent[k] != k:
            k = parent[k]
        return k

    # candidate pairs: groups sharing a surname or a name word (no author: one bucket)
    bucket: dict[str, list[str]] = defaultdict(list)
    for k in keys:
        for name in {norm(fold(rep[k]["surname"]))} | rep[k]["names"]:
            bucket[name].append(k)
    for name in sorted(bucket):
        group = bucket[name]
        for i, a in enumerate(group):
            for b in group[i + 1 :]:
                if root(a) != root(b) and same_work(rep[a], rep[b]):
                    ra, rb = sorted((root(a), root(b)))
                    parent[rb] = ra
    merged: dict[str, list[dict]] = defaultdict(list)
    for k in keys:
        merged[root(k)].extend(works[k])
    return merged


def styles_titles(data: Path) -> set[str]:
    """Normalised titles of tests/data/real/citation_styles (entries and seeds): works already
    seen there are left out of the fresh set."""
    seen: set[str] = set()
    for path in sorted(data.glob("entries.*.jsonl.gz")):
        for line in gzip.decompress(path.read_bytes()).decode("utf-8").splitlines():
            seen.add(norm(json.loads(line)["title"]))
    for path in sorted(data.glob("seeds.*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            seen.add(norm(json.loads(line)["title"]))
    seen.discard("")
    return seen


def cited_seed(sid: str, title: str, group: list[dict], source: str) -> dict:
    """The seed of a cited work: its most common title form (chosen by the caller), first-author
    surname and year (ties to the earliest year). Shared with ``builders.holdout`` so that
    every held-out set makes its seeds the same way."""
    surname = _pick(Counter(g["surname"] for g in group if g["surname"]) or Counter({"": 1}))
    years = Counter(g["year"] for g in group if g["year"])
    year = sorted(years.items(), key=lambda kv: (-kv[1], kv[0]))[0][0] if years else None
    return {
        "arxiv_id": sid,
        "title": title,
        "published": f"{year}-01-01" if year else None,
        "first_author": surname or None,
        "source": source,
        "cited": True,
    }


def seed_works(
    items: list[dict], seen: set[str], counts: Counter, *, source: str, split: str, seen_count: str
) -> tuple[dict[str, list[dict]], list[dict], list[dict]]:
    """Group the kept references into works (one key per title, near-identical keys merged), give
    each work an id ``w`` plus five digits in key order, a seed unless the work is held out as uncited, and
    one entry per reference (with the builder's ``_rule`` and the reference as ``_item``). Works
    a prior set already holds are left out and counted under ``seen_count``. Shared by every
    builder after ``builders.styles`` so that their works, seeds and gold are made the same
    way; returns the works too, for the container step that follows."""
    works: dict[str, list[dict]] = defaultdict(list)
    for it in items:
        works[_work_key(it["title"])].append(it)
    before = len(works)
    works = merge_works(works)
    counts["works_merged"] = before - len(works)
    seeds: list[dict] = []
    entries: list[dict] = []
    n = 0
    for key in sorted(works):
        group = works[key]
        if any(g.get("_earlier_sample") for g in group):
            # grouped only to find works of an earlier test sample: none of its strings (they are
            # that set's) nor a string of one work printed two ways across the two samples
            counts["merged_with_earlier_sample"] += sum(not g.get("_earlier_sample") for g in group)
            continue
        title = _pick(Counter(g["title"] for g in group))
        if any(norm(g["title"]) in seen for g in group):
            counts[seen_count] += len(group)
            continue
        rule = rule_category(title, max(g["fields"] for g in group if g["title"] == title))
        n += 1
        sid = f"w{n:05d}"
        cited = _digest(key) % HOLD_OUT != 0
        if cited:
            seeds.append(cited_seed(sid, title, group, source))
        for g in group:
            entries.append(
                {
                    "id": "",
                    "citing": g["citing"],
                    "raw": g["raw"],
                    "style": g["style"],
                    "source": source,
                    "split": split,
                    "gold": sid if cited else None,
                    "title": g["title"],
                    "_rule": rule,
                    "_item": g,
                }
            )
    return works, seeds, entries


def number_and_audit(
    entries: list[dict], seeds: list[dict], errata: list[dict] | None, *, prefix: str, split: str
) -> list[dict]:
    """Sort the entries by citing document and string, number them ``<prefix>00001``..., pop the
    builder's ``_rule`` and return the audit rows (the rules' rows plus the hand errata)."""
    entries.sort(key=lambda e: (e["citing"], e["raw"]))
    for i, e in enumerate(entries, start=1):
        e["id"] = f"{prefix}{i:05d}"
    rule_of = {e["id"]: e.pop("_rule") for e in entries}
    return audit_rows(
        entries,
        {k: v for k, v in rule_of.items() if v},
        errata or [],
        {split: {s["arxiv_id"] for s in seeds if s["cited"]}},
    )


def container_seeds(
    forms: dict[str, Counter], editors: dict[str, Counter], years: dict[str, Counter]
) -> list[dict]:
    """Seeds nobody cites for edited volumes (key -> printed forms, editors, years), ids
    ``c`` plus five digits in key order, the editor as first author: a chapter must not resolve to the
    volume it appeared in."""
    seeds = []
    for i, key in enumerate(sorted(forms), start=1):
        year = sorted(years[key].items(), key=lambda kv: (-kv[1], kv[0]))[0][0]
        seeds.append(
            {
                "arxiv_id": f"c{i:05d}",
                "title": _pick(forms[key]),
                "published": f"{year}-01-01" if year else None,
                "first_author": _pick(editors[key]),
                "source": "container",
                "cited": False,
            }
        )
    return seeds


def read_linkedbooks(repo: Path, path: str) -> str:
    """One LinkedBooks file at the pinned commit; the training file from the tar.gz of
    ``TRAIN_TAR_COMMIT``, after checking its git blob id is the one the pinned commit names."""
    if path != TRAIN_PATH:
        return git_show(repo, LINKEDBOOKS_COMMIT, path).decode("utf-8")
    data = git_show(repo, TRAIN_TAR_COMMIT, TRAIN_TAR)
    try:
        with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
            member = tar.extractfile(TRAIN_PATH.rsplit("/", 1)[-1])
            body = member.read() if member else b""
    except (tarfile.TarError, KeyError, EOFError) as exc:
        raise ValueError(
            f"{TRAIN_TAR} at {TRAIN_TAR_COMMIT[:12]} holds no readable training file ({exc})"
        ) from None
    blob = hashlib.sha1(b"blob %d\0" % len(body) + body).hexdigest()
    if blob != TRAIN_BLOB:
        raise ValueError(
            f"{TRAIN_TAR} at {TRAIN_TAR_COMMIT[:12]}: training file is blob {blob[:12]}, not {TRAIN_BLOB[:12]}"
        )
    return body.decode("utf-8")


def prior_raws(sets: tuple[Path, ...]) -> set[str]:
    """The raw strings of the sets built before (their entries files)."""
    raws: set[str] = set()
    for folder in sets:
        for path in sorted(folder.glob("entries.*.jsonl.gz")):
            raws.update(json.loads(line)["raw"] for line in gzip.decompress(path.read_bytes()).splitlines())
    return raws


def share_of(title: str) -> int:
    """The residue of a work's salted hash (by its work key, so all its strings together):
    ``fresh_test`` is residue 0, ``fresh_test2`` residue 1, ``fresh_test3`` residue 2,
    ``fresh_test4`` residue 3, ``fresh_test5`` residue 4."""
    return _digest(TEST_SALT + _work_key(title)) % TEST_SHARE


def in_test_share(title: str, residue: int = 0) -> bool:
    """Whether a work is in the test sample of ``residue`` (0: fresh_test's)."""
    return share_of(title) == residue


def _people(tokens: list[Token], raw: str) -> dict:
    """The first author's surname, the author field as printed and the year of one reference."""
    author = detokenise([t.text for t in tokens if t.field == "author"])
    year = year_of(" ".join(t.text for t in tokens if t.field in ("year", "date")), raw)
    return {"surname": first_surname(author), "author": author, "year": year}


def build(
    repo: Path,
    seen: set[str],
    errata: list[dict] | None = None,
    part: Part = PARTS["dev"],
    read_raws: set[str] | None = None,
) -> tuple[list[dict], list[dict], list[dict], dict]:
    """Seeds, entries (with ``_rule``), audit rows and the conversion counts of one part; a
    sampled part keeps the works of its residue of ``TEST_SHARE`` and no string of ``read_raws``."""
    counts: Counter = Counter()
    items: list[dict] = []
    earlier: list[dict] = []  # the references of the merge_with samples (never entries here)
    raws: set[str] = set()
    for path in part.files:
        name = path.rsplit("/", 1)[-1]
        n = -1  # the reference's place among the file's titled, distinct ones (its block)
        for tokens in read_references(read_linkedbooks(repo, path)):
            counts["references"] += 1
            raw = detokenise([t.text for t in tokens])
            title, fields = title_of(tokens)
            if len(norm(title).split()) < 2:
                counts["no_title"] += 1  # archival sources, untitled or one-word titles
                continue
            if raw in raws:
                counts["duplicate_raw"] += 1
                continue
            raws.add(raw)
            n += 1
            share = share_of(title) if part.sampled else part.residue
            if share in part.merge_with:
                earlier.append({"title": title, "raw": raw, "fields": fields, **_people(tokens, raw)})
                continue
            if share != part.residue:
                continue
            if read_raws and raw in read_raws:
                counts["raw_in_prior_sets"] += 1  # read in a set built before: no test string
                continue
            items.append(
                {
                    "file": name,
                    "citing": f"linkedbooks:{name}#{n // BLOCK:03d}",
                    "raw": raw,
                    "title": title,
                    "fields": fields,
                    **_people(tokens, raw),
                    "style": style_of(tokens),
                    "volumes": edited_volumes(tokens),
                }
            )
    if part.sampled:
        counts["references_taken"] = len(items)
    works, seeds, entries = seed_works(
        items + [{**it, "_earlier_sample": True} for it in earlier],
        seen,
        counts,
        source="linkedbooks",
        split=part.split,
        seen_count="seen_in_prior_sets" if part.sampled else "seen_in_citation_styles",
    )
    seeds += _uncited_volumes(works, entries, items, seen)
    rows = number_and_audit(entries, seeds, errata, prefix=part.prefix, split=part.split)
    return seeds, entries, rows, dict(counts)


def _uncited_volumes(works: dict, entries: list[dict], items: list[dict], seen: set[str]) -> list[dict]:
    """Edited volumes nobody cites, with their editor as first author: a chapter must not resolve
    to the volume it appeared in. Pops each entry's ``_item``."""
    work_titles = {norm(g["title"]) for group in works.values() for g in group}
    forms: dict[str, Counter] = defaultdict(Counter)
    editors: dict[str, Counter] = defaultdict(Counter)
    years: dict[str, Counter] = defaultdict(Counter)
    kept = {e.pop("_item")["raw"] for e in entries}
    for it in items:
        for title, editor in it["volumes"] if it["raw"] in kept else ():
            key = norm(title)
            if (
                len(key.split()) >= 3
                and key not in work_titles
                and key not in seen
                and not venue_designation(title)
            ):
                forms[key][title] += 1
                editors[key][editor] += 1
                years[key][it["year"] or 0] += 1
    return container_seeds(forms, editors, years)


def write_files(out: Path, split: str, seeds: list[dict], entries: list[dict], rows: list[dict]) -> None:
    """A set's three files, as every builder writes them: the audit and seeds as JSON lines, the
    entries gzipped with no name or time in the header, so a rebuild gives the same bytes."""
    out.mkdir(parents=True, exist_ok=True)
    with open(out / "audit.jsonl", "w", encoding="utf-8") as fh:
        for row in rows:
            fh.write(json.dumps(row, ensure_ascii=False, sort_keys=True) + "\n")
    with open(out / f"seeds.{split}.jsonl", "w", encoding="utf-8") as fh:
        for seed in seeds:
            fh.write(json.dumps(seed, ensure_ascii=False, sort_keys=True) + "\n")
    with (
        open(out / f"entries.{split}.jsonl.gz", "wb") as raw,
        gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) as gz,
    ):
        for e in entries:
            gz.write((json.dumps(e, ensure_ascii=False, sort_keys=True) + "\n").encode("utf-8"))


def write_part(
    out: Path, split: str, seeds: list[dict], entries: list[dict], rows: list[dict], counts: dict
) -> None:
    """The part's three files (``write_files``) and its conversion summary on stderr."""
    write_files(out, split, seeds, entries, rows)
    by_style: dict[str, Counter] = defaultdict(Counter)
    for e in entries:
        for key in (e["style"], "overall"):
            by_style[key]["entries"] += 1
            by_style[key]["gold_pairs"] += e["gold"] is not None
    print(
        json.dumps(
            {
                "conversion": counts,
                "entries": len(entries),
                "seeds": len(seeds),
                "works": len({e["title"] for e in entries}),
                "by_style": {k: dict(v) for k, v in sorted(by_style.items())},
                "audit": dict(Counter(r["category"] for r in rows)),
            }
        ),
        file=sys.stderr,
    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument(
        "--linkedbooks",
        type=Path,
        required=True,
        help="git dir of dhlab-epfl/LinkedBooksDeepReferenceParsing",
    )
    ap.add_argument(
        "--part",
        choices=sorted(PARTS),
        default="dev",
        help=(
            "dev: the fresh set from the validation and test files, tests/data/real/citation_fresh "
            "(read and tuned on since resolve-11); test: the fresh_test split, one work in "
            f"{TEST_SHARE} of the training file, tests/data/real/citation_fresh_test (scored once, a "
            "dev set since); test2: the fresh_test2 split, another ninth of the training file's "
            "works, tests/data/real/citation_fresh_test2 (scored once, a dev set since); test3: the "
            "fresh_test3 split, a third ninth, tests/data/real/citation_fresh_test3 (scored once, "
            "a dev set since); test4: the fresh_test4 split, a fourth ninth, "
            "tests/data/real/citation_fresh_test4 (scored once, a dev set since); test5: the "
            "fresh_test5 split, a fifth ninth, tests/data/real/citation_fresh_test5 (to be scored "
            "once), each leaving out every "
            "work and string of the citation_* sets built before it (default: %(default)s)"
        ),
    )
    ap.add_argument("--out", type=Path, default=None, help="where to write (default: the part's folder)")
    ap.add_argument(
        "--errata",
        type=Path,
        default=None,
        help="the hand errata of the label audit, read from the strings (default: errata.jsonl in the part's folder)",
    )
    args = ap.parse_args(argv)
    part = PARTS[args.part]
    args.out = args.out or part.folder
    args.errata = args.errata or part.folder / "errata.jsonl"
    try:
        errata = read_errata(args.errata)
        seen = set().union(*(styles_titles(p) for p in part.prior_sets))
        # the dev set predates the rule on raw strings: it leaves out works only
        raws = prior_raws(part.prior_sets) if part.sampled else None
        seeds, entries, rows, counts = build(args.linkedbooks, seen, errata, part, raws)
    except (OSError, ValueError) as exc:
        print(f"builders.fresh: {exc}", file=sys.stderr)
        return 2
    except subprocess.CalledProcessError as exc:  # a wrong directory or a missing commit
        snapshot = f"{TRAIN_TAR_COMMIT[:12]}:{TRAIN_TAR}" if part.sampled else LINKEDBOOKS_COMMIT[:12]
        print(
            f"builders.fresh: cannot read {snapshot} in {args.linkedbooks} (git exit {exc.returncode})",
            file=sys.stderr,
        )
        return 2
    write_part(args.out, part.split, seeds, entries, rows, counts)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
