"""Proof that a training build and a test build share nothing a model could learn answers from.

``check_disjoint(train, test)`` compares the identities of two finished builds (``held_out``):
Paper: no shared key and no shared paper (as key or document, any version); F: no shared topic,
key (insight) or document (SummHay documents are whole texts, generated per topic: two topics'
documents do share stock phrases of a dozen words, which are no leak, so passages are not compared);
A: no shared document and no shared passage (A's documents are cut from essays, so a shared
passage is shared essay text); A's key alphabet is shared by design and only reported. Every overlap
is listed, so a failing check says exactly what leaked.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from reflong.assemble.split.held_out import HeldOutBuild, load_build
from reflong.common.errors import ReflongError


@dataclass
class DisjointReport:
    train: HeldOutBuild
    test: HeldOutBuild
    overlaps: dict[str, list[str]] = field(default_factory=dict)  # kind -> shared items
    compared: list[str] = field(default_factory=list)  # kinds compared, in order
    shared_by_design: dict[str, int] = field(default_factory=dict)  # kind -> shared count (A keys)

    @property
    def disjoint(self) -> bool:
        return not any(self.overlaps.values())

    def lines(self, limit: int = 20) -> list[str]:
        out = [
            f"train {self.train.folder}: {self.train.summary()}",
            f"test  {self.test.folder}: {self.test.summary()}",
        ]
        for kind in self.compared:
            shared = self.overlaps.get(kind, [])
            out.append(f"shared {kind}: {len(shared)}")
            out += [f"  {item}" for item in shared[:limit]]
            if len(shared) > limit:
                out.append(f"  ... and {len(shared) - limit} more")
        for kind, n in self.shared_by_design.items():
            out.append(f"shared {kind}: {n} (by design: A's keys are star counts or fruit names)")
        return out


def check_disjoint(train_dir: Path, test_dir: Path) -> DisjointReport:
    """Compare two finished builds of the same subset (see the module doc)."""
    train, test = load_build(train_dir), load_build(test_dir)
    if train.subset != test.subset:
        raise ReflongError(f"{train_dir} is a {train.subset} build and {test_dir} a {test.subset} build")
    report = DisjointReport(train, test)

    def compare(kind: str, a: set, b: set) -> None:
        report.compared.append(kind)
        report.overlaps[kind] = sorted(a & b)

    if train.subset == "paper":
        compare("keys", train.keys, test.keys)
        compare("papers", train.papers, test.papers)
        return report
    if train.subset == "F":
        compare("topics", train.topics, test.topics)
        compare("keys", train.keys, test.keys)
        compare("documents", train.documents, test.documents)
        return report
    report.shared_by_design["keys"] = len(train.keys & test.keys)
    compare("documents", train.documents, test.documents)
    report.compared.append("passages")
    shared = sorted(set(train.shingles) & set(test.shingles))
    report.overlaps["passages"] = [f'"{train.shingles[h]}"' for h in shared]
    return report
