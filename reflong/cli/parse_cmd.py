"""``reflong-build parse``: downloaded PDFs -> clean text, references section and token chunks."""

from __future__ import annotations

import click

from reflong.cli.options import (
    check_tokenizer,
    default_of,
    existing_store,
    shown_whole,
    writes_existing_store,
)
from reflong.common.errors import ReflongError
from reflong.common.progress import tqdm_progress
from reflong.ingest.parse.settings import ParseSettings


@click.command()
@writes_existing_store
@click.option(
    "--workers",
    type=click.IntRange(1, 64),
    default=default_of(ParseSettings, "workers"),
    show_default=True,
    help="Parser processes.",
)
@click.option(
    "--chunk-tokens",
    type=click.IntRange(64, 100_000),
    default=default_of(ParseSettings, "chunk_tokens"),
    show_default=True,
    help="Largest chunk in tokens; chunks other than a section's last hold at least half of it.",
)
@click.option(
    "--tokenizer",
    default=default_of(ParseSettings, "tokenizer"),
    show_default=True,
    callback=check_tokenizer,
    help="o200k_base, cl100k_base or a path to a Hugging Face tokenizer.json.",
)
@click.option(
    "--timeout",
    "timeout_s",
    type=click.FloatRange(1),
    default=shown_whole(default_of(ParseSettings, "timeout_s")),
    show_default=True,
    help="Seconds one PDF may take before its worker is stopped and the PDF recorded.",
)
@click.option(
    "--memory-mb",
    type=click.IntRange(0),
    default=default_of(ParseSettings, "memory_mb"),
    show_default=True,
    help="MiB a worker may add while parsing (address space past its size at start; a PDF past it is "
    "recorded as memory-limit). What a worker starts with, shared with this process after fork, is "
    "outside the cap, so its RSS can read higher. 0: none.",
)
@click.option("--retry-failed", is_flag=True, help="Parse again PDFs that failed with this parser version.")
def parse(
    db_path: str,
    workers: int,
    chunk_tokens: int,
    tokenizer: str,
    timeout_s: float,
    memory_mb: int,
    retry_failed: bool,
) -> None:
    """Parse every downloaded, not-yet-parsed PDF into body, references and ~1K-token chunks.

    Reruns parse only what is missing (keyed by PDF sha256 and parser version).
    """
    # Imported here: PyMuPDF (and its layout module) costs ~1.4 s, paid by every `--help` otherwise.
    from reflong.ingest.parse.stage import nothing_parsed, run_parse

    settings = ParseSettings(
        workers=workers,
        chunk_tokens=chunk_tokens,
        tokenizer=tokenizer,
        timeout_s=timeout_s,
        memory_mb=memory_mb,
        retry_failed=retry_failed,
    )
    report = run_parse(existing_store(db_path), settings, progress=tqdm_progress)
    rate = f", {report.pages / report.seconds:.0f} pages/s" if report.seconds and report.pages else ""
    click.echo(
        f"parsed {report.parsed} PDFs ({report.pages} pages, {report.chunks} chunks{rate}); "
        f"{report.without_references} without a references section; "
        f"{report.skipped} already parsed"
        + (f" ({report.rechunked} re-chunked)" if report.rechunked else "")
        + f"; failed {report.failed}"
        + (
            " (" + ", ".join(f"{k}={v}" for k, v in sorted(report.failures.items())) + ")"
            if report.failures
            else ""
        )
    )
    if why := nothing_parsed(report):
        raise ReflongError(why)


COMMANDS = [parse]
