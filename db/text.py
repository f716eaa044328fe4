"""Parsed text of a PDF and its ~1K-token chunks.

Parses are keyed by (PDF sha256, parser version), not by paper: the same bytes parse the same way,
and a new parser version re-parses everything without touching the papers table.
"""

from __future__ import annotations

from sqlalchemy import UniqueConstraint
from sqlmodel import Field, SQLModel

from reflong.db.papers import utcnow


class ParsedDoc(SQLModel, table=True):
    __tablename__ = "parsed_doc"
    __table_args__ = (UniqueConstraint("pdf_sha256", "parser_version"),)

    id: int | None = Field(default=None, primary_key=True)
    pdf_sha256: str = Field(index=True)
    parser_version: str
    n_pages: int = 0
    body_text: str = ""
    references_text: str = ""
    appendix_text: str = ""
    has_references: bool = False
    status: str = Field(default="parsed", description="parsed | failed")
    error: str | None = None
    tokenizer: str = Field(default="", description="tokenizer name the chunks were counted with")
    chunk_tokens: int = Field(default=0, description="--chunk-tokens the chunks were cut with")
    n_tokens: int = Field(default=0, description="sum of the chunks' token counts")
    created_at: str = Field(default_factory=utcnow)


class Chunk(SQLModel, table=True):
    __tablename__ = "chunk"
    __table_args__ = (UniqueConstraint("parsed_doc_id", "order"),)

    id: int | None = Field(default=None, primary_key=True)
    parsed_doc_id: int = Field(foreign_key="parsed_doc.id", index=True)
    order: int
    section: str = Field(description="body | references | appendix")
    text: str
    n_tokens: int
