"""A citation index as a candidate generator: the small interface, and a store-backed cache.

A citation index answers two questions, and only these are used:

* ``papers(arxiv_ids)``: how often is each paper cited (and is it known at all)?
* ``citers(arxiv_id)``: which papers cite it (with their arXiv id if they are on arXiv, and date)?

Two providers: Semantic Scholar (``semantic_scholar.S2Index``: batch lookup by ``ARXIV:`` ids,
citations paged by offset) and OpenAlex (``openalex.OpenAlexIndex``: ``filter=doi:`` OR-lists of
arXiv's DataCite DOIs ``10.48550/arXiv.<id>``, then ``locations.landing_page_url`` for the ids a
merged work hides from the DOI filter, ``filter=cites:W...`` paged by cursor). Each keeps
its own answers in the store (``source`` "s2" or "openalex"); ``registry.py`` lists them by name,
and a third is two edits (see there). ``CachedIndex`` wraps any provider with the store
(``db/index.py``), so every answer is asked once: a rerun, or a run after a kill, reads the cache.

What a citers list may lack is kept with it (``CitersPage``, stored in ``index_citers_done``) and
said in the plan (``CachedIndex.citers_report``): a list cut by the provider's paging cap, a list
whose pages stayed partial after the provider's soft timeout, and citing rows listed without an
id of the citing paper (S2 lists such rows; they cannot be fetched and are skipped, counted).

The index never decides a label (docs/architecture.md, invariant 6): it decides which PDFs to fetch.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Protocol

from sqlalchemy.engine import Engine
from sqlmodel import Session, select

from reflong.common.errors import NetworkError
from reflong.db.index import IndexCitation, IndexCitersDone, IndexPaper
from reflong.db.papers import utcnow
from reflong.ingest.netpolicy import NetPolicy


class IndexUnreachable(NetworkError):
    """The index host could not be reached at all (the plan may go on without an index)."""


@dataclass(frozen=True)
class IndexedPaper:
    arxiv_id: str
    found: bool
    citation_count: int = 0
    paper_key: str | None = None
    title: str | None = None
    publication_date: str | None = None


@dataclass(frozen=True)
class Citer:
    key: str  # provider id of the citing paper
    arxiv_id: str | None  # None: not on arXiv
    publication_date: str | None = None
    title: str | None = None


@dataclass
class CitersPage:
    citers: list[Citer]
    capped: bool = False  # the provider's paging cap cut the list short
    timed_out: bool = False  # a page stayed partial (the provider's soft timeout): citers may be missing
    without_id: int = 0  # rows the provider listed with no id of the citing paper (skipped, counted)

    @property
    def incomplete(self) -> bool:
        return self.capped or self.timed_out


@dataclass
class CitersReport:
    """What the stored citers lists of some papers may lack, for the plan's report line."""

    lists: int = 0  # lists in the store among those asked about
    capped: list[str] = field(default_factory=list)  # arXiv ids whose list the paging cap cut
    timed_out: list[str] = field(default_factory=list)  # arXiv ids whose list stayed partial
    without_id: int = 0  # citing rows listed without an id, skipped

    @property
    def incomplete(self) -> list[str]:
        return sorted(set(self.capped) | set(self.timed_out))


class CitationIndex(Protocol):
    """A provider: batch lookups and paged citers, both polite and retried inside the provider."""

    source: str  # stored with every answer, e.g. "s2"
    requests: Counter  # requests made, by kind ("batch", "citations")
    batch_size: int  # ids per lookup request
    lookups_per_batch: int  # requests a lookup batch may take (OpenAlex: 2, the DOI filter and its misses)
    page_size: int  # citers per page
    max_citers: int  # the provider's paging cap (S2: offset + limit; OpenAlex's cursor: none)
    delay: float  # seconds between two requests (the politeness gate)
    policy: NetPolicy  # timeouts and retries (the plan sets the run's own)
    published_gap: float  # seconds a request at the provider's published rate, for the plan's hours

    def papers(self, arxiv_ids: list[str]) -> list[IndexedPaper]: ...
    def citers(self, arxiv_id: str, paper_key: str | None = None) -> CitersPage: ...


