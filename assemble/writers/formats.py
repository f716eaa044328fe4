"""The output formats every build writes, in this order.

A new format is one module beside this one, a class with ``for_spec``/``open``/``add``/``close``/
``abort`` (``base.Format``, ``base.FormatWriter``), and its name in ``FORMATS``. Its files are then
written for every configuration of every subset, listed in the manifest and owned by the build
like the others.
"""

from __future__ import annotations

from reflong.assemble.writers.base import Format, FormatWriter, OutputSpec
from reflong.assemble.writers.chat_jsonl import ChatJsonlWriter
from reflong.assemble.writers.parquet import ParquetDatasetWriter
from reflong.assemble.writers.reflong_json import ReflongJsonWriter

FORMATS: tuple[Format, ...] = (ReflongJsonWriter, ParquetDatasetWriter, ChatJsonlWriter)


def format_writers(spec: OutputSpec) -> list[FormatWriter]:
    """A fresh writer of every format in ``FORMATS`` that ``spec`` wants, in list order."""
    return [writer for fmt in FORMATS if (writer := fmt.for_spec(spec)) is not None]
