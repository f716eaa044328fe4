"""Fitting a real paper into a task's per-document token budget, by one policy for every document.

Why a policy at all: Ref-Long's Paper documents are whole papers shorter than 5,000 tokens (about
3.75K on average: 30K tokens for 8 papers). Real arXiv papers are far longer (on ../shared/corpus,
through our parse: body median about 9K o200k tokens, references about 3K and up to 55K), so
whole papers leave out nearly every real paper. Three policies (``--doc-policy``):

``fit`` (default): every document of a task, positive, distractor or confuser, is cut the same way
    to the same budget (by default the setting's tokens / M minus the prompt's overhead, about
    3.73K for 30K/8):

    1. A paper that fits whole is shown whole (as in Ref-Long).
    2. Otherwise the references get at most ``ref_share`` of the budget (25%: about the median share
       of the references in a real paper, 2.9K of 12K on the corpus, so a cut paper keeps a paper's
       proportions), or more when the body is short, and the body the rest.
    3. The body is its start (title, authors, abstract, introduction ...) cut at a sentence or
       paragraph boundary.
    4. A references list longer than its share keeps a seeded sample of its entries (seed: the
       build's ``--seed`` and the paper id, so the same paper reads the same in every task and
       length), printed one entry per line in the paper's own order with the paper's own markers
       ([3], [17], ...: never renumbered). Entries that decide labels are always kept: every entry
       the resolver matches to *any* seed of the build in any band (accepted citations, the
       review band and the near misses it scores at or above its ``keep`` threshold). So a
       positive keeps its entry for the key, a confuser keeps its entry for the similar-titled seed
       (hard negatives stay hard), and a distractor keeps an entry that would be a false positive,
       so the date check still catches it. Which entries are protected depends on the seeds of the
       build, never on the task, so no surface trait of the text tells a positive from a negative:
       all documents have the same budget, the same body/reference split rule and sampled lists.
    5. A document whose label rests on an audit verdict that no entry explains (a person confirmed
       a citation the resolver never proposed) keeps its reference list whole, since we cannot tell
       which entry the person read.

    A paper is left out only when its protected entries alone leave less than ``MIN_BODY_TOKENS``
    for the body (e.g. a survey citing dozens of seeds).

``trim``: body cut at a sentence boundary, references kept whole; a paper whose references alone
    exceed the budget is left out (the earlier ``--trim``).

``whole``: papers over the budget are left out (Ref-Long's own rule; the earlier default).

Every policy returns the exact token count of the final text; invariant 1 (re-verification on the
final text) runs on whatever this module produced.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from dataclasses import dataclass, replace

from reflong.assemble.paper.model import PaperDoc
from reflong.citations.fields.split import split_reference_entries
from reflong.common.tokenizer import Tokenizer

_BOUNDARY = re.compile(r"(?:\n\s*\n|(?<=[.!?])\s+)")
DOC_POLICIES = ("fit", "trim", "whole")
REF_SHARE = 0.25
MIN_BODY_TOKENS = 400  # title, authors and abstract of a typical paper
JOIN = "\n\n"  # between body and references (PaperDoc.text)

# An entry's text -> the seeds it may refer to (any band); non-empty means the entry is kept.
EntryGuard = Callable[[str], frozenset[str]]


@dataclass(frozen=True)
class FitResult:
    doc: PaperDoc | None
    trimmed: bool = False
    reason: str = ""  # why the paper was left out, when doc is None
    entries: int = 0  # reference entries of the paper (fit policy, when its list was sampled)
    entries_kept: int = 0
    protected: int = 0


def _cut_to_tokens(text: str, budget: int, tokenizer: Tokenizer) -> str:
    """The longest prefix of ``text`` ending at a sentence/paragraph boundary within ``budget``."""
    if budget <= 0:
        return ""
    tokens = tokenizer.encode(text)
    if len(tokens) <= budget:
        return text
    prefix = tokenizer.decode(tokens[:budget])
    cut = 0
    for match in _BOUNDARY.finditer(prefix):
        cut = match.start()
    prefix = prefix[:cut].rstrip()
    # decode/encode is not always an exact round trip at the cut: shrink until it fits.
    while prefix and tokenizer.count(prefix) > budget:
        prefix = prefix[: int(len(prefix) * 0.95)].rstrip()
    return prefix


def _fit_body(doc: PaperDoc, references: str, max_tokens: int, tokenizer: Tokenizer) -> PaperDoc:
    """``doc`` with ``references`` and the longest body start that keeps the text within budget."""
    ref_tokens = tokenizer.count(JOIN + references) if references else 0
    body = _cut_to_tokens(doc.body, max_tokens - ref_tokens, tokenizer)
    fitted = replace(doc, body=body, references=references)
    n_tokens = tokenizer.count(fitted.text)
    while n_tokens > max_tokens and body:  # token merges across the join can add one or two
        body = _cut_to_tokens(body, tokenizer.count(body) - (n_tokens - max_tokens) - 1, tokenizer)
        fitted = replace(doc, body=body, references=references)
        n_tokens = tokenizer.count(fitted.text)
    return replace(fitted, n_tokens=n_tokens)


def fit_document(doc: PaperDoc, tokenizer: Tokenizer, max_tokens: int, trim: bool) -> FitResult:
    """The ``whole`` (``trim=False``) and ``trim`` policies (see the module docstring)."""
    n_tokens = tokenizer.count(doc.text)
    if n_tokens <= max_tokens:
        return FitResult(replace(doc, n_tokens=n_tokens))
    if not trim:
        return FitResult(None, reason=f"{n_tokens} tokens > max-doc-tokens {max_tokens}")
    ref_tokens = tokenizer.count(JOIN + doc.references) if doc.references else 0
    if ref_tokens >= max_tokens:
        return FitResult(None, reason=f"references alone are {ref_tokens} tokens > budget {max_tokens}")
    return FitResult(_fit_body(doc, doc.references, max_tokens, tokenizer), trimmed=True)


def fit_sampled(
    doc: PaperDoc,
    tokenizer: Tokenizer,
    max_tokens: int,
    seed: int,
    guard: EntryGuard,
    confirmed_seeds: frozenset[str] = frozenset(),
    ref_share: float = REF_SHARE,
) -> FitResult:
    """The ``fit`` policy (see the module docstring); ``confirmed_seeds``: seeds a person confirmed
    this paper cites (audit verdicts), whose entries must be shown."""
    n_tokens = tokenizer.count(doc.text)
    if n_tokens <= max_tokens:
        return FitResult(replace(doc, n_tokens=n_tokens))
    body_tokens = tokenizer.count(doc.body)
    ref_tokens = tokenizer.count(JOIN + doc.references) if doc.references else 0
    # References get their share, or what a short body leaves (never less than the share).
    ref_cap = max(int(ref_share * max_tokens), max_tokens - body_tokens)
    if ref_tokens <= ref_cap:
        return FitResult(_fit_body(doc, doc.references, max_tokens, tokenizer), trimmed=True)
    entries, _style = split_reference_entries(doc.references)
    if not entries:  # nothing we can sample: the list is shown whole, as with trim
        if ref_tokens > max_tokens - MIN_BODY_TOKENS:
            return FitResult(None, reason=f"references ({ref_tokens} tokens) cannot be split into entries")
        return FitResult(_fit_body(doc, doc.references, max_tokens, tokenizer), trimmed=True)
    seeds_of = [guard(e.text) for e in entries]
    explained = frozenset().union(*seeds_of)
    keep_all = bool(confirmed_seeds - explained)
    protected = {i for i, s in enumerate(seeds_of) if s or keep_all}
    cost = [tokenizer.count(e.line) + 1 for e in entries]  # + its newline
    used = sum(cost[i] for i in protected)
    if used > max_tokens - MIN_BODY_TOKENS:
        why = "audit-confirmed list" if keep_all else f"{len(protected)} entries that decide labels"
        return FitResult(
            None, reason=f"{why} need {used} tokens, leaving < {MIN_BODY_TOKENS} of {max_tokens} for the body"
        )
    rng = random.Random(f"reflong-fit:{seed}:{doc.ref}")
    others = [i for i in range(len(entries)) if i not in protected]
    rng.shuffle(others)
    kept = set(protected)
    budget = max(ref_cap, used)
    for i in others:  # a seeded random sample: each entry joins while the share has room for it
        if used + cost[i] <= budget:
            kept.add(i)
            used += cost[i]
    references = "\n".join(entries[i].line for i in sorted(kept))
    fitted = _fit_body(doc, references, max_tokens, tokenizer)
    return FitResult(fitted, True, entries=len(entries), entries_kept=len(kept), protected=len(protected))


def doc_budget(lengths: tuple[tuple[str, int], ...], head_tokens: int, block_tokens: int) -> int:
    """Per-document budget of the ``fit`` policy: the tightest setting's (tokens - head) / M - block.

    One budget for every length, because cumulative sampling shows the same document text at every
    length. ``30K`` means 30,000 tokens, as in Ref-Long (30K for 8 papers of about 3.75K)."""
    budgets = []
    for label, n_docs in lengths:
        nominal = int(label.rstrip("Kk")) * 1000
        budgets.append((nominal - head_tokens) // n_docs - block_tokens)
    return max(100, min(budgets))
