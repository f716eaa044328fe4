"""Assembling the Ref-Long-Paper subset from plain inputs: keys, documents, negatives, tasks.

The steps, each a small pure function of the previous one's output:
fit documents to the budget -> verify positives and pick date-safe negatives per key (counting
distractor false positives, invariant 3) -> plan tasks per difficulty -> re-verify every planned
task on final texts (invariant 1) -> render prompts and measure them exactly.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field

from rapidfuzz import fuzz

from reflong.assemble.paper.documents import (
    DOC_POLICIES,
    REF_SHARE,
    EntryGuard,
    doc_budget,
    fit_document,
    fit_sampled,
)
from reflong.assemble.paper.model import KeyCandidate, PaperDoc
from reflong.assemble.paper.sampling import DEFAULT_LENGTHS, NegativePools, TaskPlan, iter_plans
from reflong.assemble.paper.verify import Verifier
from reflong.assemble.prompts import (
    Template,
    additive_tokenizer,
    document_block,
    paper_template,
    prompt_tokens,
)
from reflong.common.tokenizer import DEFAULT_TOKENIZER, Tokenizer, get_tokenizer


@dataclass(frozen=True)
class PaperSettings:
    lengths: tuple[tuple[str, int], ...] = DEFAULT_LENGTHS
    difficulties: tuple[str, ...] = ("easy", "hard")
    n_tasks: int = 100
    seed: int = 0
    # Per-document budget; None: the setting's size for ``fit`` (``doc_budget``), 5,000 otherwise.
    max_doc_tokens: int | None = None
    doc_policy: str = "fit"  # fit | trim | whole (assemble/paper/documents.py)
    ref_share: float = REF_SHARE
    many_citers: str = "sample"  # sample | skip: keys with more citers than a task takes
    question_last: bool = False
    tokenizer: str = DEFAULT_TOKENIZER
    min_positives: int = 2
    confuser_similarity: float = 70.0  # rapidfuzz token_set_ratio between the key and another seed
    # Licence kinds a document (and a key's seed paper) must have (reflong/common/licenses.py,
    # --licenses); None: every paper, whatever its licence.
    licenses: tuple[str, ...] | None = None

    def to_json(self) -> dict:
        out = {
            "lengths": [f"{label}:{n}" for label, n in self.lengths],
            "difficulties": list(self.difficulties),
            "n_tasks": self.n_tasks,
            "seed": self.seed,
            "max_doc_tokens": self.max_doc_tokens,
            "doc_policy": self.doc_policy,
            "ref_share": self.ref_share,
            "many_citers": self.many_citers,
            "question_last": self.question_last,
            "tokenizer": self.tokenizer,
            "min_positives": self.min_positives,
            "confuser_similarity": self.confuser_similarity,
        }
        if self.licenses is not None:  # only then: builds without the filter keep their bytes
            out["licenses"] = list(self.licenses)
        return out


@dataclass
class PaperInputs:
    """Everything assembly needs, read from the store (or made by hand in tests)."""

    keys: list[KeyCandidate]
    docs: dict[str, PaperDoc]  # ref -> document (citing pool and distractors)
    distractors: set[str]  # refs of distractor-role documents
    cited_seeds: dict[str, set[str]] = field(default_factory=dict)  # ref -> seeds it has any edge to
    seed_titles: dict[str, str] = field(default_factory=dict)  # every seed id -> title
    # Audit verdicts in force: (document ref, seed id) -> (confirm | reject, "who: why").
    verdicts: dict[tuple[str, str], tuple[str, str]] = field(default_factory=dict)


@dataclass(frozen=True)
class RenderedTask:
    difficulty: str
    length: str
    task_index: int
    key: KeyCandidate
    documents: tuple[PaperDoc, ...]
    answer: tuple[int, ...]
    prompt: str
    prompt_tokens: int

    def evidence(self) -> list[dict]:
        out = []
        for position in self.answer:
            doc = self.documents[position]
            ev = self.key.evidence.get(doc.ref)
            out.append(
                {
                    "index": position,
                    "arxiv_id": doc.arxiv_id,
                    "version": doc.version,
                    "reference": ev.reference if ev else "",
                    "method": ev.method if ev else "",
                    "score": float(ev.score) if ev else 0.0,
                }
            )
        return out


@dataclass
class BuildReport:
    keys_considered: int = 0
    keys_used: dict[str, list[str]] = field(default_factory=dict)  # difficulty -> seed ids
    excluded_docs: dict[str, str] = field(default_factory=dict)  # ref -> reason
    dropped_positives: dict[str, str] = field(default_factory=dict)  # "seed <- ref" -> reason
    skipped_keys: dict[str, dict[str, str]] = field(default_factory=dict)  # difficulty -> seed -> why
    distractor_false_positives: list[dict] = field(default_factory=list)
    dropped_tasks: list[dict] = field(default_factory=list)
    date_unsafe_excluded: int = 0
    # Citation index vs our text over the window's pool papers and index-chosen keys ({}: no index).
    index_agreement: dict = field(default_factory=dict)
    documents: dict = field(default_factory=dict)  # policy, budget, usable share, token distribution
    licenses: dict = field(default_factory=dict)  # --licenses: kept kinds, what was left out per licence

    def to_json(self) -> dict:
        data = dict(self.__dict__)
        if not data["licenses"]:  # no --licenses: the report keeps the bytes it always had
            data.pop("licenses")
        return json.loads(json.dumps(data, sort_keys=True))


def effective_budget(settings: PaperSettings, template: Template, tokenizer: Tokenizer) -> int:
    """``--max-doc-tokens`` if given; else the setting's size for ``fit``, Ref-Long's 5,000 otherwise.

    The head is counted with a 40-token allowance for the key title, so that a prompt of M fitted
    documents stays within the setting's nominal size (30K: 30,000 tokens)."""
    if settings.max_doc_tokens is not None:
        return settings.max_doc_tokens
    if settings.doc_policy != "fit":
        return 5000
    head = sum(tokenizer.count(p) for p in template.fill("")) + 40
    block = tokenizer.count(document_block(99, "Paper")) - tokenizer.count("Paper")
    return doc_budget(settings.lengths, head, block)


