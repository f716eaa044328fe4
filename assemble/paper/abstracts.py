"""Seed abstracts for ``--key-form abstract``, read from the store.

Why two sources: a seed is known by its metadata, and arXiv's metadata carries the abstract
(arXivRaw's ``<abstract>``, the API's ``<summary>``); where a harvest stored it
(``arxiv_record.abstract``) it is used as arXiv gives it. A seed whose own PDF was parsed (the real
corpus, where every corpus paper is also a seed) has its abstract at the start of its text, after
the word "Abstract"; that is the second source. A seed with neither is left out of an abstract-keyed
build with its reason in ``build_report.json`` (``skipped_keys``), never given a guessed text.
"""

from __future__ import annotations

import dataclasses

from sqlalchemy import Engine, inspect, text
from sqlmodel import Session, select

from reflong.assemble.paper.key_forms import abstract_from_body
from reflong.assemble.paper.model import KeyCandidate
from reflong.db import Paper, ParsedDoc
from reflong.ingest.parse.pdf_text import PARSER_VERSION


def with_abstracts(engine: Engine, keys: list[KeyCandidate]) -> list[KeyCandidate]:
    """``keys`` with ``abstract`` filled where the store has one (metadata first, then the seed's
    own parsed text, newest version first)."""
    wanted = {k.arxiv_id for k in keys}
    found = _metadata_abstracts(engine, wanted)
    missing = wanted - found.keys()
    if missing:
        found.update(_parsed_abstracts(engine, missing))
    return [dataclasses.replace(k, abstract=found.get(k.arxiv_id, "")) for k in keys]


def _metadata_abstracts(engine: Engine, ids: set[str]) -> dict[str, str]:
    if "abstract" not in {c["name"] for c in inspect(engine).get_columns("arxiv_record")}:
        return {}
    out = {}
    ordered = sorted(ids)
    with engine.connect() as conn:
        for start in range(0, len(ordered), 500):  # SQLite's bound-parameter limit, with room
            batch = ordered[start : start + 500]
            marks = ", ".join(f":p{i}" for i in range(len(batch)))
            rows = conn.execute(
                text(f"SELECT arxiv_id, abstract FROM arxiv_record WHERE arxiv_id IN ({marks})"),
                {f"p{i}": v for i, v in enumerate(batch)},
            )
            out.update({a: " ".join(abstract.split()) for a, abstract in rows if abstract})
    return out


def _parsed_abstracts(engine: Engine, ids: set[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    with Session(engine) as session:
        papers = session.exec(select(Paper).where(Paper.arxiv_id.in_(sorted(ids)))).all()  # type: ignore[attr-defined]
        for paper in sorted(papers, key=lambda p: (p.arxiv_id, -p.version)):
            if paper.arxiv_id in out or not paper.pdf_sha256:
                continue
            parsed = session.exec(
                select(ParsedDoc).where(
                    ParsedDoc.pdf_sha256 == paper.pdf_sha256,
                    ParsedDoc.parser_version == PARSER_VERSION,
                    ParsedDoc.status == "parsed",
                )
            ).first()
            if parsed is not None and (abstract := abstract_from_body(parsed.body_text)):
                out[paper.arxiv_id] = abstract
    return out
