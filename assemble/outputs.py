"""Writers shared by every subset: Ref-Long JSON, a `datasets` parquet dataset, card, manifest.

Why here and generic: the A, F and Paper subsets must produce the same kinds of files, and a user
drops our JSON files where Ref-Long's evaluation expects theirs. The released files are exactly
``json.dumps(obj)`` with Python's defaults (``", "``/``": "`` separators, ``ensure_ascii=True``, no
trailing newline; checked on all 50 released files), so that is what ``reflong_json_bytes`` writes.

Everything is deterministic: no timestamps or absolute paths in any file, keys in fixed order, so
the same inputs and seed give byte-identical outputs (the manifest records every output's sha256).
Subsets add their own columns through ``TaskRecord.extra`` / ``DocumentRecord.extra`` and the
matching ``extra_features``.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import statistics
import sys
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

MANIFEST_NAME = "manifest.json"
CARD_NAME = "README.md"
DATA_DIR = "data"
ANSWERS_DIR = "answers"
DEFAULT_COLUMNS = (
    "task_id",
    "subset",
    "setting",
    "length",
    "n_documents",
    "layout",
    "key",
    "documents [index, doc_id, n_tokens, text]",
    "answer",
    "prompt",
    "prompt_tokens",
)


@dataclass(frozen=True)
class DocumentRecord:
    """One document as placed in a prompt (``index`` = its 0-based position)."""

    index: int
    doc_id: str
    n_tokens: int
    text: str
    extra: Mapping[str, object] = field(default_factory=dict)


@dataclass(frozen=True)
class TaskRecord:
    """One task of one configuration (a configuration = one released file, e.g. ``twitter_8K``).

    ``key`` is what the Ref-Long JSON holds (A: an int, others: a str); the dataset stores it as a
    string column."""

    config: str
    task_id: int
    subset: str
    setting: str
    length: str
    key: int | str
    documents: tuple[DocumentRecord, ...]
    answer: tuple[int, ...]
    prompt: str
    prompt_tokens: int
    layout: str = "before"
    extra: Mapping[str, object] = field(default_factory=dict)


# -- Ref-Long JSON -------------------------------------------------------------------------------


def reflong_json_bytes(mapping: Mapping[str, object]) -> bytes:
    """Bytes exactly as the released files: ``json.dumps`` defaults, no trailing newline."""
    return json.dumps(mapping).encode("ascii")


def prompts_mapping(tasks: Sequence[TaskRecord]) -> dict[str, list]:
    return {str(t.task_id): [t.key, t.prompt] for t in tasks}


def answers_mapping(tasks: Sequence[TaskRecord]) -> dict[str, list]:
    return {str(t.task_id): [t.key, list(t.answer)] for t in tasks}


@contextlib.contextmanager
def atomic_target(path: Path) -> Iterator[Path]:
    """A temporary path (``<name>.part``) to write; renamed to ``path`` when the block ends well,
    removed when it fails (disk full, Ctrl-C, a bug): a run never leaves half a file or a
    ``.part`` behind, and a reader never sees a partial output. Every output writer uses it."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".part")
    try:
        yield tmp
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise


def write_atomic(path: Path, data: bytes) -> None:
    """Write via a temporary file and rename, so an interrupted run never leaves half a file."""
    with atomic_target(path) as tmp:
        tmp.write_bytes(data)


def write_reflong_files(
    out_dir: Path,
    config: str,
    tasks: Sequence[TaskRecord],
    prompt_dir: str = ".",
    answers_dir: str = ANSWERS_DIR,
) -> list[Path]:
    """``<prompt_dir>/<config>.json`` and ``<answers_dir>/<config>_answers.json``: the release's
    A/F layout is ``before/`` + ``answers/``; ``"."`` for both gives a flat folder (Paper)."""
    prompt_path = Path(out_dir) / prompt_dir / f"{config}.json"
    answers_path = Path(out_dir) / answers_dir / f"{config}_answers.json"
    write_atomic(prompt_path, reflong_json_bytes(prompts_mapping(tasks)))
    write_atomic(answers_path, reflong_json_bytes(answers_mapping(tasks)))
    return [prompt_path, answers_path]


