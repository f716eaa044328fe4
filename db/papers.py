"""Papers, their roles in builds, and the failure log.

A ``Paper`` row is one arXiv paper at one version (``version`` 0: the version is unknown, e.g. a
camera-ready PDF from a local folder). The version is explicit because arXiv papers are revised:
a distractor must be read at a version dated before the seed window, never "latest".

Roles belong to a build window, not to a paper (a paper can be a seed in one build and a
distractor in another), hence ``PaperRole``.
"""

from __future__ import annotations

from datetime import datetime, timezone

from sqlalchemy import UniqueConstraint
from sqlmodel import Field, Session, SQLModel, select


def utcnow() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


class Paper(SQLModel, table=True):
    __tablename__ = "paper"
    __table_args__ = (UniqueConstraint("arxiv_id", "version"),)

    id: int | None = Field(default=None, primary_key=True)
    arxiv_id: str = Field(
        index=True, description="arXiv id without version, e.g. 2403.01234 or hep-th/9901001"
    )
    version: int = Field(default=0, description="arXiv version number; 0 when unknown")
    title: str
    authors_json: str = Field(default="[]", description="JSON list of author names as given by the source")
    categories_json: str = Field(default="[]")
    primary_category: str | None = None
    first_published: str | None = Field(default=None, description="date of v1, YYYY-MM-DD")
    version_date: str | None = Field(default=None, description="date of this version, YYYY-MM-DD")
    doi: str | None = None
    pdf_url: str | None = None
    pdf_path: str | None = None
    pdf_sha256: str | None = Field(default=None, index=True)
    status: str = Field(default="metadata", description="metadata | downloaded | failed | skipped")
    error: str | None = None
    source: str = Field(default="arxiv", description="arxiv | local")
    license: str | None = Field(
        default=None, description="licence URL of this version as arXiv gives it; None: not known"
    )
    updated_at: str = Field(default_factory=utcnow)


class PaperRole(SQLModel, table=True):
    """The role of a paper in one build window (e.g. window "2024-03:s1:p6:d2")."""

    __tablename__ = "paper_role"
    __table_args__ = (UniqueConstraint("window", "arxiv_id"),)

    id: int | None = Field(default=None, primary_key=True)
    window: str = Field(index=True)
    arxiv_id: str = Field(index=True)
    role: str = Field(description="seed | pool | distractor")
    version: int = Field(default=0, description="the version whose text this role uses")


class Failure(SQLModel, table=True):
    """One recorded failure: the run went on, and a rerun retries (and clears) it."""

    __tablename__ = "failure"
    __table_args__ = (UniqueConstraint("stage", "subject"),)

    id: int | None = Field(default=None, primary_key=True)
    stage: str = Field(index=True, description="ingest | download | parse | cite | resolve | assemble")
    subject: str = Field(description="what failed: an arXiv id with version, a file name, ...")
    reason: str = Field(index=True, description="short machine-readable code, e.g. encrypted, http-404")
    message: str = ""
    created_at: str = Field(default_factory=utcnow)


def record_failure(session: Session, stage: str, subject: str, reason: str, message: str = "") -> None:
    """Insert or replace the failure of ``subject`` at ``stage`` (idempotent across reruns)."""
    row = session.exec(select(Failure).where(Failure.stage == stage, Failure.subject == subject)).first()
    if row is None:
        row = Failure(stage=stage, subject=subject, reason=reason, message=message)
    else:
        row.reason, row.message, row.created_at = reason, message, utcnow()
    session.add(row)


def clear_failure(session: Session, stage: str, subject: str) -> None:
    """Forget an earlier failure of ``subject`` at ``stage`` once it succeeded."""
    row = session.exec(select(Failure).where(Failure.stage == stage, Failure.subject == subject)).first()
    if row is not None:
        session.delete(row)


def upsert_paper(session: Session, arxiv_id: str, version: int, **fields: object) -> Paper:
    """Insert or update the row of ``arxiv_id`` at ``version`` (idempotent: reruns add no rows).

    Only the given fields are written, so metadata refreshes never undo a finished download
    (``status``, ``pdf_path`` and ``pdf_sha256`` change only when passed explicitly).
    """
    row = session.exec(select(Paper).where(Paper.arxiv_id == arxiv_id, Paper.version == version)).first()
    if row is None:
        row = Paper(arxiv_id=arxiv_id, version=version, title=str(fields.get("title", "")))
    changed = row.id is None
    for key, value in fields.items():
        if getattr(row, key) != value:
            setattr(row, key, value)
            changed = True
    if changed:
        row.updated_at = utcnow()
        session.add(row)
    return row


def set_role(session: Session, window: str, arxiv_id: str, role: str, version: int) -> PaperRole:
    """Give ``arxiv_id`` its role (and text version) in ``window``; reruns update, never duplicate."""
    row = session.exec(
        select(PaperRole).where(PaperRole.window == window, PaperRole.arxiv_id == arxiv_id)
    ).first()
    if row is None:
        row = PaperRole(window=window, arxiv_id=arxiv_id, role=role, version=version)
        session.add(row)
    elif (row.role, row.version) != (role, version):
        row.role, row.version = role, version
        session.add(row)
    return row
