"""Invariant 1: ground truth re-verified on the exact text the model sees.

The resolver is run again on each document's final text (after fitting to the budget): every
answer document must still reference the key and no other document may. Results are cached per
(document, key) because the same pair recurs across lengths and tasks.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from reflong.assemble.paper.model import Evidence, KeyCandidate, PaperDoc
from reflong.assemble.paper.sampling import TaskPlan

# A document's final references text -> the seeds it cites (accepted), each with its evidence.
# One call per document covers every key: resolution is per reference, not per (document, key).
Matcher = Callable[[str], dict[str, Evidence]]


@dataclass
class Verifier:
    """Runs the matcher once per final document text and answers (document, key) from that."""

    matcher: Matcher
    # Audit verdicts win over the resolver (docs/architecture.md, invariant 4):
    # (doc ref, seed) -> confirm|reject.
    verdicts: dict[tuple[str, str], tuple[str, str]] = field(default_factory=dict)
    _cache: dict[str, dict[str, Evidence]] = field(default_factory=dict)

    def cites(self, doc: PaperDoc, key: KeyCandidate) -> Evidence | None:
        verdict = self.verdicts.get((doc.ref, key.arxiv_id))
        if verdict is not None:
            decision, why = verdict
            return Evidence(f"audit: {why}", "audit", 100.0, "accept") if decision == "confirm" else None
        return self.text_hit(doc, key)

    def text_hit(self, doc: PaperDoc, key: KeyCandidate) -> Evidence | None:
        """The resolver's accepted match of the key on the final text, audit verdicts aside: what a
        reader of the text would take for a citation (no such document may be a negative)."""
        if doc.ref not in self._cache:
            final = doc.text
            # The references section is the tail of the final text (as fitted: whole or a kept
            # sample of its entries); checking the tail itself keeps the verification on exactly
            # what the model reads.
            tail = final[len(final) - len(doc.references) :] if doc.references else ""
            self._cache[doc.ref] = self.matcher(tail) if tail else {}
        return self._cache[doc.ref].get(key.arxiv_id)

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