# -- datasets / parquet --------------------------------------------------------------------------


def dataset_features(extra_features: Mapping[str, object] | None = None, extra_doc_features=None):
    """The `datasets` schema: the shared columns plus a subset's own (``extra_*``)."""
    from datasets import Features, List, Value

    doc = {
        "index": Value("int32"),
        "doc_id": Value("string"),
        "n_tokens": Value("int32"),
        "text": Value("string"),
        **(extra_doc_features or {}),
    }
    return Features(
        {
            "task_id": Value("int32"),
            "subset": Value("string"),
            "setting": Value("string"),
            "length": Value("string"),
            "n_documents": Value("int32"),
            "layout": Value("string"),
            "key": Value("string"),
            "documents": List(doc),
            "answer": List(Value("int32")),
            "prompt": Value("string"),
            "prompt_tokens": Value("int32"),
            **(extra_features or {}),
        }
    )


def task_row(task: TaskRecord) -> dict:
    return {
        "task_id": task.task_id,
        "subset": task.subset,
        "setting": task.setting,
        "length": task.length,
        "n_documents": len(task.documents),
        "layout": task.layout,
        "key": str(task.key),
        "documents": [
            {"index": d.index, "doc_id": d.doc_id, "n_tokens": d.n_tokens, "text": d.text, **d.extra}
            for d in task.documents
        ],
        "answer": list(task.answer),
        "prompt": task.prompt,
        "prompt_tokens": task.prompt_tokens,
        **task.extra,
    }


def write_parquet(out_dir: Path, config: str, tasks: Sequence[TaskRecord], features) -> Path:
    """``data/<config>.parquet``, one row per task, via `datasets` (its schema travels along).

    The Dataset gets a fixed fingerprint: `datasets` would otherwise pickle-hash the whole table
    just to name a cache entry we never use (40% of the write time)."""
    from datasets import Dataset, DatasetInfo
    from datasets.table import InMemoryTable
    from datasets.utils.logging import disable_progress_bar

    disable_progress_bar()  # the CLI shows its own bars; datasets' would interleave with them
    path = Path(out_dir) / DATA_DIR / f"{config}.parquet"
    table = InMemoryTable.from_pylist([task_row(t) for t in tasks], schema=features.arrow_schema)
    dataset = Dataset(table, info=DatasetInfo(features=features), fingerprint=f"reflong-{config}")
    with atomic_target(path) as tmp:
        dataset.to_parquet(str(tmp))
    return path


class CardSection(Protocol):
    """An extra section of the dataset card, fed each task as it is written.

    Why a protocol: later stages (evaluate's baselines) put figures in the card without assemble
    importing them; the CLI wires them in. ``render`` runs once, before the card is written, and
    returns the section's markdown and any files it wrote (listed in the manifest like every
    output), so the card and manifest are written once and stay consistent."""

    def add(self, config: str, task: TaskRecord) -> None:
        """One task of ``config``; tasks stream past once (memory stays flat in their number)."""

    def render(self, out_dir: Path) -> tuple[str, list[Path]]: ...


# -- streaming: one configuration written task by task ------------------------------------------

ROW_GROUP_BYTES = 100 * 1024 * 1024  # `datasets`' own target for a parquet row group (uncompressed)


class _JsonMapWriter:
    """``json.dumps(mapping)`` written one item at a time: ``{"0": v, "1": w}``, same bytes."""

    def __init__(self, fh) -> None:
        self.fh, self.first = fh, True
        fh.write(b"{")

    def add(self, key: str, value: object) -> None:
        self.fh.write((b"" if self.first else b", ") + reflong_json_bytes({key: value})[1:-1])
        self.first = False

    def close(self) -> None:
        self.fh.write(b"}")


