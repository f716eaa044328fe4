"""Keeping a training build apart from a test build: what to leave out, per subset.

The test build is read from its folder (``held_out.load_build``); a training build then leaves out
- Paper: every paper the test build shows, as a key or a document (``without_papers``): no shared
  key and no shared paper, whatever window or store the training build uses;
- F: every SummHay haystack whose topic the test build read, and any document whose text it
  shows (``unused_haystacks``): no shared topic, insight or document;
- A: every essay with a passage in the test build's documents (``unused_essays``), so the
  training documents are cut from other essays only.
What was left out is recorded (``HeldOut.record``) in the training build's manifest and card, with
the test manifest's sha256, so the training build says which test build it stays apart from.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from reflong.assemble.split.held_out import (
    EXCLUDE_WORDS,
    HeldOutBuild,
    load_build,
    normalised_words,
    shingles,
)
from reflong.common.errors import ReflongError


@dataclass
class HeldOut:
    """A test build to stay apart from, and what leaving it out removed (for the manifest)."""

    build: HeldOutBuild
    excluded: dict[str, int] = field(default_factory=dict)

    @property
    def papers(self) -> set[str]:
        return self.build.papers

    @property
    def record(self) -> dict:
        b = self.build
        shown = {"paper": {"keys": len(b.keys), "papers": len(b.papers)}}.get(
            b.subset, {"keys": len(b.keys), "documents": len(b.documents)}
        )
        return {
            "manifest_sha256": b.manifest_sha256,
            "subset": b.subset,
            "tasks": b.tasks,
            **shown,
            "left_out": dict(sorted(self.excluded.items())),
        }


def held_out(folder: Path, subset: str) -> HeldOut:
    """The test build in ``folder``; it must be of ``subset`` (paper, A or F)."""
    build = load_build(folder, with_shingles=subset == "A", shingle_words=EXCLUDE_WORDS)
    if build.subset != subset:
        raise ReflongError(f"--disjoint-from {folder} is a {build.subset} build; this is a {subset} build")
    return HeldOut(build)


def without_papers(inputs, papers: set[str]):
    """Paper inputs with every key and document whose arXiv id is in ``papers`` removed."""
    keys = [k for k in inputs.keys if k.arxiv_id not in papers]
    docs = {ref: d for ref, d in inputs.docs.items() if d.arxiv_id not in papers}
    return dataclasses.replace(
        inputs,
        keys=keys,
        docs=docs,
        distractors={ref for ref in inputs.distractors if ref in docs},
        cited_seeds={ref: seeds for ref, seeds in inputs.cited_seeds.items() if ref in docs},
    )


def note_paper_exclusions(held: HeldOut, before, after) -> None:
    held.excluded = {
        "keys": len(before.keys) - len(after.keys),
        "documents": len(before.docs) - len(after.docs),
    }


def unused_essays(essays: Sequence[tuple[Path, str]], held: HeldOut) -> list[tuple[Path, str]]:
    """The essays with no passage of their own in the held-out build's documents.

    A passage counts when it is found in one essay only: the boilerplate many essays end with
    ("Want to start a startup? Get funded by Y Combinator.") does not tie an essay to the test
    build, any stretch of the essay's own text does."""
    test = held.build.shingles
    per_essay = [shingles(text, EXCLUDE_WORDS).keys() for _, text in essays]
    seen: dict[int, int] = {}
    for runs in per_essay:
        for h in runs:
            seen[h] = seen.get(h, 0) + 1
    kept = [
        essay
        for essay, runs in zip(essays, per_essay, strict=True)
        if not any(seen[h] == 1 and h in test for h in runs)
    ]
    held.excluded = {"essays": len(essays) - len(kept)}
    if not kept:
        raise ReflongError(
            "every essay in --haystack has text in the --disjoint-from build's documents: "
            "give a folder with other essays for the training split"
        )
    return kept


def unused_haystacks(haystacks: list, held: HeldOut) -> list:
    """The SummHay haystacks of topics the held-out build did not read, with any document whose
    text it shows removed (SummHay topics do not share documents; this makes sure)."""
    kept, documents = [], 0
    for hay in haystacks:
        if hay.topic in held.build.topics:
            continue
        cands = [
            c
            for c in hay.candidates
            if hashlib.sha256(" ".join(normalised_words(c.text)).encode()).hexdigest()
            not in held.build.documents
        ]
        documents += len(hay.candidates) - len(cands)
        kept.append(dataclasses.replace(hay, candidates=cands))
    held.excluded = {"topics": len(haystacks) - len(kept), "documents": documents}
    if not kept:
        raise ReflongError(
            "every SummHay topic in --summhay is in the --disjoint-from build: give other topic files "
            "(e.g. topic_news1.json and topic_news2.json when the test build used news3-5)"
        )
    return kept
