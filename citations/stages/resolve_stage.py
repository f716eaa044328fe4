"""The ``resolve`` stage: stored reference entries x seeds -> citation edges with evidence.

Incremental by a watermark per reference list: ``resolved_seq`` is the highest seed ``seq`` up to
which *every* seed has been resolved for that paper. A new list (watermark 0), or one resolved
by another resolver (version or thresholds: the fingerprint), is resolved whole against every
seed. An older list is read again only where a seed above its watermark (new, changed, or with
new title twins) can reach one of its references (``reference_words``: a query on the stored
words, ids and DOIs, not a pass over every list); those references are resolved again against
every seed, and the rest keep their edges. Candidacy depends on the (reference, seed) pair
alone (``SeedIndex.candidates``), so the outcome is that of a full re-resolve, at the cost of
what the new seeds touch: a monthly refresh no longer grows with the benchmark's age
(tests/test_resolve_incremental.py proves the equality over four releases).

The ``books`` profile's footnote readings look at every seed of an author (``back_reference``),
which no word of the reference names: under it an older list is resolved whole whenever it has
seeds above its watermark. Edges are upserted on their stable key, so audits keyed the same way
stay attached.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from sqlalchemy import insert
from sqlalchemy.engine import Engine
from sqlmodel import Session, select

from reflong.citations.candidates.reference_words import (
    Touched,
    clear_words,
    touched_references,
    words_text,
    write_words,
)
from reflong.citations.candidates.seeds import load_seed_file, store_seeds, sync_seeds
from reflong.citations.candidates.title_twins import find_twins
from reflong.citations.fields.ditto import inherited_authors
from reflong.citations.fields.entry_parse import ParsedEntry
from reflong.citations.resolve import Match, SeedIndex, SeedTitle, Thresholds, published_after
from reflong.common.errors import ReflongError
from reflong.common.progress import ProgressFactory, null_progress
from reflong.db.audits import Audit
from reflong.db.citations import Citation, Reference, ReferenceList, Seed
from reflong.db.papers import Paper, utcnow


@dataclass
class ResolveReport:
    seeds: int = 0
    lists: int = 0
    lists_resolved: int = 0
    references_scored: int = 0
    title_twins: int = 0  # other stored arXiv papers carrying a seed's exact title
    edges: dict[str, int] = field(default_factory=dict)


def entry_of(row: Reference) -> ParsedEntry:
    return ParsedEntry(
        raw=row.raw,
        title=row.title,
        authors=json.loads(row.authors_json or "[]"),
        year=row.year,
        arxiv_id=row.ref_arxiv_id,
        arxiv_version=row.ref_arxiv_version,
        doi=row.doi,
    )


def seed_title(s: Seed) -> SeedTitle:
    """A stored seed as the resolver sees it: title, date, first author and DOI. Assembly's checks
    of the final text use this too, so they judge a reference exactly as resolution did."""
    return SeedTitle(s.arxiv_id, s.title, s.published, s.first_author, s.doi)


def _kept_for_the_store(
    session: Session,
    rl: ReferenceList,
    refs: list[Reference],
    matches: dict[int, list[Match]],
    thresholds: Thresholds,
) -> dict[int, list[Match]]:
    """The matches worth a row: every accept and review, and the near misses an audit reads (a
    reject scoring ``near_miss_floor`` or more, or whose title alone scores ``review``, or on a
    pair a verdict touched). The others are counted on their reference (``near_misses_dropped``):
    the decisions are made before, on every match, so nothing but the store's size changes."""
    audited = set(
        session.exec(
            select(Audit.seed_arxiv_id).where(
                Audit.citing_arxiv_id == rl.arxiv_id, Audit.citing_version == rl.version
            )
        ).all()
    )
    by_order = {r.order: r for r in refs}
    kept: dict[int, list[Match]] = {}
    for order, ms in matches.items():
        kept[order] = [
            m
            for m in ms
            if m.band != "reject"
            or m.score >= thresholds.near_miss_floor
            or m.title_score >= thresholds.review
            or m.seed_id in audited
        ]
        dropped = len(ms) - len(kept[order])
        if by_order[order].near_misses_dropped != dropped:
            by_order[order].near_misses_dropped = dropped
            session.add(by_order[order])
    return kept


