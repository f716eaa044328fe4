"""Reading a build's inputs out of the store, and the resolver used to re-verify final texts.

Keys are the seeds of a window (or an explicit seed list); documents are the pool and distractor
papers of that window at the version their role pins, with the text the parse stage produced
(body, then the references section). Positives come from accepted citation edges; audit verdicts
are applied on top (see ``effective_positive``).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping

from sqlalchemy.engine import Engine, Row
from sqlmodel import Session, select

from reflong.assemble.paper.build import PaperInputs
from reflong.assemble.paper.model import Evidence, KeyCandidate, PaperDoc
from reflong.citations.fields.split import split_references
from reflong.citations.resolve import SeedIndex, SeedTitle
from reflong.citations.stages.resolve_stage import seed_title
from reflong.common.errors import ReflongError
from reflong.db import Citation, Paper, PaperRole, ParsedDoc, Seed
from reflong.db.audits import effective_band, verdicts_for
from reflong.ingest.parse.pdf_text import PARSER_VERSION


def _ref(arxiv_id: str, version: int) -> str:
    return f"{arxiv_id}v{version}"


# Rows fetched per round trip when streaming the citation table. The table holds every edge the
# resolver kept (2.0 M by a scale-1 refresh's fourth release); loading it whole as ORM objects held
# 6 GB, so it is streamed as plain column tuples and only this many rows are held at once.
EDGE_BATCH = 5000
# SQLite's default cap on bound parameters is 32,766; the window's PDFs are asked for in chunks.
SHA_CHUNK = 900


def _edges_in_id_order(session: Session) -> Iterator[Row]:
    """Every stored edge, streamed in id order with only the columns a build reads.

    Id order is the order the former whole-table ``select(Citation)`` returned (SQLite scans the
    table by rowid), so ties between equal-scored edges are broken exactly as before."""
    stmt = (
        select(
            Citation.citing_arxiv_id,
            Citation.citing_version,
            Citation.seed_arxiv_id,
            Citation.band,
            Citation.method,
            Citation.score,
            Citation.reference,
        )
        .order_by(Citation.id)
        .execution_options(yield_per=EDGE_BATCH)
    )
    yield from session.execute(stmt)


def _parsed_texts(session: Session, shas: list[str]) -> dict[str, ParsedDoc]:
    """The current parser's texts of ``shas`` only: a store keeps every release's parsed PDFs
    (8,351 bodies by a scale-1 refresh's fourth release), and a build reads its window's alone."""
    out: dict[str, ParsedDoc] = {}
    for start in range(0, len(shas), SHA_CHUNK):
        chunk = shas[start : start + SHA_CHUNK]
        rows = session.exec(
            select(ParsedDoc)
            .where(
                ParsedDoc.parser_version == PARSER_VERSION,
                ParsedDoc.status == "parsed",
                ParsedDoc.pdf_sha256.in_(chunk),
            )
            .order_by(ParsedDoc.id)
        )
        for d in rows:
            out[d.pdf_sha256] = d
    return out


def load_paper_inputs(engine: Engine, window: str, seed_ids: Iterable[str] | None = None) -> PaperInputs:
    """Keys, documents and edges of ``window``; ``seed_ids`` replaces the window's seeds."""
    with Session(engine) as session:
        roles = session.exec(select(PaperRole).where(PaperRole.window == window)).all()
        if not roles:
            raise ReflongError(
                f"no papers have roles in window {window}: run `reflong-build ingest --since ...` first"
            )
        wanted_seeds = (
            set(seed_ids) if seed_ids is not None else {r.arxiv_id for r in roles if r.role == "seed"}
        )
        seeds = {s.arxiv_id: s for s in session.exec(select(Seed)).all()}
        papers = {(p.arxiv_id, p.version): p for p in session.exec(select(Paper)).all()}
        first_dates = {p.arxiv_id: p.first_published for p in papers.values() if p.first_published}
        newest: dict[str, Paper] = {}  # a seed's licence is its newest stored version's
        for p in papers.values():
            if p.arxiv_id not in newest or p.version > newest[p.arxiv_id].version:
                newest[p.arxiv_id] = p
        wanted_shas = sorted(
            {
                p.pdf_sha256
                for r in roles
                if r.role in ("pool", "distractor")
                and (p := papers.get((r.arxiv_id, r.version))) is not None
                and p.pdf_sha256
            }
        )
        parsed = _parsed_texts(session, wanted_shas)
        docs: dict[str, PaperDoc] = {}
        distractors: set[str] = set()
        for role in sorted(roles, key=lambda r: r.arxiv_id):
            if role.role not in ("pool", "distractor"):
                continue
            paper = papers.get((role.arxiv_id, role.version))
            text = parsed.get(paper.pdf_sha256) if paper and paper.pdf_sha256 else None
            if paper is None or text is None:
                continue  # not downloaded or not parsed: reported by `stats`, not usable here
            doc = PaperDoc(
                arxiv_id=paper.arxiv_id,
                version=paper.version,
                version_date=paper.version_date,
                first_published=paper.first_published,
                pdf_sha256=paper.pdf_sha256,
                body=text.body_text.strip(),
                references=text.references_text.strip(),
                license=paper.license,
            )
            docs[doc.ref] = doc
            if role.role == "distractor":
                distractors.add(doc.ref)
        parsed.clear()  # the documents hold their texts now; the rows need not live on beside them

        verdicts = {
            (_ref(k.citing_arxiv_id, k.citing_version), k.seed_arxiv_id): (
                v.verdict,
                f"{v.who}: {v.why}".strip(),
            )
            for k, v in verdicts_for(session).items()
        }
        positives: dict[str, dict[str, Evidence]] = defaultdict(dict)
        cited: dict[str, set[str]] = defaultdict(set)
        # Each document keeps an edge (most of them rejects) to every seed it was resolved against,
        # 1.3 M (document, seed) pairs in a scale-1 fourth release: one string object per seed id,
        # not one per edge row, keeps those sets at the size of their pointers.
        seed_ids: dict[str, str] = {}
        for edge in _edges_in_id_order(session):
            ref = _ref(edge.citing_arxiv_id, edge.citing_version)
            if ref not in docs:
                continue
            cited[ref].add(seed_ids.setdefault(edge.seed_arxiv_id, edge.seed_arxiv_id))
            verdict = verdicts.get((ref, edge.seed_arxiv_id))
            band = effective_band(edge.band, verdict[0] if verdict else None)
            if band == "accept" and edge.seed_arxiv_id in wanted_seeds:
                best = positives[edge.seed_arxiv_id].get(ref)
                method = f"{edge.method}+audit" if verdict else edge.method
                if best is None or edge.score > best.score:
                    positives[edge.seed_arxiv_id][ref] = Evidence(edge.reference, method, edge.score, band)
        # A person may confirm a citation the resolver never proposed: it is a positive too.
        for (ref, seed_id), (decision, why) in verdicts.items():
            if decision == "confirm" and ref in docs and seed_id in wanted_seeds:
                cited[ref].add(seed_id)
                positives[seed_id].setdefault(ref, Evidence(f"audit: {why}", "audit", 100.0, "accept"))

        keys = []
        for seed_id in sorted(wanted_seeds):
            seed = seeds.get(seed_id)
            title = (
                seed.title if seed else next((p.title for (a, _), p in papers.items() if a == seed_id), None)
            )
            first = (seed.published if seed else None) or first_dates.get(seed_id)
            if not title or not first:
                continue
            evidence = positives.get(seed_id, {})
            license = newest[seed_id].license if seed_id in newest else None
            keys.append(KeyCandidate(seed_id, title, first, tuple(sorted(evidence)), dict(evidence), license))
        titles = {s.arxiv_id: s.title for s in seeds.values()}
        resolver_seeds = {s.arxiv_id: seed_title(s) for s in seeds.values()}
    return PaperInputs(keys, docs, distractors, dict(cited), titles, verdicts, resolver_seeds)


def _as_resolved(
    seed_id: str, title: str, published: str | None, known: Mapping[str, SeedTitle]
) -> SeedTitle:
    """The seed with the first author and DOI resolution had (when the store has them): rules
    such as "no author to check and another title-like field comes first" depend on them."""
    stored = known.get(seed_id)
    if stored is None:
        return SeedTitle(seed_id, title, published)
    return SeedTitle(seed_id, title, published, stored.first_author, stored.doi)


class ResolverMatcher:
    """Re-runs the built-in reference splitter and the resolver on a final references text.

    One index over every seed of the build, as in resolution, so that near-miss seeds compete for
    the same reference exactly as they did when the edges were made."""

    def __init__(self, seeds: Iterable[KeyCandidate], known: Mapping[str, SeedTitle] | None = None) -> None:
        known = known or {}
        self.index = SeedIndex(_as_resolved(k.arxiv_id, k.title, k.first_published, known) for k in seeds)

    def __call__(self, references: str) -> dict[str, Evidence]:
        entries, _style = split_references(references)
        found: dict[str, Evidence] = {}
        # The list in order, as resolution read it: a ditto dash takes the authors of the entry before.
        for entry, matches in zip(entries, self.index.resolve_list(entries), strict=True):
            for match in matches:
                best = found.get(match.seed_id)
                if match.band == "accept" and (best is None or match.score > best.score):
                    found[match.seed_id] = Evidence(entry, match.method, match.score, match.band)
        return found


class EntryGuardIndex:
    """Which seeds one reference entry may refer to, in any band: what document fitting keeps.

    One index over every seed known to the store and every key (the keys may come from a seed
    file), so that a confuser's entry for a similar-titled seed and a near miss of the key are kept
    just like a positive's entry for the key: every candidate the resolver scores at or above its
    ``keep`` threshold, or names by arXiv id or DOI."""

    def __init__(
        self,
        keys: Iterable[KeyCandidate],
        seed_titles: dict[str, str],
        known: Mapping[str, SeedTitle] | None = None,
    ) -> None:
        keys = list(keys)
        known = known or {}
        dates = {k.arxiv_id: k.first_published for k in keys}
        titles = {**seed_titles, **{k.arxiv_id: k.title for k in keys}}
        self.index = SeedIndex(
            _as_resolved(seed_id, title, dates.get(seed_id), known)
            for seed_id, title in sorted(titles.items())
        )

    def __call__(self, entry: str) -> frozenset[str]:
        return frozenset(m.seed_id for m in self.index.resolve(entry))
