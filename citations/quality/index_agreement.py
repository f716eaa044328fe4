"""How far the citation index and our own text resolution agree, pair by pair (invariant 6).

After resolution, for every pool paper whose reference list we parsed and every key the plan chose
through the index, two independent answers exist: the index's (it lists the paper among the key's
citers) and ours (an accepted edge, audit verdicts applied). Pairs where they differ are stored
(``index_disagreement``) and become the ``index_disagree`` audit kind:

* ``index_only``: the index says the paper cites the key, our text finds no reference to it
  (a resolver miss, a parser miss, or an index error: a person can tell);
* ``text_only``: our text finds a reference the index lacks (an index gap, or our false positive).

The rates are the build's recall and precision measured against an independent graph:
``index_confirmed_rate`` (index pairs our text confirms) and ``text_in_index_rate`` (our edges the
index also has). They are stored per window and copied into build_report.json and the card.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from sqlalchemy.engine import Engine
from sqlmodel import Session, delete, select

from reflong.db.audits import EdgeKey, effective_band, verdicts_for
from reflong.db.citations import Citation, ReferenceList
from reflong.db.index import IndexAgreement, IndexCitation, IndexDisagreement, IndexKey
from reflong.db.papers import PaperRole, utcnow


@dataclass(frozen=True)
class Agreement:
    window: str
    keys: int
    papers: int
    index_pairs: int
    confirmed_by_text: int
    text_pairs: int
    text_only: int

    @property
    def index_only(self) -> int:
        return self.index_pairs - self.confirmed_by_text

    def rates(self) -> dict:
        def rate(a: int, b: int) -> float | None:
            return round(a / b, 4) if b else None

        return {
            "keys": self.keys,
            "papers": self.papers,
            "index_pairs": self.index_pairs,
            "confirmed_by_text": self.confirmed_by_text,
            "index_only": self.index_only,
            "index_confirmed_rate": rate(self.confirmed_by_text, self.index_pairs),
            "text_pairs": self.text_pairs,
            "text_only": self.text_only,
            "text_in_index_rate": rate(self.text_pairs - self.text_only, self.text_pairs),
        }

    def line(self) -> str:
        r = self.rates()
        return (
            f"index agreement over {self.papers} parsed pool papers x {self.keys} keys: "
            f"{self.confirmed_by_text} of {self.index_pairs} index pairs confirmed by the text "
            f"({r['index_confirmed_rate']}); {self.text_only} of {self.text_pairs} text edges not in the index"
        )


def run_index_agreement(engine: Engine, window: str) -> Agreement | None:
    """Compare, store the disagreements of ``window`` (replacing the last), return the figures.

    None when the window has no keys chosen through an index."""
    with Session(engine) as session:
        keys = set(session.exec(select(IndexKey.arxiv_id).where(IndexKey.window == window)).all())
        if not keys:
            return None
        roles = {
            r.arxiv_id: r.version
            for r in session.exec(
                select(PaperRole).where(PaperRole.window == window, PaperRole.role == "pool")
            ).all()
        }
        parsed = {
            (rl.arxiv_id, rl.version)
            for rl in session.exec(select(ReferenceList).where(ReferenceList.status == "ok")).all()
            if roles.get(rl.arxiv_id) == rl.version
        }
        scope = {a: v for a, v in parsed}
        index_pairs = {
            (row.citing_arxiv_id, row.seed_arxiv_id)
            for row in session.exec(
                select(IndexCitation).where(IndexCitation.seed_arxiv_id.in_(sorted(keys)))
            ).all()
            if row.citing_arxiv_id in scope
        }
        text = _accepted_in_scope(session, keys, scope)
        _store_disagreements(session, window, scope, index_pairs, text)
        result = Agreement(
            window,
            len(keys),
            len(scope),
            len(index_pairs),
            len(index_pairs & set(text)),
            len(text),
            len(set(text) - index_pairs),
        )
        row = session.exec(select(IndexAgreement).where(IndexAgreement.window == window)).first()
        row = row or IndexAgreement(window=window)
        row.summary_json = json.dumps(result.rates(), sort_keys=True)
        row.updated_at = utcnow()
        session.add(row)
        session.commit()
    return result


def _accepted_in_scope(
    session: Session, keys: set[str], scope: dict[str, int]
) -> dict[tuple[str, str], Citation | None]:
    """(citing, seed) -> the best accepted edge of the window's parsed citers to its keys, a
    person's verdict counted; a confirmed citation the resolver never proposed maps to None."""
    verdicts = verdicts_for(session)
    text: dict[tuple[str, str], Citation] = {}
    for edge in session.exec(select(Citation).where(Citation.seed_arxiv_id.in_(sorted(keys)))).all():
        if scope.get(edge.citing_arxiv_id) != edge.citing_version:
            continue
        verdict = verdicts.get(EdgeKey(edge.citing_arxiv_id, edge.citing_version, edge.seed_arxiv_id))
        if effective_band(edge.band, verdict) != "accept":
            continue
        pair = (edge.citing_arxiv_id, edge.seed_arxiv_id)
        if pair not in text or edge.score > text[pair].score:
            text[pair] = edge
    for key, verdict in verdicts.items():  # a confirmed citation the resolver never proposed
        if (
            verdict.verdict == "confirm"
            and key.seed_arxiv_id in keys
            and scope.get(key.citing_arxiv_id) == key.citing_version
        ):
            text.setdefault((key.citing_arxiv_id, key.seed_arxiv_id), None)
    return text


def _store_disagreements(
    session: Session,
    window: str,
    scope: dict[str, int],
    index_pairs: set[tuple[str, str]],
    text: dict[tuple[str, str], Citation | None],
) -> None:
    """The window's disagreements, replacing the last: pairs only the index has, and only the text."""
    session.exec(delete(IndexDisagreement).where(IndexDisagreement.window == window))
    for citing, seed in sorted(index_pairs - set(text)):
        session.add(
            IndexDisagreement(
                window=window,
                citing_arxiv_id=citing,
                citing_version=scope[citing],
                seed_arxiv_id=seed,
                kind="index_only",
            )
        )
    for citing, seed in sorted(set(text) - index_pairs):
        edge = text[(citing, seed)]
        session.add(
            IndexDisagreement(
                window=window,
                citing_arxiv_id=citing,
                citing_version=scope[citing],
                seed_arxiv_id=seed,
                kind="text_only",
                reference=edge.reference if edge is not None else "audit: confirmed by a person",
                score=float(edge.score) if edge is not None else 100.0,
            )
        )


def stored_agreement(session: Session, window: str | None) -> dict:
    """The figures of ``window`` as the last resolution stored them ({} when there are none)."""
    if window is None:
        return {}
    row = session.exec(select(IndexAgreement).where(IndexAgreement.window == window)).first()
    return json.loads(row.summary_json) if row else {}
