"""``reflong-build report`` and ``reflong-build audit``: look at a build, and fix its ground truth."""

from __future__ import annotations

from pathlib import Path

import click

from reflong.cli.command import ReflongCommand, ReflongGroup, Renamed
from reflong.cli.options import (
    db_option,
    hold_store,
    output_format,
    reading_store,
    refuse_unfinished,
    require_store,
)
from reflong.common.errors import ReflongError
from reflong.db.engine import open_store


def _is_build_id(value: str) -> bool:
    """``--build 3`` as it was before 0.2 (a build id, now ``--build-id``), not a folder named 3."""
    return value.isdigit() and not Path(value).is_dir()


#: The build folder was ``--out`` here, and ``--build`` was a build id (before 0.2).
BUILD_RENAMES = (
    Renamed("--out", "--build"),
    Renamed("--build", "--build-id", when=_is_build_id, when_text="a build id"),
)


@click.command(cls=ReflongCommand, renamed=BUILD_RENAMES)
@click.option(
    "--build",
    "out_dir",
    type=click.Path(file_okay=False),
    required=True,
    help="The build's folder (paper's --out); report.html is written there (the build written to it is used).",
)
@click.option("--build-id", "build_id", type=int, default=None, help="Report on this build id instead.")
@click.option(
    "--compare",
    type=click.Path(file_okay=False, exists=True),
    default=None,
    help="Folder of Ref-Long *_answers.json files to compare answer-set sizes with.",
)
@db_option
def report(out_dir: str, build_id: int | None, compare: str | None, db_path: str) -> None:
    """Write one self-contained HTML page (inline SVG plots) about a build to OUT/report.html."""
    from reflong.assemble.audit.report import collect_report, write_report

    refuse_unfinished(out_dir)
    compare_dir = Path(compare) if compare else None
    if compare_dir is not None and not any(compare_dir.glob("*_answers.json")):
        raise ReflongError(
            f"--compare {compare}: no *_answers.json files there (give a Ref-Long answers folder)"
        )
    data = collect_report(reading_store(db_path), build_id, out_dir, compare_dir)
    path = write_report(data, Path(out_dir))
    click.echo(f"report on build {data.build['id']}: {path}")


def _scope_options(f):
    f = click.option("--build-id", "build_id", type=int, default=None, help="Audit this build id.")(f)
    f = click.option(
        "--build",
        "out_dir",
        type=click.Path(file_okay=False),
        default=None,
        help="Audit the build written to this folder (paper's --out) [default: the latest build].",
    )(f)
    f = click.option(
        "--confidence",
        type=float,
        default=None,
        help="Accepted title-only edges scoring below this are listed [default: 95].",
    )(f)
    f = click.option(
        "--near-dup",
        type=float,
        default=None,
        help="Seed titles at least this similar (rapidfuzz token_set_ratio) are listed [default: 75; over 100: off].",
    )(f)
    return f


_sub_db = click.option(
    "--db",
    "sub_db",
    type=click.Path(dir_okay=False),
    default=None,
    help="SQLite store (default: the audit group's --db, REFLONG_DB or ./reflong.db).",
)


def _queue(db_path: str, build_id, out_dir, confidence, near_dup, include_judged: bool):
    from reflong.assemble.audit.queue import DEFAULT_CONFIDENCE, DEFAULT_NEAR_DUP, QueueOptions, build_queue

    options = QueueOptions(
        DEFAULT_CONFIDENCE if confidence is None else confidence,
        DEFAULT_NEAR_DUP if near_dup is None else near_dup,
        include_judged,
    )
    refuse_unfinished(out_dir)
    return build_queue(reading_store(db_path), build_id, out_dir, options)


def _short(text: str, width: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 3] + "..."


def _table(rows) -> str:
    from collections import Counter

    lines = [f"{'kind':<14} {'key':<30} {'method':<15} {'score':>6}  {'band':<6}  citing title | reference"]
    for r in rows:
        score = "" if r.score is None else f"{r.score:.1f}"
        title = _short(r.citing_title or r.seed_title, 40)
        lines.append(
            f"{r.kind:<14} {_short(r.key, 30):<30} {r.method:<15} {score:>6}  {r.band:<6}  "
            f"{title} | {_short(r.reference, 70)}"
        )
    counts = Counter(r.kind for r in rows)
    summary = ", ".join(f"{n} {kind}" for kind, n in sorted(counts.items())) or "nothing to review"
    lines.append(f"{len(rows)} rows: {summary}")
    return "\n".join(lines)