def lookup_requests(n_ids: int, batch_size: int, per_batch: int = 1) -> int:
    """Requests to look ``n_ids`` up: batches, times what a batch may take (at most)."""
    return (-(-n_ids // batch_size) if n_ids else 0) * per_batch


def citer_requests(citation_count: int, page_size: int, max_citers: int) -> int:
    """Pages to list a paper's citers (one page even when it has none: we must ask to know)."""
    n = min(citation_count, max_citers)
    return max(1, -(-n // page_size))


@dataclass
class CachedIndex:
    """A provider behind the store: answers come from ``index_*`` tables when they are there."""

    engine: Engine
    provider: CitationIndex
    hits: Counter = field(default_factory=Counter)  # answers read from the cache, by kind

    @property
    def source(self) -> str:
        return self.provider.source

    def uncached_papers(self, arxiv_ids: Iterable[str]) -> list[str]:
        """Which of ``arxiv_ids`` ``papers`` would have to ask (for progress totals)."""
        with Session(self.engine) as session:
            known = set(
                session.exec(select(IndexPaper.arxiv_id).where(IndexPaper.source == self.source)).all()
            )
        return sorted(set(arxiv_ids) - known)

    def papers(
        self, arxiv_ids: Iterable[str], on_batch: Callable[[], None] | None = None
    ) -> dict[str, IndexedPaper]:
        """Citation counts of ``arxiv_ids``; only unknown ids are asked, in batches, each committed
        (``on_batch`` is called after each)."""
        wanted = sorted(set(arxiv_ids))
        wanted_set = set(wanted)
        out: dict[str, IndexedPaper] = {}
        with Session(self.engine) as session:
            for row in session.exec(select(IndexPaper).where(IndexPaper.source == self.source)).all():
                if row.arxiv_id in wanted_set:
                    out[row.arxiv_id] = IndexedPaper(
                        row.arxiv_id,
                        row.found,
                        row.citation_count,
                        row.paper_key,
                        row.title,
                        row.publication_date,
                    )
        self.hits["batch"] += len(out)
        todo = [a for a in wanted if a not in out]
        size = self.provider.batch_size
        for start in range(0, len(todo), size):
            chunk = todo[start : start + size]
            answers = {p.arxiv_id: p for p in self.provider.papers(chunk)}
            with Session(self.engine) as session:
                for arxiv_id in chunk:
                    p = answers.get(arxiv_id, IndexedPaper(arxiv_id, False))
                    session.add(
                        IndexPaper(
                            source=self.source,
                            arxiv_id=arxiv_id,
                            found=p.found,
                            paper_key=p.paper_key,
                            citation_count=p.citation_count,
                            title=p.title,
                            publication_date=p.publication_date,
                        )
                    )
                    out[arxiv_id] = p
                session.commit()
            if on_batch is not None:
                on_batch()
        return out

    def citers(self, arxiv_id: str) -> list[Citer]:
        """Every citer the index lists for ``arxiv_id`` (paged once, then read from the store)."""
        with Session(self.engine) as session:
            done = session.exec(
                select(IndexCitersDone).where(
                    IndexCitersDone.source == self.source, IndexCitersDone.seed_arxiv_id == arxiv_id
                )
            ).first()
            if done is not None:
                self.hits["citations"] += 1
                return [
                    Citer(r.citing_key, r.citing_arxiv_id, r.publication_date, r.title)
                    for r in session.exec(
                        select(IndexCitation)
                        .where(IndexCitation.source == self.source, IndexCitation.seed_arxiv_id == arxiv_id)
                        .order_by(IndexCitation.citing_key)
                    ).all()
                ]
            # The provider's own id of the paper, when a lookup stored it: OpenAlex's ``cites:``
            # filter takes only its work ids, and a rerun must not look the paper up again.
            paper_key = session.exec(
                select(IndexPaper.paper_key).where(
                    IndexPaper.source == self.source, IndexPaper.arxiv_id == arxiv_id
                )
            ).first()
        page = self.provider.citers(arxiv_id, paper_key)
        unique = {c.key: c for c in page.citers}
        with Session(self.engine) as session:
            # A page list interrupted by a kill left nothing behind (one transaction per seed).
            for old in session.exec(
                select(IndexCitation).where(
                    IndexCitation.source == self.source, IndexCitation.seed_arxiv_id == arxiv_id
                )
            ).all():
                session.delete(old)
            session.flush()
            for c in unique.values():
                session.add(
                    IndexCitation(
                        source=self.source,
                        seed_arxiv_id=arxiv_id,
                        citing_key=c.key,
                        citing_arxiv_id=c.arxiv_id,
                        publication_date=c.publication_date,
                        title=c.title,
                    )
                )
            session.add(
                IndexCitersDone(
                    source=self.source,
                    seed_arxiv_id=arxiv_id,
                    n_citers=len(unique),
                    capped=page.capped,
                    timed_out=page.timed_out,
                    n_without_id=page.without_id,
                    fetched_at=utcnow(),
                )
            )
            session.commit()
        return sorted(unique.values(), key=lambda c: c.key)

    def citers_report(self, arxiv_ids: Iterable[str]) -> CitersReport:
        """What the stored citers lists of ``arxiv_ids`` may lack (fresh or from an earlier run)."""
        wanted = set(arxiv_ids)
        report = CitersReport()
        with Session(self.engine) as session:
            rows = session.exec(select(IndexCitersDone).where(IndexCitersDone.source == self.source)).all()
        for row in sorted(rows, key=lambda r: r.seed_arxiv_id):
            if row.seed_arxiv_id not in wanted:
                continue
            report.lists += 1
            report.without_id += row.n_without_id or 0
            if row.capped:
                report.capped.append(row.seed_arxiv_id)
            if row.timed_out:
                report.timed_out.append(row.seed_arxiv_id)
        return report

    def cached_citers(self, arxiv_ids: Iterable[str]) -> set[str]:
        """Which of ``arxiv_ids`` already have their citers in the store (no request needed)."""
        wanted = set(arxiv_ids)
        with Session(self.engine) as session:
            rows = session.exec(
                select(IndexCitersDone.seed_arxiv_id).where(IndexCitersDone.source == self.source)
            ).all()
        return wanted & set(rows)
