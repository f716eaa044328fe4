"""The metadata of one paper version, as every source (arXiv API, local catalog) yields it.

Both sources are reduced to ``PaperMeta`` before roles are assigned or rows are written, so the
arXiv path and the ``--source DIR`` path go through exactly the same code afterwards (and give
the same papers table for the same catalog).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

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


_WITHDRAWN_RE = re.compile(r"\bwithdrawn\b", re.IGNORECASE)


def is_withdrawn(comment: str | None) -> bool:
    """arXiv marks a withdrawn paper in its comment ("This paper has been withdrawn by ...")."""
    return bool(comment and _WITHDRAWN_RE.search(comment))


def clean_title(title: str | None) -> str:
    """Whitespace collapsed, as the arxiv client does to feed titles (so both paths agree)."""
    return " ".join((title or "").split())


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

    @property
    def vid(self) -> str:
        return versioned_id(self.arxiv_id, self.version)
