"""``reflong-build refresh``: the next window of a living benchmark, as a release beside the others.

It is ``paper`` for the month after the newest release (or ``--since``), written to
``RELEASES/<YYYY-MM>`` and finished with release notes and a release manifest (``assemble.release``).
Every option of ``paper`` is accepted and means the same; the store's incremental harvest,
cached index answers and PDFs, parsed texts, resolved edges and verdicts are reused as any rerun
reuses them, so a refresh asks only for what the new window adds.

Exit codes (for cron): 0 a release built (or its plan printed with ``--dry-run``); 1 an error, said
in one line on stderr (a rerun resumes; the work done is kept); 2 a usage error; 3 nothing to build
yet (the window's citing papers are still being published); 130 interrupted.
"""

from __future__ import annotations

from datetime import date
from pathlib import Path

import click

from reflong.cli.options import writes_store
from reflong.cli.paper_cmd import paper, run_paper

ARXIV_RULE_S = 3.0  # arXiv's terms of use: one request every 3 seconds
NOT_YET_EXIT = 3
_OWN = {"since", "out_dir", "reuse_db", "db_path", "wait_lock"}


def plan_line(label: str, plan) -> str:
    """What the refresh will ask for and how long that takes at arXiv's rule (and the index's rate)."""
    index_made = sum(plan.index_requests.values())
    hours = (
        plan.hours_at_rules() + plan.metadata_requests * (0.0 if plan.local_catalog else ARXIV_RULE_S) / 3600
    )
    total = plan.metadata_requests + index_made + plan.to_fetch
    return (
        f"refresh plan for release {label}: {total} requests (metadata {plan.metadata_requests}, "
        f"index {index_made} (estimated {plan.index_estimate}), PDFs {plan.to_fetch} to fetch of "
        f"{len(plan.picks)}, {plan.cached_pdfs} cached) = {hours:.2f} h at arXiv's 3 s rule and the index's rate"
    )


def _since_option() -> click.Option:
    base = next(p for p in paper.params if p.name == "since")
    return click.Option(
        ["--since"],
        metavar="YYYY-MM",
        callback=base.callback,
        help="The window to build [default: the month after the newest release in --out; an unfinished "
        "release first]. Required for the first release. A finished release is rebuilt from the store "
        "alone (no request).",
    )


@click.command()
@writes_store
@click.option(
    "--out",
    "releases_dir",
    type=click.Path(file_okay=False),
    required=True,
    help="The release folder (one dataset): each window in its own YYYY-MM/ sub-folder.",
)
def refresh(**opts) -> None:
    """Build the next window of the Paper benchmark as a new release, reusing the store.

    \b
    reflong-build refresh --db store.db --out releases              # the month after the newest release
    reflong-build refresh --db store.db --out releases --dry-run    # its plan: requests, PDFs, hours
    reflong-build refresh --db store.db --out releases --since 2024-03   # the first release

    The plan is printed first (as `paper --dry-run` does) with the requests and hours it needs at
    arXiv's 3 s rule. Then the window is built like `paper` into RELEASES/YYYY-MM, with
    RELEASE_NOTES.md (keys and tasks added; tasks of earlier releases whose ground truth changed and
    why; papers with new versions or withdrawn since) and release.json (window, tool and resolver
    versions, settings, hashes); RELEASES/README.md lists every release (load it with `datasets`:
    one config per setting, a `release` column). A rerun resumes; rerunning a finished release's
    --since rebuilds it from the store only, byte-identical.

    \b
    Exit codes: 0 built (or planned), 1 error (one line; rerun resumes), 2 usage,
    3 nothing to build yet (the window's citing papers are still being published), 130 interrupted.
    """
    from reflong.assemble.release.layout import next_label, read_release_manifest
    from reflong.assemble.release.publish import publish_release
    from reflong.db.engine import open_store
    from reflong.ingest.plan.windows import BuildWindows, add_months, parse_month

    root = Path(opts.pop("releases_dir"))
    label = opts["since"] or next_label(root)
    if label is None:
        raise click.UsageError(
            f"{root} holds no release yet: give --since YYYY-MM for the first one (e.g. --since 2024-03)"
        )
    windows = BuildWindows(
        parse_month(label), opts["seed_months"], opts["pool_months"], opts["distractor_months"]
    )
    pool_end = add_months(windows.since, opts["seed_months"] + opts["pool_months"])
    if pool_end > date.today():
        click.echo(
            f"release {label}: not yet: its citing papers are published until {pool_end:%Y-%m-%d} "
            f"(--pool-months {opts['pool_months']}); nothing built, rerun after that day",
            err=True,
        )
        click.get_current_context().exit(NOT_YET_EXIT)
    folder = root / label
    finished = read_release_manifest(folder) is not None
    if finished:
        click.echo(
            f"release {label} is finished in {folder}: rebuilding it from the store alone (no request)",
            err=True,
        )
        if opts["dry_run"]:
            click.echo(f"refresh plan for release {label}: 0 requests (finished; rebuilt from the store)")
            return
    opts.update(since=label, out_dir=str(folder), reuse_db=finished)
    result = run_paper(opts, on_plan=lambda plan: click.echo(plan_line(label, plan)))
    if result is None:
        return  # --dry-run: the plan is printed, nothing downloaded
    click.echo(result.line())
    published = publish_release(open_store(opts["db_path"]), root, label, windows.label)
    click.echo(published.line())


refresh.params += [_since_option(), *(p for p in paper.params if p.name not in _OWN)]

COMMANDS = [refresh]
