"""The audit queue: what in a build's ground truth deserves a human look, most doubtful first.

Five kinds of rows, in this order (the first are wrong or contested by construction, the later
ones are merely weak):

1. ``distractor_fp``  a resolver hit from a distractor, whose text predates the key: a false
   positive by construction (docs/architecture.md, invariant 3); the same mistake may hide among positives.
2. ``review``         an edge the resolver put in the review band (e.g. an arXiv id that
   contradicts the title, a title with another id, a year before the seed existed).
3. ``title_only``     an accepted edge that rests on title similarity alone (no arXiv id, no DOI,
   no first-author match) with a score below ``confidence``.
4. ``near_dup_seeds`` two seeds whose titles are near-duplicates (rapidfuzz token_set_ratio): their
   citing papers are easy to confuse ("LLaMA" vs "Llama 2").
5. ``index_disagree`` a (pool paper, key) pair where the citation index and our text resolution
   disagree: the index says it cites and the text finds no reference (``index_only``), or the text
   finds one the index lacks (``text_only``); either side may be wrong, a person can tell.
6. ``dropped_task``   a task that failed re-verification on its final texts.

Edges a person already judged leave the queue (``include_judged`` brings them back, with their
verdict). Rows of kinds 1-3 carry the stable edge key a verdict is recorded against.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
from rapidfuzz import fuzz, process, utils
from sqlalchemy import or_
from sqlalchemy.engine import Engine
from sqlmodel import Session, select

from reflong.assemble.audit.build_lookup import find_build
from reflong.common.atomic_files import atomic_target
from reflong.common.errors import ReflongError
from reflong.common.textfiles import read_user_text
from reflong.db.audits import EdgeKey, check_verdict, record_verdict, verdicts_for
from reflong.db.builds import Build, BuildTask
from reflong.db.citations import Citation, Seed
from reflong.db.index import IndexDisagreement
from reflong.db.papers import Paper

KIND_ORDER = ("distractor_fp", "review", "title_only", "near_dup_seeds", "index_disagree", "dropped_task")
EDGE_KINDS = frozenset({"distractor_fp", "review", "title_only", "index_disagree"})
DEFAULT_CONFIDENCE = 95.0
# token_set_ratio on the 113 real seeds: >= 75 flags the Llama family, GPT-4 vs DeepSeek-V3
# technical reports, Batch vs Layer Normalization, CoT vs Self-Consistency; nothing unrelated.
DEFAULT_NEAR_DUP = 75.0


@dataclass(frozen=True)
class QueueRow:
    kind: str
    key: str
    citing_arxiv_id: str
    citing_version: int | None
    citing_title: str
    seed_arxiv_id: str
    seed_title: str
    reference: str
    method: str
    score: float | None
    band: str
    note: str
    verdict: str = ""

    def as_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class QueueOptions:
    confidence: float = DEFAULT_CONFIDENCE
    near_dup: float = DEFAULT_NEAR_DUP
    include_judged: bool = False


def _titles(session: Session, ids: set[str]) -> dict[tuple[str, int], str]:
    """Titles of citing papers by (id, version), with (id, -1) for "any version"."""
    out: dict[tuple[str, int], str] = {}
    ids_list = sorted(ids)
    for start in range(0, len(ids_list), 500):
        for p in session.exec(select(Paper).where(Paper.arxiv_id.in_(ids_list[start : start + 500]))).all():
            out[(p.arxiv_id, p.version)] = p.title
            out.setdefault((p.arxiv_id, -1), p.title)
    return out


def _split_ref(ref: str) -> tuple[str, int]:
    """``2402.99999v1`` -> (``2402.99999``, 1), as PaperDoc.ref prints it."""
    head, sep, tail = ref.rpartition("v")
    if sep and tail.isdigit() and head:
        return head, int(tail)
    return ref, 0


def build_queue(
    engine: Engine,
    build_id: int | None = None,
    out_dir: str | Path | None = None,
    options: QueueOptions | None = None,
) -> list[QueueRow]:
    """The queue for one build (its keys' edges, its distractor hits and drops), or the whole
    store when no build is named and none exists."""
    options = options or QueueOptions()
    with Session(engine) as session:
        build = _maybe_build(session, build_id, out_dir)
        seeds = {s.arxiv_id: s.title for s in session.exec(select(Seed)).all()}
        keys: set[str] | None = None
        report: dict = {}
        if build is not None:
            report = json.loads(build.report_json or "{}")
            keys = set(
                session.exec(select(BuildTask.key_arxiv_id).where(BuildTask.build_id == build.id)).all()
            )
            for task in session.exec(select(BuildTask).where(BuildTask.build_id == build.id)).all():
                seeds.setdefault(task.key_arxiv_id, task.key_title)
        query = select(Citation).where(
            or_(
                Citation.band == "review",
                (Citation.band == "accept")
                & (Citation.method == "title")
                & (Citation.score < options.confidence),
            )
        )
        if keys is not None:
            query = query.where(Citation.seed_arxiv_id.in_(sorted(keys)))
        edges = session.exec(query).all()
        fps = list(report.get("distractor_false_positives", []))
        citing = {e.citing_arxiv_id for e in edges} | {_split_ref(str(f.get("paper", "")))[0] for f in fps}
        disagreements = []
        if build is not None and build.window:
            disagreements = session.exec(
                select(IndexDisagreement).where(IndexDisagreement.window == build.window)
            ).all()
        elif build is None:
            disagreements = session.exec(select(IndexDisagreement)).all()
        citing |= {d.citing_arxiv_id for d in disagreements}
        titles = _titles(session, citing)
        verdicts = verdicts_for(session)

    def title_of(arxiv_id: str, version: int) -> str:
        return titles.get((arxiv_id, version)) or titles.get((arxiv_id, -1), "")

    rows: list[QueueRow] = []
    for fp in fps:
        arxiv_id, version = _split_ref(str(fp.get("paper", "")))
        seed = str(fp.get("seed", ""))
        key = EdgeKey(arxiv_id, version, seed)
        rows.append(
            QueueRow(
                "distractor_fp",
                str(key),
                arxiv_id,
                version,
                title_of(arxiv_id, version),
                seed,
                seeds.get(seed, ""),
                str(fp.get("reference", "")),
                str(fp.get("method", "")),
                float(fp.get("score", 0.0)),
                "",
                "distractor text predates the key: cannot cite it",
            )
        )
    for e in edges:
        # An edge that is accepted *and* title-only is weak evidence, not a contested one.
        author_backed = e.author == "match"
        if e.band == "accept" and author_backed:
            continue
        kind = "review" if e.band == "review" else "title_only"
        note = e.reason or ("title similarity alone" if kind == "title_only" else "")
        key = EdgeKey(e.citing_arxiv_id, e.citing_version, e.seed_arxiv_id)
        rows.append(
            QueueRow(
                kind,
                str(key),
                e.citing_arxiv_id,
                e.citing_version,
                title_of(e.citing_arxiv_id, e.citing_version),
                e.seed_arxiv_id,
                seeds.get(e.seed_arxiv_id, ""),
                e.reference,
                e.method,
                round(float(e.score), 2),
                e.band,
                note,
            )
        )
    rows.extend(_near_duplicate_seeds(seeds, keys, options.near_dup))
    for d in disagreements:
        key = EdgeKey(d.citing_arxiv_id, d.citing_version, d.seed_arxiv_id)
        rows.append(
            QueueRow(
                "index_disagree",
                str(key),
                d.citing_arxiv_id,
                d.citing_version,
                title_of(d.citing_arxiv_id, d.citing_version),
                d.seed_arxiv_id,
                seeds.get(d.seed_arxiv_id, ""),
                d.reference,
                d.kind,
                round(float(d.score), 2) if d.kind == "text_only" else None,
                "",
                "the index says it cites the key; our text finds no reference"
                if d.kind == "index_only"
                else "our text references the key; the index does not list this citer",
            )
        )
    for d in report.get("dropped_tasks", []):
        rows.append(
            QueueRow(
                "dropped_task",
                f"task:{d.get('difficulty', '')}/{d.get('task', '')}",
                "",
                None,
                "",
                "",
                "",
                "; ".join(map(str, d.get("why", []))),
                "",
                None,
                "",
                "re-verification on the final texts failed",
            )
        )
    rows = _dedupe_edges(rows)
    out = []
    for row in rows:
        verdict = verdicts.get(EdgeKey.parse(row.key)) if row.kind in EDGE_KINDS else None
        if verdict is not None:
            if not options.include_judged:
                continue
            row = QueueRow(**{**row.as_dict(), "verdict": verdict.verdict})
        out.append(row)
    return sorted(out, key=_doubt_order)


def _maybe_build(session: Session, build_id: int | None, out_dir: str | Path | None) -> Build | None:
    if build_id is None and out_dir is None:
        return session.exec(select(Build).order_by(Build.id.desc())).first()
    return find_build(session, build_id, out_dir)


def _dedupe_edges(rows: list[QueueRow]) -> list[QueueRow]:
    """One row per edge key and kind: a work listed twice gives two citation rows, one question."""
    best: dict[tuple[str, str], QueueRow] = {}
    for row in rows:
        slot = (row.kind, row.key)
        if slot not in best or (row.score or 0) < (best[slot].score or 0):
            best[slot] = row
    return list(best.values())


def _doubt_order(row: QueueRow) -> tuple:
    """Kind first; within a kind the weakest evidence first (for seed pairs: the most similar)."""
    score = row.score if row.score is not None else 0.0
    return (KIND_ORDER.index(row.kind), -score if row.kind == "near_dup_seeds" else score, row.key)


def _near_duplicate_seeds(seeds: dict[str, str], keys: set[str] | None, cutoff: float) -> list[QueueRow]:
    """Seed pairs with near-duplicate titles (with a build: pairs involving one of its keys).

    With a build only keys x seeds are scored (tens x thousands), not every pair of seeds."""
    ids = sorted(seeds)
    if len(ids) < 2 or cutoff > 100:  # above 100: the check is turned off
        return []
    rows_ids = ids if keys is None else sorted(k for k in keys if k in seeds)
    titles = [utils.default_process(seeds[j]) for j in ids]
    queries = titles if keys is None else [utils.default_process(seeds[i]) for i in rows_ids]
    # One call with the same list twice lets rapidfuzz score only half the pairs (symmetric);
    # uint8 keeps 10,000 seeds at 100 MB.
    matrix = process.cdist(
        queries, titles, scorer=fuzz.token_set_ratio, score_cutoff=cutoff, dtype=np.uint8, workers=-1
    )
    pairs: dict[tuple[str, str], float] = {}
    for r, c in zip(*np.nonzero(matrix), strict=True):
        a, b = rows_ids[r], ids[c]
        if a != b:
            pairs[(min(a, b), max(a, b))] = float(matrix[r, c])
    return [
        QueueRow(
            "near_dup_seeds",
            f"{a}~{b}",
            "",
            None,
            "",
            a,
            seeds[a],
            seeds[b],
            "token_set_ratio",
            round(score, 2),
            "",
            f"seed {b} has a near-duplicate title: their citing papers are easy to confuse",
        )
        for (a, b), score in sorted(pairs.items())
    ]


# ---------------------------------------------------------------- the review sheet

SHEET_COLUMNS = (
    "key",
    "kind",
    "citing_arxiv_id",
    "citing_version",
    "citing_title",
    "seed_arxiv_id",
    "seed_title",
    "method",
    "score",
    "band",
    "reference",
    "note",
    "verdict",
    "why",
)


def _cell(value: object) -> str:
    """Spreadsheet-safe text: one line, and no leading = + - @ that a spreadsheet would run as a formula.

    Import reads only ``key`` (which contains "->", so no spreadsheet turns it into a number, as it
    would the bare id 2405.10000), ``verdict`` and ``why``; the other columns are for the reader."""
    text = " ".join(str("" if value is None else value).split())
    return "'" + text if text[:1] in ("=", "+", "-", "@") else text


def write_sheet(rows: Iterable[QueueRow], stream: io.TextIOBase) -> int:
    """CSV review sheet: one row per doubtful edge, verdict and why left empty for the reviewer."""
    writer = csv.writer(stream, quoting=csv.QUOTE_ALL, lineterminator="\r\n")
    writer.writerow(SHEET_COLUMNS)
    n = 0
    for row in rows:
        if row.kind not in EDGE_KINDS:
            continue
        d = row.as_dict()
        d["verdict"], d["why"] = row.verdict, ""
        writer.writerow([_cell(d[c]) if c not in ("key",) else d[c] for c in SHEET_COLUMNS])
        n += 1
    return n


def export_sheet(rows: list[QueueRow], path: Path) -> int:
    """Write the sheet atomically, UTF-8 with BOM so spreadsheet programs read accents correctly."""
    with atomic_target(path) as tmp, tmp.open("w", encoding="utf-8-sig", newline="") as f:
        n = write_sheet(rows, f)
    return n


@dataclass(frozen=True)
class ImportResult:
    stored: int
    unchanged: int
    blank: int


def import_sheet(engine: Engine, path: Path, who: str | None = None) -> ImportResult:
    """Read a filled sheet back; every row is checked first and nothing is stored if one is wrong."""
    if not path.is_file():
        raise ReflongError(f"{path}: no such file; give the sheet written by `reflong-build audit export`")
    # UTF-8 (BOM or not) or, as Excel on Windows saves "CSV", Windows-1252 (with a warning).
    with io.StringIO(read_user_text(path, "audit sheet"), newline="") as f:
        # Spreadsheets in many locales save "CSV" with ';' (or tabs): take the header's separator.
        first = f.readline()
        f.seek(0)
        delimiter = max((",", ";", "\t"), key=first.count)
        reader = csv.DictReader(f, delimiter=delimiter)
        header = [h.strip().lower() for h in (reader.fieldnames or [])]
        missing = [c for c in ("key", "verdict") if c not in header]
        if missing:
            raise ReflongError(
                f"{path}: missing column(s) {', '.join(missing)}; keep the header row of the export"
            )
        reader.fieldnames = header
        wanted: list[tuple[int, EdgeKey, str, str]] = []
        errors: list[str] = []
        blank = 0
        for line, raw in enumerate(reader, start=2):  # row 1 is the header, as a spreadsheet shows it
            verdict = (raw.get("verdict") or "").strip()
            key_text = (raw.get("key") or "").strip()
            if not verdict:
                blank += 1
                continue
            try:
                key = EdgeKey.parse(key_text)
                value = check_verdict(verdict)
            except ReflongError as exc:
                errors.append(f"row {line} ({key_text or 'no key'}): {exc}")
                continue
            wanted.append((line, key, value, (raw.get("why") or "").strip()))
    if errors:
        shown = "; ".join(errors[:5]) + (f"; and {len(errors) - 5} more" if len(errors) > 5 else "")
        raise ReflongError(f"{path}: nothing imported, fix these rows: {shown}")
    stored = unchanged = 0
    with Session(engine, expire_on_commit=False) as session:
        for _, key, value, why in wanted:
            if record_verdict(session, key, value, why=why, who=who, source=f"sheet:{path.name}"):
                stored += 1
            else:
                unchanged += 1
        session.commit()
    return ImportResult(stored, unchanged, blank)


def edge_exists(engine: Engine, key: EdgeKey) -> bool:
    with Session(engine) as session:
        row = session.exec(
            select(Citation.id).where(
                Citation.citing_arxiv_id == key.citing_arxiv_id,
                Citation.citing_version == key.citing_version,
                Citation.seed_arxiv_id == key.seed_arxiv_id,
            )
        ).first()
    return row is not None