def _write_edges(
    session: Session,
    rl: ReferenceList,
    refs: list[Reference],
    matches: dict[int, list[Match]],
    seed_ids: set[str],
    fingerprint: str,
) -> None:
    """Upsert this run's edges for the references in ``matches`` (each resolved against every
    seed of ``seed_ids``), drop their stale ones, and keep one accept per reference.

    New edges (all of them, for a paper seen the first time) go in as one executemany INSERT of
    plain rows: an ORM object per edge cost ~0.6 ms, and a paper may carry hundreds of kept
    near-miss edges. Only edges already stored (a re-resolve) go through the ORM, to keep their ids.
    """
    old = {
        (c.seed_arxiv_id, c.ref_order): c
        for c in session.exec(
            select(Citation).where(
                Citation.citing_arxiv_id == rl.arxiv_id, Citation.citing_version == rl.version
            )
        ).all()
    }
    by_order = {r.order: r for r in refs}
    now = utcnow()
    fresh: set[tuple[str, int]] = set()
    rows: dict[tuple[str, int], dict] = {}
    for order, ms in matches.items():
        for m in ms:
            key = (m.seed_id, order)
            fresh.add(key)
            values = {
                "reference": by_order[order].raw,
                "method": m.method,
                "score": m.score,
                "title_score": m.title_score,
                "author": m.author,
                "band": m.band,
                "reason": m.reason,
                "resolver": fingerprint,
                "updated_at": now,
            }
            if key in old:
                _update_if_changed(session, old[key], values)
            else:
                rows[key] = {
                    "citing_arxiv_id": rl.arxiv_id,
                    "citing_version": rl.version,
                    "seed_arxiv_id": m.seed_id,
                    "ref_order": order,
                    **values,
                }
    for key, edge in list(old.items()):
        if key[0] in seed_ids and key[1] in matches and key not in fresh:
            session.delete(edge)
            del old[key]
    # One accepted seed per reference, across runs too (a new seed may beat an older accept).
    # Ties go to the closer title, as in ``SeedIndex.resolve`` (two variants lifted to one score).
    per_ref: dict[int, list[tuple[float, float, str, Citation | dict]]] = {}
    for (seed, order), edge in old.items():
        if edge.band == "accept":
            per_ref.setdefault(order, []).append((-edge.score, -edge.title_score, seed, edge))
    for (seed, order), row in rows.items():
        if row["band"] == "accept":
            per_ref.setdefault(order, []).append((-row["score"], -row["title_score"], seed, row))
    for edges in per_ref.values():
        if len(edges) > 1:
            edges.sort(key=lambda e: (e[0], e[1], e[2]))
            best = edges[0][2]
            for _, _, _, e in edges[1:]:
                if isinstance(e, dict):
                    e["band"], e["reason"] = "review", f"also matches {best} better; {e['reason']}"
                else:
                    e.band, e.reason = "review", f"also matches {best} better; {e.reason}"
                    session.add(e)
    if rows:
        session.flush()  # the ORM's updates and deletes go out first, then the new rows in one go
        session.execute(insert(Citation), list(rows.values()))


def _update_if_changed(session: Session, edge: Citation, values: dict) -> None:
    """Write a stored edge again only if its judgement changed (then with a new ``updated_at``):
    a list read again for a month's seeds mostly gives its old edges again, and each was flushed
    back through the ORM whether or not anything in it had changed."""
    if any(getattr(edge, name) != value for name, value in values.items() if name != "updated_at"):
        for name, value in values.items():
            setattr(edge, name, value)
        session.add(edge)


