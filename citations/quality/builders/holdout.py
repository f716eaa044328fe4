"""Build tests/data/real/citation_holdout/: a THIRD held-out set of real, labelled reference strings.

    python -m reflong.citations.quality.builders.holdout --scielo DIR [--out DIR] [--errata FILE]

DIR is a git directory of a snapshot of github.com/scieloorg/packtools (as the ``fetch`` tool
leaves it); files are read with ``git show COMMIT:PATH`` at the commit pinned below, so the same
snapshot gives byte-identical output.

Why this set exists: tests/data/real/citation_styles (GROBID, AnyStyle, CORA) has been tuned on
and tests/data/real/citation_fresh (LinkedBooks) is humanities only. This set comes from a
DIFFERENT source and other fields: the reference lists of 74 articles of 38 SciELO journals
(public health, medicine, nursing, biology, botany, agronomy, veterinary parasitology, economics,
education, information science, linguistics, administration, history), as the SciELO
Publishing Schema (JATS) files that packtools keeps as test samples hold them. Each ``<ref>`` has
a ``<mixed-citation>`` (the reference as the article prints it: Vancouver, ABNT, APA, name-year
biology styles, numbered chemistry styles, ...) and beside it an ``<element-citation>`` with the
fields the journal's XML producers marked up (``article-title``, ``chapter-title``, ``source``,
authors, editors, year). The raw string is the first, the label the second: titles annotated by
the source's curators, never by our parser. The set keeps the citation_styles format, so
bench/resolve_styles.py scores it with ``--splits holdout``.

What is written (format: SOURCES.md there):
- ``seeds.holdout.jsonl``: one seed per cited work (a quarter held out), plus edited volumes
  nobody cites;
- ``entries.holdout.jsonl.gz``: the raw strings with style, source, gold seed (or null);
- ``audit.jsonl``: the audit rules' rows and the hand errata's (``errata.jsonl``, ``--errata``).
"""

from __future__ import annotations

import argparse
import html.entities
import json
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from collections import Counter, defaultdict
from pathlib import Path

from rapidfuzz import fuzz

from reflong.citations.quality.builders.audit import read_errata, venue_designation
from reflong.citations.quality.builders.fresh import (
    container_seeds,
    number_and_audit,
    seed_works,
    styles_titles,
    write_files,
)
from reflong.citations.quality.builders.styles import (
    _APA,
    _IN,
    clean_title,
    git_show,
    squash,
    year_of,
)
from reflong.citations.quality.builders.styles import set_norm as norm
from reflong.citations.quality.labelled_sets import REAL

SCIELO_COMMIT = "fe1ada8cd7cc638c8eab7ab1651f3b4f891d08e7"
# packtools' test samples and fixtures: real SciELO articles (the JATS DTD's own "Smallsamples"
# under packtools/catalogs are made-up examples and are not read)
SCIELO_UNDER = "tests/"
PRIOR_SETS = (REAL / "citation_styles", REAL / "citation_fresh")
SPLIT = "holdout"
SOURCE = "scielo"
_XLINK = "{http://www.w3.org/1999/xlink}href"
# XML names no DTD defines here (the files are parsed without their DTD): HTML's named entities
_ENTITY = re.compile(r"&([A-Za-z][A-Za-z0-9]*);")
_XML_ENTITIES = {"amp", "lt", "gt", "quot", "apos"}
# A reference whose element-citation has no article or chapter title names its work by
# ``source``, unless the source is a periodical or a meeting (then the string prints no title
# of the cited piece: "Cerâm. Ind. 23, 3 (2018) 21.").
_SOURCE_IS_VENUE = ("journal", "confproc", "newspaper", "periodical", "magazine")
# A leading list label or stray punctuation before the first author ("12. ", ". ", "5 ")
_LABEL = re.compile(r"^(?:\[?\d{1,3}\]?[.)]?\s+|[.,;:]\s*)+")
_VANCOUVER_START = re.compile(
    r"^[A-Z][\w'\u00c0-\u024f-]+(?: (?:[a-z]{1,3} )?[A-Z][\w'\u00c0-\u024f-]+)* [A-Z]{1,3}(?:,|\.|$| and| et al)"
)
_CAPS_START = re.compile(r"^[A-Z\u00c0-\u00dd][A-Z\u00c0-\u00dd'-]+(?: [A-Z\u00c0-\u00dd'-]+)*[,.;]")
_NAME_YEAR = re.compile(r"[,.]\s*(?:19|20)\d\d[a-z]?\s*[.,:]\s*$")
# A note in brackets after a title ("Estética da criação verbal [1951-1953]": the first edition's
# years), left out when a container is compared with the works' titles
_BRACKET_NOTE = re.compile(r"\s*\[[^\]]*\]?\s*$")
# An author's placeholder left in a reference list ("El Cronista, 24/7/17 falta referencia":
# reference missing) is no reference: left out of the set.
_PLACEHOLDER = re.compile(r"(?i)\bfalta\s+refer[eê]ncia\.?$")
# How alike a printed title must be to the annotated one to place it in the string (to read the
# authors and year printed before it); below it the string is read from its start only.
PLACE_RATIO = 80