class _StatsAccumulator:
    """``config_stats`` over a stream: counters, not the tasks."""

    def __init__(self, config: str) -> None:
        self.config = config
        self.setting = self.length = ""
        self.n = self.n_documents = 0
        self.keys: set[str] = set()
        self.sizes: Counter = Counter()
        self.prompt_tokens: list[int] = []  # one int per task (min/mean/max need no more, but
        self.docs: dict[str, int] = {}  # the mean must be the same float as before: keep the ints)

    def add(self, t: TaskRecord) -> None:
        if not self.n:
            self.setting, self.length, self.n_documents = t.setting, t.length, len(t.documents)
        self.n += 1
        self.keys.add(str(t.key))
        self.sizes[len(set(t.answer))] += 1
        self.prompt_tokens.append(t.prompt_tokens)
        for d in t.documents:
            self.docs[d.doc_id] = d.n_tokens

    def result(self) -> ConfigStats:
        return ConfigStats(
            config=self.config,
            setting=self.setting,
            length=self.length,
            tasks=self.n,
            n_documents=self.n_documents,
            distinct_keys=len(self.keys),
            answer_sizes=dict(sorted(self.sizes.items())),
            prompt_tokens=_min_mean_max(self.prompt_tokens),
            document_tokens=_min_mean_max(self.docs.values()),
        )


class ConfigWriter:
    """Write one configuration as its tasks arrive: the Ref-Long prompt and answers JSON and the
    parquet file, in the same bytes as ``write_reflong_files`` and ``write_parquet`` (parquet: the
    same bytes while the data fits one row group of ``row_group_bytes``, as `datasets` writes it;
    beyond, the same table in row groups of that size). Memory holds one row group, not the
    configuration: a build is flat in the number of tasks.

    Files appear only when the block ends well (written to ``.part`` files, then renamed); a
    failure removes them. ``files`` and ``stats`` are set on a clean exit.
    """

    def __init__(
        self,
        out_dir: Path,
        config: str,
        prompt_dir: str = ".",
        answers_dir: str = ANSWERS_DIR,
        features=None,
        row_group_bytes: int | None = None,
    ) -> None:
        out_dir = Path(out_dir)
        self.targets = [
            out_dir / prompt_dir / f"{config}.json",
            out_dir / answers_dir / f"{config}_answers.json",
        ]
        if features is not None:
            self.targets.append(out_dir / DATA_DIR / f"{config}.parquet")
        self.features = features
        self.row_group_bytes = row_group_bytes or ROW_GROUP_BYTES  # read now: benches may lower it
        self.stats_acc = _StatsAccumulator(config)
        self.files: list[Path] = []
        self.stats: ConfigStats | None = None

    def __enter__(self) -> ConfigWriter:
        self._stack = contextlib.ExitStack()
        try:
            tmps = [self._stack.enter_context(atomic_target(p)) for p in self.targets]
            self._prompts = _JsonMapWriter(self._stack.enter_context(tmps[0].open("wb")))
            self._answers = _JsonMapWriter(self._stack.enter_context(tmps[1].open("wb")))
            self._parquet = None
            if self.features is not None:
                self._parquet = self._stack.enter_context(
                    _ParquetStream(tmps[2], self.features, self.row_group_bytes)
                )
        except BaseException:
            self._stack.close()
            raise
        return self

    def add(self, task: TaskRecord) -> None:
        self._prompts.add(str(task.task_id), [task.key, task.prompt])
        self._answers.add(str(task.task_id), [task.key, list(task.answer)])
        if self._parquet is not None:
            self._parquet.add(task_row(task))
        self.stats_acc.add(task)

    def __exit__(self, exc_type, exc, tb) -> bool:
        if exc_type is None:
            try:
                self._prompts.close()
                self._answers.close()
            except BaseException:
                self._stack.__exit__(*sys.exc_info())
                raise
        self._stack.__exit__(exc_type, exc, tb)  # closes files, then renames (or removes) them
        if exc_type is None:
            self.files = list(self.targets)
            self.stats = self.stats_acc.result()
        return False


