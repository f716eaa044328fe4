"""``reflong-build refresh``: the next window of a living benchmark, as a release beside the others.

It is ``paper`` for the month after the newest release (or ``--since``), written to
``RELEASES/<YYYY-MM>`` and finished with release notes and a release manifest (``assemble.release``).
Every option of ``paper`` is accepted and means the same; the store's incremental harvest,
cached index answers and PDFs, parsed texts, resolved edges and verdicts are reused as any rerun
reuses them, so a refresh asks only for what the new window adds.

Settings are carried between releases (``release_options``): an option not given is the previous
release's (its ``release.json``), a given one wins and is recorded for the next; a line before the
plan says which came from where. A refresh records the options it builds a release with
(``release.started.json``) before its first request; a rerun of a killed one finishes that release
with exactly those, and refuses other options, naming each (to change them, remove the release's
folder: the store keeps its work).

Exit codes (for cron): 0 a release built (or its plan printed with ``--dry-run``); 1 an error, said
in one line on stderr (a rerun resumes; the work done is kept); 2 a usage error; 3 nothing to build
yet: the window's citing pool is not over by the calendar (no request made), or the store's data,
after this run's incremental harvest, does not reach the pool's last month yet (``ingest.plan.
horizon``: a source that is behind, a world of the past; the harvest is kept); 130 interrupted.
"""

from __future__ import annotations

from datetime import date
from pathlib import Path

import click

from reflong.cli.command import ReflongCommand
from reflong.cli.options import writes_store
from reflong.cli.paper_cmd import paper, run_paper

ARXIV_RULE_S = 3.0  # arXiv's terms of use: one request every 3 seconds
NOT_YET_EXIT = 3
_OWN = {"since", "out_dir", "reuse_db", "db_path", "wait_lock"}


class NotYet(Exception):
    """The store's data does not reach the window's pool yet (raised after the metadata harvest,
    before the plan asks the index anything; ``refresh`` exits 3 with its message)."""


def plan_line(label: str, plan) -> str:
    """What the refresh will ask for and how long that takes at arXiv's rule (and the index's rate)."""
    index_made = sum(plan.index_requests.values())
    hours = (
        plan.hours_at_rules() + plan.metadata_requests * (0.0 if plan.local_catalog else ARXIV_RULE_S) / 3600
    )
    total = plan.metadata_requests + index_made + plan.to_fetch
    line = (
        f"refresh plan for release {label}: {total} requests (metadata {plan.metadata_requests}, "
        f"index {index_made} (estimated {plan.index_estimate}), PDFs {plan.to_fetch} to fetch of "
        f"{len(plan.picks)}, {plan.cached_pdfs} cached) = {hours:.2f} h at arXiv's 3 s rule and the index's rate"
    )  # bench/refresh.py parses this much: only append after it
    if plan.licenses is not None:
        line += f"; {plan.skipped_by_licenses} skipped by --licenses"
    return line


def check_data_reaches(engine, label: str, windows, pool_months: int) -> None:
    """Raise ``NotYet`` when the store's data (after this run's harvest) does not reach the last
    month of ``label``'s citing pool (``ingest.plan.horizon``)."""
    from reflong.ingest.plan.horizon import data_through, last_pool_month, newest_buildable, reaches

    through = data_through(engine)
    if through is None or reaches(through, windows.since, windows.seed_months, pool_months):
        return  # no data at all is the ingest's own error (nothing usable), said after the plan
    last = last_pool_month(windows.since, windows.seed_months, pool_months)
    newest = newest_buildable(through, windows.seed_months, pool_months)
    raise NotYet(
        f"release {label}: not yet: the store's data reaches {through:%Y-%m-%d} (its newest datestamp) "
        f"but the citing pool runs through {last:%Y-%m} (--pool-months {pool_months}); the newest window "
        f"it can build is {newest:%Y-%m}; nothing built, the harvest is kept: rerun when the source has more"
    )


def _since_option() -> click.Option:
    base = next(p for p in paper.params if p.name == "since")
    return click.Option(
        ["--since"],
        metavar="YYYY-MM",
        callback=base.callback,
        help="The window to build [default: the month after the newest release in --out]; required for "
        "the first. A finished one is rebuilt from the store alone.",
    )