def _parse(data: bytes) -> ET.Element:
    """The article's XML without its DTD: HTML named entities a file uses (``&nbsp;``) become
    their characters first."""
    text = data.decode("utf-8")

    def entity(m: re.Match) -> str:
        name = m.group(1)
        if name in _XML_ENTITIES or name not in html.entities.name2codepoint:
            return m.group(0)
        return f"&#{html.entities.name2codepoint[name]};"

    return ET.fromstring(_ENTITY.sub(entity, text))


def _text(elem: ET.Element | None) -> str:
    return squash("".join(elem.itertext())) if elem is not None else ""


def licence_of(root: ET.Element) -> str | None:
    """The article's Creative Commons licence URL (None: no licence element)."""
    for lic in root.iter("license"):
        href = lic.get(_XLINK) or ""
        if "creativecommons.org" in href:
            return href.replace("https://", "http://").rstrip("/").removesuffix("/deed.en")
    return None


def redistributable(licence: str | None) -> bool:
    """A Creative Commons licence that lets an extract be copied with attribution (BY, BY-NC):
    no licence, or a no-derivatives one, is left out."""
    return licence is not None and "-nd" not in licence


def raw_of(mixed: ET.Element) -> str:
    """The printed reference: the mixed-citation's text with the tags removed and whitespace
    squashed, without a leading list label or stray punctuation ("12. ", ". ")."""
    return _LABEL.sub("", _text(mixed)).strip()


def _names(group: ET.Element | None) -> list[str]:
    """Surnames (or a collab's name) of a person-group, in order."""
    if group is None:
        return []
    out = []
    for child in group:
        if child.tag in ("name", "string-name"):
            out.append(_text(child.find("surname")) or _text(child))
        elif child.tag == "collab":
            out.append("")
    return out


def _group(elem: ET.Element, kind: str) -> ET.Element | None:
    for g in elem.findall("person-group"):
        if g.get("person-group-type", "author") == kind:
            return g
    return None


def annotated(elem: ET.Element) -> dict:
    """The curators' fields of an element-citation: the cited work's title (article or chapter
    title, else the source when the source is the work: a book, thesis, report, law, web page),
    the container (a chapter's book) with its editor, first-author surname, year."""
    kind = elem.get("publication-type") or ""
    title_elem = elem.find("article-title")
    if title_elem is None:
        title_elem = elem.find("chapter-title")
    container = ""
    if title_elem is not None:
        container = _text(elem.find("source")) if elem.find("chapter-title") is not None else ""
        fields = len(elem.findall("article-title")) + len(elem.findall("chapter-title"))
    elif kind not in _SOURCE_IS_VENUE:
        title_elem = elem.find("source")
        fields = len(elem.findall("source"))
    else:
        fields = 0
    authors = _names(_group(elem, "author"))
    editors = _names(_group(elem, "editor"))
    return {
        "kind": kind,
        "title": clean_title(_text(title_elem)),
        "fields": fields,
        "container": clean_title(_IN.sub("", container)),  # "In The Cerrados of Brazil" -> the title
        "editor": editors[0] if editors else "",
        "surname": authors[0] if authors else "",
        "year": year_of(_text(elem.find("year")), _text(elem.find("date"))),
    }


def title_start(raw: str, title: str) -> int:
    """Where the annotated title is printed in the raw string (-1: not found alike enough)."""
    at = raw.lower().find(title.lower())
    if at >= 0:
        return at
    if not title:
        return -1
    m = fuzz.partial_ratio_alignment(title.lower(), raw.lower(), score_cutoff=PLACE_RATIO)
    return m.dest_start if m is not None else -1


