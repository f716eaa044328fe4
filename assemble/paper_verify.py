"""Invariant 1: ground truth re-verified on the exact text the model sees.

The resolver is run again on each document's final text (after fitting to the budget): every
answer document must still reference the key and no other document may. Results are cached per
(document, key) because the same pair recurs across lengths and tasks.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from reflong.assemble.paper_model import Evidence, KeyCandidate, PaperDoc
from reflong.assemble.paper_sampling import TaskPlan

# Given a document's final references text and a key, the evidence that it cites the key, or None.
Matcher = Callable[[str, KeyCandidate], Evidence | None]


@dataclass
class Verifier:
    """Runs the matcher on final document texts, remembering each (document, key) answer."""

    matcher: Matcher
    _cache: dict[tuple[str, str], Evidence | None] = field(default_factory=dict)

    def cites(self, doc: PaperDoc, key: KeyCandidate) -> Evidence | None:
        pair = (doc.ref, key.arxiv_id)
        if pair not in self._cache:
            final = doc.text
            # The references section is the tail of the final text, never trimmed; checking the
            # tail itself keeps the verification on exactly what the model reads.
            tail = final[len(final) - len(doc.references) :] if doc.references else ""
            self._cache[pair] = self.matcher(tail, key) if tail else None
        return self._cache[pair]

    def violations(self, plan: TaskPlan, docs: dict[str, PaperDoc]) -> list[str]:
        """Every way the plan's answers disagree with the final texts (empty when sound)."""
        problems: list[str] = []
        for label, refs in plan.documents.items():
            answer = set(plan.answers[label])
            for position, ref in enumerate(refs):
                found = self.cites(docs[ref], plan.key) is not None
                if position in answer and not found:
                    problems.append(
                        f"{label}: answer document {ref} no longer references the key in its final text"
                    )
                elif position not in answer and found:
                    problems.append(f"{label}: document {ref} is not in the answer but references the key")
        return problems
