"""A local catalog as a source of papers (``--source DIR``).

``LocalSource`` answers the questions the local ingest asks: which papers fall in a date window
(at their latest version), what older versions look like (versioned ids), which papers exist at
all, and "put the PDF of exactly this version in the cache". arXiv itself is harvested into the
store instead (``harvest.oai``, ``harvest.api``) and roles come from the stored records (``roles``).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

from reflong.ingest.catalog.reader import CatalogPaper, CatalogProblem, read_catalog
from reflong.ingest.download import FetchOutcome, copy_local
from reflong.ingest.metadata import PaperMeta, matches_categories, split_versioned_id
from reflong.ingest.plan.windows import Window

log = logging.getLogger(__name__)


class Source(Protocol):
    kind: str  # "arxiv" | "local": stored in Paper.source

    def problems(self) -> list[CatalogProblem]: ...
    def undated(self, categories: list[str]) -> list[str]: ...
    def window(self, window: Window, categories: list[str], limit: int | None) -> list[PaperMeta]: ...
    def lookup(self, versioned_ids: list[str]) -> list[PaperMeta]: ...
    def all_papers(self) -> list[PaperMeta]: ...
    def fetch(self, meta: PaperMeta, final: Path) -> FetchOutcome: ...
    def on_page(self, callback: Callable[[int], None] | None) -> None: ...


class LocalSource:
    kind = "local"

    def __init__(self, root: str | Path) -> None:
        self.catalog = read_catalog(root)
        self._on_page: Callable[[int], None] | None = None

    def on_page(self, callback: Callable[[int], None] | None) -> None:
        self._on_page = callback  # one "page" per window: the whole window is read at once

    def problems(self) -> list[CatalogProblem]:
        return self.catalog.problems

    def undated(self, categories: list[str]) -> list[str]:
        return [
            p.arxiv_id
            for p in self.catalog.papers.values()
            if not p.first_published and matches_categories(p.categories, categories)
        ]

    def _meta(self, paper: CatalogPaper, number: int) -> PaperMeta:
        version = paper.latest if number == 0 else paper.versions[number]
        return paper.meta(version, version.file.as_uri() if version.file else None)

    def window(self, window: Window, categories: list[str], limit: int | None) -> list[PaperMeta]:
        papers = self.catalog.in_window(window.start, window.end, categories)[:limit]
        if self._on_page is not None:
            self._on_page(len(papers))
        return [self._meta(p, p.latest.number) for p in papers]

    def lookup(self, versioned_ids: list[str]) -> list[PaperMeta]:
        out = []
        for vid in versioned_ids:
            arxiv_id, number = split_versioned_id(vid)
            paper = self.catalog.papers.get(arxiv_id)
            if paper is not None and (number == 0 or number in paper.versions):
                out.append(self._meta(paper, number))
        return out

    def all_papers(self) -> list[PaperMeta]:
        return [self._meta(p, p.latest.number) for p in self.catalog.papers.values()]

    def fetch(self, meta: PaperMeta, final: Path) -> FetchOutcome:
        version = self.catalog.version(meta.arxiv_id, meta.version)
        if version is not None and version.refused:
            return FetchOutcome("failed", reason="file-outside-catalog", message=version.refused)
        if version is None or version.file is None:
            return FetchOutcome("failed", reason="no-pdf", message=f"the catalog has no PDF of {meta.vid}")
        return copy_local(version.file, final)