def _fit_all(
    inputs: PaperInputs,
    settings: PaperSettings,
    report: BuildReport,
    guard: EntryGuard,
    budget: int,
) -> dict[str, PaperDoc]:
    if settings.doc_policy not in DOC_POLICIES:
        raise ValueError(f"unknown document policy {settings.doc_policy!r}: use one of {DOC_POLICIES}")
    tokenizer = get_tokenizer(settings.tokenizer)
    confirmed: dict[str, set[str]] = {}
    for (ref, seed), (decision, _why) in inputs.verdicts.items():
        if decision == "confirm":
            confirmed.setdefault(ref, set()).add(seed)
    fitted: dict[str, PaperDoc] = {}
    cut = sampled = entries = kept = 0
    for ref in sorted(inputs.docs):
        doc = inputs.docs[ref]
        if settings.doc_policy == "fit":
            result = fit_sampled(
                doc,
                tokenizer,
                budget,
                settings.seed,
                guard,
                frozenset(confirmed.get(ref, ())),
                settings.ref_share,
            )
        else:
            result = fit_document(doc, tokenizer, budget, settings.doc_policy == "trim")
        if result.doc is None:
            report.excluded_docs[ref] = result.reason
            continue
        fitted[ref] = result.doc
        cut += result.trimmed
        if result.entries:
            sampled += 1
            entries += result.entries
            kept += result.entries_kept
    report.documents = {
        "policy": settings.doc_policy,
        "budget_tokens": budget,
        "papers": len(inputs.docs),
        "usable": len(fitted),
        "usable_share": round(len(fitted) / len(inputs.docs), 4) if inputs.docs else 0.0,
        "cut": cut,
        "reference_lists_sampled": sampled,
        "entries_kept_share": round(kept / entries, 4) if entries else 1.0,
        "usable_tokens": token_distribution([d.n_tokens for d in fitted.values()]),
        "reflong_paper": REFLONG_PAPER_DOCS,
    }
    return fitted


