"""``reflong-build ingest``: metadata and version-pinned PDFs into the store."""

from __future__ import annotations

from pathlib import Path

import click

from reflong.cli.options import db_option
from reflong.db.engine import open_store
from reflong.errors import ReflongError
from reflong.ingest.ingest_stage import DEFAULT_CATEGORIES, IngestSettings, run_ingest
from reflong.ingest.netpolicy import DEFAULT_ARXIV_URL, NetPolicy
from reflong.ingest.windows import parse_month
from reflong.progress import tqdm_progress


def _since(_ctx, _param, value: str | None) -> str | None:
    if value is not None:
        try:
            parse_month(value)
        except ReflongError as exc:
            raise click.BadParameter(str(exc).split(": ", 1)[-1]) from None
    return value


def _categories(_ctx, _param, value: str) -> tuple[str, ...]:
    return tuple(c.strip() for c in value.split(",") if c.strip())


@click.command()
@click.option(
    "--since", metavar="YYYY-MM", callback=_since, help="First month of the seed window (required for arXiv)."
)
@click.option("--seed-months", type=click.IntRange(min=1), default=1, show_default=True)
@click.option(
    "--pool-months",
    type=click.IntRange(min=0),
    default=6,
    show_default=True,
    help="Months of citing papers after the seed window.",
)
@click.option(
    "--distractor-months",
    type=click.IntRange(min=0),
    default=2,
    show_default=True,
    help="Months of earlier papers before the seed window.",
)
@click.option(
    "--categories",
    default=",".join(DEFAULT_CATEGORIES),
    show_default=True,
    callback=_categories,
    help="Comma-separated arXiv categories (cs.* for a prefix; empty: all).",
)
@click.option("--max-papers", type=click.IntRange(min=1), default=None, help="At most N papers per window.")
@db_option
@click.option(
    "--cache",
    "cache_dir",
    type=click.Path(file_okay=False),
    default="reflong-cache",
    show_default=True,
    envvar="REFLONG_CACHE",
    help="PDF cache (by id+version). Env: REFLONG_CACHE.",
)
@click.option(
    "--arxiv-url",
    default=DEFAULT_ARXIV_URL,
    show_default=True,
    help="Base URL of an arXiv-compatible endpoint (/api/query and /pdf/<id>vN).",
)
@click.option(
    "--source",
    "source_dir",
    type=click.Path(exists=True, file_okay=False),
    default=None,
    help="A local catalog folder (papers.jsonl + PDFs) instead of arXiv.",
)
@click.option(
    "--delay",
    type=click.FloatRange(min=0),
    default=3.0,
    show_default=True,
    help="Seconds between requests (arXiv asks for >= 3).",
)
@click.option(
    "--timeout",
    type=click.FloatRange(min=0.1),
    default=30.0,
    show_default=True,
    help="Seconds to wait for an answer before retrying.",
)
@click.option(
    "--retries",
    type=click.IntRange(min=0),
    default=3,
    show_default=True,
    help="Retries (with exponential backoff) on 429/5xx/timeouts/empty pages.",
)
def ingest(
    since: str | None,
    seed_months: int,
    pool_months: int,
    distractor_months: int,
    categories: tuple[str, ...],
    max_papers: int | None,
    db_path: str,
    cache_dir: str,
    arxiv_url: str,
    source_dir: str | None,
    delay: float,
    timeout: float,
    retries: int,
) -> None:
    """Fetch metadata and PDFs from arXiv (or --source DIR) and assign roles by date.

    \b
    seed window        [since, since+seed-months)      metadata only
    citing pool        after the seed window           PDFs at their latest version
    distractor window  [since-distractor-months, since) PDFs at the newest version before since
    Reruns resume: cached PDFs are not fetched again, rows are never duplicated.
    """
    settings = IngestSettings(
        since=since,
        seed_months=seed_months,
        pool_months=pool_months,
        distractor_months=distractor_months,
        categories=categories,
        max_papers=max_papers,
        cache_dir=Path(cache_dir),
        arxiv_url=arxiv_url,
        source_dir=Path(source_dir) if source_dir else None,
        net=NetPolicy(delay=delay, timeout=timeout, retries=retries),
    )
    summary = run_ingest(open_store(db_path), settings, progress=tqdm_progress)
    click.echo(summary.line())


COMMANDS = [ingest]