def style_of(raw: str, title: str) -> str:
    """The citation style of a printed reference, from its shape (first match wins):

    - ``apa``: the year in parentheses right before the title ("Mendes, L. (2017). Gentrificação");
    - ``name_year``: the year without parentheses right before the title ("AKSOY, S., 2003.
      Control of ...", "Brand-Williams, W., ... 1995. Use of ...");
    - ``vancouver``: the first author as "Surname AB," ("Abreu MGL, Germano F. Impact of ...");
    - ``abnt``: the first surname in capitals ("SEARLE, J. R. Expression and Meaning. New York:");
    - ``other``: the rest ("Bufrem, L. S. Perspectivas ...", numbered chemistry references,
      institutions as authors).
    """
    at = title_start(raw, title)
    before = raw[:at] if at > 0 else ""
    if before and _APA.search(before):
        return "apa"
    if before and _NAME_YEAR.search(before):
        return "name_year"
    if _VANCOUVER_START.match(raw):
        return "vancouver"
    if _CAPS_START.match(raw):
        return "abnt"
    return "other"


def git_ls_tree(repo: Path, commit: str, under: str) -> list[str]:
    """Every file path under a folder at the commit, recursively, sorted (the styles builder's
    ``git_ls`` lists one level)."""
    out = subprocess.run(
        ["git", "-C", str(repo), "ls-tree", "-r", "--name-only", commit, under],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return sorted(line for line in out.splitlines() if line)


def read_articles(repo: Path) -> tuple[list[dict], Counter, dict[str, int]]:
    """One item per reference of every redistributable article (each DOI once, its first path
    in sorted order), with the conversion counts and the articles per licence."""
    counts: Counter = Counter()
    licences: Counter = Counter()
    items: list[dict] = []
    seen_doi: set[str] = set()
    for path in git_ls_tree(repo, SCIELO_COMMIT, SCIELO_UNDER):
        if not path.endswith(".xml"):
            continue
        data = git_show(repo, SCIELO_COMMIT, path)
        if b"<ref" not in data:
            continue
        try:
            root = _parse(data)
        except ET.ParseError:
            counts["files_not_xml"] += 1  # a fixture of a broken file (packtools tests its errors)
            continue
        doi = _text(root.find("front/article-meta/article-id[@pub-id-type='doi']"))
        if not doi or doi in seen_doi:
            counts["files_same_article"] += bool(doi)
            continue
        seen_doi.add(doi)
        licence = licence_of(root)
        if not redistributable(licence):
            counts["articles_not_redistributable"] += 1
            continue
        licences[licence] += 1
        for n, ref in enumerate(root.iter("ref")):
            mixed, elem = ref.find("mixed-citation"), ref.find("element-citation")
            counts["references"] += 1
            if mixed is None or elem is None:
                counts["no_pair"] += 1
                continue
            raw = raw_of(mixed)
            fields = annotated(elem)
            items.append({"citing": f"scielo:{doi}", "path": path, "n": n, "raw": raw, **fields})
    return items, counts, dict(sorted(licences.items()))


def build(
    repo: Path, seen: set[str], errata: list[dict] | None = None
) -> tuple[list[dict], list[dict], list[dict], dict]:
    """Seeds, entries, audit rows and the conversion counts."""
    items, counts, licences = read_articles(repo)
    counts["articles"] = sum(licences.values())
    kept: list[dict] = []
    raws: set[str] = set()
    for it in items:
        if _PLACEHOLDER.search(it["raw"]):
            counts["placeholder"] += 1
            continue
        if len(norm(it["title"]).split()) < 2:
            counts["no_title"] += 1  # a journal reference printed without a title, a one-word title
            continue
        if it["raw"] in raws:
            counts["duplicate_raw"] += 1
            continue
        raws.add(it["raw"])
        it["style"] = style_of(it["raw"], it["title"])
        it["author"] = it["surname"]
        kept.append(it)
    seeds, entries, rows = assemble(kept, counts, seen, errata)
    counts["licences"] = licences
    return seeds, entries, rows, dict(counts)


def assemble(
    kept: list[dict],
    counts: Counter,
    seen: set[str],
    errata: list[dict] | None = None,
    *,
    split: str = SPLIT,
    source: str = SOURCE,
    prefix: str = "h",
) -> tuple[list[dict], list[dict], list[dict]]:
    """Seeds, entries and audit rows from the kept references (each with ``citing``, ``raw``,
    ``style``, ``title``, ``fields``, ``container``, ``editor``, ``surname``, ``year``): works,
    held-out works, edited volumes nobody cites, entry ids ``<prefix>00001``... Shared with
    ``builders.plos`` so that every JATS-built set is made the same way."""
    works, seeds, entries = seed_works(
        kept, seen, counts, source=source, split=split, seen_count="seen_in_prior_sets"
    )
    # Edited volumes nobody cites, with their editor as first author: a chapter must not resolve
    # to the book it appeared in.
    # a book cited on its own is no container nobody cites, also when its entry adds a note in
    # brackets ("Estética da criação verbal [1951-1953]" beside its chapters' "Estética da ...")
    work_titles = {
        norm(t)
        for group in works.values()
        for g in group
        for t in (g["title"], _BRACKET_NOTE.sub("", g["title"]))
    }
    forms: dict[str, Counter] = defaultdict(Counter)
    editors: dict[str, Counter] = defaultdict(Counter)
    years: dict[str, Counter] = defaultdict(Counter)
    for e in entries:
        it = e.pop("_item")
        key = norm(it["container"])
        if (
            it["editor"]
            and len(key.split()) >= 3
            and key not in work_titles
            and key not in seen
            and not venue_designation(it["container"])
        ):
            forms[key][it["container"]] += 1
            editors[key][it["editor"]] += 1
            years[key][it["year"] or 0] += 1
    seeds += container_seeds(forms, editors, years)
    rows = number_and_audit(entries, seeds, errata, prefix=prefix, split=split)
    return seeds, entries, rows


def write(out: Path, seeds: list[dict], entries: list[dict], rows: list[dict], split: str = SPLIT) -> None:
    """The set's files, as every builder writes them (``fresh.write_files``)."""
    write_files(out, split, seeds, entries, rows)


def print_summary(counts: dict, seeds: list[dict], entries: list[dict], rows: list[dict]) -> None:
    """One JSON line on stderr: the conversion's counts, entries and gold pairs per style, and the
    audit rows by category (what SOURCES.md's tables are read from). Shared with the PLOS builder."""
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
                "cited_seeds": sum(s["cited"] for s in seeds),
                "by_style": {k: dict(v) for k, v in sorted(by_style.items())},
                "audit": dict(Counter(f"{r['by']}/{r['category']}" for r in rows)),
            },
            ensure_ascii=False,
        ),
        file=sys.stderr,
    )