def run_resolve(
    engine: Engine,
    seeds_file: str | None = None,
    thresholds: Thresholds | None = None,
    progress: ProgressFactory = null_progress,
) -> ResolveReport:
    thresholds = thresholds or Thresholds()
    fingerprint = thresholds.fingerprint()
    report = ResolveReport()
    with Session(engine) as session:
        if seeds_file:
            infos, source = load_seed_file(seeds_file), f"file:{seeds_file}"
        else:
            infos, source = store_seeds(session), "store"
        if not infos:
            raise ReflongError(
                "no seeds: give --seeds FILE (JSON lines with arxiv_id, title, published) or ingest "
                "a date window so the store has seed-role papers"
            )
        twins = find_twins(session, infos)
        run_seeds = sync_seeds(session, infos, source, twins)
        session.commit()
        report.seeds = len(run_seeds)
        report.title_twins = sum(len(v) for v in twins.values())
        all_seqs = sorted((s.seq, s.arxiv_id) for s in session.exec(select(Seed)).all())
        lists = session.exec(
            select(ReferenceList).where(ReferenceList.status == "ok").order_by(ReferenceList.arxiv_id)
        ).all()
        report.lists = len(lists)
        # Plain copies: every commit below expires the ORM rows, and reading ``seq`` or the title
        # of an expired Seed is one SELECT each (7,000 seeds x 2,000 papers made resolve 0.3 papers/s).
        seed_seq = {sid: s.seq for sid, s in run_seeds.items()}
        seed_dates = {sid: s.published for sid, s in run_seeds.items()}
        written = _version_dates(session)
        # One index of every seed of the run, for every list (a list's own paper is excluded at
        # match time): one per list whose paper is a seed held 12 GB in a scale-1 refresh.
        index = SeedIndex((seed_title(run_seeds[sid]) for sid in sorted(run_seeds)), thresholds, twins)
        touched_by_mark: dict[int, Touched] = {}
        above = _SeedsAbove(all_seqs, set(run_seeds), seed_seq, seed_dates)
        if lists and all(rl.resolver != fingerprint for rl in lists):
            clear_words(session)  # every list is read whole again: its words are written anew
        with progress(total=len(lists), desc="resolve", unit="paper") as bar:
            for rl in lists:
                bar.update(1)
                mark = rl.resolved_seq if rl.resolver == fingerprint else 0
                new_mark = above.new_mark(mark)
                written_on = written.get((rl.arxiv_id, rl.version))
                orders, touched = _orders_to_resolve(
                    session, index, rl, mark, written_on, above, touched_by_mark
                )
                if orders is None or orders:
                    _resolve_list(
                        session, index, rl, written_on, orders, touched, set(run_seeds), fingerprint, report
                    )
                if rl.resolved_seq != max(new_mark, mark) or rl.resolver != fingerprint:
                    rl.resolved_seq, rl.resolver, rl.updated_at = max(new_mark, mark), fingerprint, utcnow()
                    session.add(rl)
                session.commit()
        for band, n in _band_counts(session).items():
            report.edges[band] = n
    return report


@dataclass
class _SeedsAbove:
    """What a watermark implies, worked out once per watermark rather than once per list: lists
    share a handful of watermarks (one per earlier release at most), and a pass over every seed
    for each of thousands of lists grew with the store's age (seeds x lists)."""

    all_seqs: list[tuple[int, str]]  # (seq, arXiv id) of every stored seed, in seq order
    run_ids: set[str]
    seed_seq: dict[str, int]
    seed_dates: dict[str, str | None]
    _marks: dict[int, int] = field(default_factory=dict)
    _earliest: dict[int, list[tuple[str, str]]] = field(default_factory=dict)

    def new_mark(self, mark: int) -> int:
        """The watermark after this run: below the first seed above ``mark`` that the run lacks
        (its pairs are not resolved), else the highest seq."""
        if mark not in self._marks:
            lacking = (seq - 1 for seq, sid in self.all_seqs if seq > mark and sid not in self.run_ids)
            self._marks[mark] = next(lacking, self.all_seqs[-1][0] if self.all_seqs else 0)
        return self._marks[mark]

    def citable(self, mark: int, citing_id: str, written_on: str | None) -> bool:
        """Whether a seed above ``mark``, other than the citing paper itself, could be cited by a
        text written on ``written_on`` (not first published after it: ``SeedIndex.allowed``)."""
        if mark not in self._earliest:
            dated = sorted(
                (self.seed_dates[sid] or "", sid) for sid, seq in self.seed_seq.items() if seq > mark
            )
            self._earliest[mark] = dated[:2]  # the earliest two: one of them is not the citer
        return any(
            sid != citing_id and not published_after(date or None, written_on)
            for date, sid in self._earliest[mark]
        )

    def touched(self, mark: int) -> list[str]:
        return [sid for sid, seq in self.seed_seq.items() if seq > mark]


