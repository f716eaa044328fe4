"""What a citation index said, cached so that a rerun asks nothing twice, and what we made of it.

The index (Semantic Scholar or OpenAlex, or their local stand-ins) only *proposes*: which seed-window papers are
cited how often, and which papers cite them. Its answers are stored verbatim here, keyed by what
was asked, so a killed or repeated run reads them from the store instead of the network:

* ``index_paper``      one batch-lookup answer per (source, arXiv id): citation count, or not found;
* ``index_citation``   one row per (source, cited arXiv id, citing paper); ``citing_arxiv_id`` is
                       empty for citers that are not on arXiv (the index knows them, we cannot fetch);
* ``index_citers_done`` a seed whose citations were paged to the end (or to the API's cap), with
                       what the list may lack: cut by the paging cap (``capped``), pages that
                       stayed partial after the index's soft timeout (``timed_out``), and citing
                       rows the index listed without an id of theirs (``n_without_id``, skipped).

What a build did with them is kept per window: the chosen keys (``index_key``), the PDF plan by
role (``plan_pick``), and the pairs where the index and our text resolver disagree
(``index_disagreement``), which `reflong-build audit` lists and build reports count.
"""

from __future__ import annotations

from sqlalchemy import UniqueConstraint
from sqlmodel import Field, SQLModel

from reflong.db.papers import utcnow


class IndexPaper(SQLModel, table=True):
    __tablename__ = "index_paper"
    __table_args__ = (UniqueConstraint("source", "arxiv_id"),)

    id: int | None = Field(default=None, primary_key=True)
    source: str = Field(description="s2 | openalex | ... (the provider that answered)")
    arxiv_id: str = Field(index=True)
    found: bool = Field(default=True, description="False: the index does not know this arXiv id")
    paper_key: str | None = Field(default=None, description="the provider's own id, e.g. S2 paperId")
    citation_count: int = 0
    title: str | None = None
    publication_date: str | None = None
    fetched_at: str = Field(default_factory=utcnow)


class IndexCitation(SQLModel, table=True):
    __tablename__ = "index_citation"
    __table_args__ = (UniqueConstraint("source", "seed_arxiv_id", "citing_key"),)

    id: int | None = Field(default=None, primary_key=True)
    source: str
    seed_arxiv_id: str = Field(index=True, description="the cited paper (a seed-window paper)")
    citing_key: str = Field(description="provider id of the citing paper")
    citing_arxiv_id: str | None = Field(default=None, index=True, description="None: not on arXiv")
    publication_date: str | None = None
    title: str | None = None
    fetched_at: str = Field(default_factory=utcnow)


class IndexCitersDone(SQLModel, table=True):
    __tablename__ = "index_citers_done"
    __table_args__ = (UniqueConstraint("source", "seed_arxiv_id"),)

    id: int | None = Field(default=None, primary_key=True)
    source: str
    seed_arxiv_id: str = Field(index=True)
    n_citers: int = 0
    capped: bool = Field(default=False, description="True: the API's offset cap cut the list short")
    timed_out: bool = Field(
        default=False,
        description="True: a page stayed partial (the index's soft timeout): citers may be missing",
    )
    n_without_id: int = Field(
        default=0, description="citing rows the index listed with no id of the citing paper (skipped)"
    )
    fetched_at: str = Field(default_factory=utcnow)


class IndexKey(SQLModel, table=True):
    """A key the plan chose for a window: its citation count and band (provenance of the choice)."""

    __tablename__ = "index_key"
    __table_args__ = (UniqueConstraint("window", "arxiv_id"),)

    id: int | None = Field(default=None, primary_key=True)
    window: str = Field(index=True)
    arxiv_id: str = Field(index=True)
    citation_count: int = 0
    band: str = Field(description='citation band, e.g. "8-15"')
    citers_in_pool: int = Field(default=0, description="arXiv citers inside the pool window (index view)")


class PlanPick(SQLModel, table=True):
    """A paper whose PDF the plan fetches, and why (role): citer of a key, control, distractor, sample."""

    __tablename__ = "plan_pick"
    __table_args__ = (UniqueConstraint("window", "arxiv_id"),)

    id: int | None = Field(default=None, primary_key=True)
    window: str = Field(index=True)
    arxiv_id: str = Field(index=True)
    role: str = Field(description="citer | control | distractor | sample")
    seed_arxiv_id: str | None = Field(default=None, description="for citers: the key the index links it to")


class IndexDisagreement(SQLModel, table=True):
    """A (pool paper, key) pair where the index and the text disagree (``kind``)."""

    __tablename__ = "index_disagreement"
    __table_args__ = (UniqueConstraint("window", "citing_arxiv_id", "citing_version", "seed_arxiv_id"),)

    id: int | None = Field(default=None, primary_key=True)
    window: str = Field(index=True)
    citing_arxiv_id: str = Field(index=True)
    citing_version: int = 0
    seed_arxiv_id: str = Field(index=True)
    kind: str = Field(description="index_only (index says cites, text finds none) | text_only")
    reference: str = Field(default="", description="for text_only: the reference string that matched")
    score: float = 0.0


class IndexAgreement(SQLModel, table=True):
    """The agreement figures of a window (JSON), as the last resolution left them."""

    __tablename__ = "index_agreement"

    id: int | None = Field(default=None, primary_key=True)
    window: str = Field(unique=True, index=True)
    summary_json: str = "{}"
    updated_at: str = Field(default_factory=utcnow)