@click.command(
    cls=ReflongCommand,
    # the window's shape and sizes, set once for the first release, are carried to the next ones
    common=(
        "releases_dir",
        "since",
        "db_path",
        "lengths",
        "difficulty",
        "n_tasks",
        "seed",
        "source_dir",
        "dry_run",
    ),
)
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
    reflong-build refresh --db store.db --out releases --since 2024-03   # the first release
    reflong-build refresh --db store.db --out releases --dry-run   # the next one's plan and hours
    reflong-build refresh --db store.db --out releases             # the next one (cron)

    Builds RELEASES/YYYY-MM as `paper` would, with RELEASE_NOTES.md and release.json. Options
    not given are the previous release's (a line says which came from where); a killed refresh,
    rerun, finishes its release with the options it was started with. Exit 0 built,
    1 error (rerun resumes), 2 usage, 3 nothing to build yet, 130 interrupted. docs/paper.md#releases.
    """
    from reflong import __version__
    from reflong.assemble.release.layout import (
        START_FILE,
        drop_start_record,
        next_label,
        previous_release,
        read_release_manifest,
        read_start_record,
        write_start_record,
    )
    from reflong.assemble.release.publish import publish_release
    from reflong.cli.release_options import carry, differing_options, options_json, recorded_options
    from reflong.db.engine import open_store
    from reflong.ingest.plan.windows import BuildWindows, add_months, parse_month

    ctx = click.get_current_context()
    root = Path(opts.pop("releases_dir"))
    label = opts["since"] or next_label(root)
    if label is None:
        raise click.UsageError(
            f"{root} holds no release yet: give --since YYYY-MM for the first one (e.g. --since 2024-03)"
        )
    folder = root / label
    own = read_release_manifest(folder)
    started = None if own is not None else read_start_record(folder)
    given = {
        name
        for name in opts
        if ctx.get_parameter_source(name)
        not in (click.core.ParameterSource.DEFAULT, click.core.ParameterSource.DEFAULT_MAP, None)
    }
    if started is not None:
        # A refresh of this release was killed: finish it exactly as it was started.
        recorded = recorded_options(started, where=str(folder / START_FILE))
        source = f"release {label}'s start record ({START_FILE}: a run that did not finish)"
        differ = differing_options(recorded, {name: opts[name] for name in given})
        if differ:
            raise click.UsageError(
                f"release {label} was started with other options and did not finish: "
                + "; ".join(differ)
                + f". Rerun with no options (or the same ones) to finish it as started; to build it with "
                f"the new ones instead, remove {folder} and rerun with them (the store keeps its PDFs, "
                "texts and edges)"
            )
    elif own is not None:
        recorded = recorded_options(own, where=str(folder / "release.json"))
        source = f"release {label}'s release.json"
    else:
        prev = previous_release(root, label)
        recorded = recorded_options(prev.manifest, where=str(prev.folder / "release.json")) if prev else {}
        source = f"release {prev.label}'s release.json" if prev else None
    defaults = {name: value for name, value in opts.items() if name not in given}
    origin = carry(opts, recorded, given, defaults, source)
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
        ctx.exit(NOT_YET_EXIT)
    finished = own is not None
    if finished:
        click.echo(origin.line(label))
        click.echo(
            f"release {label} is finished in {folder}: rebuilding it from the store alone (no request)",
            err=True,
        )
        if opts["dry_run"]:
            click.echo(f"refresh plan for release {label}: 0 requests (finished; rebuilt from the store)")
            return
    options = options_json(opts)
    if not finished and not opts["dry_run"]:
        write_start_record(folder, label, options, __version__)  # before the first request
    opts.update(since=label, out_dir=str(folder), reuse_db=finished)
    engine = open_store(opts["db_path"])

    def on_plan(plan) -> None:
        click.echo(origin.line(label))  # beside the plan: errors before it stay one line (cron)
        click.echo(plan_line(label, plan))

    try:
        result = run_paper(
            opts,
            on_plan=on_plan,
            on_harvest=lambda: check_data_reaches(engine, label, windows, opts["pool_months"]),
        )
    except NotYet as exc:
        click.echo(str(exc), err=True)
        if not finished:
            drop_start_record(folder)  # nothing built: the release is not begun, next month asks again
        ctx.exit(NOT_YET_EXIT)
    if result is None:
        return  # --dry-run: the plan is printed, nothing downloaded
    click.echo(result.line())
    published = publish_release(engine, root, label, windows.label, options)
    click.echo(published.line())


refresh.params += [_since_option(), *(p for p in paper.params if p.name not in _OWN)]

COMMANDS = [refresh]