class _ParquetStream:
    """``Dataset.to_parquet`` of `datasets`, fed row by row: the same writer options, schema
    (with the features in its metadata) and closing metadata; rows buffered up to one row group."""

    def __init__(self, path: Path, features, row_group_bytes: int) -> None:
        self.path, self.features, self.limit = path, features, row_group_bytes
        self.rows: list[dict] = []
        self.nbytes = 0

    def __enter__(self) -> _ParquetStream:
        import pyarrow.parquet as pq
        from datasets import config
        from datasets.arrow_writer import get_parquet_column_options

        schema = self.features.arrow_schema
        self.cdc = config.DEFAULT_CDC_OPTIONS
        self.writer = pq.ParquetWriter(
            str(self.path),
            schema=schema,
            use_content_defined_chunking=self.cdc,
            write_page_index=True,
            **get_parquet_column_options(self.features, schema),
        )
        return self

    def add(self, row: dict) -> None:
        self.rows.append(row)
        self.nbytes += _row_bytes(row)
        if self.nbytes >= self.limit:
            self._flush()

    def _flush(self) -> None:
        import pyarrow as pa

        if self.rows:
            self.writer.write_table(pa.Table.from_pylist(self.rows, schema=self.features.arrow_schema))
        self.rows, self.nbytes = [], 0

    def __exit__(self, exc_type, exc, tb) -> bool:
        try:
            if exc_type is None:
                self._flush()
                if self.cdc is not False:
                    self.writer.add_key_value_metadata({"content_defined_chunking": json.dumps(self.cdc)})
        finally:
            self.writer.close()
        return False


def _row_bytes(row: dict) -> int:
    """A cheap upper-bound estimate of a row's Arrow size: its strings dominate."""
    n = 64
    for v in row.values():
        if isinstance(v, str):
            n += len(v) + 4
        elif isinstance(v, list):
            for x in v:
                n += (
                    sum(len(y) + 4 if isinstance(y, str) else 8 for y in x.values())
                    if isinstance(x, dict)
                    else 8
                )
    return n


# -- statistics and the dataset card --------------------------------------------------------------


@dataclass(frozen=True)
class ConfigStats:
    """What the card reports for one configuration."""

    config: str
    setting: str
    length: str
    tasks: int
    n_documents: int
    distinct_keys: int
    answer_sizes: dict[int, int]
    prompt_tokens: tuple[int, float, int]
    document_tokens: tuple[int, float, int]

    @property
    def mean_answer_size(self) -> float:
        total = sum(self.answer_sizes.values())
        return sum(size * n for size, n in self.answer_sizes.items()) / total if total else 0.0

    def as_json(self) -> dict:
        return {
            "config": self.config,
            "setting": self.setting,
            "length": self.length,
            "tasks": self.tasks,
            "n_documents": self.n_documents,
            "distinct_keys": self.distinct_keys,
            "answer_sizes": {str(k): v for k, v in sorted(self.answer_sizes.items())},
            "mean_answer_size": round(self.mean_answer_size, 2),
            "prompt_tokens": {
                "min": self.prompt_tokens[0],
                "mean": self.prompt_tokens[1],
                "max": self.prompt_tokens[2],
            },
            "document_tokens": {
                "min": self.document_tokens[0],
                "mean": self.document_tokens[1],
                "max": self.document_tokens[2],
            },
        }


def _min_mean_max(values: Iterable[int]) -> tuple[int, float, int]:
    values = list(values)
    if not values:
        return (0, 0.0, 0)
    return (min(values), round(statistics.fmean(values), 1), max(values))


def config_stats(config: str, tasks: Sequence[TaskRecord]) -> ConfigStats:
    """Answer-set sizes (distinct indexes), distinct keys and token ranges of one configuration.

    Document tokens are over the distinct documents (by ``doc_id``) the configuration uses."""
    docs = {d.doc_id: d.n_tokens for t in tasks for d in t.documents}
    return ConfigStats(
        config=config,
        setting=tasks[0].setting if tasks else "",
        length=tasks[0].length if tasks else "",
        tasks=len(tasks),
        n_documents=len(tasks[0].documents) if tasks else 0,
        distinct_keys=len({str(t.key) for t in tasks}),
        answer_sizes=dict(sorted(Counter(len(set(t.answer)) for t in tasks).items())),
        prompt_tokens=_min_mean_max(t.prompt_tokens for t in tasks),
        document_tokens=_min_mean_max(docs.values()),
    )