# What Ref-Long's release says about its Paper documents (its prompt files were not released, so
# no per-document distribution can be computed; ../shared/data/reflong/FORMAT.md, paper sec. 5.2).
REFLONG_PAPER_DOCS = {
    "source": "Ref-Long paper sec. 5.2 and FORMAT.md (prompt files not released)",
    "whole_papers_under_tokens": 5000,
    "nominal_mean_tokens": 3750,  # 30K / 8 = 45K / 12 = 60K / 16 = 75K / 20
}


def token_distribution(counts: list[int]) -> dict:
    """min / quartiles / mean / max of token counts (empty: zeros)."""
    if not counts:
        return {"n": 0, "min": 0, "p25": 0, "median": 0, "mean": 0.0, "p75": 0, "max": 0}
    xs = sorted(counts)

    def q(f: float) -> int:
        return xs[min(len(xs) - 1, int(f * (len(xs) - 1) + 0.5))]

    return {
        "n": len(xs),
        "min": xs[0],
        "p25": q(0.25),
        "median": q(0.5),
        "mean": round(sum(xs) / len(xs), 1),
        "p75": q(0.75),
        "max": xs[-1],
    }


def _date_safe(doc: PaperDoc, key: KeyCandidate) -> bool:
    """Invariant 2: the distractor's text version predates the key's first version."""
    return doc.version_date is not None and doc.version_date < key.first_published


def _verified_keys(
    inputs: PaperInputs, fitted: dict[str, PaperDoc], verifier: Verifier, report: BuildReport
) -> list[KeyCandidate]:
    """Positives that still cite the key in their final text.

    A distractor-window paper is a positive when it is dated after the key (a key older than the
    distractor window, e.g. from ``--seeds``, can be cited by it); one dated before the key cannot
    cite it, so its edge is a resolver false positive (invariant 3) and it is dropped."""
    keys = []
    for key in sorted(inputs.keys, key=lambda k: k.arxiv_id):
        kept = []
        for ref in sorted(key.positives):
            if ref not in fitted:
                continue  # left out by the budget: not in any prompt, so not a positive either
            if ref in inputs.distractors and _date_safe(fitted[ref], key) and not _audited(key, ref):
                continue  # cannot cite by date: counted as a false positive with the negatives
            if verifier.cites(fitted[ref], key) is None:
                report.dropped_positives[f"{key.arxiv_id} <- {ref}"] = "final text does not reference the key"
                continue
            kept.append(ref)
        keys.append(
            KeyCandidate(key.arxiv_id, key.title, key.first_published, tuple(kept), key.evidence, key.license)
        )
    return keys


def _audited(key: KeyCandidate, ref: str) -> bool:
    evidence = key.evidence.get(ref)
    return evidence is not None and (evidence.method == "audit" or evidence.method.endswith("+audit"))


def _negative_pools(
    inputs: PaperInputs,
    fitted: dict[str, PaperDoc],
    keys: list[KeyCandidate],
    settings: PaperSettings,
    verifier: Verifier,
    report: BuildReport,
) -> dict[str, NegativePools]:
    pools: dict[str, NegativePools] = {}
    distractor_refs = sorted(r for r in inputs.distractors if r in fitted)
    pool_refs = sorted(r for r in fitted if r not in inputs.distractors)
    for key in keys:
        distractors = []
        for ref in distractor_refs:
            doc = fitted[ref]
            if ref in key.positives:
                continue  # dated after the key and citing it: a positive (see _verified_keys)
            if not _date_safe(doc, key):
                report.date_unsafe_excluded += 1
                continue
            evidence = verifier.cites(doc, key) or verifier.text_hit(doc, key)
            if evidence is not None:  # cannot cite by date: a resolver false positive (invariant 3)
                report.distractor_false_positives.append(
                    {
                        "seed": key.arxiv_id,
                        "paper": ref,
                        "reference": evidence.reference,
                        "score": evidence.score,
                    }
                )
                continue
            distractors.append(ref)
        similar = {
            seed
            for seed, title in inputs.seed_titles.items()
            if seed != key.arxiv_id
            and fuzz.token_set_ratio(title.lower(), key.title.lower()) >= settings.confuser_similarity
        }
        confusers = [
            ref
            for ref in pool_refs
            if ref not in key.positives
            and key.arxiv_id not in inputs.cited_seeds.get(ref, set())
            and inputs.cited_seeds.get(ref, set()) & similar
            and verifier.cites(fitted[ref], key) is None
            and verifier.text_hit(fitted[ref], key) is None  # audit verdicts aside, the text shows none
        ]
        pools[key.arxiv_id] = NegativePools(tuple(distractors), tuple(confusers))
    return pools


