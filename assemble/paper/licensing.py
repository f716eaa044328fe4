"""Keeping only the papers whose licence allows what the user will do with the dataset (--licenses).

Why before sampling, not after: a paper left out for its licence must never be in any task, as a
positive, a negative or a confuser, so it is removed from the build's inputs as if it had never
been parsed; a key whose seed paper is not under an allowed licence is left out too (its title is
the question). Citers that are left out are simply not there: they are never taken for negatives
(a paper absent from the inputs cannot be sampled), and a key keeps the positives that remain;
``--min-positives`` then decides whether it still makes a task. What was left out is counted per
licence in ``build_report.json`` (``licenses``).
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Iterable

from reflong.assemble.paper.build import PaperInputs
from reflong.common.licenses import allowed, kind_of


def keep_licensed(inputs: PaperInputs, names: Iterable[str] | None) -> tuple[PaperInputs, dict]:
    """``inputs`` without the documents and keys outside ``names`` (None: all kept), and the counts
    ``{"kept": [...], "documents_left_out": {kind: n}, "keys_left_out": {kind: n}}``."""
    if names is None:
        return inputs, {}
    names = sorted(set(names))
    docs = {ref: d for ref, d in inputs.docs.items() if allowed(d.license, names)}
    docs_out = Counter(kind_of(d.license).name for ref, d in inputs.docs.items() if ref not in docs)
    keys, keys_out = [], Counter()
    for key in inputs.keys:
        if not allowed(key.license, names):
            keys_out[kind_of(key.license).name] += 1
            continue
        positives = tuple(ref for ref in key.positives if ref in docs)
        evidence = {ref: ev for ref, ev in key.evidence.items() if ref in docs}
        keys.append(dataclasses.replace(key, positives=positives, evidence=evidence))
    kept = dataclasses.replace(
        inputs,
        keys=keys,
        docs=docs,
        distractors={ref for ref in inputs.distractors if ref in docs},
        cited_seeds={ref: seeds for ref, seeds in inputs.cited_seeds.items() if ref in docs},
    )
    counts = {
        "kept": names,
        "documents_left_out": dict(sorted(docs_out.items())),
        "keys_left_out": dict(sorted(keys_out.items())),
    }
    return kept, counts
