"""The dataset card over every release (``RELEASES/README.md``) and the list of releases.

Why one config per setting with a ``release`` column (and not a config per release and setting):
a user compares releases inside one setting (a model's score before and after its training
cutoff), so ``load_dataset(folder, "hard_30K", split="test")`` returns every release's tasks in one
table, and ``ds.filter(lambda r: r["release"] >= "2024-05")`` keeps the windows after a cutoff.
The config names stay Ref-Long's file names (``easy_30K`` ...), their number stays 8 however many
releases there are, and a new release adds rows, never configs a user has to discover. Each
release folder is still a dataset of its own (its own card) for one window alone.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from reflong.assemble.dataset_card import CARD_NAME, REFLONG_CITATION, size_category, tool_citation
from reflong.assemble.paper.outputs import COLUMNS, DESCRIPTION, META
from reflong.assemble.release.layout import INDEX_FILE, NOTES_FILE, RELEASE_FILE
from reflong.assemble.writers.parquet import DATA_DIR
from reflong.common.atomic_files import write_atomic
from reflong.common.hashing import sha256_file

TITLE = "Ref-Long-Paper (reflong-build), living releases"


def _configs(manifests: Sequence[dict]) -> dict[str, list[str]]:
    """config -> the parquet file of every release that has it, oldest release first."""
    out: dict[str, list[str]] = {}
    for m in manifests:
        for config in m["tasks"]:
            out.setdefault(config, []).append(f"{m['release']}/{DATA_DIR}/{config}.parquet")
    return dict(sorted(out.items()))


def render_releases_card(manifests: Sequence[dict]) -> str:
    from huggingface_hub import DatasetCard, DatasetCardData

    configs = _configs(manifests)
    n_rows = sum(n for m in manifests for n in m["tasks"].values())
    data = DatasetCardData(
        pretty_name=TITLE,
        license=META.license,
        language=list(META.language),
        task_categories=list(META.task_categories),
        size_categories=[size_category(n_rows)],
        source_datasets=list(META.source_datasets),
        tags=[*META.tags, "living-benchmark"],
        configs=[
            {"config_name": c, "data_files": [{"split": "test", "path": paths}]}
            for c, paths in configs.items()
        ],
    )
    first = next(iter(configs), "hard_30K")
    newest = manifests[-1]["release"] if manifests else "YYYY-MM"
    lines = [
        f"# {TITLE}",
        "",
        DESCRIPTION.strip(),
        "",
        "This folder holds one release per build window: each release's keys are arXiv papers first "
        "published in its month, so some part of the benchmark always postdates a model's training data. "
        "`reflong-build refresh` adds the next window; earlier releases are never rewritten (their notes "
        "list what changed in them since).",
        "",
        "## Load",
        "",
        "```python",
        "from datasets import load_dataset",
        "",
        f'ds = load_dataset("path/to/this/folder", "{first}", split="test")  # every release',
        f'recent = ds.filter(lambda r: r["release"] >= "{newest}")  # the windows after a cutoff',
        "```",
        "",
        "One configuration per setting (Ref-Long's file names); every row carries its `release`. "
        f"Configurations: {', '.join(f'`{c}`' for c in configs)}.",
        "",
        "## Releases",
        "",
        "| release | window | tasks | keys | reflong-build | resolver | notes |",
        "|---|---|---|---|---|---|---|",
    ]
    for m in manifests:
        lines.append(
            f"| {m['release']} | `{m['window']}` | {sum(m['tasks'].values())} | {len(m['keys'])} "
            f"| {m['version']} | {m['resolver']['version']} | [{m['release']}/{NOTES_FILE}]"
            f"({m['release']}/{NOTES_FILE}) |"
        )
    lines += [
        "",
        f"Each release folder holds its own card, `manifest.json` (settings, every paper with version and "
        f"PDF sha256, output hashes), `{RELEASE_FILE}` (window, tool and resolver versions, settings, "
        f"hashes) and `{NOTES_FILE}` (keys and tasks added, ground truth changed since the previous "
        "release and why, new paper versions, withdrawals).",
        "",
        "## Columns",
        "",
        "| column | meaning |",
        "|---|---|",
        *(f"| `{name}` | {meaning} |" for name, meaning in COLUMNS),
        "",
        "## Licensing",
        "",
        META.license_note.strip(),
        "",
        "## Citation",
        "",
        "The task design is Ref-Long's (ACL 2025, arXiv 2507.09506); these files were built with "
        "reflong-build. Please cite both:",
        "",
        f"```bibtex\n{REFLONG_CITATION}\n\n{tool_citation()}\n```",
    ]
    return str(DatasetCard(f"---\n{data.to_yaml()}\n---\n\n" + "\n".join(lines) + "\n"))


def write_releases_index(root: Path, manifests: Sequence[dict]) -> list[Path]:
    """``README.md`` (the card) and ``releases.json`` at the top of the release folder."""
    root = Path(root)
    card = root / CARD_NAME
    write_atomic(card, render_releases_card(manifests).encode("utf-8"))
    index = {
        "format": "reflong-releases/1",
        "releases": [
            {
                "release": m["release"],
                "window": m["window"],
                "tasks": sum(m["tasks"].values()),
                "release_json_sha256": sha256_file(root / m["release"] / RELEASE_FILE),
            }
            for m in manifests
        ],
    }
    path = root / INDEX_FILE
    write_atomic(path, (json.dumps(index, indent=2, sort_keys=True) + "\n").encode("utf-8"))
    return [card, path]
