"""Builds and their tasks: what was assembled, from what, with which settings.

A build row is the provenance of one ``paper`` run (tool version, settings, random seed, output
hashes); task rows keep each task's key, documents (id and version, prompt order) and answer so
that a later build can say which tasks changed and why, and audits can point at tasks.
"""

from __future__ import annotations

from sqlalchemy import UniqueConstraint
from sqlmodel import Field, SQLModel

from reflong.db.papers import utcnow


class Build(SQLModel, table=True):
    __tablename__ = "build"

    id: int | None = Field(default=None, primary_key=True)
    created_at: str = Field(default_factory=utcnow)
    tool_version: str
    subset: str = Field(default="paper", description="paper | a | f")
    window: str | None = Field(default=None, description="the role window the keys and documents came from")
    seed: int = 0
    settings_json: str = "{}"
    out_dir: str = ""
    n_tasks: int = 0
    n_dropped: int = 0
    distractor_false_positives: int = 0
    report_json: str = Field(default="{}", description="summary: keys, drops with reasons, FP details")
    outputs_json: str = Field(default="{}", description="output file -> sha256")


class BuildTask(SQLModel, table=True):
    __tablename__ = "build_task"
    __table_args__ = (UniqueConstraint("build_id", "difficulty", "length", "task_index"),)

    id: int | None = Field(default=None, primary_key=True)
    build_id: int = Field(foreign_key="build.id", index=True)
    difficulty: str
    length: str = Field(description="nominal length label, e.g. 30K")
    task_index: int
    key_arxiv_id: str = Field(index=True)
    key_title: str
    documents_json: str = Field(description='JSON list of "arxiv_id vN" in prompt order')
    answer_json: str = Field(description="JSON list of 0-based positions of the citing documents")
    prompt_tokens: int = 0
    verified: bool = True