def _sizes_text(sizes: Mapping[int, int]) -> str:
    return ", ".join(f"{k}:{v}" for k, v in sorted(sizes.items()))


def render_card(
    title: str,
    description: str,
    stats: Sequence[ConfigStats],
    settings: Mapping[str, object],
    tokenizer: str,
    prompt_files: Mapping[str, str],
    with_data: bool = True,
    columns: Sequence[str] = DEFAULT_COLUMNS,
    answers_dir: str = ANSWERS_DIR,
) -> str:
    """A Hugging Face dataset card: YAML ``configs`` (one per configuration, split ``test``) and
    statistics tables. ``prompt_files`` maps config -> its Ref-Long prompt file (relative);
    ``with_data=False`` when no parquet files were written."""
    lines = ["---", "configs:" if with_data else "configs: []"]
    for s in stats if with_data else ():
        lines += [
            f"- config_name: {s.config}",
            "  data_files:",
            "  - split: test",
            f"    path: {DATA_DIR}/{s.config}.parquet",
        ]
    lines += ["---", "", f"# {title}", "", description.strip(), ""]
    lines += ["## Settings", "", "| setting | value |", "|---|---|"]
    lines += [f"| {k} | {json.dumps(v, ensure_ascii=False)} |" for k, v in settings.items()]
    lines += [
        "",
        "## Files",
        "",
        *(
            [f"- `{DATA_DIR}/<config>.parquet`: one row per task (columns {', '.join(columns)})."]
            if with_data
            else []
        ),
        "- Ref-Long JSON, drop-in for Ref-Long's evaluation: prompts in "
        + ", ".join(sorted({f"`{Path(p).parent.as_posix()}/`" for p in prompt_files.values()}))
        + f' (`{{"i": [key, prompt]}}`), answers in `{answers_dir}/<config>_answers.json` '
        '(`{"i": [key, [indexes]]}`).',
        f"- `{MANIFEST_NAME}`: tool version, settings, input and output sha256.",
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
        lines.append(
            f"| {s.config} | {s.tasks} | {s.n_documents} | {s.distinct_keys} | {_sizes_text(s.answer_sizes)} "
            f"| {s.mean_answer_size:.2f} | {p[0]} / {p[1]} / {p[2]} | {d[0]} / {d[1]} / {d[2]} |"
        )
    return "\n".join(lines) + "\n"


# -- manifest ------------------------------------------------------------------------------------


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def file_entry(path: Path, name: str) -> dict:
    """``{"path", "bytes", "sha256"}`` with a caller-chosen, machine-independent ``name``."""
    return {"path": name, "bytes": Path(path).stat().st_size, "sha256": sha256_file(path)}


def write_manifest(
    out_dir: Path,
    command: str,
    settings: Mapping[str, object],
    inputs: Sequence[dict],
    outputs: Sequence[Path],
    stats: Sequence[ConfigStats] = (),
) -> Path:
    """``manifest.json``: tool and version, settings, inputs (name, bytes, sha256), every output
    file (relative path, bytes, sha256) and the per-configuration statistics."""
    from reflong import __version__

    out_dir = Path(out_dir)
    manifest = {
        "tool": "reflong-build",
        "version": __version__,
        "command": command,
        "settings": dict(settings),
        "inputs": list(inputs),
        "outputs": [file_entry(p, Path(p).relative_to(out_dir).as_posix()) for p in sorted(outputs)],
        "statistics": [s.as_json() for s in stats],
    }
    path = out_dir / MANIFEST_NAME
    write_atomic(path, (json.dumps(manifest, indent=2, ensure_ascii=False) + "\n").encode("utf-8"))
    return path
