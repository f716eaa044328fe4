"""The parse stage's settings, apart from the stage: the CLI reads their defaults while defining
its options, and importing the stage would cost every ``--help`` PyMuPDF's import (~1 s)."""

from __future__ import annotations

from dataclasses import dataclass

from reflong.common.tokenizer import DEFAULT_TOKENIZER
from reflong.ingest.parse.chunking import DEFAULT_CHUNK_TOKENS


@dataclass(frozen=True)
class ParseSettings:
    workers: int = 2
    chunk_tokens: int = DEFAULT_CHUNK_TOKENS
    tokenizer: str = DEFAULT_TOKENIZER
    timeout_s: float = 120.0  # per document, wall clock
    # Address space a worker may add while parsing, on top of what it maps at start (its
    # copy-on-write share of the parent and the tokenizer): RLIMIT_AS = size at start + this.
    memory_mb: int = 2048
    batch_size: int = 16  # results per write transaction
    retry_failed: bool = False
