"""A small built setting for the human page's tests: Paper-style prompts (the real template) whose
gold documents cite the key by title, with answers files as a build writes them."""

from __future__ import annotations

import json
from pathlib import Path

from reflong.assemble.prompts import paper_template

WORDS = [
    "model",
    "attention",
    "corpus",
    "retrieval",
    "benchmark",
    "token",
    "context",
    "answer",
    "layer",
    "dataset",
]
TITLES = [
    "Sparse Routing for Long Documents",
    "Contrastive Priors in Citation Graphs",
    "A Closer Look at Noisy Labels",
    "Retrieval Heads Revisited",
    "Tokenizers Under Distribution Shift",
    "Benchmarks That Read Whole Papers",
    "Curricula for Reference Resolution",
    "Dense Keys and Sparse Values",
]


def gold_of(task: int, docs: int) -> list[int]:
    return sorted({task % docs, (task * 3 + 1) % docs})


def build_setting(folder: Path, config: str = "hard_30K", tasks: int = 6, docs: int = 6) -> Path:
    """Write ``<config>.json`` and ``<config>_answers.json`` into ``folder``; returns the folder."""
    folder.mkdir(parents=True, exist_ok=True)
    prompts, answers = {}, {}
    for t in range(tasks):
        key = TITLES[t % len(TITLES)] + (f" {t // len(TITLES) + 1}" if t >= len(TITLES) else "")
        gold = gold_of(t, docs)
        texts = []
        for i in range(docs):
            body = " ".join(WORDS[(t + i + j) % len(WORDS)] for j in range(60 + 10 * i))
            refs = f"\n\nReferences\n[1] A. Author. {key}. In Proceedings, 2024." if i in gold else ""
            texts.append(f"Paper {t}-{i}: a study of {WORDS[i % len(WORDS)]}\n\n{body}{refs}")
        prompts[str(t)] = [key, paper_template().render(key, texts)]
        answers[str(t)] = [key, gold]
    (folder / f"{config}.json").write_text(json.dumps(prompts))
    (folder / f"{config}_answers.json").write_text(json.dumps(answers))
    return folder
