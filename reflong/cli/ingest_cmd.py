"""``reflong-build ingest``: metadata and version-pinned PDFs into the store."""

from __future__ import annotations

import click

from reflong.cli.command import ReflongCommand
from reflong.cli.ingest_options import ingest_options, ingest_settings
from reflong.cli.options import writes_store
from reflong.common.errors import ReflongError
from reflong.common.progress import tqdm_progress
from reflong.db.engine import open_store
from reflong.ingest.stage import run_ingest


@click.command(
    cls=ReflongCommand,
    common=(
        "since",
        "db_path",
        "categories",
        "max_papers",
        "source_dir",
        "no_pdfs",
        "dry_run",
    ),
)
@ingest_options
@writes_store
def ingest(db_path: str, **opts) -> None:
    """Fetch metadata and PDFs from arXiv (or --source DIR) and assign roles by date.

    Metadata comes from arXiv's OAI-PMH interface (arXivRaw, every version with its date),
    committed page by page; a rerun resumes, a later run asks only for what changed since.
    --metadata api uses the search API instead; --no-pdfs stops after metadata and roles.

    \b
    seed window        [since, since+seed-months)      metadata only
    citing pool        after the seed window           PDFs at their latest version (planned)
    distractor window  [since-distractor-months, since) PDFs at the newest version before since
    The PDF plan (keys and citers from a citation index, controls, distractors, or a stratified
    pool sample without one) is printed before any download; --dry-run prints it and stops.
    Reruns resume: no finished metadata page or cached PDF is fetched again, rows are never
    duplicated. A 403 from arXiv stops the run at once; rerun the same command later.
    """
    summary = run_ingest(
        open_store(db_path),
        ingest_settings(opts),
        progress=tqdm_progress,
        plan_callback=lambda plan: click.echo("\n".join(plan.lines())),
    )
    click.echo(summary.line())
    if why := summary.nothing_usable():
        raise ReflongError(why)


COMMANDS = [ingest]
