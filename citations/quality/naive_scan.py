"""The naive baseline every labelled set is scored against: the best seed title that
``fuzz.partial_ratio`` finds in the lower-cased reference string at 90 or more.

Why it lives in the package: the bench (bench/resolve_styles.py) reports it beside ours, and the
labelled-set builders' samplers (citations/quality/builders/) read the baseline's misses to pick
entries for a label audit; both import it from here, so neither reaches into the other's folder.

The all-pairs ``partial_ratio`` (~10,000 x ~8,000 on the multi-style set) is cut down by an exact
filter first: a window of the raw string scoring >= 90 against a seed title of length L is at most
0.2 L insertions/deletions away from it, and each such edit destroys at most 3 of the title's
character trigrams, so at least 0.4 L - 2 of them must occur in the raw string (the q-gram lemma).
Pairs below that bound cannot score 90 and are skipped; the rest are scored exactly, so the
figures are those of the full all-pairs run. Ties go to the first seed in id order.
"""

from __future__ import annotations

import numpy as np
from rapidfuzz import fuzz

from reflong.citations.records import SeedTitle

NAIVE_CUTOFF = 90.0
# Trigram buckets of the exact filter: a collision only adds a candidate, which is then scored.
_BUCKETS = 1 << 20


def _trigram_keys(text: str) -> list[int]:
    return [hash(text[i : i + 3]) & (_BUCKETS - 1) for i in range(len(text) - 2)]


def naive(seeds: list[SeedTitle], entries: list[dict]) -> list[str | None]:
    """Best seed with partial_ratio >= 90 on lower-cased strings (exact; see the module doc)."""
    order = sorted(range(len(seeds)), key=lambda i: seeds[i].arxiv_id)
    titles = [seeds[i].title.lower() for i in order]
    keys = [_trigram_keys(t) for t in titles]
    flat = np.fromiter((k for ks in keys for k in ks), dtype=np.int64)
    counts = np.array([len(ks) for ks in keys])
    owner = np.repeat(np.arange(len(titles)), counts)
    lengths = np.array([len(t) for t in titles])
    need = 0.4 * lengths - 2
    key_sets = [frozenset(ks) for ks in keys]
    out: list[str | None] = []
    mask = np.zeros(_BUCKETS, dtype=bool)
    for e in entries:
        raw = e["raw"].lower()
        rk = _trigram_keys(raw)
        mask[rk] = True
        hits = np.bincount(owner, weights=mask[flat], minlength=len(titles))
        mask[rk] = False
        cand = [int(i) for i in np.nonzero((hits >= need) & (lengths <= len(raw)))[0]]
        # A title longer than the raw string swaps roles in partial_ratio: the raw string is
        # then the needle, and the same bound holds for its trigrams found in the title.
        bound = 0.4 * len(raw) - 2
        for i in np.nonzero(lengths > len(raw))[0]:
            have = key_sets[i]
            if sum(k in have for k in rk) >= bound:
                cand.append(int(i))
        cand.sort()
        best, best_score = None, NAIVE_CUTOFF - 1e-9
        for i in cand:
            score = fuzz.partial_ratio(titles[i], raw, score_cutoff=NAIVE_CUTOFF)
            if score > best_score:
                best, best_score = seeds[order[i]].arxiv_id, score
        out.append(best)
    return out