def run_builder(
    argv: list[str] | None,
    *,
    doc: str,
    prog: str,
    flag: str,
    repo_help: str,
    set_dir: Path,
    split: str,
    prior_sets: tuple[Path, ...],
    build,
    snapshot: str,
    errors: tuple[type[Exception], ...] = (),
    parents: tuple[argparse.ArgumentParser, ...] = (),
) -> int:
    """The command line every JATS-style builder shares: ``--<flag>`` (the snapshot's git dir),
    ``--out`` and ``--errata``; the set's files written, its summary printed; a bad input or a
    wrong snapshot is one line on stderr and exit 2 (``snapshot`` names what could not be read).
    ``parents`` adds a builder's own options (read by the builder before; shown in ``--help``)."""
    ap = argparse.ArgumentParser(
        prog=prog,
        description=doc,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        parents=list(parents),
    )
    ap.add_argument(f"--{flag}", dest="repo", metavar=flag.upper(), type=Path, required=True, help=repo_help)
    ap.add_argument("--out", type=Path, default=set_dir)
    ap.add_argument(
        "--errata",
        type=Path,
        default=set_dir / "errata.jsonl",
        help="the hand errata of the label audit, read from the strings (default: %(default)s)",
    )
    args = ap.parse_args(argv)
    name = prog.removesuffix(".py")
    try:
        errata = read_errata(args.errata)
        seen = set().union(*(styles_titles(p) for p in prior_sets))
        seeds, entries, rows, counts = build(args.repo, seen, errata)
    except (OSError, ValueError, *errors) as exc:
        print(f"{name}: {exc}", file=sys.stderr)
        return 2
    except subprocess.CalledProcessError as exc:  # a wrong directory or a missing commit
        print(f"{name}: cannot read {snapshot} in {args.repo} (git exit {exc.returncode})", file=sys.stderr)
        return 2
    write(args.out, seeds, entries, rows, split=split)
    print_summary(counts, seeds, entries, rows)
    return 0


def main(argv: list[str] | None = None) -> int:
    return run_builder(
        argv,
        doc=__doc__,
        prog="builders.holdout",
        flag="scielo",
        repo_help="git dir of scieloorg/packtools",
        set_dir=REAL / "citation_holdout",
        split=SPLIT,
        prior_sets=PRIOR_SETS,
        build=build,
        snapshot=SCIELO_COMMIT[:12],
    )


if __name__ == "__main__":
    raise SystemExit(main())
