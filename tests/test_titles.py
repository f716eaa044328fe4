"""The 2024-sized world's title model: deterministic, varied like real titles, shaped like them."""

from __future__ import annotations

import random

from rapidfuzz import fuzz, process

from reflong.citations.fields.normalize import norm
from reflong.demo import text
from reflong.demo.titles import realistic_title


def _near_pairs_per_million(titles: list[str], level: float) -> float:
    plain = [norm(t) for t in titles]
    scores = process.cdist(plain, plain, scorer=fuzz.ratio, workers=1)
    n = len(plain)
    return 1e6 * (int((scores >= level).sum()) - n) / (n * (n - 1))


def test_same_draws_give_the_same_titles() -> None:
    a = [realistic_title(random.Random(7).random) for _ in range(3)]
    b = [realistic_title(random.Random(7).random) for _ in range(3)]
    assert a == b
    rng = random.Random(7)
    many = [realistic_title(rng.random) for _ in range(200)]
    assert len(set(many)) >= 195  # a duplicate now and then, as on arXiv, not a pattern


def test_titles_are_far_less_alike_than_the_demo_grammar() -> None:
    rng = random.Random(0)
    ours = [realistic_title(rng.random) for _ in range(800)]
    demo = [text.plain_title(rng) for _ in range(800)]
    # Real titles (corpus seeds + bibliographies, bench/titles.py): 248 pairs per million at >= 75.
    assert _near_pairs_per_million(ours, 75) < 600
    assert _near_pairs_per_million(demo, 75) > 4 * _near_pairs_per_million(ours, 75)


def test_titles_have_real_shapes() -> None:
    rng = random.Random(1)
    titles = [realistic_title(rng.random) for _ in range(2000)]
    lengths = sorted(len(t.split()) for t in titles)
    assert 6 <= lengths[len(lengths) // 2] <= 9  # real median 8
    assert lengths[0] >= 2 and lengths[-1] <= 25
    colon = sum(":" in t for t in titles) / len(titles)
    assert 0.3 <= colon <= 0.5  # real 0.43
    assert all(t == t.strip() and "  " not in t for t in titles)
