"""Agreement between annotators (or any two runs) on the tasks both answered.

Ref-Long reports its two annotators' agreement (84%) beside their accuracy; a human baseline means
little without it. Two figures per pair, over the tasks both answered (a task one of them left
out says nothing about agreement):

- **same answer**: the share of those tasks on which both gave the same set of documents (the
  figure comparable with the paper's);
- **Cohen's kappa per document decision**: every (task, document) is a yes/no decision, "does it
  refer to the key"; kappa = (p_o - p_e) / (1 - p_e), with p_o the share of decisions on which
  both agree and p_e the agreement expected by chance from each one's own rate of "yes". It
  corrects the raw share for the many easy "no"s. Written out rather than taken from a statistics
  package: five lines of arithmetic do not justify a heavy dependency. When every decision of both
  is the same (p_e = 1) kappa is undefined and reported as None.

Responses are read with the same parser as the scores, and M (documents per task) comes from the
prompts when given, else from the configuration's name, else from the largest index seen.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations
from pathlib import Path

from reflong.common.errors import ReflongError
from reflong.evaluate import files
from reflong.evaluate.parsing import parse_response
from reflong.evaluate.scoring import PREDICTION_NAMES, documents_per_task, pairing_problem


@dataclass(frozen=True)
class PairAgreement:
    a: str
    b: str
    tasks: int  # answered by both
    same_answer: int
    decisions: int  # (task, document) pairs compared
    agreeing_decisions: int
    kappa: float | None

    @property
    def same_share(self) -> float:
        return self.same_answer / self.tasks if self.tasks else 0.0

    def as_json(self, digits: int = 6) -> dict:
        return {
            "a": self.a,
            "b": self.b,
            "shared_tasks": self.tasks,
            "same_answer": self.same_answer,
            "same_answer_share": round(self.same_share, digits),
            "document_decisions": self.decisions,
            "decisions_agreeing": self.agreeing_decisions,
            "cohen_kappa": None if self.kappa is None else round(self.kappa, digits),
        }


def cohen_kappa(pairs: Sequence[tuple[bool, bool]]) -> float | None:
    """Cohen's kappa of two raters' yes/no decisions (see the module doc); None when undefined."""
    n = len(pairs)
    if not n:
        return None
    observed = sum(x == y for x, y in pairs) / n
    yes_a = sum(x for x, _ in pairs) / n
    yes_b = sum(y for _, y in pairs) / n
    expected = yes_a * yes_b + (1 - yes_a) * (1 - yes_b)
    if expected >= 1.0:
        return None
    return (observed - expected) / (1 - expected)


def _answer_sets(
    answers: Mapping[str, list], predictions: Mapping[str, list], n_documents, parser: str
) -> dict[str, frozenset[int]]:
    out = {}
    for tid, (_, response) in predictions.items():
        if tid not in answers:
            continue
        m = n_documents.get(tid) if isinstance(n_documents, Mapping) else n_documents
        out[tid] = parse_response(response, m, parser).indexes
    return out


def agreement_paths(
    answers: Path,
    runs: Sequence[tuple[str, Path]],
    prompts: Path | None = None,
    parser: str = "prompt",
) -> list[PairAgreement]:
    """Agreement for every pair of ``runs`` (label, predictions folder or file) over every answers
    file under ``answers`` that both have predictions for; tasks pooled across files."""
    if len(runs) < 2:
        raise ReflongError("agreement needs two or more annotators' predictions")
    answer_paths = files.answers_files(answers)
    per_run: list[dict[tuple[str, str], frozenset[int]]] = []
    m_of: dict[tuple[str, str], int] = {}
    for label, predictions in runs:
        found: dict[tuple[str, str], frozenset[int]] = {}
        for path in answer_paths:
            config = files.config_name(path)
            pred_path = files.find_partner(predictions, config, PREDICTION_NAMES)
            if pred_path is None:
                continue
            answer_map = files.load_mapping(path)
            pred_map = files.load_mapping(pred_path)
            problem = pairing_problem(path, answer_map, pred_path, pred_map)
            if problem is not None:
                raise ReflongError(f"agreement of {label}: {problem}")
            prompt_path = files.find_partner(prompts, config, ("{config}.json",)) if prompts else None
            prompt_map = files.load_mapping(prompt_path) if prompt_path is not None else None
            n_documents = documents_per_task(prompt_map, config)
            for tid, indexes in _answer_sets(answer_map, pred_map, n_documents, parser).items():
                found[(path.name, tid)] = indexes
                m = n_documents.get(tid) if isinstance(n_documents, Mapping) else n_documents
                gold_max = max((i for i in answer_map[tid][1] if isinstance(i, int)), default=-1)
                seen = max([gold_max, *indexes], default=-1) + 1
                m_of[(path.name, tid)] = max(m or 0, seen, m_of.get((path.name, tid), 0))
        per_run.append(found)
    out = []
    for (i, (label_a, _)), (j, (label_b, _)) in combinations(enumerate(runs), 2):
        a, b = per_run[i], per_run[j]
        shared = sorted(set(a) & set(b))
        decisions = [(d in a[task], d in b[task]) for task in shared for d in range(m_of[task])]
        out.append(
            PairAgreement(
                label_a,
                label_b,
                len(shared),
                sum(a[t] == b[t] for t in shared),
                len(decisions),
                sum(x == y for x, y in decisions),
                cohen_kappa(decisions),
            )
        )
    return out


def agreement_table(pairs: Sequence[PairAgreement]) -> str:
    """Plain text: one row per pair."""
    head = ("annotator", "annotator", "shared tasks", "same answer", "kappa (per document)")
    rows = [head]
    for p in pairs:
        kappa = "undefined" if p.kappa is None else f"{p.kappa:.3f}"
        rows.append((p.a, p.b, str(p.tasks), f"{p.same_share:.3f} ({p.same_answer})", kappa))
    widths = [max(len(r[k]) for r in rows) for k in range(len(head))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "agreement on the tasks both answered:\n" + "\n".join(lines)
