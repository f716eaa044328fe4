"""The dataset card (``README.md`` of every output folder), built with huggingface_hub.

Why huggingface_hub's ``DatasetCardData``/``DatasetCard`` rather than hand-written YAML: the Hub
reads the metadata block (license, language, task categories, size category, source datasets,
pretty name, ``configs``) with the same library, so field names and YAML layout are right by
construction, and ``DatasetCard.load`` round-trips what we write. The body keeps everything the
card said before (description, settings, files, statistics) and adds what a user needs to use the
data responsibly: how to load it, what every column means, licensing and how to cite.

Bytes are deterministic (no dates, no absolute paths): the same build gives the same card.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from reflong.assemble.manifest import MANIFEST_NAME
from reflong.assemble.records import TaskRecord
from reflong.assemble.writers.base import ANSWERS_DIR
from reflong.assemble.writers.parquet import DATA_DIR
from reflong.assemble.writers.stats import ConfigStats

CARD_NAME = "README.md"

REFLONG_CITATION = """@inproceedings{wu2025reflong,
  title     = {Ref-Long: Benchmarking the Long-context Referencing Capability of Long-context Language Models},
  author    = {Wu, Junjie and others},
  booktitle = {Proceedings of the 63rd Annual Meeting of the Association for Computational Linguistics (ACL 2025)},
  year      = {2025},
  eprint    = {2507.09506},
  archivePrefix = {arXiv},
}"""


def tool_citation() -> str:
    from reflong import __version__

    return (
        "@software{reflong_build,\n"
        "  title   = {reflong-build: building long-context referencing benchmarks in the style of Ref-Long},\n"
        f"  version = {{{__version__}}},\n"
        "  note    = {Corpus builder for the Ref-Long A, F and Paper subsets},\n"
        "}"
    )


class CardSection(Protocol):
    """An extra section of the dataset card, fed each task as it is written.

    Why a protocol: later stages (evaluate's baselines) put figures in the card without assemble
    importing them; the CLI wires them in. ``render`` runs once, before the card is written, and
    returns the section's markdown and any files it wrote (listed in the manifest like every
    output), so the card and manifest are written once and stay consistent."""

    def add(self, config: str, task: TaskRecord) -> None:
        """One task of ``config``; tasks stream past once (memory stays flat in their number)."""

    def render(self, out_dir: Path) -> tuple[str, list[Path]]: ...


# Every subset's rows share these columns; each has one meaning across subsets.
SHARED_COLUMNS: tuple[tuple[str, str], ...] = (
    ("task_id", "Task number within its configuration (the key of the Ref-Long JSON files)."),
    ("subset", "`a`, `f` or `paper`."),
    (
        "setting",
        "The configuration without its length: A `<mode>_<key style>_<level>`, F the topic, "
        "Paper the difficulty (`easy`: 2-5 positives, `hard`: 4-5 and confusable negatives).",
    ),
    ("length", "Nominal prompt length label (e.g. `8K`, `30K`); the measured count is `prompt_tokens`."),
    ("n_documents", "M, the number of documents in the prompt."),
    (
        "layout",
        "Prompt template: question before the documents (`before`) or after them (`ori`), "
        "`_strategy` for the dictionary-building instruction.",
    ),
    (
        "key",
        "What the question asks about (A: the key number, F: the insight, Paper: the seed title), as text.",
    ),
    (
        "documents",
        "The documents in prompt order: `index` (0-based position in the prompt), `doc_id`, "
        "`n_tokens`, `text`.",
    ),
    ("answer", "Sorted indexes of the documents that reference the key: the ground truth."),
    ("prompt", "The whole prompt, identical to the one in the Ref-Long JSON file."),
    ("prompt_tokens", "Exact token count of `prompt` with the tokenizer named under Statistics."),
)


@dataclass(frozen=True)
class CardMeta:
    """What differs between subsets in the card's metadata and its Columns and Licensing sections."""

    source_datasets: tuple[str, ...]
    license_note: str
    columns: tuple[tuple[str, str], ...] = SHARED_COLUMNS
    license: str = "other"  # the texts keep their own licenses (essays, news, arXiv papers)
    language: tuple[str, ...] = ("en",)
    task_categories: tuple[str, ...] = ("text-retrieval", "question-answering")
    tags: tuple[str, ...] = ("long-context", "referencing", "ref-long")


