"""Baselines that need no model, scored exactly like a model's responses.

They tell a user what a setting costs without reading: how much surface matching solves, and
what guessing scores. Each baseline writes a response text (``Documents: 1, 3``) per task, so it
goes through the same parser and metrics as a model (``eval score`` on its predictions file gives
the same figures).

- ``random``: every document is picked independently with probability 1/2 (a uniform random
  subset), from ``random.Random(f"{seed}/{config}/{task}")``: the same seed gives the same picks
  whatever else is in the run.
- ``all``: every document. ExAcc is 0 unless a task's answer is every document; F1 = 2m/(m+M).
- ``none``: no document (the empty answer). ExAcc is 0 on any task with an answer.
- ``lexical``: key and document are normalised (NFKC, zero-width characters removed, case folded,
  every run of non-alphanumeric characters -> one space); a document is picked when the key occurs
  in it as a whole-word substring, or, for keys of at least ``FUZZY_MIN_CHARS`` characters, when
  rapidfuzz's ``partial_ratio`` (best-aligned substring similarity, 0-100) is at least
  ``threshold`` (default 90: a title with a changed word or a hyphenation split still matches).
  This is deliberately not the project's resolver: it asks how far plain string matching gets.

Document texts come from the prompt (``files.prompt_documents``) for ``eval baseline``, and from
the assembled records when a build writes its dataset card (the CLI hands
``card_section`` to the writers). Random/all/none need only M, so they also run on answers files
alone (M from the configuration name), e.g. on the released Paper answers whose prompts were
never published.
"""

from __future__ import annotations

import random
import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache

from rapidfuzz import fuzz

KINDS = ("random", "all", "none", "lexical")
DEFAULT_THRESHOLD = 90.0
FUZZY_MIN_CHARS = 16
_ZERO_WIDTH = dict.fromkeys(map(ord, "\u200b\u200c\u200d\u2060\ufeff"))
_NON_ALNUM = re.compile(r"[^0-9a-z]+")


@dataclass(frozen=True)
class BaselineTask:
    """What a baseline may look at: the key and the documents (texts, or only their number)."""

    task_id: str
    key: object
    n_documents: int
    documents: Sequence[str] | None = None


def normalise(text: str) -> str:
    text = unicodedata.normalize("NFKC", str(text)).translate(_ZERO_WIDTH).casefold()
    return _NON_ALNUM.sub(" ", text).strip()


@lru_cache(maxsize=1 << 16)
def lexical_hit(key: str, document: str, threshold: float = DEFAULT_THRESHOLD) -> bool:
    """Whole-word normalised substring, else (long keys only) partial_ratio >= threshold.

    Cached: cumulative sampling shows the same (key, document) pair at every length."""
    k, d = normalise(key), normalise(document)
    if not k:
        return False
    if f" {k} " in f" {d} ":
        return True
    return len(k) >= FUZZY_MIN_CHARS and fuzz.partial_ratio(k, d, score_cutoff=threshold) >= threshold


def pick(
    kind: str, task: BaselineTask, config: str, seed: int = 0, threshold: float = DEFAULT_THRESHOLD
) -> list[int]:
    """The indexes one baseline answers for one task."""
    m = task.n_documents
    if kind == "all":
        return list(range(m))
    if kind == "none":
        return []
    if kind == "random":
        rng = random.Random(f"{seed}/{config}/{task.task_id}")
        return [i for i in range(m) if rng.random() < 0.5]
    if kind == "lexical":
        if task.documents is None:
            raise ValueError("the lexical baseline needs the documents' text (give the prompts)")
        return [i for i, doc in enumerate(task.documents) if lexical_hit(str(task.key), doc, threshold)]
    raise ValueError(f"unknown baseline {kind!r}; use one of {', '.join(KINDS)}")


def response_text(indexes: Iterable[int]) -> str:
    """The answer in the prompts' own format, readable by both parsers."""
    return "Documents: " + ", ".join(str(i) for i in indexes)


def predictions(
    kind: str, tasks: Sequence[BaselineTask], config: str, seed: int = 0, threshold: float = DEFAULT_THRESHOLD
) -> dict[str, list]:
    """A predictions mapping ``{"i": [key, response]}`` in the release's format."""
    return {t.task_id: [t.key, response_text(pick(kind, t, config, seed, threshold))] for t in tasks}


def tasks_from_prompts(prompts: Mapping[str, list]) -> list[BaselineTask]:
    from reflong.evaluate.files import prompt_documents, task_order

    out = []
    for tid in task_order(dict(prompts)):
        key, text = prompts[tid]
        docs = prompt_documents(text).documents
        out.append(BaselineTask(tid, key, len(docs), docs))
    return out


def tasks_from_answers(answers: Mapping[str, list], n_documents: int) -> list[BaselineTask]:
    from reflong.evaluate.files import task_order

    return [BaselineTask(tid, answers[tid][0], n_documents) for tid in task_order(dict(answers))]
