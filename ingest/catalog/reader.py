"""Reading a local catalog folder (``--source DIR``): the format of ../shared/corpus.

A catalog is ``DIR/papers.jsonl`` (one record per paper, PDFs under DIR) plus an optional
``DIR/seeds.jsonl`` (papers known by metadata alone; for ids already in papers.jsonl it only adds
the first-version date). The same reader feeds ``reflong-build ingest --source DIR`` and the local
arXiv-protocol server, so both paths see exactly the same papers.

Every version of a paper the catalog knows about is kept (number, date, file): a distractor must be
read at the newest version dated before the seed window, and the catalog may know an older version
(from the ``versions`` field, or v1 from the first-version date) without having its PDF.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from datetime import date
from functools import lru_cache
from pathlib import Path

from reflong.common.errors import ReflongError
from reflong.ingest.metadata import (
    PaperMeta,
    PaperVersion,
    at_version,
    clean_title,
    is_withdrawn,
    matches_categories,
    split_versioned_id,
)

_DATE_RE = re.compile(r"^\d{4}-\d{2}-\d{2}")


@dataclass(frozen=True, slots=True)
class CatalogVersion(PaperVersion):
    """A ``PaperVersion`` (number 0: unknown) and what the catalog keeps of it besides: its file."""

    file: Path | None = None  # absolute path of its PDF, None when the catalog has no PDF of it
    size_kb: int | None = None  # source size as arXivRaw reports it (optional; the OAI stand-in shows it)
    refused: str | None = None  # why a named file is not used (it lies outside the catalog)


@dataclass(slots=True)
class CatalogPaper:
    """A paper with its versions as a local catalog states it, which is not how arXiv's record is.

    Not an ``ArxivRecord`` on purpose: the catalog gives the primary category, the first-version
    date and the withdrawn flag outright (an ``ArxivRecord`` derives them from its version list),
    its latest version may be unknown (number 0, a camera-ready PDF), its versions are looked up
    by number, and it carries what only the catalog has: the files, and the abstract, submitter
    and license the OAI-PMH stand-in serves. It plays arXiv's side: the stand-ins serve it as arXiv
    would, and the harvest reads it back as ``ArxivRecord``s. ``at_version`` pins either kind.
    """

    arxiv_id: str
    title: str
    authors: list[str]
    categories: list[str]
    primary_category: str | None
    first_published: str | None
    doi: str | None
    comment: str | None
    withdrawn: bool
    latest: CatalogVersion
    versions: dict[int, CatalogVersion] = field(default_factory=dict)  # every known one, latest too
    # Optional fields for the OAI-PMH stand-in (arXivRaw); readers that do not know them ignore them.
    datestamp: str | None = None  # last-modified day as OAI-PMH reports it (None: derived, see `modified`)
    abstract: str | None = None
    submitter: str | None = None
    license: str | None = None

    @property
    def modified(self) -> str | None:
        """The OAI-PMH datestamp: the explicit one, else the newest dated version (or first version).

        arXiv's datestamp is the record's last-modification day (a new version, a withdrawal, a
        metadata fix), so a harvest ``from`` a day is a superset of what changed since then.
        """
        if self.datestamp:
            return self.datestamp
        dates = [v.date for v in self.versions.values() if v.date]
        if self.first_published:
            dates.append(self.first_published)
        return max(dates) if dates else None

    def meta(self, version: CatalogVersion, pdf_url: str | None = None) -> PaperMeta:
        """This paper at ``version``; a version-0 (unknown) record has no trustworthy date. The
        catalog's ``license`` is its latest version's (as arXivRaw's), so only that pin carries it."""
        meta = at_version(self, version, pdf_url)
        if version.number == self.latest.number:
            meta.license = self.license
        return meta


@dataclass(frozen=True)
class CatalogProblem:
    """A record that cannot be used as is (recorded as a failure by the ingest, never fatal)."""

    subject: str
    reason: str  # missing-date | missing-title | duplicate-id | bad-record | withdrawn | file-outside-catalog
    message: str


@dataclass
class Catalog:
    root: Path
    papers: dict[str, CatalogPaper]
    problems: list[CatalogProblem]

    def in_window(self, start: date, end: date, categories: list[str]) -> list[CatalogPaper]:
        """Papers whose first version falls in ``[start, end)``, oldest first (ties by id)."""
        lo, hi = start.isoformat(), end.isoformat()
        found = [
            p
            for p in self.papers.values()
            if p.first_published
            and lo <= p.first_published < hi
            and matches_categories(p.categories, categories)
        ]
        return sorted(found, key=lambda p: (p.first_published, p.arxiv_id))

    def version(self, arxiv_id: str, number: int) -> CatalogVersion | None:
        """A given version of a paper (0: the latest), or None when the catalog does not know it."""
        paper = self.papers.get(arxiv_id)
        if paper is None:
            return None
        return paper.latest if number == 0 else paper.versions.get(number)


def _date(value: object) -> str | None:
    return _date_text(value) if isinstance(value, str) else None


@lru_cache(maxsize=8192)
def _date_text(value: str) -> str | None:
    """A valid YYYY-MM-DD (one shared string per day: a big catalog has few distinct days)."""
    if _DATE_RE.match(value):
        try:
            return sys.intern(date.fromisoformat(value[:10]).isoformat())
        except ValueError:
            return None
    return None


def _version_number(value: object) -> int:
    if isinstance(value, str):
        return _version_text(value)
    if isinstance(value, int):
        return value
    return 0


@lru_cache(maxsize=256)
def _version_text(value: str) -> int:
    return int(value[1:]) if re.fullmatch(r"v\d+", value) else 0


def _shared(value: str | None) -> str | None:
    """Interned: licenses and stock comments repeat across thousands of records."""
    return sys.intern(value) if value is not None and len(value) < 120 else value


def _read_jsonl(path: Path, problems: list[CatalogProblem]) -> list[dict]:
    return list(_iter_jsonl(path, problems))


def _iter_jsonl(path: Path, problems: list[CatalogProblem]) -> Iterator[dict]:
    """Records one at a time, so a 270K-line catalog is never held twice (as dicts and as papers)."""
    # Bytes, decoded line by line: one line in another encoding is one bad record, not a crash.
    with path.open("rb") as fh:
        for lineno, raw in enumerate(fh, 1):
            try:
                line = raw.decode("utf-8-sig" if lineno == 1 else "utf-8")
            except UnicodeDecodeError as exc:
                problems.append(
                    CatalogProblem(
                        f"{path.name}:{lineno}",
                        "bad-record",
                        f"not UTF-8 (byte {exc.start} of the line); save the catalog as UTF-8",
                    )
                )
                continue
            if not line.strip():
                continue
            try:
                rec = json.loads(line)
            except json.JSONDecodeError as exc:
                problems.append(CatalogProblem(f"{path.name}:{lineno}", "bad-record", f"not JSON: {exc}"))
                continue
            if not isinstance(rec, dict) or not isinstance(rec.get("arxiv_id"), str):
                problems.append(CatalogProblem(f"{path.name}:{lineno}", "bad-record", "no arxiv_id"))
                continue
            try:
                rec["arxiv_id"] = split_versioned_id(rec["arxiv_id"])[0]
            except ValueError as exc:
                problems.append(CatalogProblem(f"{path.name}:{lineno}", "bad-record", str(exc)))
                continue
            rec["_where"] = f"{path.name}:{lineno}"
            yield rec


def _file(root: Path, value: object) -> tuple[Path | None, str | None]:
    """The catalog file ``value`` names, resolved inside ``root``, or why it is refused: a file
    that leaves the catalog (by ``..``, an absolute path or a symlink) is never read."""
    if not isinstance(value, str) or not value:
        return None, None
    path = (root / value).resolve()
    if not path.is_relative_to(root.resolve()):
        return None, f"file {value!r} is outside the catalog folder {root}; not read (give a path inside it)"
    return path, None


def _text(value: object) -> str | None:
    return (value.strip() or None) if isinstance(value, str) else None


def _submitter(rec: dict, authors: list[str]) -> str | None:
    name = _text(rec.get("submitter"))
    return authors[0] if authors and name == authors[0] else name  # one string, not two


def _authors(rec: dict) -> list[str]:
    authors = rec.get("authors")
    if isinstance(authors, list):
        return [str(a) for a in authors if str(a).strip()]
    if rec.get("first_author"):
        return [str(rec["first_author"])]
    return []


def read_catalog(root: str | Path) -> Catalog:
    """Read a catalog folder; unusable records become ``problems``, never exceptions."""
    root = Path(root)
    papers_file = root / "papers.jsonl"
    if not papers_file.is_file():
        raise ReflongError(f"--source {root}: no papers.jsonl there (see the catalog format in README)")
    # Problems are reported in the same order as ever: reading papers, reading seeds, then adding.
    read_problems: list[CatalogProblem] = []
    seed_read_problems: list[CatalogProblem] = []
    problems: list[CatalogProblem] = []
    seeds_file = root / "seeds.jsonl"
    seed_records = _read_jsonl(seeds_file, seed_read_problems) if seeds_file.is_file() else []
    seed_first = {r["arxiv_id"]: _date(r.get("published")) for r in seed_records}

    papers: dict[str, CatalogPaper] = {}

    def add(rec: dict, from_seeds: bool) -> None:
        aid = rec["arxiv_id"]
        if aid in papers:
            if not from_seeds:
                problems.append(
                    CatalogProblem(rec["_where"], "duplicate-id", f"{aid} is listed twice; kept the first")
                )
            return
        if rec.get("title") is not None and not isinstance(rec.get("title"), str):
            kind = type(rec["title"]).__name__
            problems.append(CatalogProblem(aid, "bad-record", f"title is a {kind}, not a string; skipped"))
            return
        title = clean_title(rec.get("title"))
        if not title:
            problems.append(CatalogProblem(aid, "missing-title", "record has no title; skipped"))
            return
        versions: dict[int, CatalogVersion] = {}
        for v in rec.get("versions") or []:
            if isinstance(v, dict) and _version_number(v.get("version")):
                n = _version_number(v.get("version"))
                size = v.get("size_kb")
                file, refused = _file(root, v.get("file"))
                versions[n] = CatalogVersion(
                    n,
                    _date(v.get("published")),
                    withdrawn=v.get("withdrawn") is True,
                    file=file,
                    size_kb=size if isinstance(size, int) and size >= 0 else None,
                    refused=refused,
                )
        if from_seeds:
            # seeds.jsonl: `published` is the first-version date, the latest version is unknown.
            top = CatalogVersion(0, None)
        else:
            n = _version_number(rec.get("version"))
            file, refused = _file(root, rec.get("file"))
            top = CatalogVersion(n, _date(rec.get("published")), file=file, refused=refused)
        dated = [v.date for _, v in sorted(versions.items()) if v.date]
        first = (
            _date(rec.get("first_published"))
            or (dated[0] if dated else None)
            or seed_first.get(aid)
            or (_date(rec.get("published")) if top.number == 1 else None)
        )
        if top.number == 1 and top.date is None and first:
            top = replace(top, date=first)  # v1's date is the first-version date
        if top.number:  # the top-level record and its `versions` entry describe the same version
            listed = versions.get(top.number)
            if listed is not None:
                file = top.file or listed.file
                top = replace(
                    listed,
                    date=top.date or listed.date,
                    file=file,
                    refused=None if file else (top.refused or listed.refused),
                )
            versions[top.number] = top
        for v in versions.values():
            if v.refused:  # subject with the version: the paper's metadata itself is fine
                problems.append(CatalogProblem(f"{aid}v{v.number}", "file-outside-catalog", v.refused))
        if 1 not in versions and first:
            versions[1] = CatalogVersion(1, first)  # v1 exists and its date is known
        categories = [sys.intern(str(c)) for c in rec.get("categories") or [] if c]
        authors = _authors(rec)
        primary = rec.get("primary_category") or (categories[0] if categories else None)
        if primary and primary not in categories:
            categories.insert(0, primary)
        comment = _shared(rec.get("comment")) if isinstance(rec.get("comment"), str) else None
        withdrawn = bool(rec.get("withdrawn")) or is_withdrawn(comment) or top.withdrawn
        papers[aid] = CatalogPaper(
            arxiv_id=aid,
            title=title,
            authors=authors,
            categories=categories,
            primary_category=primary,
            first_published=first,
            doi=rec.get("doi") or None,
            comment=comment,
            withdrawn=withdrawn,
            latest=top,
            versions=dict(sorted(versions.items())),
            datestamp=_date(rec.get("datestamp")),
            abstract=_text(rec.get("abstract")),
            submitter=_submitter(rec, authors),
            license=_shared(_text(rec.get("license"))),
        )

    def add_safely(rec: dict, from_seeds: bool) -> None:
        try:
            add(rec, from_seeds)
        except (TypeError, ValueError, AttributeError) as exc:  # a field of an unexpected type
            why = f"unreadable record: {exc.__class__.__name__}: {exc}"
            problems.append(CatalogProblem(rec["_where"], "bad-record", why))

    for rec in _iter_jsonl(papers_file, read_problems):
        add_safely(rec, from_seeds=False)
    for rec in seed_records:
        add_safely(rec, from_seeds=True)
    return Catalog(root=root.resolve(), papers=papers, problems=read_problems + seed_read_problems + problems)
