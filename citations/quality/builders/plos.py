"""Build tests/data/real/citation_plos/: a FOURTH held-out set of real, labelled reference strings.

    python -m reflong.citations.quality.builders.plos --plos DIR [--out DIR] [--errata FILE]

DIR is a git directory of a snapshot of github.com/PLOS/allofplos (as the ``fetch`` tool leaves
it); files are read with ``git show COMMIT:PATH`` at the commit pinned below, so the same
snapshot gives byte-identical output.

Why this set exists: the three other sets (citation_styles, citation_fresh, citation_holdout) have
all been read or tuned on. This one comes from another publisher and other fields: the reference
lists of PLOS articles (biology, medicine, ecology, neuroscience, computational biology, ...) as
the JATS XML that allofplos keeps in its starter corpus and test data holds them. PLOS prints
each reference as a ``<mixed-citation>``: the printed string with its parts marked inside
(``article-title``, ``chapter-title``, ``source``, ``name``, ``year``), marked by PLOS's XML
producers, never by our parser. The raw string is the element's text, the title the marked
article title (or chapter title, or the source of a book). PLOS is mostly ONE house style in two
eras (author-year "Surname AB (2011) Title. Journal 138: 5003-5013." and, later, Vancouver
"Surname AB, ... Title. Journal. 2012;491(7422):56-65."); the styles split it by the printed
author layout. The set keeps the citation_styles format, so bench/resolve_styles.py scores it
with ``--splits plos``.

What is written (format: SOURCES.md there): ``seeds.plos.jsonl``, ``entries.plos.jsonl.gz``,
``audit.jsonl`` (the audit rules' rows and the hand errata's, ``errata.jsonl``).
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path

from reflong.citations.quality.builders.holdout import (
    _NAME_YEAR,
    _VANCOUVER_START,
    _XLINK,
    _parse,
    _text,
    assemble,
    git_ls_tree,
    run_builder,
    title_start,
)
from reflong.citations.quality.builders.styles import _APA, _IN, _digest, clean_title, git_show, year_of
from reflong.citations.quality.builders.styles import set_norm as norm
from reflong.citations.quality.labelled_sets import REAL

PLOS_COMMIT = "07fdeed848b2816a7fbf7da6418ef6e2076e1960"
# allofplos' starter corpus and its test data: real PLOS articles
PLOS_UNDER = ("allofplos/starter_corpus/", "tests/testdata/")
PRIOR_SETS = (REAL / "citation_styles", REAL / "citation_fresh", REAL / "citation_holdout")
SPLIT = "plos"
SOURCE = "plos"
# Articles taken, in the order of a hash of their DOI: keeps the entries near 2,500 and every
# file under 1 MiB (the 75 articles hold ~4,000 printed references).
MAX_ARTICLES = 50
# A reference whose markup has no article or chapter title names its work by ``source`` unless
# the source is a periodical or a meeting.
_SOURCE_IS_VENUE = ("journal", "confproc")
_TITLE_TAGS = ("article-title", "chapter-title")
_OPEN_QUOTES = " \"'\u2018\u201c"


def licence_of(root: ET.Element) -> tuple[str, str]:
    """The article's licence: its URL (or "" when the file names none) and its wording."""
    lic = root.find(".//permissions/license")
    if lic is None:
        return "", ""
    return (lic.get(_XLINK) or "").replace("https://", "http://").rstrip("/"), _text(lic)


def licence_kind(url: str, wording: str) -> str | None:
    """CC BY (any version), CC0 / public domain, or None (not redistributable)."""
    if "/licenses/by/" in url or (not url and "Creative Commons Attribution License" in wording):
        return "CC BY " + (url.split("/by/")[1] if "/by/" in url else "(no version)")
    if "publicdomain/zero" in url or (not url and "free of all copyright" in wording):
        return "CC0 / public domain"
    return None


def raw_of(mixed: ET.Element) -> str:
    """The printed reference: the mixed-citation's text, whitespace squashed, with a space
    between the parts of a name where the file has none (``<surname>Lauth</surname><given-names>
    MR</given-names>`` is printed "Lauth MR" by PLOS; the bare text would glue "LauthMR")."""
    for name in mixed.iter("name"):
        parts = list(name)
        for part in parts[:-1]:
            if not (part.tail or "").strip() and not (part.tail or "").isspace():
                part.tail = " "
    return _text(mixed)


def annotated(mixed: ET.Element) -> dict:
    """The fields PLOS marked inside a printed reference: the cited work's title (article or
    chapter title, else the source when the source is the work: a book, report, web page), the
    container (the book a chapter or article appeared in) with its editor, first-author surname,
    year, and whether a journal reference has its journal marked at all."""
    kind = mixed.get("publication-type") or ""
    children = list(mixed)
    at = next((i for i, c in enumerate(children) if c.tag in _TITLE_TAGS), None)
    source = mixed.find("source")
    container = ""
    if at is not None:
        title_elem = children[at]
        fields = sum(c.tag in _TITLE_TAGS for c in children)
        if kind not in _SOURCE_IS_VENUE and source is not None:
            container = _text(source)
    elif kind not in _SOURCE_IS_VENUE and source is not None:
        title_elem, fields = source, sum(c.tag == "source" for c in children)
    else:
        title_elem, fields = None, 0
    edgroup = next((g for g in mixed.iter("person-group") if g.get("person-group-type") == "editor"), None)
    editors = [_text(n.find("surname")) for n in edgroup.iter("name")] if edgroup is not None else []
    if not editors and container and at is not None:
        # "In: Bartlett P, Pereira F, editors. Advances ...": names printed after the title
        editors = [_text(c.find("surname")) for c in children[at + 1 :] if c.tag == "name"]
    surname = ""
    for c in children[: at if at is not None else len(children)]:
        if c.tag == "person-group" and c.get("person-group-type", "author") == "author":
            first = next(iter(c), None)
            surname = _text(first.find("surname")) if first is not None and first.tag == "name" else ""
            break
        if c.tag in ("name", "string-name"):
            surname = _text(c.find("surname")) or _text(c)
            break
        if c.tag == "collab":
            break
    return {
        "kind": kind,
        "title": clean_title(_text(title_elem)),
        "fields": fields,
        "container": clean_title(_IN.sub("", container)),
        "editor": editors[0] if editors else "",
        "surname": surname,
        "year": year_of(_text(mixed.find("year"))),
        "journal_unmarked": kind == "journal" and at is not None and source is None,
    }