@dataclass
class PreparedPaper:
    """A Paper build planned and re-verified, nothing rendered yet (issue 12: flat memory).

    Holds the fitted documents, the keys' negative pools and, per difficulty, only the indexes of
    dropped tasks; the plans are regenerated from the seed (``plans``) and rendered one length at
    a time (``tasks``), so no prompt outlives the writer that takes it."""

    settings: PaperSettings
    report: BuildReport
    fitted: dict[str, PaperDoc]
    keys: list[KeyCandidate]
    pools: dict[str, NegativePools]
    template: Template
    tokenizer: Tokenizer
    count_cache: dict[str, int] | None
    dropped: dict[str, set[int]] = field(default_factory=dict)  # difficulty -> dropped task indexes
    kept: dict[str, int] = field(default_factory=dict)  # difficulty -> tasks kept (each at every length)
    used: set[str] = field(default_factory=set)  # refs of documents in at least one task

    @property
    def n_tasks(self) -> int:
        """Rendered tasks in all: every kept plan at every length."""
        return sum(self.kept.values()) * len(self.settings.lengths)

    def configs(self) -> list[tuple[str, str]]:
        """(difficulty, length label) of every configuration with tasks, in output order."""
        return [
            (d, label)
            for d in self.settings.difficulties
            if self.kept.get(d)
            for label, _ in self.settings.lengths
        ]

    def plans(self, difficulty: str) -> Iterator[TaskPlan]:
        """The difficulty's kept plans in task order, regenerated from the seed."""
        s = self.settings
        plans, _ = iter_plans(
            self.keys,
            self.pools,
            difficulty,
            s.n_tasks,
            s.seed,
            s.lengths,
            sample_many=s.many_citers == "sample",
        )
        dropped = self.dropped.get(difficulty, set())
        return (p for p in plans if p.task_index not in dropped)

    def tasks(self, difficulty: str, label: str) -> Iterator[RenderedTask]:
        """One configuration's tasks, rendered as they are asked for."""
        for plan in self.plans(difficulty):
            yield _render_one(plan, label, self.fitted, self.template, self.tokenizer, self.count_cache)


def prepare_paper(
    inputs: PaperInputs,
    settings: PaperSettings,
    verifier: Verifier,
    template: Template | None = None,
    guard: EntryGuard | None = None,
) -> PreparedPaper:
    """Fit, verify and plan every task, re-verify each plan (invariant 1) and fill the report;
    render nothing (``PreparedPaper.tasks`` does, per configuration).

    ``guard`` says which reference entries the ``fit`` policy must keep (default: the entries the
    verifier's matcher accepts for some seed; the store-backed build passes the resolver's every
    candidate in any band, see ``paper_inputs.EntryGuardIndex``)."""
    report = BuildReport(keys_considered=len(inputs.keys))
    tokenizer = get_tokenizer(settings.tokenizer)
    template = template or paper_template(settings.question_last)
    if guard is None:
        matcher = verifier.matcher

        def guard(entry: str) -> frozenset[str]:
            return frozenset(matcher(entry))

    budget = effective_budget(settings, template, tokenizer)
    fitted = _fit_all(inputs, settings, report, guard, budget)
    keys = [
        k
        for k in _verified_keys(inputs, fitted, verifier, report)
        if len(k.positives) >= settings.min_positives
    ]
    pools = _negative_pools(inputs, fitted, keys, settings, verifier, report)
    count_cache: dict[str, int] | None = {} if additive_tokenizer(settings.tokenizer) else None
    prepared = PreparedPaper(settings, report, fitted, keys, pools, template, tokenizer, count_cache)
    for difficulty in settings.difficulties:
        plans, plan_report = iter_plans(
            keys,
            pools,
            difficulty,
            settings.n_tasks,
            settings.seed,
            settings.lengths,
            sample_many=settings.many_citers == "sample",
        )
        used_keys: set[str] = set()
        dropped: set[int] = set()
        kept = 0
        for plan in plans:
            used_keys.add(plan.key.arxiv_id)
            problems = verifier.violations(plan, fitted) + _unsafe_dates(plan, fitted, inputs.distractors)
            if problems:
                report.dropped_tasks.append(
                    {"difficulty": difficulty, "task": plan.task_index, "why": problems}
                )
                dropped.add(plan.task_index)
                continue
            kept += 1
            for refs in plan.documents.values():
                prepared.used.update(refs)
        report.keys_used[difficulty] = sorted(used_keys)
        report.skipped_keys[difficulty] = plan_report.skipped_keys
        prepared.dropped[difficulty] = dropped
        prepared.kept[difficulty] = kept
    used = {ref: fitted[ref].n_tokens for ref in prepared.used}
    report.documents["used"] = len(used)
    report.documents["used_share"] = round(len(used) / len(inputs.docs), 4) if inputs.docs else 0.0
    report.documents["used_tokens"] = token_distribution(list(used.values()))
    return prepared


