"""The Hugging Face `datasets` dataset: ``data/<config>.parquet``, one row per task.

Why through `datasets`' own parquet settings: the schema (with the features in its metadata)
travels with the file, so ``load_dataset`` reads the columns back with their types. The streaming
writer feeds `datasets`' parquet options row group by row group: the same bytes as
``Dataset.to_parquet`` while the data fits one row group of ``ROW_GROUP_BYTES`` (as `datasets`
writes it), beyond that the same table in row groups of that size. Memory holds one row group.

Why pyarrow never writes to the disk itself: with content-defined chunking (`datasets`' default,
``DEFAULT_CDC_OPTIONS``) pyarrow 26 checks each chunk's write with a fatal assertion
(``column_writer.cc``: "Check failed: _s.ok() ... WriteArrowDense"), so a sink that fails inside
``write_table`` (disk full) aborts the whole process (SIGABRT, exit 134) and leaves the ``.part``
behind, whether the sink is a path or a Python file. So pyarrow writes into memory
(``_MemorySink``, which cannot fail) and this module copies each finished row group, then the
footer, to the ``.part`` file with plain Python writes: a full disk is an ``OSError`` like any
other, and the writer's ``abort`` removes the file.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import BinaryIO

from reflong.assemble.records import TaskRecord
from reflong.assemble.writers.base import OutputSpec, StagedFiles
from reflong.common.atomic_files import atomic_target

DATA_DIR = "data"
ROW_GROUP_BYTES = 100 * 1024 * 1024  # `datasets`' own target for a parquet row group (uncompressed)


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


def parquet_path(out_dir: Path, config: str) -> Path:
    return Path(out_dir) / DATA_DIR / f"{config}.parquet"


def write_parquet(out_dir: Path, config: str, tasks: Sequence[TaskRecord], features) -> Path:
    """``data/<config>.parquet`` from a whole list of tasks via ``Dataset.to_parquet``: the
    reference the streaming ``ParquetDatasetWriter`` is tested against.

    The Dataset gets a fixed fingerprint: `datasets` would otherwise pickle-hash the whole table
    just to name a cache entry we never use (40% of the write time)."""
    from datasets import Dataset, DatasetInfo
    from datasets.table import InMemoryTable
    from datasets.utils.logging import disable_progress_bar

    disable_progress_bar()  # the CLI shows its own bars; datasets' would interleave with them
    path = parquet_path(out_dir, config)
    table = InMemoryTable.from_pylist([task_row(t) for t in tasks], schema=features.arrow_schema)
    dataset = Dataset(table, info=DatasetInfo(features=features), fingerprint=f"reflong-{config}")
    with atomic_target(path) as tmp:
        dataset.to_parquet(str(tmp))
    return path


class _MemorySink:
    """A write-only file object for pyarrow that keeps the bytes until ``drain`` copies them out.

    pyarrow calls ``write``/``tell``/``flush``/``close``; none of them touches the disk, so nothing
    can fail inside pyarrow's writer (see the module doc). ``drain`` is called between pyarrow's
    calls, from our code, where an ``OSError`` unwinds normally."""

    def __init__(self, target: BinaryIO) -> None:
        self.target = target
        self.buffer = bytearray()
        self.position = 0
        self.closed = False

    def write(self, data) -> int:
        n = len(data)
        self.buffer += data
        self.position += n
        return n

    def tell(self) -> int:
        return self.position

    def flush(self) -> None:
        pass

    def writable(self) -> bool:
        return True

    def close(self) -> None:
        self.closed = True  # the target is closed by its owner (StagedFiles)

    def drain(self) -> None:
        """Copy what pyarrow wrote so far to the target file (memory then holds nothing)."""
        if self.buffer:
            self.target.write(self.buffer)
            self.buffer = bytearray()


class ParquetDatasetWriter:
    """``Dataset.to_parquet`` of `datasets`, fed task by task: the same writer options, schema
    (with the features in its metadata) and closing metadata; rows buffered up to one row group."""

    def __init__(self, features, row_group_bytes: int | None = None) -> None:
        self.features = features
        self.row_group_bytes = row_group_bytes
        self._files = StagedFiles()
        self._writer = None

    @classmethod
    def for_spec(cls, spec: OutputSpec) -> ParquetDatasetWriter | None:
        return None if spec.features is None else cls(spec.features)

    def open(self, out_dir: Path, config: str) -> None:
        import pyarrow.parquet as pq
        from datasets import config as datasets_config
        from datasets.arrow_writer import get_parquet_column_options

        self._files = StagedFiles()
        self._rows: list[dict] = []
        self._nbytes = 0
        self._limit = self.row_group_bytes or ROW_GROUP_BYTES  # read now: benches may lower it
        schema = self.features.arrow_schema
        self._cdc = datasets_config.DEFAULT_CDC_OPTIONS
        self._sink = _MemorySink(self._files.open(parquet_path(out_dir, config)))
        self._writer = pq.ParquetWriter(
            self._sink,
            schema=schema,
            use_content_defined_chunking=self._cdc,
            write_page_index=True,
            **get_parquet_column_options(self.features, schema),
        )

    def add(self, task: TaskRecord) -> None:
        row = task_row(task)
        self._rows.append(row)
        self._nbytes += _row_bytes(row)
        if self._nbytes >= self._limit:
            self._flush()

    def _flush(self) -> None:
        import pyarrow as pa

        if self._rows:
            self._writer.write_table(pa.Table.from_pylist(self._rows, schema=self.features.arrow_schema))
            self._sink.drain()  # a full disk fails here, in Python, not inside pyarrow
        self._rows, self._nbytes = [], 0

    def close(self) -> list[Path]:
        self._flush()
        if self._cdc is not False:
            self._writer.add_key_value_metadata({"content_defined_chunking": json.dumps(self._cdc)})
        self._writer.close()
        self._writer = None
        self._sink.drain()  # the footer
        return self._files.commit()

    def abort(self) -> None:
        writer, self._writer, self._rows = self._writer, None, []
        if writer is not None:
            with contextlib.suppress(Exception):  # into memory: only pyarrow's state is freed
                writer.close()
        self._files.discard()


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
