"""The metadata of papers as the sources yield it, before any of it is a row of the store.

One type per concept, shared by every source:

* ``PaperVersion``: one version of a paper (number, date, whether it is a withdrawal notice);
* ``ArxivRecord``: arXiv's record of a paper with its version history, whichever route brought
  it (OAI-PMH arXivRaw, ``harvest.arxivraw``; the API, ``harvest.api``): what ``arxiv_record``
  rows hold (``harvest.stored_records``);
* ``PaperMeta``: one paper pinned to one version, the unit roles, the PDF plan and ``paper`` rows
  are made of (``paper_rows``).

A local catalog's entry (``catalog.reader.CatalogPaper``) is a paper with its versions too, but as
a catalog states it (see its docstring); its versions are ``PaperVersion``s that also know their
file. Both record types become ``PaperMeta`` through one function, ``at_version``, so the arXiv path
and the ``--source DIR`` path go through exactly the same code afterwards (and give the same
papers table for the same catalog).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Protocol

from reflong.common.dois import split_dois

# New-style ids (2403.01234, 0704.0001) and old-style ids (hep-th/9901001), each with an optional vN.
_ID_RE = re.compile(r"^(?P<id>(\d{4}\.\d{4,5})|([a-z][a-z\-]*(\.[A-Z]{2})?/\d{7}))(v(?P<v>\d+))?$")


def split_versioned_id(text: str) -> tuple[str, int]:
    """``"2403.01234v2"`` -> ``("2403.01234", 2)``; no version -> 0 (unknown). ValueError if not an id."""
    m = _ID_RE.match(text.strip())
    if not m:
        raise ValueError(f"not an arXiv id: {text!r}")
    return m.group("id"), int(m.group("v") or 0)


def versioned_id(arxiv_id: str, version: int) -> str:
    """The id as arXiv writes it: with ``vN``, or bare when the version is unknown (0)."""
    return f"{arxiv_id}v{version}" if version else arxiv_id


def arxiv_pdf_url(base_url: str, arxiv_id: str, version: int) -> str:
    """The PDF of exactly this version on arXiv (or a server speaking its protocol); bare id only
    when the version is unknown."""
    return f"{base_url.rstrip('/')}/pdf/{versioned_id(arxiv_id, version)}"


_WITHDRAWN_RE = re.compile(r"\bwithdrawn\b", re.IGNORECASE)


def is_withdrawn(comment: str | None) -> bool:
    """arXiv marks a withdrawn paper in its comment ("This paper has been withdrawn by ...")."""
    return bool(comment and _WITHDRAWN_RE.search(comment))


def clean_title(title: str | None) -> str:
    """Whitespace collapsed, as the arxiv client does to feed titles (so both paths agree)."""
    return " ".join((title or "").split())


def matches_categories(categories: list[str], wanted: list[str]) -> bool:
    """Any category matches (``cs.*`` is a prefix); no filter or no known category: True.

    A record without categories (a catalog's seeds.jsonl carries none) is kept rather than
    silently lost: its categories are unknown, not different.
    """
    if not wanted or not categories:
        return True
    for want in wanted:
        if want.endswith("*"):
            if any(c.startswith(want[:-1]) for c in categories):
                return True
        elif want in categories:
            return True
    return False


@dataclass(frozen=True, slots=True)
class PaperVersion:
    """One version of a paper. ``number`` 0: unknown (a camera-ready PDF in a local folder)."""

    number: int
    date: str | None  # YYYY-MM-DD (UTC) of this version
    withdrawn: bool = False  # this version is a withdrawal notice (no paper in it)
    # The licence URL of this version; None: not known. arXivRaw gives only the newest version's
    # (``<license>``: the current metadata row's, arXiv's record_formats.xml), so an older
    # version's is known only when an earlier harvest saw it as the newest (stored_records).
    license: str | None = None

    def as_json(self) -> dict:
        out: dict = {"v": self.number, "date": self.date, "withdrawn": self.withdrawn}
        if self.license:
            out["license"] = self.license
        return out


@dataclass
class ArxivRecord:
    """One paper with its whole version history, as arXiv knows it (OAI-PMH or the API)."""

    arxiv_id: str
    title: str
    authors: list[str] = field(default_factory=list)
    categories: list[str] = field(default_factory=list)  # primary first
    versions: list[PaperVersion] = field(default_factory=list)  # ascending
    comment: str | None = None
    doi: str | None = None  # the field as arXiv gives it: one DOI or several ("A B", "A; B")
    datestamp: str | None = None  # OAI-PMH datestamp (last modification)
    deleted: bool = False  # OAI-PMH header status="deleted"
    complete: bool = True  # every version is known (OAI: yes; API: only v1 and the latest)
    first_date: str | None = None  # v1's date when v1 itself is not listed (API, version unknown)

    @property
    def primary_category(self) -> str | None:
        return self.categories[0] if self.categories else None

    @property
    def dois(self) -> list[str]:
        """Every DOI of the ``doi`` field (``reflong.common.dois``)."""
        return split_dois(self.doi)

    @property
    def first_published(self) -> str | None:
        v1 = next((v for v in self.versions if v.number == 1), None)
        return v1.date if v1 and v1.date else self.first_date

    @property
    def latest(self) -> PaperVersion | None:
        return self.versions[-1] if self.versions else None

    def merge(self, older: ArxivRecord) -> None:
        """Add the versions only ``older`` knows (an API page knows v1 and the latest, not the middle)."""
        mine = {v.number for v in self.versions}
        self.versions = sorted(
            self.versions + [v for v in older.versions if v.number not in mine], key=lambda v: v.number
        )
        self.first_date = self.first_date or older.first_date
        top = self.versions[-1].number if self.versions else 0
        self.complete = top >= 1 and {v.number for v in self.versions} == set(range(1, top + 1))

    @property
    def withdrawn(self) -> bool:
        return self.deleted or bool(self.latest and self.latest.withdrawn)

    @property
    def license(self) -> str | None:
        """The newest version's licence (what arXivRaw's ``<license>`` says)."""
        return self.latest.license if self.latest else None

    def versions_json(self) -> str:
        return json.dumps([v.as_json() for v in self.versions], separators=(",", ":"))


@dataclass
class PaperMeta:
    """One version of one paper: what a source knows about it.

    ``version`` 0 means the version is unknown (e.g. a camera-ready PDF in a local folder); its
    date is then unknown too, so such a version can never be proved to predate a seed.
    """

    arxiv_id: str
    version: int
    title: str
    authors: list[str] = field(default_factory=list)
    categories: list[str] = field(default_factory=list)
    primary_category: str | None = None
    first_published: str | None = None  # date of v1, YYYY-MM-DD
    version_date: str | None = None  # date of this version, YYYY-MM-DD
    doi: str | None = None
    comment: str | None = None
    withdrawn: bool = False
    pdf_url: str | None = None  # where the PDF of exactly this version is (None: no PDF known)
    license: str | None = None  # this version's licence URL (None: not known)

    @property
    def vid(self) -> str:
        return versioned_id(self.arxiv_id, self.version)


class PaperRecord(Protocol):
    """What every record of a paper has, whichever source made it (``ArxivRecord``, the catalog's
    ``CatalogPaper``): all ``at_version`` reads."""

    @property
    def arxiv_id(self) -> str: ...
    @property
    def title(self) -> str: ...
    @property
    def authors(self) -> list[str]: ...
    @property
    def categories(self) -> list[str]: ...
    @property
    def primary_category(self) -> str | None: ...
    @property
    def first_published(self) -> str | None: ...
    @property
    def doi(self) -> str | None: ...
    @property
    def comment(self) -> str | None: ...
    @property
    def withdrawn(self) -> bool: ...


def at_version(paper: PaperRecord, version: PaperVersion, pdf_url: str | None) -> PaperMeta:
    """``paper`` pinned to ``version`` (its PDF at ``pdf_url``): the one way a record becomes
    ``PaperMeta``. A version-0 (unknown) pin has no trustworthy date, whatever the record says."""
    return PaperMeta(
        arxiv_id=paper.arxiv_id,
        version=version.number,
        title=paper.title,
        authors=list(paper.authors),
        categories=list(paper.categories),
        primary_category=paper.primary_category,
        first_published=paper.first_published,
        version_date=version.date if version.number else None,
        doi=paper.doi,
        comment=paper.comment,
        withdrawn=paper.withdrawn,
        pdf_url=pdf_url,
        license=getattr(version, "license", None),
    )
