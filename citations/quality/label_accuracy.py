"""Accuracy of the stored edges against hand labels (the format of labels/dev.jsonl).

Pair level, as the labels are: a (citing paper, seed) pair is predicted when at least one of the
paper's references has an ``accept`` edge to the seed. Pairs under ``ambiguous`` count neither
way; a paper's edge to itself is ignored. Every false positive and false negative comes back with
its reason (the edge's evidence, or why nothing was accepted), so a report can list them all.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from sqlalchemy.engine import Engine
from sqlmodel import Session, select

from reflong.db.citations import Citation, ReferenceList


@dataclass
class Evaluation:
    tp: int = 0
    fp: int = 0
    fn: int = 0
    problems: list[str] = field(default_factory=list)
    segmentation: list[tuple[str, int, int]] = field(default_factory=list)  # (paper, found, labelled)

    @property
    def precision(self) -> float:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 1.0

    @property
    def recall(self) -> float:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 1.0

    @property
    def segmentation_ok(self) -> float:
        """Share of papers whose entry count is within 5% of the labelled count."""
        if not self.segmentation:
            return 0.0
        good = sum(abs(found - n) <= 0.05 * n for _, found, n in self.segmentation)
        return good / len(self.segmentation)

    def report(self) -> str:
        lines = [
            f"pairs: tp={self.tp} fp={self.fp} fn={self.fn} precision={self.precision:.4f} "
            f"recall={self.recall:.4f}",
            f"segmentation within 5%: {self.segmentation_ok:.2%} of {len(self.segmentation)} papers",
        ]
        lines += [
            f"  entries {p}: found {f}, labelled {n}"
            for p, f, n in self.segmentation
            if abs(f - n) > 0.05 * n
        ]
        lines += [f"  {p}" for p in self.problems] or ["  no missed or wrong edges"]
        return "\n".join(lines)


def load_labels(path: str | Path) -> list[dict]:
    return [json.loads(line) for line in Path(path).read_text(encoding="utf-8").splitlines() if line.strip()]


def evaluate(engine: Engine, labels: list[dict]) -> Evaluation:
    ev = Evaluation()
    with Session(engine) as session:
        for lab in labels:
            paper = lab["paper"]
            rl = session.exec(select(ReferenceList).where(ReferenceList.arxiv_id == paper)).first()
            ev.segmentation.append((paper, rl.n_references if rl else 0, lab["n_references"]))
            edges = session.exec(
                select(Citation).where(Citation.citing_arxiv_id == paper, Citation.seed_arxiv_id != paper)
            ).all()
            best: dict[str, Citation] = {}
            for e in edges:
                cur = best.get(e.seed_arxiv_id)
                if cur is None or (e.band == "accept", e.score) > (cur.band == "accept", cur.score):
                    best[e.seed_arxiv_id] = e
            accepted = {s for s, e in best.items() if e.band == "accept"}
            gold = {c["seed"] for c in lab["cites"]}
            ambiguous = {a["seed"] for a in lab.get("ambiguous", [])}
            near = {n["seed"]: n["why_not"] for n in lab.get("near_misses", [])}
            for seed in sorted(accepted - ambiguous):
                e = best[seed]
                if seed in gold:
                    ev.tp += 1
                    continue
                ev.fp += 1
                why = f" (labelled near miss: {near[seed]})" if seed in near else ""
                ev.problems.append(
                    f"WRONG {paper} -> {seed}: accepted by {e.method} score {e.score:.1f} ({e.reason}){why}; "
                    f"reference [{e.ref_order}]: {e.reference[:200]}"
                )
            for seed in sorted(gold - accepted - ambiguous):
                ev.fn += 1
                e = best.get(seed)
                if e is None:
                    why = "no candidate edge: the reference was not found among the split entries"
                else:
                    why = (
                        f"best edge {e.band} by {e.method} score {e.score:.1f} ({e.reason}); "
                        f"[{e.ref_order}] {e.reference[:160]}"
                    )
                label_ref = next(c["reference"] for c in lab["cites"] if c["seed"] == seed)
                ev.problems.append(f"MISSED {paper} -> {seed}: {why}; labelled reference: {label_ref[:160]}")
    return ev


def pr_curve(
    engine: Engine, labels: list[dict], seeds, accepts: list[float]
) -> list[tuple[float, float, float]]:
    """Pair-level (accept threshold, precision, recall) on the stored reference lists of the
    labelled papers, resolving in memory (nothing is written) once per threshold."""
    from reflong.citations.resolve import SeedIndex, Thresholds
    from reflong.citations.stages.resolve_stage import entry_of
    from reflong.db.citations import Reference

    with Session(engine) as session:
        refs = {
            lab["paper"]: session.exec(
                select(Reference)
                .where(Reference.arxiv_id == lab["paper"])
                .order_by(Reference.version, Reference.order)
            ).all()
            for lab in labels
        }
    out = []
    for accept in accepts:
        index = SeedIndex(seeds, Thresholds(accept=accept, review=min(accept, Thresholds().review)))
        tp = fp = fn = 0
        for lab in labels:
            paper = lab["paper"]
            got = {
                m.seed_id
                for version in sorted({r.version for r in refs[paper]})
                # Each stored list in order, as resolution reads it (ditto dashes inherit authors).
                for ms in index.resolve_list([entry_of(r) for r in refs[paper] if r.version == version])
                for m in ms
                if m.band == "accept" and m.seed_id != paper
            }
            amb = {a["seed"] for a in lab.get("ambiguous", [])}
            gold = {c["seed"] for c in lab["cites"]}
            tp += len((got & gold) - amb)
            fp += len(got - gold - amb)
            fn += len(gold - got - amb)
        out.append((accept, tp / max(1, tp + fp), tp / max(1, tp + fn)))
    return out
