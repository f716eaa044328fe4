"""``cite``, ``resolve``, ``edges``, ``refs``: reference lists, resolution and their evidence."""

from __future__ import annotations

import json
import re

import click
from sqlmodel import Session, select

from reflong.citations.fields.grobid import DEFAULT_TIMEOUT_S
from reflong.citations.stages.cite_stage import run_cite
from reflong.cli.command import ReflongCommand, Renamed
from reflong.cli.options import (
    band_options,
    db_option,
    default_of,
    existing_store,
    output_format,
    reading_store,
    thresholds_from,
    writes_existing_store,
)
from reflong.common.errors import ReflongError
from reflong.common.progress import tqdm_progress

_ID = re.compile(r"^(?P<id>\d{4}\.\d{4,5}|[a-z\-]+(?:\.[A-Za-z]{2})?/\d{7})(?:v(?P<v>\d+))?$")

listing_format = output_format(("table", "jsonl"), "Human-readable table or JSON lines for other tools.")


@click.command()
@writes_existing_store
@click.option(
    "--grobid-url", default=None, help="GROBID server (e.g. http://localhost:8070); default: built-in parser."
)
@click.option(
    "--grobid-fallback", is_flag=True, help="Use the built-in parser if GROBID is down or fails on a PDF."
)
@click.option(
    "--grobid-service",
    type=click.Choice(["references", "fulltext"]),
    default=default_of(run_cite, "grobid_service"),
    show_default=True,
    help="GROBID endpoint: processReferences or processFulltextDocument.",
)
@click.option(
    "--grobid-timeout",
    type=click.FloatRange(min=1),
    default=DEFAULT_TIMEOUT_S,
    show_default=True,
    help="Seconds GROBID may take for one PDF; then the PDF is recorded as grobid-timeout.",
)
@click.option(
    "--retry-failed",
    is_flag=True,
    help="Also redo reference lists stored empty (no entries found), e.g. after a faulty GROBID.",
)
def cite(
    db_path: str,
    grobid_url: str | None,
    grobid_fallback: bool,
    grobid_service: str,
    grobid_timeout: float,
    retry_failed: bool,
) -> None:
    """Split every parsed paper's references section into parsed entries (built-in or GROBID).

    A paper GROBID failed on (error, timeout, an answer that is not TEI) is recorded and asked
    again on the next run; lists stored empty are redone with --retry-failed.
    """
    r = run_cite(
        existing_store(db_path),
        grobid_url,
        grobid_fallback,
        grobid_service,
        progress=tqdm_progress,
        retry_failed=retry_failed,
        grobid_timeout=grobid_timeout,
    )
    parsers = ", ".join(f"{k}: {v}" for k, v in sorted(r.by_parser.items())) or "-"
    click.echo(
        f"cite: {r.papers} parsed papers, {r.cited} cited ({parsers}), {r.skipped} up to date, "
        f"{r.failed} with a recorded problem; {r.references} references stored"
    )
    if r.failed and not r.cited and not r.skipped:
        raise ReflongError(
            f"no reference list could be built: all {r.failed} papers failed; the reasons are recorded "
            "(`reflong-build stats`); fix the cause (e.g. --grobid-url) and rerun to retry them"
        )


@click.command()
@writes_existing_store
@click.option(
    "--seeds",
    "seeds_file",
    type=click.Path(dir_okay=False),
    default=None,
    help="JSON lines (arxiv_id, title, published) instead of the store's seed-role papers.",
)
@band_options
def resolve(
    db_path: str, seeds_file: str | None, accept: float | None, review: float | None, profile: str
) -> None:
    """Resolve stored references against seed titles into citation edges (incremental)."""
    from reflong.citations.stages.resolve_stage import run_resolve

    t = thresholds_from(accept, review, profile)
    r = run_resolve(existing_store(db_path), seeds_file, t, progress=tqdm_progress)
    bands = ", ".join(f"{k}={v}" for k, v in r.edges.items()) or "none"
    click.echo(
        f"resolve: {r.seeds} seeds, {r.lists_resolved}/{r.lists} reference lists resolved "
        f"({r.references_scored} references scored); edges: {bands}; "
        f"{r.title_twins} other arXiv papers share a seed's title"
    )


def _paper_filter(value: str) -> tuple[str, int | None]:
    m = _ID.match(value.strip())
    if not m:
        raise ReflongError(f"--paper {value!r} is not an arXiv id (e.g. 2401.06066 or 2401.06066v2)")
    return m.group("id"), int(m.group("v")) if m.group("v") else None


