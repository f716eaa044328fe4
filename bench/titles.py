"""How much the synthetic worlds' titles look like real ones, where it matters to the resolver.

    python bench/titles.py [--n 2000] [--seed 0]

Real titles: the corpus' seeds and papers, GROBID TEI titles and the titles in the corpus papers'
own bibliographies (``bench/resolve.py``'s ``corpus_material``). Compared with the same number of
titles from the demo grammar (``text.plain_title``, what the 2024-sized world used before) and from
``titles.realistic_title`` (what it uses now):

* words per title (quartiles), share with a colon, distinct words per 100 title words;
* the share of titles repeated exactly in a 90,000-title world (the model only);
* near-miss pair rates: the share of title pairs whose normalised ``fuzz.ratio`` reaches the
  resolver's ``keep`` (60) and ``review`` (75) levels, per million pairs. This is what decides
  how many reject/review edges a world makes per reference and seed.

The last line is JSON.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
from collections import Counter
from pathlib import Path

from rapidfuzz import fuzz, process

from reflong.citations.fields.normalize import norm
from reflong.demo import text
from reflong.demo.titles import realistic_title

sys.path.insert(0, str(Path(__file__).resolve().parent))
from resolve import CORPUS, corpus_material


def profile(titles: list[str]) -> dict:
    plain = [norm(t) for t in titles]
    lengths = [len(p.split()) for p in plain]
    q = statistics.quantiles(lengths, n=4)
    words = [w for p in plain for w in p.split()]
    scores = process.cdist(plain, plain, scorer=fuzz.ratio, workers=1)
    n = len(plain)
    pairs = n * (n - 1)
    at60 = int((scores >= 60).sum()) - n  # the diagonal scores 100
    at75 = int((scores >= 75).sum()) - n
    return {
        "titles": n,
        "words_q1_median_q3": [q[0], q[1], q[2]],
        "colon_share": round(sum(":" in t for t in titles) / n, 3),
        "distinct_per_100_words": round(100 * len(set(words)) / len(words), 1),
        "pairs_ge60_per_million": round(1e6 * at60 / pairs, 1),
        "pairs_ge75_per_million": round(1e6 * at75 / pairs, 1),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "--n", type=int, default=2000, help="titles per source (real ones are capped by the corpus)"
    )
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    real, _, _ = corpus_material(CORPUS)
    real = sorted({t for t in real if len(t.split()) >= 2})
    rng = random.Random(args.seed)
    rng.shuffle(real)
    real = real[: args.n]
    n = len(real)
    demo = [text.plain_title(rng) for _ in range(n)]
    model = [realistic_title(rng.random) for _ in range(n)]
    out = {"real": profile(real), "demo_grammar": profile(demo), "realistic": profile(model)}
    # Exact repeats in a world of arXiv's size (a 2024 scale-1 catalog has ~90,000 papers): a
    # repeated title whose cited twin is outside the seed set is a false positive waiting.
    world = Counter(realistic_title(rng.random).lower() for _ in range(90_000))
    out["realistic"]["world_90k_duplicate_share"] = round(sum(v for v in world.values() if v > 1) / 90_000, 4)
    for name, p in out.items():
        print(f"{name:>13}: {p}")
    print("examples:", *model[:12], sep="\n  ")
    print(json.dumps(out))


if __name__ == "__main__":
    main()