def size_category(n_rows: int) -> str:
    """The Hub's size bucket for ``n_rows`` rows (names as in datasets' size_categories.json)."""
    bounds = [(1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K"), (1_000_000, "100K<n<1M")]
    return next((name for bound, name in bounds if n_rows < bound), "1M<n<10M")


def _metadata(title: str, stats: Sequence[ConfigStats], meta: CardMeta, with_data: bool, split: str = "test"):
    from huggingface_hub import DatasetCardData

    configs = (
        [
            {
                "config_name": s.config,
                "data_files": [{"split": split, "path": f"{DATA_DIR}/{s.config}.parquet"}],
            }
            for s in stats
        ]
        if with_data
        else None
    )
    return DatasetCardData(
        pretty_name=title,
        license=meta.license,
        language=list(meta.language),
        task_categories=list(meta.task_categories),
        size_categories=[size_category(sum(s.tasks for s in stats))],
        source_datasets=list(meta.source_datasets),
        tags=list(meta.tags),
        configs=configs,
    )


def _training_lines(settings: Mapping[str, object]) -> list[str]:
    """What a training split adds to the card's file list: the chat files and its test build."""
    held = settings.get("disjoint_from") or {}
    left_out = ", ".join(f"{n} {kind}" for kind, n in dict(held.get("left_out", {})).items())
    return [
        "- `chat/<config>.jsonl`: the same tasks for fine-tuning, one chat a line "
        '(`{"messages": [system, user = the prompt, assistant = the gold answer]}`).',
        f"- Training split: shares no key, paper or document with the test build whose manifest has sha256 "
        f"`{held.get('manifest_sha256', '?')}` (left out here: {left_out or 'nothing'}); "
        "`reflong-build check-disjoint THIS_FOLDER TEST_FOLDER` proves it.",
    ]


def render_card(
    title: str,
    description: str,
    stats: Sequence[ConfigStats],
    settings: Mapping[str, object],
    tokenizer: str,
    prompt_files: Mapping[str, str],
    meta: CardMeta,
    with_data: bool = True,
    answers_dir: str = ANSWERS_DIR,
    extra_sections: str = "",
) -> str:
    """The card's text: metadata block, then description, loading, columns, settings, files,
    statistics, licensing and citation. ``prompt_files`` maps config -> its prompt file (relative);
    ``with_data=False`` when no parquet files were written (no ``configs`` then)."""
    from huggingface_hub import DatasetCard

    # A training split (``--split train``) is the Hub's "train" split; every other build "test".
    split = "train" if settings.get("split") == "train" else "test"
    data = _metadata(title, stats, meta, with_data, split)
    lines = [f"# {title}", "", description.strip(), ""]
    if with_data and stats:
        lines += [
            "## Load",
            "",
            "```python",
            "from datasets import load_dataset",
            "",
            f'ds = load_dataset("path/to/this/folder", "{stats[0].config}", split="{split}")  # or its Hub repo id',
            'print(ds[0]["key"], ds[0]["answer"])',
            "```",
            "",
            f"Configurations: {', '.join(f'`{s.config}`' for s in stats)}.",
            "",
            "## Columns",
            "",
            "| column | meaning |",
            "|---|---|",
            *(f"| `{name}` | {meaning} |" for name, meaning in meta.columns),
            "",
        ]
    lines += ["## Settings", "", "| setting | value |", "|---|---|"]
    lines += [f"| {k} | {json.dumps(v, ensure_ascii=False)} |" for k, v in settings.items()]
    lines += [
        "",
        "## Files",
        "",
        *([f"- `{DATA_DIR}/<config>.parquet`: one row per task (see Columns)."] if with_data else []),
        "- Ref-Long JSON, drop-in for Ref-Long's evaluation: prompts in "
        + ", ".join(sorted({f"`{Path(p).parent.as_posix()}/`" for p in prompt_files.values()}))
        + f' (`{{"i": [key, prompt]}}`), answers in `{answers_dir}/<config>_answers.json` '
        '(`{"i": [key, [indexes]]}`).',
        f"- `{MANIFEST_NAME}`: tool version, settings, input and output sha256.",
        *(_training_lines(settings) if split == "train" else []),
        "",
        "## Statistics",
        "",
        f"Tokens counted with `{tokenizer}`. Answer-set size `s:n` means n tasks have s correct documents.",
        "",
        "| config | tasks | M | distinct keys | answer-set size: tasks | mean "
        "| prompt tokens min / mean / max | document tokens min / mean / max |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for s in stats:
        p, d = s.prompt_tokens, s.document_tokens
        sizes = ", ".join(f"{k}:{v}" for k, v in sorted(s.answer_sizes.items()))
        lines.append(
            f"| {s.config} | {s.tasks} | {s.n_documents} | {s.distinct_keys} | {sizes} "
            f"| {s.mean_answer_size:.2f} | {p[0]} / {p[1]} / {p[2]} | {d[0]} / {d[1]} / {d[2]} |"
        )
    body = "\n".join(lines) + "\n" + extra_sections
    body += "\n## Licensing\n\n" + meta.license_note.strip() + "\n"
    body += (
        "\n## Citation\n\n"
        "The task design is Ref-Long's (ACL 2025, arXiv 2507.09506); these files were built with "
        "reflong-build. Please cite both:\n\n"
        f"```bibtex\n{REFLONG_CITATION}\n\n{tool_citation()}\n```\n"
    )
    return str(DatasetCard(f"---\n{data.to_yaml()}\n---\n\n{body}"))
