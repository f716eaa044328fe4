"""Roles by date, computed from the stored records (``arxiv_record``), in batches.

The harvest stores every paper with its version history; this module reads the rows whose
first version falls in the build's windows (oldest first, ties by id), filters categories
locally, and writes paper rows and roles a batch at a time, so memory stays flat however big the
windows are. A distractor is pinned to the newest version dated before the seed window, computed
from the stored history (no look-ups when the history is complete, as arXivRaw's is); a pin
already stored for this window is kept when later versions appear (a refresh never moves it).
Withdrawn papers (newest version a withdrawal notice) are recorded as failures and lose any role
they had in this window.

The stored roles are read back the same way (``RolePapers``): the PDF plan and ``--max-papers``
count, sample and look up a window's papers in SQLite, a page at a time, and only the papers they
pick become ``PaperMeta``; the samples are the ones ``plan.selection`` takes from the whole list.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

import sqlalchemy as sa
from sqlalchemy import delete, tuple_
from sqlalchemy.dialects.sqlite import insert
from sqlalchemy.engine import Engine
from sqlmodel import Session, select

from reflong.db.harvest import ArxivRecordRow
from reflong.db.papers import Failure, Paper, PaperRole, record_failure, utcnow
from reflong.ingest.harvest.stored_records import record_from_row
from reflong.ingest.metadata import (
    ArxivRecord,
    PaperMeta,
    PaperVersion,
    arxiv_pdf_url,
    at_version,
    matches_categories,
)
from reflong.ingest.paper_rows import METADATA_COLUMNS, meta_from_row, paper_columns
from reflong.ingest.plan.selection import month_and_category, sample_positions, stratum_quotas
from reflong.ingest.plan.windows import DISTRACTOR, POOL, BuildWindows, Window

BATCH = 2000
IN_CHUNK = 500  # ids in one ``IN (...)`` (SQLite's variable limit is 32766 since 3.32, 999 before)


def newest_before(record: ArxivRecord, cutoff: str) -> PaperVersion | None:
    """The newest version with a text (not a withdrawal notice) dated strictly before ``cutoff``."""
    safe = [v for v in record.versions if v.number and v.date and v.date < cutoff and not v.withdrawn]
    return max(safe, key=lambda v: v.number) if safe else None


def missing_versions(record: ArxivRecord, best: PaperVersion | None) -> list[str]:
    """Versioned ids to look up (newest first) when the stored history has gaps (API records):
    the unknown versions newer than ``best`` (the newest known one before the cutoff)."""
    top = record.latest.number if record.latest else 0
    if top == 0:
        return [] if best else [f"{record.arxiv_id}v1"]
    known = {v.number for v in record.versions}
    floor = best.number if best else 0
    return [f"{record.arxiv_id}v{n}" for n in range(top - 1, floor, -1) if n not in known]


@dataclass
class RoleCounts:
    roles: dict[str, int] = field(default_factory=dict)
    skipped: int = 0
    reasons: dict[str, int] = field(default_factory=dict)
    needs_lookup: list[str] = field(default_factory=list)  # versioned ids (API records with gaps)


def _rows_in(session: Session, lo: str, hi: str) -> Iterator[list[ArxivRecordRow]]:
    """Rows with ``lo <= first_published < hi``, oldest first, ``BATCH`` at a time (keyset paging)."""
    last: tuple[str, str] | None = None
    while True:
        q = select(ArxivRecordRow).where(
            ArxivRecordRow.first_published >= lo, ArxivRecordRow.first_published < hi
        )
        if last is not None:
            q = q.where(tuple_(ArxivRecordRow.first_published, ArxivRecordRow.arxiv_id) > last)
        rows = list(
            session.exec(q.order_by(ArxivRecordRow.first_published, ArxivRecordRow.arxiv_id).limit(BATCH))
        )
        if not rows:
            return
        yield rows
        last = (rows[-1].first_published, rows[-1].arxiv_id)
        session.expunge_all()


def _window_of(windows: list[Window], day: str) -> Window | None:
    return next((w for w in windows if w.contains(day)), None)


def assign_roles(
    session: Session,
    build: BuildWindows,
    categories: list[str],
    max_papers: int | None,
    base_url: str,
    source_kind: str,
    lookups_allowed: bool,
) -> RoleCounts:
    """Paper rows and roles of ``build`` from the stored records, committed batch by batch."""
    windows = build.windows()
    label, cutoff = build.label, build.cutoff.isoformat()
    lo = min(w.start for w in windows).isoformat()
    hi = max(w.end for w in windows).isoformat()
    counts = RoleCounts(roles={w.role: 0 for w in windows})
    taken = {w.role: 0 for w in windows}

    def skip(arxiv_id: str, reason: str, message: str) -> None:
        record_failure(session, "ingest", arxiv_id, reason, message)
        counts.skipped += 1
        counts.reasons[reason] = counts.reasons.get(reason, 0) + 1
        drop.append(arxiv_id)

    for rows in _rows_in(session, lo, hi):
        papers, roles, ok, drop = [], [], [], []
        pinned = _pins(session, label, [row.arxiv_id for row in rows])
        for row in rows:
            window = _window_of(windows, row.first_published)
            if window is None or not matches_categories(json.loads(row.categories_json), categories):
                continue
            # The pool is sampled after role assignment (stratified, ingest.stage), never first-N.
            if max_papers is not None and window.role != POOL and taken[window.role] >= max_papers:
                continue
            taken[window.role] += 1
            record = record_from_row(row)
            vid = f"{record.arxiv_id}v{record.latest.number}" if record.latest else record.arxiv_id
            if record.withdrawn:
                skip(record.arxiv_id, "withdrawn", f"{vid} is withdrawn: {record.comment or ''}".strip())
                continue
            if not record.title:
                skip(record.arxiv_id, "missing-title", f"{vid} has no title")
                continue
            if window.role == DISTRACTOR:
                version = None
                if record.arxiv_id in pinned:
                    version = next((v for v in record.versions if v.number == pinned[record.arxiv_id]), None)
                version = version or newest_before(record, cutoff)
                gaps = [] if record.complete or not lookups_allowed else missing_versions(record, version)
                if gaps:  # an unknown middle version may be newer and still before the cutoff
                    counts.needs_lookup.extend(gaps)
                    taken[window.role] -= 1  # decided after the look-ups
                    continue
                if version is None:
                    skip(
                        record.arxiv_id,
                        "no-version-before-seeds",
                        f"no version of {record.arxiv_id} is known to predate {cutoff}; not date-safe",
                    )
                    continue
            else:
                version = record.latest or PaperVersion(0, None)
            meta = at_version(record, version, arxiv_pdf_url(base_url, record.arxiv_id, version.number))
            papers.append(
                {
                    "arxiv_id": meta.arxiv_id,
                    "version": meta.version,
                    **paper_columns(meta, source_kind),
                    "status": "metadata",
                    "updated_at": utcnow(),
                }
            )
            roles.append(
                {"window": label, "arxiv_id": record.arxiv_id, "role": window.role, "version": version.number}
            )
            ok.append(record.arxiv_id)
            counts.roles[window.role] += 1
        _write(session, label, papers, roles, ok, drop)
        session.commit()
    return counts


def _pins(session: Session, label: str, ids: list[str]) -> dict[str, int]:
    """The versions distractors among ``ids`` are already pinned to in this window (a batch's:
    each paper is in one batch, and only its own batch writes its role)."""
    pins: dict[str, int] = {}
    for i in range(0, len(ids), IN_CHUNK):
        pins.update(
            session.exec(
                select(PaperRole.arxiv_id, PaperRole.version).where(
                    PaperRole.window == label,
                    PaperRole.role == DISTRACTOR,
                    PaperRole.arxiv_id.in_(ids[i : i + IN_CHUNK]),
                )
            ).all()
        )
    return pins


def _write(
    session: Session, label: str, papers: list[dict], roles: list[dict], ok: list[str], drop: list[str]
) -> None:
    """Upsert a batch of paper rows (metadata fields only) and roles; clear their old failures."""
    conn = session.connection()
    if papers:
        table = Paper.__table__
        stmt = insert(table)
        changed = None
        for name in METADATA_COLUMNS:
            differs = table.c[name].is_not(stmt.excluded[name])
            changed = differs if changed is None else changed | differs
        update = {name: stmt.excluded[name] for name in (*METADATA_COLUMNS, "updated_at")}
        conn.execute(
            stmt.on_conflict_do_update(index_elements=["arxiv_id", "version"], set_=update, where=changed),
            papers,
        )
    if roles:
        table = PaperRole.__table__
        stmt = insert(table)
        conn.execute(
            stmt.on_conflict_do_update(
                index_elements=["window", "arxiv_id"],
                set_={"role": stmt.excluded.role, "version": stmt.excluded.version},
            ),
            roles,
        )
    if ok:
        conn.execute(delete(Failure).where(Failure.stage == "ingest", Failure.subject.in_(ok)))
    if drop:
        conn.execute(delete(PaperRole).where(PaperRole.window == label, PaperRole.arxiv_id.in_(drop)))


_ROLE = PaperRole.__table__
_PAPER = Paper.__table__


class RolePapers:
    """The papers of one role in a build window as the store holds them (``paper_role`` joined to
    ``paper`` at the pinned version), in arXiv id order, never all in memory at once.

    Counts, id streams and look-ups are queries; a sample is drawn from the count
    (``selection.sample_positions``) and only the picked rows are read whole, so it equals
    ``seeded_sample`` / ``stratified_sample`` over the whole list, keyed by arXiv id (SQLite orders
    the ASCII ids as Python does). Iterating gives every paper as ``PaperMeta``, a page at a time.

    ``licenses`` (the kind names of ``--licenses``; None: every paper) hides the papers whose
    licence at the pinned version the build would drop (``assemble.paper.licensing`` applies the
    same ``common.licenses.allowed`` rule to the same version's licence): the plan never fetches
    a PDF the build will throw away, and samples fill their quota with papers it keeps.
    """

    def __init__(self, engine: Engine, window: str, role: str, licenses: Iterable[str] | None = None) -> None:
        self.engine, self.window, self.role = engine, window, role
        self.licenses = None if licenses is None else tuple(sorted(set(licenses)))
        self._count: int | None = None
        self._kept_urls: list[str] | None = None

    def _base(self, *columns) -> sa.Select:
        joined = _ROLE.join(
            _PAPER, (_PAPER.c.arxiv_id == _ROLE.c.arxiv_id) & (_PAPER.c.version == _ROLE.c.version)
        )
        return (
            sa.select(*columns)
            .select_from(joined)
            .where(_ROLE.c.window == self.window, _ROLE.c.role == self.role)
        )

    def _select(self, *columns) -> sa.Select:
        stmt = self._base(*columns)
        if self.licenses is None:
            return stmt
        return stmt.where(_PAPER.c.license.in_(self.kept_urls()))

    def kept_urls(self) -> list[str]:
        """The licence URLs of this role that ``licenses`` keeps (a handful: one query, decided
        here by the same rule as the build's, so SQL needs no copy of the URL patterns)."""
        from reflong.common.licenses import allowed

        if self._kept_urls is None:
            with self.engine.connect() as conn:
                urls = conn.scalars(self._base(_PAPER.c.license).distinct()).all()
            self._kept_urls = sorted(u for u in urls if u and allowed(u, self.licenses))
        return self._kept_urls

    def licence_unknown_via_api(self) -> int:
        """Papers of this role with no licence known whose record came through the arXiv API
        (``arxiv_record.via``): its Atom feed has no licence element (arXiv's API user manual,
        "Details of Atom Results Returned": the arxiv: extensions are primary_category, comment,
        affiliation, journal_ref and doi), so only an OAI-PMH harvest (arXivRaw) can give one."""
        record = ArxivRecordRow.__table__
        stmt = (
            self._base(sa.func.count())
            .join(record, record.c.arxiv_id == _ROLE.c.arxiv_id)
            .where(_PAPER.c.license.is_(None), record.c.via == "api")
        )
        with self.engine.connect() as conn:
            return conn.execute(stmt).scalar_one()

    def skipped_by_licence(self) -> int:
        """Papers of this role that ``licenses`` leaves out (0 without ``licenses``)."""
        if self.licenses is None:
            return 0
        with self.engine.connect() as conn:
            everyone = conn.execute(self._base(sa.func.count())).scalar_one()
        return everyone - len(self)

    def _stream(self, *columns) -> Iterator[sa.Row]:
        """Rows of ``columns`` in id order, fetched ``BATCH`` at a time from one cursor."""
        with self.engine.connect() as conn:
            stmt = self._select(*columns).order_by(_ROLE.c.arxiv_id)
            yield from conn.execution_options(yield_per=BATCH).execute(stmt)

    def __len__(self) -> int:
        if self._count is None:
            with self.engine.connect() as conn:
                self._count = conn.execute(self._select(sa.func.count())).scalar_one()
        return self._count

    def __iter__(self) -> Iterator[PaperMeta]:
        for row in self._stream(*_PAPER.c):
            yield meta_from_row(row)

    def iter_ids(self) -> Iterator[str]:
        for (arxiv_id,) in self._stream(_ROLE.c.arxiv_id):
            yield arxiv_id

    def ids(self) -> list[str]:
        return list(self.iter_ids())

    def among(self, ids: Iterable[str | None]) -> set[str]:
        """Those of ``ids`` that have this role."""
        wanted = sorted({a for a in ids if a})
        found: set[str] = set()
        with self.engine.connect() as conn:
            for i in range(0, len(wanted), IN_CHUNK):
                chunk = wanted[i : i + IN_CHUNK]
                found.update(conn.scalars(self._select(_ROLE.c.arxiv_id).where(_ROLE.c.arxiv_id.in_(chunk))))
        return found

    def metas(self, ids: Iterable[str]) -> dict[str, PaperMeta]:
        """``PaperMeta`` of those of ``ids`` that have this role, by id (in id order)."""
        wanted = sorted(set(ids))
        out: dict[str, PaperMeta] = {}
        with self.engine.connect() as conn:
            for i in range(0, len(wanted), IN_CHUNK):
                chunk = wanted[i : i + IN_CHUNK]
                rows = conn.execute(
                    self._select(*_PAPER.c).where(_ROLE.c.arxiv_id.in_(chunk)).order_by(_ROLE.c.arxiv_id)
                )
                out.update((row.arxiv_id, meta_from_row(row)) for row in rows)
        return out

    def _read(self, ids: list[str]) -> list[PaperMeta]:
        found = self.metas(ids)
        return [found[a] for a in ids]

    def sample(self, n: int | None, seed: int, label: str, exclude: Iterable[str] = ()) -> list[PaperMeta]:
        """``seeded_sample`` of this role's papers (less ``exclude``), keyed by arXiv id."""
        exclude = set(exclude)
        count = sum(1 for a in self.iter_ids() if a not in exclude) if exclude else len(self)
        positions = sample_positions(count, n, seed, label)
        if positions is None:
            return [m for m in self if m.arxiv_id not in exclude]
        wanted, picked, at = set(positions), [], 0
        for arxiv_id in self.iter_ids():
            if arxiv_id in exclude:
                continue
            if at in wanted:
                picked.append(arxiv_id)
            at += 1
        return self._read(picked)

    def stratified_ids(self, n: int, seed: int) -> list[str]:
        """The ids ``stratified_sample`` takes (``n`` smaller than the role), strata by month of the
        first version and primary category (``selection.month_and_category``)."""
        columns = (_ROLE.c.arxiv_id, _PAPER.c.first_published, _PAPER.c.primary_category)
        sizes = Counter(month_and_category(day, cat) for _a, day, cat in self._stream(*columns))
        quotas = stratum_quotas(sizes, n)
        positions = {s: sample_positions(sizes[s], quotas[s], seed, f"stratum:{s}") for s in sizes}
        wanted = {s: None if p is None else set(p) for s, p in positions.items()}
        seen: Counter = Counter()
        picked = []
        for arxiv_id, day, cat in self._stream(*columns):
            s = month_and_category(day, cat)
            if wanted[s] is None or seen[s] in wanted[s]:
                picked.append(arxiv_id)
            seen[s] += 1
        return picked

    def stratified(self, n: int | None, seed: int) -> list[PaperMeta]:
        """``stratified_sample`` of this role's papers by month and primary category, keyed by id."""
        if n is None or n >= len(self):
            return list(self)
        return self._read(self.stratified_ids(n, seed))
