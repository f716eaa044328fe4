"""Writing a Paper build: Ref-Long JSON, the `datasets` parquet files, card and manifest.

Reuses the writers every subset shares (``assemble.writers``); what is Paper-specific is the
extra columns (key_arxiv_id, evidence, each document's arXiv id and version; the difficulty is the
shared ``setting`` column, not a second column) and the
provenance in the manifest: every paper with its version and PDF sha256.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from reflong.assemble.dataset_card import CARD_NAME, SHARED_COLUMNS, CardMeta, CardSection, render_card
from reflong.assemble.manifest import BuildInProgress
from reflong.assemble.paper.build import BuildReport, PaperSettings, RenderedTask
from reflong.assemble.paper.licence_card import licence_section
from reflong.assemble.records import DocumentRecord, TaskRecord
from reflong.assemble.writers.base import OutputSpec
from reflong.assemble.writers.config_writer import ConfigWriter
from reflong.assemble.writers.formats import format_writers
from reflong.assemble.writers.parquet import dataset_features
from reflong.assemble.writers.reflong_json import prompt_file
from reflong.assemble.writers.stats import ConfigStats
from reflong.common.atomic_files import write_atomic
from reflong.common.progress import ProgressFactory, null_progress

TITLE = "Ref-Long-Paper (reflong-build)"
DESCRIPTION = """
Each task gives a model M arXiv papers (body and references, cut to the setting's size by one
policy for every paper; see Documents below) and the title of a seed paper; the answer is the set of indexes of the papers that cite it. Positives are papers whose
reference list cites the seed (accepted citation edges, re-verified on the exact text shown);
negatives are distractors whose text version predates the seed's first version (they cannot cite
it) and, for `hard`, papers that cite a similar-titled seed. The key and its positives are fixed
across lengths; negatives accumulate and the order is reshuffled per length. A key cited by more
papers than a task takes gets a seeded sample of its citers per task; its other citers are never
negatives.
"""


COLUMNS = (
    *((name, meaning) for name, meaning in SHARED_COLUMNS if name != "documents"),
    (
        "documents",
        "The papers in prompt order: `index` (0-based position), `doc_id` (`<arXiv id>v<version>`), "
        "`arxiv_id`, `version`, `pdf_sha256` (of the PDF the text came from), `license` (the licence "
        "URL arXiv gives for that version; empty when not known), `n_tokens`, `text` (body, then references).",
    ),
    ("key_arxiv_id", "arXiv id of the seed paper whose title is the key."),
    ("key_license", "Licence URL of the seed paper (its newest version's); empty when not known."),
    (
        "release",
        "The release (seed window, `YYYY-MM`) the task comes from: the month the key was first "
        "published. Filter on it to score only windows after a model's training cutoff.",
    ),
    (
        "evidence",
        "Per answer document: `index`, `arxiv_id`, `version`, the `reference` entry that cites the key, "
        "the resolver's `method` (arxiv_id, doi, title, audit) and `score`.",
    ),
)
META = CardMeta(
    source_datasets=("original",),
    license_note="The documents are arXiv papers (text extracted from their PDFs). Each paper stays under "
    "the license its authors chose on arXiv; every document is listed by arXiv id, version and license "
    "(`documents.arxiv_id`, `documents.license`, `manifest.json`), and the Licences section below says "
    "which of them may be republished. The task files and card are produced by reflong-build (MIT).",
    columns=COLUMNS,
)


def _features():
    from datasets import List, Value

    evidence = {
        "index": Value("int32"),
        "arxiv_id": Value("string"),
        "version": Value("int32"),
        "reference": Value("string"),
        "method": Value("string"),
        "score": Value("float64"),
    }
    return dataset_features(
        extra_features={
            "key_arxiv_id": Value("string"),
            "key_license": Value("string"),
            "release": Value("string"),
            "evidence": List(evidence),
        },
        extra_doc_features={
            "arxiv_id": Value("string"),
            "version": Value("int32"),
            "pdf_sha256": Value("string"),
            "license": Value("string"),
        },
    )


def release_of(window: str) -> str:
    """The release label of a build window: its seed month (``2024-03:s1:p6:d2`` -> ``2024-03``).

    Why the seed month: a task's key is a paper first published then, so every task of the
    release postdates a model whose training data ends before it (issue 21)."""
    return window.split(":", 1)[0]


def to_record(task: RenderedTask, layout: str, release: str = "") -> TaskRecord:
    documents = tuple(
        DocumentRecord(
            index=i,
            doc_id=doc.ref,
            n_tokens=doc.n_tokens,
            text=doc.text,
            extra={
                "arxiv_id": doc.arxiv_id,
                "version": doc.version,
                "pdf_sha256": doc.pdf_sha256 or "",
                "license": doc.license or "",
            },
        )
        for i, doc in enumerate(task.documents)
    )
    return TaskRecord(
        config=f"{task.difficulty}_{task.length}",
        task_id=task.task_index,
        subset="paper",
        setting=task.difficulty,
        length=task.length,
        key=task.key.question_key,
        documents=documents,
        answer=task.answer,
        prompt=task.prompt,
        prompt_tokens=task.prompt_tokens,
        layout=layout,
        extra={
            "key_arxiv_id": task.key.arxiv_id,
            "key_license": task.key.license or "",
            "release": release,
            "evidence": task.evidence(),
        },
    )


def _report_section(report: BuildReport) -> str:
    lines = [
        "",
        "## Ground truth checks",
        "",
        "- Keys used: " + ", ".join(f"{d}: {len(k)}" for d, k in report.keys_used.items()),
        f"- Distractor false positives (resolver hits on papers that cannot cite the key by date): "
        f"{len(report.distractor_false_positives)}",
        f"- Tasks dropped by re-verification on final texts: {len(report.dropped_tasks)}",
        f"- Positives dropped (final text does not reference the key): {len(report.dropped_positives)}",
        f"- Papers left out by the token budget: {len(report.excluded_docs)}",
    ]
    a = report.index_agreement
    if a:
        lines += [
            f"- Citation index vs our text ({a.get('papers')} parsed pool papers x {a.get('keys')} keys): "
            f"{a.get('confirmed_by_text')} of {a.get('index_pairs')} pairs the index lists are confirmed by "
            f"the text (rate {a.get('index_confirmed_rate')}); {a.get('text_only')} of {a.get('text_pairs')} "
            f"text edges are not in the index (in-index rate {a.get('text_in_index_rate')}). "
            "Disagreements are listed by `reflong-build audit` (kind index_disagree).",
        ]
    docs = report.documents
    if docs:
        ref = docs["reflong_paper"]

        def row(name: str, d: dict) -> str:
            return f"| {name} | {d['n']} | {d['min']:,} | {d['median']:,} | {d['mean']:,.0f} | {d['max']:,} |"

        lines += [
            "",
            "## Documents",
            "",
            f"Policy `{docs['policy']}`, budget {docs['budget_tokens']:,} tokens per paper "
            f"({DOC_POLICY_TEXT.get(docs['policy'], '')}).",
            "",
            f"- Papers that became documents: {docs['usable']} of {docs['papers']} parsed papers "
            f"({docs['usable_share']:.1%}); used in at least one task: {docs.get('used', 0)} "
            f"({docs.get('used_share', 0.0):.1%})",
            f"- Papers cut to the budget: {docs['cut']}; reference lists sampled: "
            f"{docs['reference_lists_sampled']} (entries kept: {docs['entries_kept_share']:.1%})",
            "",
            "| documents | n | min | median | mean | max |",
            "|---|---|---|---|---|---|",
            row("usable papers", docs["usable_tokens"]),
        ]
        if "used_tokens" in docs:
            lines.append(row("in tasks", docs["used_tokens"]))
        lines += [
            f"| Ref-Long Paper (released) | - | - | - | {ref['nominal_mean_tokens']:,} (nominal) | "
            f"< {ref['whole_papers_under_tokens']:,} |",
            "",
            f"Ref-Long: {ref['source']}; its documents are whole papers, so only the bound and the "
            "nominal mean (30K / 8) are known.",
        ]
    return "\n".join(lines) + "\n"


DOC_POLICY_TEXT = {
    "fit": "every document cut alike: title, abstract and the start of the body to a sentence boundary, "
    "then a seeded sample of the reference entries in the paper's own order and numbering that "
    "always keeps every entry the resolver matches to a seed",
    "trim": "body cut at a sentence boundary, references whole; longer reference lists left out",
    "whole": "whole papers; longer papers left out",
}


def write_paper_outputs(
    out_dir: Path,
    configs: Sequence[tuple[str, Iterable[RenderedTask]]],
    report: BuildReport,
    settings: PaperSettings,
    provenance: dict,
    command: str = "reflong-build paper",
    extra_files: Mapping[Path, bytes] | None = None,
    progress: ProgressFactory = null_progress,
    card_sections: Sequence[CardSection] = (),
    previous: Mapping[str, str | None] | None = None,
    n_tasks: Mapping[str, int] | None = None,
    key_licenses: Mapping[str, str | None] | None = None,
) -> tuple[list[Path], list[ConfigStats], Path]:
    """Write every configuration (difficulty x length) and the card and manifest; return files.

    ``configs``: per configuration in output order, its tasks in task order, taken one at a time
    by that configuration's ``ConfigWriter`` (memory flat in the number of tasks, issue 12).
    ``extra_files`` (e.g. build_report.json) are written after the card, just before the
    manifest; ``previous``: the previous build's files (``claim_outputs``), listed by the
    unfinished manifest while this build writes (``BuildInProgress``); ``n_tasks``: tasks per
    configuration, for the space check before each one; ``key_licenses``: seed id -> licence URL,
    for the card's Licences section."""
    out_dir = Path(out_dir)
    template = settings.template()
    release = release_of(str(provenance.get("window", "")))
    output_spec = OutputSpec(
        prompt_dir=".", answers_dir=".", features=_features(), chat=settings.split == "train"
    )
    files: list[Path] = []
    stats: list[ConfigStats] = []
    prompt_files: dict[str, str] = {}
    extra_files = dict(extra_files or {})
    summaries = [CARD_NAME, *(p.relative_to(out_dir).as_posix() for p in extra_files)]
    n_tasks = n_tasks or {}
    with BuildInProgress(out_dir, command, previous or {}, summaries) as build:
        with progress(total=len(configs), desc="write", unit="config") as bar:
            for config, tasks in configs:
                writers = format_writers(output_spec)
                with ConfigWriter(out_dir, config, writers, n_tasks.get(config)) as writer:
                    for task in tasks:
                        record = to_record(task, template.name, release)
                        writer.add(record)
                        for section in card_sections:
                            section.add(config, record)
                prompt_files[config] = prompt_file(output_spec, config)
                files += writer.files
                build.add(writer.files)
                stats.append(writer.stats)
                bar.update(1)
        run_settings = {**settings.to_json(), **{k: v for k, v in provenance.items() if k != "papers"}}
        card = out_dir / CARD_NAME
        used_keys = sorted({k for keys in report.keys_used.values() for k in keys})
        extra = _report_section(report) + licence_section(
            provenance.get("papers", []), [(key_licenses or {}).get(k) for k in used_keys], report.licenses
        )
        for section in card_sections:
            text, written = section.render(out_dir)
            extra += text
            files += written
            build.add(written)
        card_text = render_card(
            TITLE,
            DESCRIPTION,
            stats,
            run_settings,
            settings.tokenizer,
            prompt_files,
            META,
            answers_dir=".",
            extra_sections=extra,
        )
        write_atomic(card, card_text.encode("utf-8"))
        files.append(card)
        build.add([card])
        for path, data in extra_files.items():
            write_atomic(path, data)
            files.append(path)
            build.add([path])
        inputs = provenance.get("papers", [])
        manifest = build.finish(run_settings, inputs, stats)
    return files, stats, manifest