def style_of(raw: str, title: str) -> str:
    """The author layout of a printed reference (first match wins); PLOS's house style in its
    two eras, and what falls outside them:

    - ``name_year``: the year in parentheses right before the title ("Leung L, Klopper AV (2011)
      Apical migration ..."): PLOS's author-year style;
    - ``vancouver``: the first author as "Surname AB," or "Surname AB." and no year before the
      title ("Harms E, Kivimae S, ... Posttranscriptional ... J Biol Rhythms. 2004;19:361-373.");
    - ``other``: the rest (institutions as authors, a title in double quotes after the authors
      "Guo T., ... and Newmark P. A., “A bruno-like ...,” Dev. Cell, vol. 11", a year without
      parentheses before the title, no author).
    """
    at = title_start(raw, title)
    # an opening quote is the title's ("(2008) ‘We're just sick people ...’")
    before = raw[:at].rstrip(_OPEN_QUOTES) if at > 0 else ""
    if before and _APA.search(before):
        return "name_year"
    if before and _NAME_YEAR.search(before):
        return "other"
    if at > 0 and raw[:at].rstrip().endswith(("\u201c", '"')):
        return "other"  # the title in double quotes: '... and Newmark P. A., “A bruno-like ...,” Dev. Cell, vol.'
    if _VANCOUVER_START.match(raw):
        return "vancouver"
    return "other"


def read_articles(repo: Path) -> tuple[list[dict], Counter, dict[str, int], list[str]]:
    """One item per printed reference of the articles taken (each DOI once, redistributable,
    the first MAX_ARTICLES in the order of a hash of their DOI), the conversion counts, the
    articles per licence and the licence wordings seen."""
    counts: Counter = Counter()
    articles: dict[str, tuple[str, ET.Element, str]] = {}
    wordings: set[str] = set()
    for under in PLOS_UNDER:
        for path in git_ls_tree(repo, PLOS_COMMIT, under):
            if not path.endswith(".xml"):
                continue
            data = git_show(repo, PLOS_COMMIT, path)
            if b"<mixed-citation" not in data:
                continue  # older PLOS files mark references as element- or nlm-citation only
            root = _parse(data)
            doi = _text(root.find("front/article-meta/article-id[@pub-id-type='doi']"))
            if not doi or doi in articles:
                counts["files_same_article"] += 1
                continue
            url, wording = licence_of(root)
            kind = licence_kind(url, wording)
            if kind is None:
                counts["articles_not_redistributable"] += 1
                continue
            wordings.add(wording)
            articles[doi] = (path, root, kind)
    counts["articles_with_printed_references"] = len(articles)
    taken = sorted(articles, key=lambda d: (_digest(d), d))[:MAX_ARTICLES]
    licences: Counter = Counter()
    items: list[dict] = []
    for doi in sorted(taken):
        path, root, kind = articles[doi]
        licences[kind] += 1
        for n, mixed in enumerate(root.iter("mixed-citation")):
            counts["references"] += 1
            items.append(
                {"citing": f"plos:{doi}", "path": path, "n": n, "raw": raw_of(mixed), **annotated(mixed)}
            )
    return items, counts, dict(sorted(licences.items())), sorted(wordings)


def build(
    repo: Path, seen: set[str], errata: list[dict] | None = None
) -> tuple[list[dict], list[dict], list[dict], dict]:
    """Seeds, entries, audit rows and the conversion counts."""
    items, counts, licences, wordings = read_articles(repo)
    kept: list[dict] = []
    raws: set[str] = set()
    for it in items:
        if it["journal_unmarked"]:
            # "A growing family: ... cytoskeleton. FEMS Microbiol Rev" marked as the article
            # title, no source: the journal was marked into the title
            counts["journal_in_title"] += 1
            continue
        if len(norm(it["title"]).split()) < 2:
            counts["no_title"] += 1  # nothing marked ("other" references), a one-word title
            continue
        if it["raw"] in raws:
            counts["duplicate_raw"] += 1
            continue
        raws.add(it["raw"])
        it["style"] = style_of(it["raw"], it["title"])
        it["author"] = it["surname"]
        kept.append(it)
    seeds, entries, rows = assemble(kept, counts, seen, errata, split=SPLIT, source=SOURCE, prefix="p")
    counts["licences"] = licences
    counts["licence_wordings"] = wordings
    return seeds, entries, rows, dict(counts)


def main(argv: list[str] | None = None) -> int:
    return run_builder(
        argv,
        doc=__doc__,
        prog="builders.plos",
        flag="plos",
        repo_help="git dir of PLOS/allofplos",
        set_dir=REAL / "citation_plos",
        split=SPLIT,
        prior_sets=PRIOR_SETS,
        build=build,
        snapshot=PLOS_COMMIT[:12],
        errors=(ET.ParseError,),
    )


if __name__ == "__main__":
    raise SystemExit(main())
