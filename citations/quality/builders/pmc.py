"""Build tests/data/real/citation_pmc/ (a FIFTH set of real, labelled reference strings, now a dev
set) and, from other shares of the same file, its TEST splits citation_pmc_test/ (scored once,
read since), citation_pmc_test2/ (scored once, resolve-15), citation_pmc_test3/ (scored once,
resolve-16), citation_pmc_test4/ (scored once, resolve-18) and citation_pmc_test5/ (scored once,
resolve-21).

    python -m reflong.citations.quality.builders.pmc --glutton DIR [--share K] [--split NAME] [--out DIR] [--errata FILE]

DIR is a git directory of a snapshot of github.com/kermitt2/biblio-glutton (as the ``fetch``
tool leaves it); its DOI-matching evaluation file is read with ``git show COMMIT:PATH`` at the
commit pinned below, so the same snapshot gives byte-identical output.

Why this set exists: the four other sets (citation_styles, citation_fresh, citation_holdout,
citation_plos) have all been read or tuned on. This one comes from a source never used and
from the place our pipeline takes its strings from, PDFs: biblio-glutton's 17,015 reference/DOI
pairs, made by its author from the "PMC 1943 sample" (1,943 PubMed Central articles of 1,943
different journals, each with its PDF and its NLM XML). The raw string is the reference as
GROBID extracted it from the PDF (its line breaks and the words hyphenated across them
included); the label is what the article's NLM XML records for that reference: its DOI, PMID,
article title and first author, aligned to the PDF string by a soft match. So the title, the
first author and the work (the DOI) come from the publisher's structured record, not from the
printed string; one journal per article gives the publishers' house styles side by side
(Vancouver, name-year, APA, BMC's "Surname AB: Title. J 2008, 28:1-9.", ...). The set keeps the
citation_styles format, so bench/resolve_styles.py scores it with ``--splits pmc``.

Shares (``--share K``): the file's DOIs are cut into SHARE parts by a hash of the DOI
(``_digest(doi) % SHARE == K``). Share 0 (the default) is the dev set, tests/data/real/citation_pmc,
split ``pmc``, rebuilt byte for byte as committed; its misses have been read and the resolver is
tuned on it. Share 1 is the first TEST split, tests/data/real/citation_pmc_test, split
``pmc_test``: built with the naive baseline only, scored ONCE with our resolver (resolve-14),
read and tuned on since (resolve-15).
It leaves out every work of the dev share too, so no seed title is shared between the two,
and every raw string a set built before holds (the file aligned a few PDF strings to two records,
one DOI in each share), so no string read in the dev set is a test string. Share 1 has been
scored once and its misses read, so share 2 is a SECOND test split (scored once, resolve-15),
tests/data/real/citation_pmc_test2, split ``pmc_test2`` (entry ids ``u...``), built the same way
and leaving out every work and string of shares 0 and 1 as well. Share 2 has been scored once
too, so share 3 is a THIRD test split, tests/data/real/citation_pmc_test3, split ``pmc_test3``
(entry ids ``v...``), built the same way and leaving out every work and string of every set on
main before it (shares 0-2, the four older sets and LinkedBooks' citation_fresh_test); scored
once (resolve-16), a dev set since. Share 4 is the FOURTH, held-out test split,
tests/data/real/citation_pmc_test4, split ``pmc_test4`` (entry ids ``x...``: ``w`` is every set's
seed-id letter), leaving out every work and string of all eleven citation_* sets on main before
it; scored once (resolve-18), a dev set since. Share 5 is the FIFTH and last test split,
tests/data/real/citation_pmc_test5, split ``pmc_test5`` (entry ids ``y...``), leaving out every
work and string of all fourteen citation_* sets on main before it; scored once by the lead
(resolve-21), a dev set since (resolve-22 read its misses). ``--split`` renames the written split (the share's own by default).

What is written (format: SOURCES.md there): ``seeds.<split>.jsonl``, ``entries.<split>.jsonl.gz``,
``audit.jsonl`` (the audit rules' rows and the hand errata's, ``errata.jsonl``).
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
import zlib
from collections import Counter, defaultdict
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from rapidfuzz import fuzz

from reflong.citations.quality.builders.holdout import (
    PLACE_RATIO,
    assemble,
    run_builder,
    style_of,
    title_start,
)
from reflong.citations.quality.builders.styles import _digest, _work_key, clean_title, git_show, squash
from reflong.citations.quality.builders.styles import set_norm as norm
from reflong.citations.quality.labelled_sets import REAL

GLUTTON_COMMIT = "acda234c54b96889fabcfef401adb8185e92aabe"
# the evaluation file of biblio-glutton's matching benchmark (doc/Benchmarking.md there); last
# changed in d6238552ca030c1245431fb8ce94faf9317c3362 (2019-01-02)
GLUTTON_PATH = "doc/references-doi-matching.json.gz"
PRIOR_SETS = (
    REAL / "citation_styles",
    REAL / "citation_fresh",
    REAL / "citation_holdout",
    REAL / "citation_plos",
)
SPLIT = "pmc"
SOURCE = "glutton"
# The file names no citing article (its references are in article order, but nothing marks where
# one article ends): every entry is cited from the sample as a whole.
CITING = "glutton:pmc_sample_1943"
# One cited work (DOI) in SHARE is taken, by a hash of its DOI: keeps the set near 2,800 entries
# and every file under 1 MiB, and keeps every string of a DOI together (works cited twice).
SHARE = 6


@dataclass(frozen=True)
class Share:
    """One share of the file's DOIs as a set: where it is written, its split name, the prefix of
    its entry ids and the sets whose works it leaves out (every set built before it)."""

    folder: Path
    split: str
    prefix: str
    prior_sets: tuple[Path, ...]


# What was built between one share and the next, so each share leaves out every set before it:
# the four older sets before the dev share, the dev share before the first test share, and so
# on (LinkedBooks' test splits were built between the shares). Named, not globbed: a set built
# later never changes a share's rebuild.
_BUILT_BEFORE_SHARE: dict[int, tuple[Path, ...]] = {
    0: PRIOR_SETS,
    1: (REAL / "citation_pmc",),
    2: (REAL / "citation_pmc_test",),
    3: (REAL / "citation_pmc_test2", REAL / "citation_fresh_test"),
    4: (REAL / "citation_pmc_test3", REAL / "citation_fresh_test2", REAL / "citation_fresh_test3"),
    5: (REAL / "citation_fresh_test4", REAL / "citation_pmc_test4", REAL / "citation_fresh_test5"),
}


def _prior(share: int) -> tuple[Path, ...]:
    """Every set built before ``share``, in the order they were built."""
    return tuple(p for k in range(share + 1) for p in _BUILT_BEFORE_SHARE[k])


# The dev share (read, tuned on) and the five test shares (each scored once, then read: dev
# sets too). Each share leaves out the works and strings of every set built before it, so a
# title or string read or tuned on is never a test seed. Entry ids: each share its own letter,
# one no other set uses for an entry or a seed (``w`` is every set's seed-id letter, so the
# fourth share took ``x`` and the fifth ``y``).
SHARES = {
    0: Share(REAL / "citation_pmc", SPLIT, "g", _prior(0)),
    1: Share(REAL / "citation_pmc_test", "pmc_test", "t", _prior(1)),
    2: Share(REAL / "citation_pmc_test2", "pmc_test2", "u", _prior(2)),
    3: Share(REAL / "citation_pmc_test3", "pmc_test3", "v", _prior(3)),
    4: Share(REAL / "citation_pmc_test4", "pmc_test4", "x", _prior(4)),
    5: Share(REAL / "citation_pmc_test5", "pmc_test5", "y", _prior(5)),
}
# A word hyphenated across a PDF line break ("opti-\nmization", "hormone-\nregulated"): the lines
# are joined with no space and the hyphen kept, so no character of the PDF is lost or invented.
_LINE_HYPHEN = re.compile(r"(?<=\w-)[ \t]*\n\s*")


def raw_of(reference: str) -> str:
    """The printed reference as one line: a line break after a hyphen joins the lines with the
    hyphen kept, any other line break is a space, whitespace squashed."""
    return squash(_LINE_HYPHEN.sub("", reference))


# What may follow a title in the printed string as more of the same title: a word, perhaps after
# a comma, colon or dash ("... roots of Salvia miltiorrhiza", "... fiddler crab, Uca pugilator")
_GOES_ON = re.compile(r"^\s*[,:;\-\u2013\u2014]?\s*([^\W_][\w-]*)")
_FIRST_WORD = re.compile(r"\W*([\w-]+)")
# The shortest printed word read as the start of the journal's first word (the docstring of
# ``title_cut``): shorter ones ("p", "in") begin a title's italics as often as a journal.
MIN_JOURNAL_WORD = 3


def title_end(raw: str, title: str) -> int:
    """Where the XML's title ends in the printed string (-1: not found alike enough); a fuzzy
    place is carried to the end of the word it stops in."""
    at = raw.lower().find(title.lower())
    if at >= 0:
        return at + len(title)
    m = fuzz.partial_ratio_alignment(title.lower(), raw.lower(), score_cutoff=PLACE_RATIO)
    if m is None:
        return -1
    end = m.dest_end
    while end < len(raw) and (raw[end].isalnum() or raw[end] == "-"):
        end += 1
    return end


def title_cut(raw: str, title: str, journal: str) -> bool:
    """Whether the XML's title stops where the printed title goes on: the file's exporter kept
    an article title's text up to its first inline element, so a title with a species or gene
    name in italics is cut before it ("Phenotypic plasticity of" for "Phenotypic plasticity of
    Senecio vulgaris from contrasting habitat types"). A title printed with no punctuation before
    its journal ("... 3 children and 3 fetuses Journal of the Neurological Sciences, 41") is not
    cut: the word after it begins the journal's name the XML records (first words alike). A
    word of one or two letters after the title is no abbreviation of a journal's first word: the
    italics of "Replication and p intervals" (Perspectives on ...), "Synthesis, characterization
    and in vitro evaluation" (Int J Pharm) cut those titles."""
    if title[-1:] in "?!.)":
        return False
    end = title_end(raw, title)
    m = _GOES_ON.match(raw[end:]) if end >= 0 else None
    if m is None:
        return False
    word = m.group(1).lower().replace("-", "")
    j = _FIRST_WORD.match(journal)
    first = j.group(1).lower().replace("-", "") if j else ""
    # "journal" for "J Neurol Sci" (the record's abbreviation), "neurosci" for "Neuroscience"; a
    # one- or two-letter word ("p", "in") is the start of too many journals' names to tell
    alike = word.startswith(first) or (len(word) >= MIN_JOURNAL_WORD and first.startswith(word))
    return not (first and alike)


# A year as a reference prints it: not part of a page range or after a volume's colon
# ("Neuroreport 7, 1977-1981", "Lancet 342:1879-82"); "(1996)" is preferred where printed.
_PRINTED_YEAR = re.compile(r"(?<![\d:\-\u2013])((?:1[6-9]|20)\d\d)[a-z]?(?![\d\-\u2013])")
_PAREN_YEAR = re.compile(r"\(\s*((?:1[6-9]|20)\d\d)[a-z]?\s*\)")


def printed_year(raw: str, title: str) -> int | None:
    """The year printed outside the title (the source records no year of the cited work): in
    parentheses where there is one ("(2008) Echocardiographic ..."), else the first printed
    ("... J Neurosci 2008, 28(53):14329-40.")."""
    at = title_start(raw, title)
    rest = raw[:at] + " " + raw[at + len(title) :] if at >= 0 else raw
    m = _PAREN_YEAR.search(rest) or _PRINTED_YEAR.search(rest)
    return int(m.group(1)) if m else None


def unify_by_doi(kept: list[dict], counts: Counter) -> None:
    """One title per cited DOI: the XML files of different articles may record one work's title
    in different forms ("Gene ontology: tool for the unification of biology" and the same with
    PubMed's ". The Gene Ontology Consortium"; "DS14: standard assessment ..." and "Standard
    assessment ..."), which the works (grouped by title) would split into two seeds of one work.
    The form printed in every string of the DOI is taken (the most common first); when no form
    is, the entries keep their own."""
    by_doi: dict[str, list[dict]] = defaultdict(list)
    for it in kept:
        by_doi[it["doi"]].append(it)
    for doi in sorted(by_doi):
        group = by_doi[doi]
        forms = Counter(it["title"] for it in group)
        if len(forms) < 2:
            continue
        counts["dois_with_several_titles"] += 1
        ranked = sorted(forms.items(), key=lambda kv: (-kv[1], -len(kv[0]), kv[0]))
        form = next((t for t, _ in ranked if all(title_start(it["raw"], t) >= 0 for it in group)), None)
        if form is None:
            counts["dois_with_several_titles_kept"] += 1
            continue
        for it in group:
            counts["titles_unified"] += it["title"] != form
            it["title"] = form


def prior_raws(sets: tuple[Path, ...]) -> set[str]:
    """The raw strings of the sets built before (their entries files)."""
    raws: set[str] = set()
    for folder in sets:
        for path in sorted(folder.glob("entries.*.jsonl.gz")):
            raws.update(json.loads(line)["raw"] for line in gzip.decompress(path.read_bytes()).splitlines())
    return raws


def read_records(repo: Path) -> list[dict]:
    """The evaluation file's records, in file order."""
    data = git_show(repo, GLUTTON_COMMIT, GLUTTON_PATH)
    try:
        records = json.loads(gzip.decompress(data).decode("utf-8"))
    except (OSError, EOFError, zlib.error) as exc:
        raise ValueError(f"{GLUTTON_PATH} at {GLUTTON_COMMIT[:12]} is not a gzip file: {exc}") from exc
    if not isinstance(records, list) or not all(isinstance(r, dict) and "reference" in r for r in records):
        raise ValueError(f"{GLUTTON_PATH} at {GLUTTON_COMMIT[:12]} is not a list of reference records")
    return records


def build(
    repo: Path,
    seen: set[str],
    errata: list[dict] | None = None,
    *,
    share: int = 0,
    split: str = SPLIT,
    prefix: str = "g",
) -> tuple[list[dict], list[dict], list[dict], dict]:
    """Seeds, entries, audit rows and the conversion counts of one share of the DOIs."""
    records = read_records(repo)
    counts: Counter = Counter(references=len(records))
    kept: list[dict] = []
    raws: set[str] = set()
    read_raws = prior_raws(SHARES[share].prior_sets)
    for n, rec in enumerate(records):
        doi = (rec.get("doi") or "").lower()
        if _digest(doi) % SHARE != share:
            continue
        counts["references_taken"] += 1
        raw = raw_of(rec["reference"])
        if raw in read_raws:
            # a string a set built before holds, under another DOI (the file aligned one PDF
            # string to two records): it has been read there, so it is no held-out string
            counts["raw_in_prior_sets"] += 1
            continue
        title = clean_title(rec.get("atitle") or "")
        if len(norm(title).split()) < 2:
            counts["no_title"] += 1  # no article title in the XML, a one-word title
            continue
        if title_start(raw, title) < 0:
            # the XML's title is not printed in the PDF string (a soft-match misalignment: the
            # DOI and title of another reference, or a string GROBID cut before its title)
            counts["title_not_printed"] += 1
            continue
        if title_cut(raw, title, rec.get("jtitle") or ""):
            counts["title_cut"] += 1
            continue
        if raw in raws:
            counts["duplicate_raw"] += 1
            continue
        raws.add(raw)
        counts["line_hyphen_joins"] += len(_LINE_HYPHEN.findall(rec["reference"]))
        kept.append(
            {
                "citing": CITING,
                "n": n,
                "doi": doi,
                "raw": raw,
                "title": title,
                "fields": 1,
                "container": "",
                "editor": "",
                "surname": squash(rec.get("firstAuthor") or ""),
                "author": squash(rec.get("firstAuthor") or ""),
                "year": printed_year(raw, title),
            }
        )
    unify_by_doi(kept, counts)
    for it in kept:
        it["style"] = style_of(it["raw"], it["title"])
    dois: dict[str, set[str]] = defaultdict(set)
    for it in kept:
        dois[_work_key(it["title"])].add(it["doi"])
    # one title, several DOIs: one work to a title-only resolver (an erratum, a reprint), kept
    counts["titles_with_several_dois"] = sum(len(v) > 1 for v in dois.values())
    counts["without_first_author"] = sum(not it["surname"] for it in kept)
    counts["without_year"] = sum(it["year"] is None for it in kept)
    seeds, entries, rows = assemble(kept, counts, seen, errata, split=split, source=SOURCE, prefix=prefix)
    return seeds, entries, rows, dict(counts)


def share_options() -> argparse.ArgumentParser:
    """``--share`` and ``--split``, read before the shared command line: the share decides the
    defaults of ``--out`` and ``--errata`` and which sets' works are left out."""
    ap = argparse.ArgumentParser(add_help=False)
    ap.add_argument(
        "--share",
        type=int,
        choices=sorted(SHARES),
        default=0,
        help=(
            "which sixth of the DOIs (digest %% 6): 0 the dev set tests/data/real/citation_pmc, "
            "1 the first test split tests/data/real/citation_pmc_test (scored once, read since), "
            "2 the second test split tests/data/real/citation_pmc_test2 (scored once, resolve-15), "
            "3 the third test split tests/data/real/citation_pmc_test3 (scored once, resolve-16), "
            "4 the fourth test split tests/data/real/citation_pmc_test4 (scored once, resolve-18), "
            "5 the fifth test split tests/data/real/citation_pmc_test5 (scored once, resolve-21) "
            "(default: %(default)s)"
        ),
    )
    ap.add_argument(
        "--split",
        default=None,
        help="the split name written (default: the share's: pmc or pmc_test, pmc_test2 ... pmc_test5)",
    )
    return ap


def main(argv: list[str] | None = None) -> int:
    options = share_options()
    known, _ = options.parse_known_args(argv)
    share = SHARES[known.share]
    split = known.split or share.split
    return run_builder(
        argv,
        doc=__doc__,
        prog="builders.pmc",
        flag="glutton",
        repo_help="git dir of kermitt2/biblio-glutton",
        set_dir=share.folder,
        split=split,
        prior_sets=share.prior_sets,
        build=partial(build, share=known.share, split=split, prefix=share.prefix),
        snapshot=f"{GLUTTON_COMMIT[:12]}:{GLUTTON_PATH}",
        parents=(options,),
    )


if __name__ == "__main__":
    raise SystemExit(main())