def _orders_to_resolve(
    session: Session,
    index: SeedIndex,
    rl: ReferenceList,
    mark: int,
    written_on: str | None,
    above: _SeedsAbove,
    touched_by_mark: dict[int, Touched],
) -> tuple[set[int] | None, Touched | None]:
    """The orders of ``rl``'s references to resolve again, and what touched them: None for all
    of them (a list seen the first time, or under the books profile), else those a seed above
    its watermark may reach. The look-up runs once per watermark (a handful per run: one per
    earlier release at most)."""
    if mark == 0:
        return None, None
    if not above.citable(mark, rl.arxiv_id, written_on):
        return set(), None  # no seed above the mark that this text could cite
    if index.thresholds.books:
        return None, None
    if mark not in touched_by_mark:
        touched_by_mark[mark] = touched_references(session, index, above.touched(mark))
    found = touched_by_mark[mark]
    return found.orders((rl.arxiv_id, rl.version)), found


def _version_dates(session: Session) -> dict[tuple[str, int], str]:
    """(arXiv id, version) -> that version's date, for every stored paper version that has one."""
    rows = session.exec(select(Paper.arxiv_id, Paper.version, Paper.version_date)).all()
    return {(a, v): d for a, v, d in rows if d}


def _resolve_list(
    session: Session,
    index: SeedIndex,
    rl: ReferenceList,
    written_on: str | None,
    orders: set[int] | None,
    touched: Touched | None,
    seed_ids: set[str],
    fingerprint: str,
    report: ResolveReport,
) -> None:
    """Resolve ``orders`` of one list (None: all of them, whose words are then stored) against
    every seed of the index, and write their edges. A reference that ``touched`` only may reach
    is read first, and resolved only if a touched seed does reach it."""
    refs = session.exec(
        select(Reference)
        .where(Reference.arxiv_id == rl.arxiv_id, Reference.version == rl.version)
        .order_by(Reference.order)
    ).all()
    entries = [entry_of(r) for r in refs]
    key = (rl.arxiv_id, rl.version)
    maybe = touched.maybe.get(key, set()) if touched else set()
    certain = touched.certain.get(key, set()) if touched else set()
    matches: dict[int, list[Match]] = {}
    words: list[tuple[int, str]] = []
    # The whole list in order: a ditto dash takes the authors of the entry before.
    for row, entry, inherited in zip(refs, entries, inherited_authors(entries), strict=True):
        if orders is not None and row.order not in orders:
            continue
        ref = index.prepare(entry, inherited)
        if orders is None:
            words.append((row.id, words_text(ref)))  # before the index's glued split
        elif row.order in maybe - certain and not touched.reaches(index, ref, written_on):
            continue  # its words hold a touched seed's, but not what a candidate needs
        matches[row.order] = index.resolve_prepared(ref, exclude=(rl.arxiv_id,), written_on=written_on)
    write_words(session, words)
    if matches:
        report.references_scored += len(matches)
        kept = _kept_for_the_store(session, rl, refs, matches, index.thresholds)
        _write_edges(session, rl, refs, kept, seed_ids, fingerprint)
        report.lists_resolved += 1


def _band_counts(session: Session) -> dict[str, int]:
    from sqlalchemy import func

    rows = session.exec(select(Citation.band, func.count()).group_by(Citation.band)).all()
    return {band: n for band, n in sorted(rows)}
