"""Build tests/data/real/citation_styles/ from public labelled citation corpora (reproducible).

    python -m reflong.citations.quality.builders.styles --grobid DIR --anystyle DIR --cora DIR [--out DIR]

Each DIR is a git directory of a snapshot (as the ``fetch`` tool leaves them, e.g.
/work/.mirror/kermitt2+grobid/repo); files are read with ``git show COMMIT:PATH`` at the commits
pinned below, so the same snapshots give byte-identical output.

Why this set exists: the corpus under ../shared holds modern ML papers only, where every title is
closed by a period. Real bibliographies of other fields print titles without punctuation (physics),
with Vancouver author lists (biomedicine), as Chicago/MLA books and chapters (humanities), in
quotes (IEEE/older CS) or after "(1994)." (APA), and cite one work in many forms (CORA). The
labels are the sources' own title annotations (GROBID TEI ``<title level="a">``, AnyStyle
``<title>``, CORA ``<title>`` plus its cluster keys), never our parser's guess.

What is written (see SOURCES.md there for the format):
- ``seeds.jsonl``: one seed per cited work (a quarter of the works held out as non-seeds, so that
  entries citing them must resolve to nothing) plus container titles (proceedings, edited volumes,
  series) that nobody cites, so false accepts on a volume can show.
- ``entries.dev.jsonl.gz`` / ``entries.test.jsonl.gz``: the raw strings with their style, source, split
  and gold seed (or null), split by source document (by block of 25 consecutive entries where the
  source has no documents, by cluster for CORA).
- ``audit.jsonl``: the label audit (builders/audit.py): the rules' rows for works whose
  annotated title is a venue designation, two title fields run together or a cut title, and the
  hand errata (``--errata``), checked against the entries. The entries keep the raw labels.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from reflong.citations.fields.normalize import norm as _resolver_norm
from reflong.citations.quality.builders.audit import audit_rows, read_errata, rule_category
from reflong.citations.quality.labelled_sets import REAL


@cache
def set_norm(text: str) -> str:
    """The comparison form the labelled sets' builders group works with: ``norm`` as the sets were
    built (before resolve-12's reading of printed signs), so the committed sets rebuild byte for
    byte whatever the resolver's normalisation becomes. Every builder imports it as ``norm``.
    Cached: grouping works compares each title with many others (LinkedBooks' ``merge_works``
    normalised the same few thousand strings 6.6 million times, 70 of a rebuild's 113 s)."""
    return _resolver_norm(text, printed_signs=False)


norm = set_norm

GROBID_COMMIT = "b8d6bec302189e29a6c358ea513f8be834004a86"
GROBID_DIR = "grobid-trainer/resources/dataset/citation/corpus/"
ANYSTYLE_COMMIT = "c6f5fb2fa6e8ce9456ad1e1e88d6bba5f3d7731d"
ANYSTYLE_FILES = ("res/parser/core.xml", "res/parser/gold.xml")
CORA_COMMIT = "70e32d5d2e947407015de334a99bfaf35138d3ed"
CORA_FILE = "data-raw/CORA.xml"

# GROBID corpus files that are not one citing document's bibliography, or not in a Latin script.
GROBID_SKIP = re.compile(r"^(kisti_|evaluation-citation|citations\.xml$)")
# GROBID's big mixed file (older CS, CORA-like, no document boundaries) is read as its own source.
GROBID_MIXED = "citations.xml"
GROBID_BIOMED = re.compile(r"^(bioRxiv|\d{8}\.training|PMC)")
GROBID_HUMANITIES = re.compile(r"^raw_ref_corrected")
BLOCK = 25  # entries per pseudo-document where a source has no document boundaries
HOLD_OUT = 4  # one work in HOLD_OUT is not a seed: its citations must resolve to nothing

_TEI = "{http://www.tei-c.org/ns/1.0}"
_WS = re.compile(r"\s+")
_APA = re.compile(r"\(\s*(?:19|20)\d\d[a-z]?\s*\)[\s.,:]*$")
_VANCOUVER = re.compile(r"^[A-Z][\w'\u00c0-\u024f-]+(?: [A-Z][\w'\u00c0-\u024f-]+)? [A-Z]{1,3}(?:,|$| and)")
_FULL_NAME = re.compile(r"^[A-Z][\w'\u00c0-\u024f-]+, [A-Z][a-z\u00e0-\u024f]{2,}")
_MARKUP = re.compile(r"</?(?:italic|i|b|bold|sup|sub|em)>")
_IN = re.compile(r"^\s*(?:in|dans|en)\s*:?\s+", re.I)
_PROCEEDINGS = re.compile(
    r"(?i)\b(proc|proceedings|conference|conf|symposium|workshop|meeting|congress|colloquium|journal|"
    r"transactions|trans|letters|bulletin|annals|review|reports?|magazine|newsletter|sigplan|notices)\b"
)
_YEAR = re.compile(r"(?<!\d)((?:1[6-9]|20)\d\d)(?!\d)")
_INITIALS = re.compile(r"^(?:[A-Z]\.?-?)+\.?$|^[A-Z]{1,3}$|^\(.*\)$")


@dataclass
class Labelled:
    """One reference string with its annotated fields, as a source labels it."""

    source: str
    doc: str  # the citing document (or pseudo-document) it came from
    raw: str
    title: str  # annotated title of the cited work (may be empty for CORA)
    author: str = ""
    date: str = ""
    containers: list[str] = field(default_factory=list)  # edited volumes / books it appeared in
    editor: str = ""
    venues: list[str] = field(default_factory=list)  # journal / proceedings names it prints
    cluster: str | None = None  # CORA's work key
    title_start: int = -1
    title_fields: int = 0  # how many title elements the source annotated (2+: run together)


def git_show(repo: Path, commit: str, path: str) -> bytes:
    return subprocess.run(
        ["git", "-C", str(repo), "show", f"{commit}:{path}"], check=True, capture_output=True
    ).stdout


def git_ls(repo: Path, commit: str, under: str) -> list[str]:
    out = subprocess.run(
        ["git", "-C", str(repo), "ls-tree", "--name-only", f"{commit}", under],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return sorted(line for line in out.splitlines() if line)


def squash(text: str) -> str:
    return _WS.sub(" ", text).strip()


def clean_title(text: str) -> str:
    """The annotated title without the quotes and closing punctuation a style put around it."""
    text = squash(_MARKUP.sub("", text))  # AnyStyle keeps some <italic> markup as text
    text = text.strip(" \"'`\u201c\u201d\u2018\u2019\u00ab\u00bb")
    text = re.sub(r"[\s.,;:]+$", "", text)
    return text.strip(" \"'`\u201c\u201d\u2018\u2019\u00ab\u00bb")


def first_surname(authors: str) -> str:
    """First author's surname from an annotated author field ("Camargo, S. J., K. A. Emanuel",
    "A. Cau, R. Kuiper", "Martin WF, Garg S", "Heidegger M.,")."""
    text = squash(authors).strip(" ,.;-")
    first = re.split(r"\s*(?:,|;|&|\band\b|\bet\b|\bund\b)\s*", text)[0] if text else ""
    words = [w for w in first.split() if not _INITIALS.match(w)]
    name = words[-1].strip(".,:;") if words else ""
    return name if any(c.isalpha() for c in name) else ""  # "———": the ditto of the author above


def year_of(*texts: str) -> int | None:
    for text in texts:
        m = _YEAR.search(text or "")
        if m:
            return int(m.group(1))
    return None


def _pieces(elem: ET.Element, tag_of) -> list[tuple[str | None, ET.Element | None, str]]:
    """The element's text in document order as (field label, element, text) pieces."""
    out: list[tuple[str | None, ET.Element | None, str]] = []

    def walk(node: ET.Element, label: str | None) -> None:
        here = tag_of(node) or label
        if node.text:
            out.append((here, node, node.text))
        for child in node:
            walk(child, here)
            if child.tail:
                out.append((here, node, child.tail))

    walk(elem, None)
    return out


def _from_pieces(pieces, source: str, doc: str) -> Labelled | None:
    raw_parts: list[str] = []
    fields: dict[str, list[str]] = defaultdict(list)
    current: tuple[str | None, int] = (None, -1)
    title_at = -1
    for label, node, text in pieces:
        if label is not None:
            key = (label, id(node))
            if key != current:
                fields[label].append("")
                current = key
            fields[label][-1] += text
        else:
            current = (None, -1)
        if label in ("title_a", "title") and title_at < 0:
            title_at = len(squash(_MARKUP.sub("", "".join(raw_parts))) + (" " if raw_parts else ""))
        raw_parts.append(text)
    # Markup some sources keep as text (AnyStyle's <italic>) never comes out of a PDF: removed.
    raw = squash(_MARKUP.sub("", "".join(raw_parts)))
    title_parts = fields.get("title_a", []) or fields.get("title", [])
    title = clean_title(" ".join(title_parts))
    containers = [
        clean_title(_IN.sub("", t)) for t in fields.get("title_m", []) + fields.get("container", [])
    ]
    if not title and fields.get("title_m") and not fields.get("title_j"):
        title, containers = clean_title(fields["title_m"][0]), containers[1:]  # a cited book
    venues = [clean_title(_IN.sub("", t)) for t in fields.get("title_j", [])]
    venues += [c for c in containers if _PROCEEDINGS.search(c)]
    # Only edited volumes and books can be seeds nobody cites; proceedings and journals are venues.
    containers = [c for c in containers if not _PROCEEDINGS.search(c)]
    if not raw:
        return None
    return Labelled(
        source,
        doc,
        raw,
        title,
        author=squash(" ".join(fields.get("author", []) or fields.get("editor", [])[:1])),
        date=squash(" ".join(fields.get("date", []))),
        containers=[c for c in containers if c],
        editor=squash(" ".join(fields.get("editor", []))),
        venues=[v for v in venues if v],
        title_start=title_at,
        title_fields=sum(bool(t.strip()) for t in title_parts),
    )


def _grobid_tag(node: ET.Element) -> str | None:
    tag = node.tag.replace(_TEI, "")
    if tag == "title":
        return f"title_{node.get('level', 'a')}"
    return tag if tag in ("author", "editor", "date") else None


def read_grobid(repo: Path) -> list[Labelled]:
    out: list[Labelled] = []
    for path in git_ls(repo, GROBID_COMMIT, GROBID_DIR):
        name = path.rsplit("/", 1)[-1]
        if GROBID_SKIP.match(name) and name != GROBID_MIXED:
            continue
        root = ET.fromstring(git_show(repo, GROBID_COMMIT, path))
        bibls = [b for b in root.iter() if b.tag.replace(_TEI, "") == "bibl"]
        source = "grobid-cs" if name == GROBID_MIXED else "grobid"
        for i, bibl in enumerate(bibls):
            doc = f"grobid:{name}#{i // BLOCK:03d}" if name == GROBID_MIXED else f"grobid:{name}"
            item = _from_pieces(_pieces(bibl, _grobid_tag), source, doc)
            if item is not None:
                out.append(item)
    return out


_ANYSTYLE_TAGS = {"title": "title", "author": "author", "editor": "editor", "date": "date"}


def read_anystyle(repo: Path) -> list[Labelled]:
    out: list[Labelled] = []
    for path in ANYSTYLE_FILES:
        root = ET.fromstring(git_show(repo, ANYSTYLE_COMMIT, path))
        name = path.rsplit("/", 1)[-1]
        for i, seq in enumerate(root.iter("sequence")):
            # AnyStyle stores one field per element, tokens joined by spaces.
            pieces: list[tuple[str | None, ET.Element | None, str]] = []
            for child in seq:
                label = _ANYSTYLE_TAGS.get(child.tag)
                if child.tag == "container-title":
                    label = "container"
                if child.tag == "journal":
                    label = "title_j"
                if pieces:
                    pieces.append((None, None, " "))
                pieces.append((label, child, child.text or ""))
            item = _from_pieces(pieces, "anystyle", f"anystyle:{name}#{i // BLOCK:03d}")
            if item is not None:
                out.append(item)
    return out


_CORA_TAGS = {
    "title": "title",
    "author": "author",
    "editor": "editor",
    "date": "date",
    "year": "date",
    "booktitle": "container",
}


def read_cora(repo: Path) -> list[Labelled]:
    text = git_show(repo, CORA_COMMIT, CORA_FILE).decode("utf-8", "replace")
    text = text.replace("&apos;", "'")
    out: list[Labelled] = []
    for m in re.finditer(r'<NEWREFERENCE id="(\d+)">(.*?)</NEWREFERENCE>', text, re.S):
        # "<cluster key> <tagged text>", some records with a running number line before the key.
        body = re.sub(r"^\d+\s*\n", "", m.group(2).strip())
        key, _, tagged = body.partition(" ")
        if not key or "<" not in tagged:
            continue
        tagged = re.sub(r"&(?!amp;|lt;|gt;|quot;|#)", "&amp;", tagged)
        try:
            root = ET.fromstring(f"<r>{tagged}</r>")
        except ET.ParseError:
            continue
        item = _from_pieces(_pieces(root, lambda n: _CORA_TAGS.get(n.tag)), "cora", f"cora:{key}")
        if item is not None:
            item.cluster = key
            out.append(item)
    return out


def style_of(item: Labelled) -> str:
    """The citation style family: from the entry's own shape first (APA's "(1994)." before the
    title, Vancouver's "Surname AB" authors), then from the field of the citing document."""
    if item.title_start > 0 and _APA.search(item.raw[: item.title_start]):
        return "apa"
    if _VANCOUVER.match(item.author or ""):
        return "biomedical"
    name = item.doc.split(":", 1)[1]
    if item.source in ("grobid-cs", "cora"):
        return "cs_older"
    if GROBID_HUMANITIES.match(name) or (item.source == "anystyle" and _FULL_NAME.match(item.author)):
        return "humanities"  # Chicago / MLA: "Buell, Lawrence. The Future of ..."
    if item.source == "anystyle":
        return "other"  # AnyStyle's remaining mix (ACS, JAMA, Harvard variants, ...)
    if GROBID_BIOMED.match(name):
        return "biomedical"
    return "physics"


def _pick(counter: Counter) -> str:
    """Most common form; ties go to the longest, then alphabetical (deterministic)."""
    return sorted(counter.items(), key=lambda kv: (-kv[1], -len(kv[0]), kv[0]))[0][0]


def _work_key(title: str) -> str:
    """Titles equal up to plural endings and word spacing are one work ("... concept
    representation(s)": CORA's conference and journal versions of one paper; "RNA-seqaligner",
    PDF glue, beside "RNA-seq aligner")."""
    return "".join(w[:-1] if len(w) > 3 and w.endswith("s") else w for w in norm(title).split())


def _digest(text: str) -> int:
    return int(hashlib.sha256(text.encode()).hexdigest()[:8], 16)


def build(items: list[Labelled]) -> tuple[list[dict], list[dict]]:
    """Seeds and entries of the set: works, then their seeds and entries, split and numbered,
    then the edited volumes nobody cites."""
    works, venues = _works(items)
    seeds, entries, titles_seen = _seeds_and_entries(works)
    # Split by citing document (CORA: by work, its only "document"), then number the entries.
    entries.sort(key=lambda e: (e["source"], e["citing"], e["raw"]))
    for e in entries:
        e["split"] = "dev" if _digest(e["citing"]) % 2 == 0 else "test"
    for i, e in enumerate(entries, start=1):
        e["id"] = f"e{i:05d}"
    seeds.extend(_uncited_containers(entries, titles_seen, venues))
    for seed in seeds:
        if seed["cited"]:
            seed["splits"] = sorted({e["split"] for e in entries if e["gold"] == seed["arxiv_id"]})
    return seeds, entries


def _works(items: list[Labelled]) -> tuple[dict[str, list[Labelled]], set[str]]:
    """Mentions grouped into works, and the venue names that are no works.

    CORA mentions by cluster, the others by normalised title; then every group by its canonical
    title, so two CORA clusters of one title (a conference and a journal version) and a title
    cited in several sources are one work, as the resolver's task defines a work."""
    clusters: dict[str, list[Labelled]] = defaultdict(list)
    seen_raw: set[tuple[str, str]] = set()
    for item in items:
        if (item.source, item.raw) in seen_raw:
            continue
        seen_raw.add((item.source, item.raw))
        if item.cluster is not None:
            clusters[f"cora:{item.cluster}"].append(item)
        elif len(norm(item.title).split()) >= 2:
            clusters[f"t:{norm(item.title)}"].append(item)
    # Journal and proceedings names some annotations put in the title field are no works.
    venues = {norm(v) for item in items for v in item.venues}
    works: dict[str, list[Labelled]] = defaultdict(list)
    for key in sorted(clusters):
        group = clusters[key]
        forms = Counter(clean_title(g.title) for g in group if len(norm(g.title).split()) >= 2)
        if forms and norm(_pick(forms)) not in venues:
            works[f"t:{_work_key(_pick(forms))}"].extend(group)
    return works, venues


def _seeds_and_entries(works: dict[str, list[Labelled]]) -> tuple[list[dict], list[dict], set[str]]:
    """A seed per cited work (ids in key order) and an entry per mention, not yet split or
    numbered; with the normalised titles of every work."""
    seeds: list[dict] = []
    entries: list[dict] = []
    titles_seen: set[str] = set()
    n = 0
    for key in sorted(works):
        group = works[key]
        forms = Counter(clean_title(g.title) for g in group if len(norm(g.title).split()) >= 2)
        if not forms:
            continue
        title = _pick(forms)
        # The audit's rules (builders/audit.py) judge the work's title as annotated.
        rule = rule_category(title, max(g.title_fields for g in group if clean_title(g.title) == title))
        n += 1
        sid = f"w{n:05d}"
        cited = _digest(key) % HOLD_OUT != 0
        surname = _pick(Counter(s for s in (first_surname(g.author) for g in group) if s) or Counter({"": 1}))
        years = Counter(y for y in (year_of(g.date, g.raw) for g in group) if y)
        year = sorted(years.items(), key=lambda kv: (-kv[1], kv[0]))[0][0] if years else None
        titles_seen.add(norm(title))
        if cited:
            seeds.append(
                {
                    "arxiv_id": sid,
                    "title": title,
                    "published": f"{year}-01-01" if year else None,
                    "first_author": surname or None,
                    "source": group[0].source,
                    "cited": True,
                }
            )
        for g in group:
            if g.cluster is not None and len(norm(g.title).split()) < 1:
                continue  # a CORA mention whose title was not printed or not tagged
            entries.append(
                {
                    "id": "",
                    "citing": g.doc,
                    "raw": g.raw,
                    "style": style_of(g),
                    "source": g.source,
                    "gold": sid if cited else None,
                    "title": clean_title(g.title),
                    "split": "",
                    "_item": g,
                    "_rule": rule,
                }
            )
    return seeds, entries, titles_seen


def _uncited_containers(entries: list[dict], titles_seen: set[str], venues: set[str]) -> list[dict]:
    """Edited volumes nobody cites, with their editor as first author: a chapter must not resolve
    to the volume it appeared in. Numbered over both splits, listed in the split whose entries
    print them. Pops each entry's ``_item``."""
    forms: dict[str, Counter] = defaultdict(Counter)
    editors: dict[str, Counter] = defaultdict(Counter)
    years: dict[str, Counter] = defaultdict(Counter)
    in_split: dict[str, set[str]] = defaultdict(set)
    for e in entries:
        item = e.pop("_item")
        editor = first_surname(item.editor)
        for c in item.containers:
            key = norm(c)
            if len(key.split()) >= 3 and key not in titles_seen and key not in venues and editor:
                forms[key][c] += 1
                editors[key][editor] += 1
                years[key][year_of(item.date, item.raw) or 0] += 1
                in_split[key].add(e["split"])
    containers = []
    for i, key in enumerate(sorted(forms), start=1):
        year = sorted(years[key].items(), key=lambda kv: (-kv[1], kv[0]))[0][0]
        containers.append(
            {
                "arxiv_id": f"c{i:05d}",
                "title": _pick(forms[key]),
                "published": f"{year}-01-01" if year else None,
                "first_author": _pick(editors[key]),
                "source": "container",
                "cited": False,
                "splits": sorted(in_split[key]),
            }
        )
    return containers


def audit(entries: list[dict], seeds: list[dict], errata_path: Path) -> list[dict]:
    """The label audit (rules from the annotation, then the hand errata), see
    builders/audit.py; pops the builder's ``_rule`` from the entries."""
    rule_of = {e["id"]: e.pop("_rule") for e in entries}
    seeds_of = {sp: {s["arxiv_id"] for s in seeds if sp in s["splits"]} for sp in ("dev", "test")}
    return audit_rows(entries, {k: v for k, v in rule_of.items() if v}, read_errata(errata_path), seeds_of)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--grobid", type=Path, required=True, help="git dir of kermitt2/grobid")
    ap.add_argument("--anystyle", type=Path, required=True, help="git dir of inukshuk/anystyle")
    ap.add_argument("--cora", type=Path, required=True, help="git dir of cleanzr/cora")
    ap.add_argument(
        "--out",
        type=Path,
        default=REAL / "citation_styles",
    )
    ap.add_argument(
        "--errata",
        type=Path,
        default=REAL / "citation_styles" / "errata.jsonl",
        help="the hand errata of the label audit (default: %(default)s)",
    )
    args = ap.parse_args(argv)
    items = read_grobid(args.grobid) + read_anystyle(args.anystyle) + read_cora(args.cora)
    seeds, entries = build(items)
    args.out.mkdir(parents=True, exist_ok=True)
    try:
        rows = audit(entries, seeds, args.errata)
    except ValueError as exc:
        print(f"builders.styles: {exc}", file=sys.stderr)
        return 2
    with open(args.out / "audit.jsonl", "w", encoding="utf-8") as fh:
        for row in rows:
            fh.write(json.dumps(row, ensure_ascii=False, sort_keys=True) + "\n")
    for split in ("dev", "test"):
        with open(args.out / f"seeds.{split}.jsonl", "w", encoding="utf-8") as fh:
            for seed in seeds:
                if split in seed["splits"]:
                    row = {k: v for k, v in seed.items() if k != "splits"}
                    fh.write(json.dumps(row, ensure_ascii=False, sort_keys=True) + "\n")
        # gzip with no name or time in its header: the same bytes on every rebuild, and the
        # entries (3.7 MB of JSON lines) stay under 1 MiB in the repository
        with (
            open(args.out / f"entries.{split}.jsonl.gz", "wb") as raw,
            gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) as gz,
        ):
            for e in entries:
                if e["split"] == split:
                    gz.write((json.dumps(e, ensure_ascii=False, sort_keys=True) + "\n").encode("utf-8"))
    counts = Counter((e["split"], e["style"]) for e in entries)
    print(
        json.dumps(
            {
                "labelled": len(items),
                "entries": len(entries),
                "seeds": {sp: sum(sp in x["splits"] for x in seeds) for sp in ("dev", "test")},
                "cited_seeds": sum(s["cited"] for s in seeds),
                "gold_pairs": sum(e["gold"] is not None for e in entries),
                "by_split_style": {f"{k[0]}/{k[1]}": v for k, v in sorted(counts.items())},
                "audit": {
                    f"{sp}/{by}/{cat}": n
                    for (sp, by, cat), n in sorted(
                        Counter((r["split"], r["by"], r["category"]) for r in rows).items()
                    )
                },
            }
        ),
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
