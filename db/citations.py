"""Seeds, parsed reference lists and citation edges (with their evidence).

Keys are chosen to be stable across reruns:

* ``reference`` rows are keyed by (citing arxiv_id, citing version, order): the order is the
  position in the printed bibliography (1-based), so it means the same thing to a person reading
  the PDF.
* ``citation`` edges are keyed by (citing arxiv_id, citing version, seed arxiv_id, reference
  order). Re-resolving (new thresholds, new seeds, a new resolver) updates the row in place, so
  audit verdicts stored against that key by a later feature survive. The reference string is
  copied onto the edge, so an audit can also see whether the evidence changed underneath it.

``seed.seq`` numbers seeds in the order they were added; ``reference_list.resolved_seq`` records up
to which seed a paper has been resolved. Together they make resolution incremental: new papers
resolve against every seed, new seeds only against what was resolved before them.
"""

from __future__ import annotations

from sqlalchemy import UniqueConstraint
from sqlmodel import Field, SQLModel

from reflong.db.papers import utcnow


class Seed(SQLModel, table=True):
    __tablename__ = "seed"

    id: int | None = Field(default=None, primary_key=True)
    arxiv_id: str = Field(unique=True, index=True)
    title: str
    first_author: str | None = None
    published: str | None = Field(default=None, description="first-version date, YYYY-MM-DD")
    doi: str | None = None
    source: str = Field(default="store", description="store (seed role) | file:<name>")
    twins: str = Field(
        default="",
        description="JSON [[arXiv id, first author], ...]: other stored papers with the seed's title",
    )
    seq: int = Field(
        default=0,
        index=True,
        description="increasing number; bumped when the title, author, date, DOI or twins change",
    )
    updated_at: str = Field(default_factory=utcnow)


class ReferenceList(SQLModel, table=True):
    """One citing paper's parsed bibliography: which parser produced it, and how far it is resolved."""

    __tablename__ = "reference_list"
    __table_args__ = (UniqueConstraint("arxiv_id", "version"),)

    id: int | None = Field(default=None, primary_key=True)
    arxiv_id: str = Field(index=True)
    version: int = 0
    pdf_sha256: str | None = None
    source_key: str = Field(default="", description="what was parsed: parsed_doc id + parser version")
    parser: str = Field(description="builtin-N | grobid-<version>")
    n_references: int = 0
    status: str = Field(default="ok", description="ok | empty | failed")
    error: str | None = None
    resolved_seq: int = Field(default=0, description="highest seed.seq this list was resolved against")
    resolver: str = Field(default="", description="resolver fingerprint (version + thresholds)")
    updated_at: str = Field(default_factory=utcnow)


class Reference(SQLModel, table=True):
    __tablename__ = "reference"
    __table_args__ = (UniqueConstraint("arxiv_id", "version", "order"),)

    id: int | None = Field(default=None, primary_key=True)
    arxiv_id: str = Field(index=True, description="the citing paper")
    version: int = 0
    order: int = Field(description="1-based position in the bibliography")
    raw: str
    title: str | None = None
    authors_json: str = "[]"
    year: int | None = None
    ref_arxiv_id: str | None = Field(default=None, index=True)
    ref_arxiv_version: int | None = None
    doi: str | None = None
    parser: str = ""
    near_misses_dropped: int = Field(
        default=0,
        # a server default too: rows written by other tools (the sqlite3 shell, a test) need none
        sa_column_kwargs={"server_default": "0"},
        description="rejects of this entry under the near-miss floor, counted and not stored",
    )


class Citation(SQLModel, table=True):
    """A resolved (reference -> seed) edge with its evidence and decision band."""

    __tablename__ = "citation"
    __table_args__ = (UniqueConstraint("citing_arxiv_id", "citing_version", "seed_arxiv_id", "ref_order"),)

    id: int | None = Field(default=None, primary_key=True)
    citing_arxiv_id: str = Field(index=True)
    citing_version: int = 0
    seed_arxiv_id: str = Field(index=True)
    ref_order: int
    reference: str = Field(description="the reference string the decision was made on")
    method: str = Field(description="arxiv_id | doi | title")
    score: float
    title_score: float = 0.0
    author: str = Field(default="unknown", description="first-author evidence: match | mismatch | unknown")
    band: str = Field(index=True, description="accept | review | reject")
    reason: str = ""
    resolver: str = ""
    updated_at: str = Field(default_factory=utcnow)


# The browsing view `citing_pairs` (citing pairs with evidence and verdicts) lives in db/views.py.
