"""A small build made by hand in a real store, for the audit and report tests.

Until the end-to-end pipeline exists everywhere, tests need a Build with BuildTask rows and an
outputs folder that look like what ``paper`` writes; this makes one, deterministic, with a key
whose title carries markup (to prove escaping).
"""

from __future__ import annotations

import json
import random
from pathlib import Path

from reflong.db import Build, BuildTask, Citation, Seed, open_store, session_for

EVIL_TITLE = 'Attention <script>alert("x")</script> & Friends'
KEYS = {
    "2403.00001": ("Alpha Models Are Great", 2),
    "2403.00002": (EVIL_TITLE, 3),
    "2403.00003": ("Gamma: Long Context Retrieval", 4),
}
LENGTHS = (("30K", 8), ("45K", 12))
# Edges per citing paper, cycling: (method, score, band) of each of its reference entries.
EDGES = (
    (("arxiv_id", 100.0, "accept"),),
    (("title", 97.0, "accept"), ("title", 80.0, "review")),
    (("title", 91.0, "accept"),),
    (("doi", 100.0, "accept"), ("title", 65.0, "reject")),
)


def make_build(db_path: Path, out_dir: Path, n_tasks: int = 12) -> int:
    """Store a build of easy and hard tasks and write its Ref-Long answers files; returns the id."""
    rng = random.Random(3)
    engine = open_store(db_path)
    report = {
        "distractor_false_positives": [
            {
                "seed": "2403.00002",
                "paper": "2402.99999v1",
                "reference": EVIL_TITLE + ". 2023.",
                "score": 91.5,
            }
        ],
        "dropped_tasks": [
            {"difficulty": "hard", "task": 7, "why": ["30K: answer document 2405.00013v1 lost"]}
        ],
    }
    out_dir.mkdir(parents=True, exist_ok=True)
    with session_for(engine) as s:
        build = Build(
            tool_version="0.1.0",
            window="2024-03:s1:p6:d2",
            seed=0,
            settings_json=json.dumps({"n_tasks": n_tasks}),
            out_dir=str(out_dir),
            n_tasks=n_tasks * 2,
            n_dropped=1,
            distractor_false_positives=1,
            report_json=json.dumps(report),
        )
        s.add(build)
        s.flush()
        files: dict[str, dict] = {}
        for difficulty in ("easy", "hard"):
            for i in range(n_tasks):
                seed = rng.choice(sorted(KEYS)) if difficulty == "easy" else "2403.00003"
                title, m = KEYS[seed]
                positives = [f"2405.{seed[-1]}{j:04d}v1" for j in range(m)]
                negatives = [f"2401.{k:05d}v1" for k in rng.sample(range(200), 12)]
                for label, n_docs in LENGTHS:
                    docs = positives + negatives[: n_docs - m]
                    rng.shuffle(docs)
                    answer = sorted(docs.index(p) for p in positives)
                    s.add(
                        BuildTask(
                            build_id=build.id,
                            difficulty=difficulty,
                            length=label,
                            task_index=i,
                            key_arxiv_id=seed,
                            key_title=title,
                            documents_json=json.dumps(docs),
                            answer_json=json.dumps(answer),
                            prompt_tokens=n_docs * 3700 + rng.randrange(-900, 900),
                        )
                    )
                    files.setdefault(f"{difficulty}_{label}", {})[str(i)] = [title, answer]
        for seed, (title, m) in KEYS.items():
            s.add(Seed(arxiv_id=seed, title=title, published="2024-03-05"))
            for j in range(m):
                for order, (method, score, band) in enumerate(EDGES[j % len(EDGES)], start=1):
                    s.add(
                        Citation(
                            citing_arxiv_id=f"2405.{seed[-1]}{j:04d}",
                            citing_version=1,
                            seed_arxiv_id=seed,
                            ref_order=order,
                            reference=f"[{order}] A. Author. {title}. 2024.",
                            method=method,
                            score=score,
                            author="unknown",
                            band=band,
                        )
                    )
        s.commit()
        build_id = build.id
    for setting, answers in files.items():
        (out_dir / f"{setting}_answers.json").write_text(json.dumps(answers), encoding="utf-8")
    return build_id
