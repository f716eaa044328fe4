"""Where papers come from: the arXiv API (or a mirror speaking its protocol) or a local catalog.

Both sources answer the same four questions, so role assignment, version choice, downloads and
the store are one code path: which papers fall in a date window (at their latest version), what
older versions look like (versioned ids), which papers exist at all (local only), and "put the PDF
of exactly this version in the cache".
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

from reflong.errors import ReflongError
from reflong.ingest.arxiv_client import PoliteArxivClient, result_to_meta
from reflong.ingest.download import FetchOutcome, copy_local, download
from reflong.ingest.local_source import CatalogPaper, CatalogProblem, read_catalog
from reflong.ingest.netpolicy import DEFAULT_ARXIV_URL, NetPolicy, Politeness, make_session
from reflong.ingest.records import PaperMeta, split_versioned_id
from reflong.ingest.windows import Window

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


def window_query(window: Window, categories: list[str]) -> str:
    """``(cat:cs.CL OR cat:cs.LG) AND submittedDate:[...]`` as the arXiv API reads it."""
    dates = window.submitted_date_clause()
    if not categories:
        return dates
    cats = " OR ".join(f"cat:{c}" for c in categories)
    return f"({cats}) AND {dates}"


class ArxivSource:
    kind = "arxiv"

    def __init__(self, base_url: str = DEFAULT_ARXIV_URL, policy: NetPolicy | None = None) -> None:
        self.policy = policy or NetPolicy()
        self.session = make_session()
        self.politeness = Politeness(self.policy.delay)
        self.client = PoliteArxivClient(base_url, self.policy, self.politeness, self.session)
        self._skipped: list[CatalogProblem] = []

    def problems(self) -> list[CatalogProblem]:
        return self._skipped

    def on_page(self, callback: Callable[[int], None] | None) -> None:
        """Call ``callback(n_entries)`` after every metadata page (progress bars)."""
        self.client.on_page = callback

    def undated(self, categories: list[str]) -> list[str]:
        return []  # the arxiv client already drops entries without dates

    def _metas(self, results) -> list[PaperMeta]:
        out = []
        for result in results:
            try:
                out.append(result_to_meta(result, self.client))
            except ValueError as exc:
                self._skipped.append(CatalogProblem(str(result.entry_id), "bad-record", str(exc)))
        return out

    def window(self, window: Window, categories: list[str], limit: int | None) -> list[PaperMeta]:
        return self._metas(self.client.search(window_query(window, categories), limit))

    def lookup(self, versioned_ids: list[str]) -> list[PaperMeta]:
        return self._metas(self.client.by_ids(versioned_ids))

    def all_papers(self) -> list[PaperMeta]:
        raise ReflongError("--since is required when ingesting from arXiv (e.g. --since 2024-03)")

    def fetch(self, meta: PaperMeta, final: Path) -> FetchOutcome:
        if not meta.pdf_url:
            return FetchOutcome("failed", reason="no-pdf", message=f"no PDF link for {meta.vid}")
        return download(self.session, meta.pdf_url, final, self.policy, self.politeness)


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
            if not p.first_published and p.matches_categories(categories)
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