def _seed_ids(session: Session, value: str) -> list[str]:
    """An arXiv id, or the seeds whose title best matches the text given."""
    from rapidfuzz import fuzz, process

    from reflong.citations.fields.normalize import norm
    from reflong.db.citations import Seed

    m = _ID.match(value.strip())
    if m:
        return [m.group("id")]
    seeds = session.exec(select(Seed)).all()
    query = norm(value)
    hits = process.extract(query, {s.arxiv_id: norm(s.title) for s in seeds}, scorer=fuzz.WRatio, limit=3)
    best = [key for _, score, key in hits if score >= 85 and score >= hits[0][1] - 1e-9]
    if not best:
        raise ReflongError(f"--key {value!r}: no seed title matches; `reflong-build edges` lists all edges")
    return best


@click.command(
    cls=ReflongCommand,
    # --seed is a random seed in every other command; the seed paper here is the key it is
    renamed=(Renamed("--seed", "--key"),),
)
@db_option
@click.option(
    "--key", "seed", default=None, help="The key (seed) paper: its arXiv id or (part of) its title."
)
@click.option("--paper", default=None, help="Citing paper arXiv id (optionally with vN).")
@click.option(
    "--band",
    "bands",
    multiple=True,
    type=click.Choice(["accept", "review", "reject"]),
    help="Only these bands (repeatable).",
)
@listing_format
def edges(db_path: str, seed: str | None, paper: str | None, bands: tuple[str, ...], fmt: str) -> None:
    """Print citation edges with their evidence (reference string, method, score, band)."""
    from reflong.db.citations import Citation

    with Session(reading_store(db_path)) as session:
        q = select(Citation)
        if seed:
            q = q.where(Citation.seed_arxiv_id.in_(_seed_ids(session, seed)))
        if paper:
            pid, version = _paper_filter(paper)
            q = q.where(Citation.citing_arxiv_id == pid)
            if version is not None:
                q = q.where(Citation.citing_version == version)
        if bands:
            q = q.where(Citation.band.in_(bands))
        rows = session.exec(
            q.order_by(
                Citation.citing_arxiv_id, Citation.citing_version, Citation.seed_arxiv_id, Citation.ref_order
            )
        ).all()
    for c in rows:
        if fmt == "jsonl":
            click.echo(
                json.dumps(
                    {
                        "citing": c.citing_arxiv_id,
                        "citing_version": c.citing_version,
                        "seed": c.seed_arxiv_id,
                        "ref_order": c.ref_order,
                        "method": c.method,
                        "score": c.score,
                        "band": c.band,
                        "author": c.author,
                        "reason": c.reason,
                        "reference": c.reference,
                    },
                    ensure_ascii=False,
                )
            )
        else:
            citing = f"{c.citing_arxiv_id}v{c.citing_version}" if c.citing_version else c.citing_arxiv_id
            click.echo(
                f"{citing:<16} {c.seed_arxiv_id:<12} [{c.ref_order:>3}] {c.method:<8} {c.score:6.1f} "
                f"{c.band:<6} {c.reference[:150]}"
            )
    if fmt == "table":
        click.echo(f"({len(rows)} edges)", err=True)


@click.command()
@db_option
@click.option("--paper", required=True, help="Citing paper arXiv id (optionally with vN).")
@listing_format
def refs(db_path: str, paper: str, fmt: str) -> None:
    """List a paper's parsed reference entries, as the resolver saw them."""
    from reflong.db import Paper
    from reflong.db.citations import Reference

    pid, version = _paper_filter(paper)
    with Session(reading_store(db_path)) as session:
        q = select(Reference).where(Reference.arxiv_id == pid)
        if version is not None:
            q = q.where(Reference.version == version)
        rows = session.exec(q.order_by(Reference.version, Reference.order)).all()
        known = rows or session.exec(select(Paper.arxiv_id).where(Paper.arxiv_id == pid)).first()
    if not known:
        raise ReflongError(
            f"unknown paper {paper}: not in the store {db_path}; `reflong-build stats` shows what is"
        )
    if not rows:
        raise ReflongError(
            f"no references stored for {paper}; run `reflong-build parse` and `reflong-build cite`"
        )
    for r in rows:
        authors = json.loads(r.authors_json or "[]")
        if fmt == "jsonl":
            click.echo(
                json.dumps(
                    {
                        "paper": r.arxiv_id,
                        "version": r.version,
                        "order": r.order,
                        "raw": r.raw,
                        "title": r.title,
                        "authors": authors,
                        "year": r.year,
                        "arxiv_id": r.ref_arxiv_id,
                        "arxiv_version": r.ref_arxiv_version,
                        "doi": r.doi,
                        "parser": r.parser,
                    },
                    ensure_ascii=False,
                )
            )
        else:
            ids = " ".join(
                x for x in (r.ref_arxiv_id and f"arXiv:{r.ref_arxiv_id}", r.doi and f"doi:{r.doi}") if x
            )
            click.echo(f"[{r.order:>3}] {r.raw[:160]}")
            click.echo(f"      title: {r.title or '-'} | year: {r.year or '-'} | {ids or 'no ids'}")


COMMANDS = [cite, resolve, edges, refs]
