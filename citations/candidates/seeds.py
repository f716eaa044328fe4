"""Where seed titles come from: the store's seed-role papers, or a JSON-lines file.

The file format is that of ../shared/corpus/seeds.jsonl (``arxiv_id``, ``title``, ``published``;
optional ``first_author``, ``doi``: one DOI, several in one string or a list), so users can bring curated seed lists such as the 38 keys of
Ref-Long's released Paper subset. Seeds are synced into the ``seed`` table; a seed whose title,
first author or date changed gets a new ``seq`` so every paper is re-resolved against it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from pathlib import Path

from sqlmodel import Session, select

from reflong.citations.resolve import SeedTitle
from reflong.common.dois import split_dois
from reflong.common.errors import ReflongError
from reflong.common.textfiles import read_user_text
from reflong.db.citations import Citation, Seed
from reflong.db.papers import Paper, PaperRole, utcnow

_VERSION_SUFFIX = re.compile(r"v\d+$")


def load_seed_file(path: str | Path) -> list[SeedTitle]:
    """Seeds from a JSON-lines file; a bad line is an error naming the line."""
    path = Path(path)
    if not path.is_file():
        raise ReflongError(f"--seeds {path}: no such file")
    seeds: dict[str, SeedTitle] = {}
    for n, line in enumerate(read_user_text(path, "--seeds").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            arxiv_id = _VERSION_SUFFIX.sub("", str(row["arxiv_id"]).strip())
            title = str(row["title"]).strip()
        except (json.JSONDecodeError, KeyError, TypeError) as exc:
            raise ReflongError(
                f"--seeds {path}, line {n}: expected JSON with arxiv_id and title ({exc.__class__.__name__})"
            ) from None
        if not arxiv_id or not title:
            raise ReflongError(f"--seeds {path}, line {n}: empty arxiv_id or title")
        # "doi": one DOI, several in one string ("A; B", as arXiv's field has them) or a list.
        doi = " ".join(split_dois(row.get("doi"))) or None
        seeds[arxiv_id] = SeedTitle(arxiv_id, title, row.get("published"), row.get("first_author"), doi)
    if not seeds:
        raise ReflongError(f"--seeds {path} lists no seeds")
    return list(seeds.values())


def surname(name: str) -> str:
    """The surname a reference would print: "Last, First" -> Last; organisations kept whole."""
    name = name.strip()
    if "," in name:  # "Last, First"
        return name.split(",", 1)[0].strip()
    parts = name.split()
    # Organisations ("DeepSeek-AI", "ATLAS Collaboration") are kept whole.
    if len(parts) > 1 and parts[-1].lower() in {"collaboration", "team", "workshop", "consortium", "group"}:
        return name
    # "A. A. Abdumalikov Jr." is cited as Abdumalikov (arXiv's author parser splits the suffix off
    # the same way: arxiv-base arxiv/authors, pattern "name-name-prefix").
    if len(parts) > 1 and parts[-1].rstrip(".").lower() in {"jr", "sr", "ii", "iii", "iv"}:
        parts = parts[:-1]
    return parts[-1] if parts else ""


def store_seeds(session: Session) -> list[SeedTitle]:
    """Seed-role papers of every build window in the store (one entry per arXiv id)."""
    rows = session.exec(
        select(Paper)
        .join(PaperRole, PaperRole.arxiv_id == Paper.arxiv_id)
        .where(PaperRole.role == "seed")
        .order_by(Paper.arxiv_id, Paper.version)
    ).all()
    seeds: dict[str, SeedTitle] = {}
    for p in rows:
        try:
            authors = json.loads(p.authors_json or "[]")
        except json.JSONDecodeError:
            authors = []
        first = surname(authors[0]) if authors and isinstance(authors[0], str) else None
        seeds.setdefault(p.arxiv_id, SeedTitle(p.arxiv_id, p.title, p.first_published, first, p.doi))
    return list(seeds.values())


def sync_seeds(
    session: Session,
    seeds: list[SeedTitle],
    source: str,
    twins: Mapping[str, Sequence[tuple[str, str]]] | None = None,
) -> dict[str, Seed]:
    """Upsert seeds; changed ones get a new seq. Returns id -> row.

    A seed whose title, first author, date or DOI changed loses its old edges (they judged
    another seed). One whose title twins changed (``title_twins``: another paper with its
    title harvested since) keeps them: the new seq alone sends every reference that can reach
    it back to the resolver, which replaces them."""
    existing = {s.arxiv_id: s for s in session.exec(select(Seed)).all()}
    top = max((s.seq for s in existing.values()), default=0)
    out: dict[str, Seed] = {}
    for info in seeds:
        row = existing.get(info.arxiv_id)
        fields = (info.title, info.first_author, info.published, info.doi)
        twins_json = json.dumps(sorted(map(list, (twins or {}).get(info.arxiv_id, ()))), ensure_ascii=False)
        same = row is not None and (row.title, row.first_author, row.published, row.doi) == fields
        if same and row.twins == twins_json:
            out[info.arxiv_id] = row
            continue
        if row is None:
            row = Seed(arxiv_id=info.arxiv_id, title=info.title, source=source)
        elif not same:
            for edge in session.exec(select(Citation).where(Citation.seed_arxiv_id == info.arxiv_id)).all():
                session.delete(edge)
        top += 1
        row.title, row.first_author, row.published, row.doi = fields
        row.twins, row.seq, row.source, row.updated_at = twins_json, top, source, utcnow()
        session.add(row)
        out[info.arxiv_id] = row
    session.flush()
    return out