@click.group(cls=ReflongGroup, renamed=BUILD_RENAMES, invoke_without_command=True)
@_scope_options
@output_format(("table", "jsonl", "csv"), "A table to read, JSON lines for scripts, or the CSV review sheet.")
@click.option("--all", "include_judged", is_flag=True, help="Also list edges that already have a verdict.")
@db_option
@click.pass_context
def audit(ctx, build_id, out_dir, confidence, near_dup, fmt, include_judged, db_path) -> None:
    """List what in a build's ground truth deserves a human look, most doubtful first.

    \b
    Kinds, in order: distractor_fp (a distractor's hit: wrong by construction), review (the
    resolver's review band), title_only (accepted on title similarity alone, below --confidence),
    near_dup_seeds (seeds with near-duplicate titles), index_disagree (the citation index and
    the text disagree on a pair: index_only or text_only), dropped_task (failed re-verification).
    Then: `audit export --csv FILE`, fill the verdict column, `audit import FILE`; or one at a time:
    `audit verdict 2405.01234v2->2403.00001 reject --why "..."`.
    """
    ctx.ensure_object(dict)
    ctx.obj["db_path"] = db_path
    if ctx.invoked_subcommand is not None:
        ctx.obj.update(build_id=build_id, out_dir=out_dir, confidence=confidence, near_dup=near_dup)
        return
    import json
    import sys

    rows = _queue(db_path, build_id, out_dir, confidence, near_dup, include_judged)
    if fmt == "jsonl":
        for r in rows:
            click.echo(json.dumps(r.as_dict(), ensure_ascii=False, sort_keys=True))
    elif fmt == "csv":
        from reflong.assemble.audit.queue import write_sheet

        write_sheet(rows, sys.stdout)
    else:
        click.echo(_table(rows))


@audit.command("export", cls=ReflongCommand, renamed=BUILD_RENAMES)
@click.option("--csv", "csv_path", type=click.Path(dir_okay=False), required=True, help="Sheet to write.")
@_scope_options
@click.option("--all", "include_judged", is_flag=True, help="Also list edges that already have a verdict.")
@_sub_db
@click.pass_context
def audit_export(ctx, sub_db, csv_path, build_id, out_dir, confidence, near_dup, include_judged) -> None:
    """Write a review sheet (CSV): one row per doubtful edge, with empty verdict and why columns."""
    from reflong.assemble.audit.queue import export_sheet

    o = ctx.obj
    rows = _queue(
        sub_db or o["db_path"],
        build_id if build_id is not None else o.get("build_id"),
        out_dir or o.get("out_dir"),
        confidence if confidence is not None else o.get("confidence"),
        near_dup if near_dup is not None else o.get("near_dup"),
        include_judged,
    )
    n = export_sheet(rows, Path(csv_path))
    click.echo(
        f"{n} edges to review written to {csv_path}: fill 'verdict' with confirm or reject (and 'why')."
    )


@audit.command("import")
@click.argument("sheet", type=click.Path(dir_okay=False))
@click.option("--who", default=None, help="Reviewer name [default: git user.name, else the OS user].")
@_sub_db
@click.pass_context
def audit_import(ctx, sub_db, sheet, who) -> None:
    """Read a filled review sheet back and store its verdicts (rows with an empty verdict are skipped)."""
    from reflong.assemble.audit.queue import import_sheet

    db = sub_db or ctx.obj["db_path"]
    require_store(db)  # a mistyped --db must not start a store no build reads
    hold_store(db)
    result = import_sheet(open_store(db), Path(sheet), who)
    click.echo(
        f"{result.stored} verdicts stored, {result.unchanged} unchanged, {result.blank} rows without a verdict."
    )


@audit.command("verdict")
@click.argument("edge")
@click.argument("verdict", type=click.Choice(["confirm", "reject"], case_sensitive=False))
@click.option("--why", default="", help="Why (stored with the verdict).")
@click.option("--who", default=None, help="Reviewer name [default: git user.name, else the OS user].")
@_sub_db
@click.pass_context
def audit_verdict(ctx, sub_db, edge, verdict, why, who) -> None:
    """Confirm or reject one edge, EDGE = CITINGvN->SEED (e.g. 2405.01234v2->2403.00001)."""
    from reflong.assemble.audit.queue import edge_exists
    from reflong.db.audits import EdgeKey, record_verdict
    from reflong.db.engine import session_for

    key = EdgeKey.parse(edge)
    db = sub_db or ctx.obj["db_path"]
    require_store(db)  # a mistyped --db must not start a store no build reads
    hold_store(db)
    engine = open_store(db)
    with session_for(engine) as session:
        changed = record_verdict(session, key, verdict, why=why, who=who)
        session.commit()
    click.echo(f"{key}: {verdict.lower()}" + ("" if changed else " (already recorded)"))
    if not edge_exists(engine, key):
        click.echo(
            f"note: the store has no citation edge {key} (yet); the verdict is kept for when it appears."
        )


COMMANDS = [report, audit]
