"""What the store says about released tasks and their papers, for release manifests and notes.

Everything here reads the store only (no network): a release's tasks are the rows of the newest
``paper`` build written into the release's folder, papers' versions and withdrawals come from the
harvested ``arxiv_record`` rows (the ``paper`` table when a local catalog left none), and a
(document, key) pair is a positive when an accepted citation edge or a confirming verdict says so,
the rule the Paper build applies (``assemble.paper.inputs``).
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from sqlalchemy import func
from sqlmodel import Session, select

from reflong.assemble.manifest import MANIFEST_NAME
from reflong.db import Build, BuildTask
from reflong.db.audits import Audit, effective_band
from reflong.db.citations import Citation
from reflong.db.harvest import ArxivRecordRow
from reflong.db.papers import Paper

_REF = re.compile(r"^(?P<id>.+)v(?P<version>\d+)$")


def split_ref(ref: str) -> tuple[str, int]:
    """``"2404.00123v2"`` -> (``"2404.00123"``, 2)."""
    m = _REF.match(ref)
    return (m["id"], int(m["version"])) if m else (ref, 0)


@dataclass(frozen=True)
class ReleasedTask:
    config: str  # difficulty_length, e.g. easy_30K
    task_index: int
    key: str  # arXiv id of the key
    key_title: str
    documents: tuple[str, ...]  # refs "IDvN" in prompt order
    positives: frozenset[str]  # refs of the answer

    @property
    def name(self) -> str:
        return f"{self.config}#{self.task_index}"


def release_build(
    session: Session, folder: Path, window: str, manifest_sha256: str | None = None
) -> Build | None:
    """The ``paper`` build of ``window`` whose outputs are in ``folder``.

    With ``manifest_sha256`` (the sha256 of the release's ``manifest.json``, which its
    ``release.json`` keeps), the build is the one that wrote that very manifest, wherever the
    folder was then: a release folder moved or copied elsewhere (the whole dataset renamed, a
    backup restored) still finds its tasks, and a later build of the same window into the same
    place is not mistaken for it. Without it (the release being finished now), the newest build
    written into ``folder``."""
    query = select(Build).where(Build.subset == "paper", Build.window == window).order_by(Build.id.desc())
    if manifest_sha256 is None:
        return session.exec(query.where(Build.out_dir == str(Path(folder).resolve()))).first()
    for build in session.exec(query):
        if json.loads(build.outputs_json or "{}").get(MANIFEST_NAME) == manifest_sha256:
            return build
    return None


def released_tasks(session: Session, build_id: int) -> list[ReleasedTask]:
    rows = session.exec(
        select(BuildTask)
        .where(BuildTask.build_id == build_id)
        .order_by(BuildTask.difficulty, BuildTask.length, BuildTask.task_index)
    ).all()
    out = []
    for row in rows:
        docs = tuple(json.loads(row.documents_json))
        answer = frozenset(docs[i] for i in json.loads(row.answer_json))
        out.append(
            ReleasedTask(
                f"{row.difficulty}_{row.length}",
                row.task_index,
                row.key_arxiv_id,
                row.key_title,
                docs,
                answer,
            )
        )
    return out


@dataclass(frozen=True)
class PaperState:
    latest_version: int
    withdrawn: bool
    withdrawn_date: str | None = None
    comment: str | None = None

    def to_json(self) -> dict:
        return {"latest_version": self.latest_version, "withdrawn": self.withdrawn}


def paper_states(session: Session, arxiv_ids: Iterable[str]) -> dict[str, PaperState]:
    """Newest version and withdrawal of each paper, as the store knows them now."""
    ids = sorted(set(arxiv_ids))
    out: dict[str, PaperState] = {}
    for chunk in (ids[i : i + 500] for i in range(0, len(ids), 500)):
        for row in session.exec(select(ArxivRecordRow).where(ArxivRecordRow.arxiv_id.in_(chunk))):
            versions = json.loads(row.versions_json or "[]")
            notice = (
                next((v for v in reversed(versions) if v.get("withdrawn")), None) if row.withdrawn else None
            )
            out[row.arxiv_id] = PaperState(
                row.latest_version, bool(row.withdrawn), notice.get("date") if notice else None, row.comment
            )
        missing = [a for a in chunk if a not in out]
        if missing:  # a local catalog (--source) fills no arxiv_record rows: the paper table's versions
            for arxiv_id, latest in session.exec(
                select(Paper.arxiv_id, func.max(Paper.version))
                .where(Paper.arxiv_id.in_(missing))
                .group_by(Paper.arxiv_id)
            ):
                out[arxiv_id] = PaperState(int(latest or 0), False)
    return out


@dataclass
class PairStatus:
    """Whether the store makes ``ref`` a positive of ``key`` now, and what decided it."""

    positive: bool = False
    resolvers: set[str] = field(default_factory=set)  # fingerprints of the resolver runs that wrote its edges
    verdict: str | None = None  # the verdict in force, if any
    verdict_id: int = 0  # its audit row id
    verdict_who: str = ""
    verdict_why: str = ""


def pair_statuses(session: Session, pairs: Iterable[tuple[str, str]]) -> dict[tuple[str, str], PairStatus]:
    """The current decision on every (document ref, key id) pair."""
    wanted = set(pairs)
    by_citing: dict[str, set[str]] = defaultdict(set)
    for ref, key in wanted:
        by_citing[split_ref(ref)[0]].add(key)
    out = {pair: PairStatus() for pair in wanted}
    citing_ids = sorted(by_citing)
    for chunk in (citing_ids[i : i + 500] for i in range(0, len(citing_ids), 500)):
        for row in session.exec(select(Audit).where(Audit.citing_arxiv_id.in_(chunk)).order_by(Audit.id)):
            pair = (f"{row.citing_arxiv_id}v{row.citing_version}", row.seed_arxiv_id)
            if pair in out:  # later rows overwrite: the latest verdict is in force
                s = out[pair]
                s.verdict, s.verdict_id, s.verdict_who, s.verdict_why = row.verdict, row.id, row.who, row.why
        for edge in session.exec(select(Citation).where(Citation.citing_arxiv_id.in_(chunk))):
            pair = (f"{edge.citing_arxiv_id}v{edge.citing_version}", edge.seed_arxiv_id)
            if pair in out:
                s = out[pair]
                s.resolvers.add(edge.resolver)
                if effective_band(edge.band, s.verdict) == "accept":
                    s.positive = True
    for s in out.values():
        if s.verdict == "confirm":
            s.positive = True
        elif s.verdict == "reject":
            s.positive = False
    return out


def audit_through(session: Session) -> int:
    """The newest verdict's row id: verdicts after it are new to the next release's notes."""
    return int(session.exec(select(func.max(Audit.id))).one() or 0)


def newer_texts(session: Session, earlier, states) -> dict:
    """``NewText`` of the newest version of every document of ``earlier`` (releases' tasks) that
    has a version newer than the one shown: parsed or not, and the decision on it per key asked.

    Parsed means the store holds that version's reference list (status ok): only then can the
    notes say whether its text would answer a task differently (``notes._recheck``)."""
    from reflong.assemble.release.notes import NewText
    from reflong.db.citations import ReferenceList

    keys_of: dict[str, set[str]] = defaultdict(set)
    for rel in earlier:
        for task in rel.tasks:
            for ref in task.documents:
                arxiv_id, version = split_ref(ref)
                now = states.get(arxiv_id)
                if now is not None and not now.withdrawn and now.latest_version > version:
                    keys_of[f"{arxiv_id}v{now.latest_version}"].add(task.key)
    if not keys_of:
        return {}
    parsed: set[str] = set()
    ids = sorted({split_ref(r)[0] for r in keys_of})
    for chunk in (ids[i : i + 500] for i in range(0, len(ids), 500)):
        rows = session.exec(
            select(ReferenceList.arxiv_id, ReferenceList.version).where(
                ReferenceList.arxiv_id.in_(chunk), ReferenceList.status == "ok"
            )
        )
        parsed.update(f"{a}v{v}" for a, v in rows)
    statuses = pair_statuses(session, {(ref, key) for ref, keys in keys_of.items() for key in keys})
    return {
        ref: NewText(ref in parsed, {key: statuses[(ref, key)] for key in sorted(keys)})
        for ref, keys in sorted(keys_of.items())
    }
