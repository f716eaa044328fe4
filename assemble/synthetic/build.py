"""The pipeline shared by the synthetic subsets (A and F): candidates -> tasks -> files.

A subset module only makes candidate documents (text plus the keys each holds) and says how a key
is written in the JSON; this module samples tasks cumulatively across lengths, renders prompts,
measures tokens, computes answers and writes every output, one configuration at a time so that
memory stays bounded even at 128K.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from reflong.assemble.cumulative_sampling import answer_positions, cumulative_tasks
from reflong.assemble.dataset_card import CARD_NAME, CardMeta, CardSection, render_card
from reflong.assemble.manifest import BuildInProgress
from reflong.assemble.outputs_ownership import claim_outputs
from reflong.assemble.prompts import Template, additive_tokenizer, split_block
from reflong.assemble.records import DocumentRecord, TaskRecord
from reflong.assemble.writers.base import OutputSpec
from reflong.assemble.writers.config_writer import ConfigWriter
from reflong.assemble.writers.formats import format_writers
from reflong.assemble.writers.parquet import dataset_features
from reflong.assemble.writers.reflong_json import prompt_file
from reflong.assemble.writers.stats import ConfigStats
from reflong.common.atomic_files import write_atomic
from reflong.common.errors import ReflongError
from reflong.common.length_labels import ACCEPTED, canonical_label, label_tokens
from reflong.common.progress import ProgressFactory, null_progress


@dataclass(frozen=True)
class Candidate:
    """A candidate document: its id, final text, and the keys it holds in draw order."""

    doc_id: str
    text: str
    keys: tuple


@dataclass(frozen=True)
class Length:
    """A nominal length label (``8K``) and the number of documents M a task of it holds."""

    label: str
    n_documents: int


def parse_lengths(spec: str | Sequence[str], doc_tokens: int = 1000) -> list[Length]:
    """``"8K,16K,24K"`` -> lengths with M = tokens / doc_tokens (Ref-Long: 8K holds 8 documents).

    Labels are read by ``reflong.common.length_labels``: ``1M`` and ``1000K`` are the same setting."""
    items = spec.split(",") if isinstance(spec, str) else list(spec)
    out = []
    for item in (i.strip() for i in items):
        tokens = label_tokens(item)
        if tokens is None:
            raise ReflongError(f"bad length {item!r}: use labels like {ACCEPTED}")
        n = round(tokens / doc_tokens)
        if n < 1:
            raise ReflongError(f"length {item} holds no document of {doc_tokens} tokens")
        out.append(Length(canonical_label(tokens), n))
    counts = [length.n_documents for length in out]
    if counts != sorted(set(counts)):
        raise ReflongError(f"lengths must grow and give different document counts: {spec}")
    return out


@dataclass(frozen=True)
class SettingSpec:
    """One setting (one family of files across lengths), ready to sample."""

    subset: str
    setting: str
    candidates: Sequence[Candidate]
    seed: int | str
    key_label: Callable[[Hashable], int | str] = lambda key: key
    context: Mapping[str, str] = field(default_factory=dict)


@dataclass
class BuildResult:
    stats: list[ConfigStats]
    files: list[Path]
    manifest: Path
    removed: list[str] = field(default_factory=list)  # the previous build's files no longer written


def build_configs(
    spec: SettingSpec,
    lengths: Sequence[Length],
    template: Template,
    n_tasks: int,
    reseed_each_length: bool,
    tokenizer,
    progress: ProgressFactory = null_progress,
) -> Iterator[tuple[str, list[TaskRecord]]]:
    """Yield ``(config, tasks)`` per length, shortest first (tasks as a list: for tests)."""
    for config, tasks in stream_configs(
        spec, lengths, template, n_tasks, reseed_each_length, tokenizer, progress
    ):
        yield config, list(tasks)


def stream_configs(
    spec: SettingSpec,
    lengths: Sequence[Length],
    template: Template,
    n_tasks: int,
    reseed_each_length: bool,
    tokenizer,
    progress: ProgressFactory = null_progress,
) -> Iterator[tuple[str, Iterator[TaskRecord]]]:
    """Yield ``(config, tasks)`` per length, shortest first; each config's tasks are made one at a
    time as the writer takes them (consume one config's tasks before asking for the next config).
    The samples are document indexes; only the task being written holds its texts and prompt."""
    cands = spec.candidates
    sizes = [length.n_documents for length in lengths]
    if sizes[-1] > len(cands):
        raise ReflongError(
            f"{spec.setting}: {sizes[-1]} documents per task but only {len(cands)} candidates; "
            "use shorter --lengths or a larger haystack"
        )
    sampled = cumulative_tasks(
        lambda d: cands[d].keys, len(cands), sizes, n_tasks, spec.seed, reseed_each_length
    )
    doc_tokens: dict[int, int] = {}
    additive = additive_tokenizer(tokenizer.name)
    cache: dict[str, int] = {}  # heads, tails and "i:" labels
    bodies: dict[int, int] = {}  # candidate -> tokens of its ' {text}\n\n' (position-independent)

    def cached(text: str) -> int:
        if text not in cache:
            cache[text] = tokenizer.count(text)
        return cache[text]

    def body(d: int) -> int:
        if d not in bodies:
            bodies[d] = tokenizer.count(split_block(0, cands[d].text)[1])
        return bodies[d]

    def tasks_of(length: Length, config: str) -> Iterator[TaskRecord]:
        with progress(total=n_tasks, desc=config, unit="task") as bar:
            for s in sampled:
                docs = s.docs[length.n_documents]
                key = spec.key_label(s.key)
                texts = [cands[d].text for d in docs]
                prompt = template.render(key, texts, **spec.context)
                if additive:
                    head, tail = template.fill(key, **spec.context)
                    n_prompt = (
                        cached(head)
                        + cached(tail)
                        + sum(cached(f"{i}:") + body(d) for i, d in enumerate(docs))
                    )
                else:
                    n_prompt = tokenizer.count(prompt)
                records = []
                for pos, d in enumerate(docs):
                    if d not in doc_tokens:
                        doc_tokens[d] = tokenizer.count(cands[d].text)
                    records.append(DocumentRecord(pos, cands[d].doc_id, doc_tokens[d], cands[d].text))
                answer = answer_positions(docs, s.key, lambda d: cands[d].keys)
                yield (
                    TaskRecord(
                        config=config,
                        task_id=s.task_id,
                        subset=spec.subset,
                        setting=spec.setting,
                        length=length.label,
                        key=key,
                        documents=tuple(records),
                        answer=tuple(answer),
                        prompt=prompt,
                        prompt_tokens=n_prompt,
                        layout=template.name,
                    )
                )
                bar.update()

    for length in lengths:
        config = f"{spec.setting}_{length.label}"
        yield config, tasks_of(length, config)


def run_build(
    out_dir: Path,
    command: str,
    title: str,
    description: str,
    specs: Sequence[SettingSpec],
    lengths: Sequence[Length],
    template: Template,
    n_tasks: int,
    reseed_each_length: bool,
    tokenizer,
    settings: Mapping[str, object],
    inputs: Sequence[dict],
    progress: ProgressFactory = null_progress,
    write_dataset: bool = True,
    meta: CardMeta | None = None,
    card_sections: Sequence[CardSection] = (),
) -> BuildResult:
    """Build every configuration of ``specs`` x ``lengths`` and write all outputs to ``out_dir``.

    ``write_dataset=False`` skips the parquet files (tests of the JSON alone); the card and
    manifest are always written."""
    out_dir = Path(out_dir)
    claim = claim_outputs(out_dir)
    output_spec = OutputSpec(prompt_dir=template.name, features=dataset_features() if write_dataset else None)
    files: list[Path] = []
    stats: list[ConfigStats] = []
    prompt_files: dict[str, str] = {}
    with BuildInProgress(out_dir, command, claim.previous, [CARD_NAME]) as build:
        for spec in specs:
            for config, tasks in stream_configs(
                spec, lengths, template, n_tasks, reseed_each_length, tokenizer, progress
            ):
                # Streamed: each task goes to the files as it is made (memory flat in --tasks).
                with ConfigWriter(out_dir, config, format_writers(output_spec), n_tasks) as writer:
                    for task in tasks:
                        writer.add(task)
                        for section in card_sections:
                            section.add(config, task)
                prompt_files[config] = prompt_file(output_spec, config)
                files += writer.files
                build.add(writer.files)
                stats.append(writer.stats)
        card = out_dir / CARD_NAME
        extra = ""
        for section in card_sections:
            text, written = section.render(out_dir)
            extra += text
            files += written
            build.add(written)
        write_atomic(
            card,
            render_card(
                title,
                description,
                stats,
                settings,
                tokenizer.name,
                prompt_files,
                meta or CardMeta(("original",), "See the licenses of the input texts."),
                write_dataset,
                extra_sections=extra,
            ).encode("utf-8"),
        )
        files.append(card)
        build.add([card])
        manifest = build.finish(settings, inputs, stats)
    return BuildResult(stats, files, manifest, claim.finish(files))