def assemble_paper(
    inputs: PaperInputs,
    settings: PaperSettings,
    verifier: Verifier,
    template: Template | None = None,
    guard: EntryGuard | None = None,
) -> tuple[list[RenderedTask], BuildReport]:
    """All tasks of every difficulty and length, verified and rendered, plus what was left out.

    Holds every prompt: for tests and small builds; ``reflong-build paper`` streams them
    (``prepare_paper``, ``PreparedPaper.tasks``)."""
    prepared = prepare_paper(inputs, settings, verifier, template, guard)
    tasks = [
        task
        for difficulty in settings.difficulties
        for plan in prepared.plans(difficulty)
        for task in _render(
            plan, prepared.fitted, prepared.template, prepared.tokenizer, prepared.count_cache
        )
    ]
    return tasks, prepared.report


def _unsafe_dates(plan: TaskPlan, docs: dict[str, PaperDoc], distractors: set[str]) -> list[str]:
    """Invariant 2 on the plan's negatives. A distractor-role paper can be a verified positive of a
    key older than itself (keys from --seeds), as a citing paper, not as a distractor."""
    positives = set(plan.positives or plan.key.positives)
    refs = {ref for refs in plan.documents.values() for ref in refs} - positives
    return [
        f"distractor {ref} is not dated before the key"
        for ref in sorted(refs)
        if ref in distractors and not _date_safe(docs[ref], plan.key)
    ]


def _render(
    plan: TaskPlan,
    docs: dict[str, PaperDoc],
    template: Template,
    tokenizer: Tokenizer,
    count_cache: dict[str, int] | None,
) -> Iterator[RenderedTask]:
    """Prompts of every length of one plan, each with its exact token count."""
    for label in plan.documents:
        yield _render_one(plan, label, docs, template, tokenizer, count_cache)


def _render_one(
    plan: TaskPlan,
    label: str,
    docs: dict[str, PaperDoc],
    template: Template,
    tokenizer: Tokenizer,
    count_cache: dict[str, int] | None,
) -> RenderedTask:
    """The prompt of one plan at one length, with its exact token count.

    With o200k/cl100k the count is summed over the prompt's pieces (head, document blocks), each
    counted once and cached: exact for these encodings (``prompts.prompt_tokens``) and what keeps
    800 prompts of 30K-75K tokens cheap. Other tokenizers count the whole prompt."""
    refs = plan.documents[label]
    documents = tuple(docs[r] for r in refs)
    pieces = template.parts(plan.key.title, [d.text for d in documents])
    prompt = "".join(pieces)
    n_tokens = (
        prompt_tokens(pieces, tokenizer.count, count_cache)
        if count_cache is not None
        else tokenizer.count(prompt)
    )
    return RenderedTask(
        plan.difficulty,
        label,
        plan.task_index,
        plan.key,
        documents,
        plan.answers[label],
        prompt,
        n_tokens,
    )
