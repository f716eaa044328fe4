"""``match``: raw reference strings x a seed list -> each entry's decision, without a store."""

from __future__ import annotations

import json
import sys

import click

from reflong.citations.resolve import SeedIndex
from reflong.cli.command import ReflongCommand, Renamed
from reflong.cli.options import band_options, output_format, thresholds_from
from reflong.common.errors import ReflongError
from reflong.common.progress import tqdm_progress

match_format = output_format(
    ("table", "jsonl"),
    "One tab-separated line per entry (id, decision, seed, score, reason), or JSON lines with every "
    "candidate's evidence.",
)


@click.command(cls=ReflongCommand, renamed=(Renamed("--format", "table", value="text"),))
@click.option(
    "--seeds",
    "seeds_file",
    type=click.Path(dir_okay=False),
    required=True,
    help="Seed list: JSON lines (arxiv_id, title, published, first_author, doi) as for `resolve "
    "--seeds`, or a .csv file with a header naming those columns (arxiv_id and title required).",
)
@click.option(
    "--entries",
    "entries_file",
    type=click.Path(dir_okay=False),
    required=True,
    help='JSON lines, one entry a line: {"id": ..., "citing": <citing paper>, "raw": <reference string>}.',
)
@match_format
@band_options
def match(
    seeds_file: str, entries_file: str, fmt: str, accept: float | None, review: float | None, profile: str
) -> None:
    """Resolve raw reference strings against a seed list and print each one's decision.

    The pipeline's own path, store left out: each string is parsed by the built-in entry parser
    and scored by the resolver `resolve` uses, with the same thresholds. The decision is
    `accept` or `review` (the band of the best seed) or `none`, with its evidence: method
    (arxiv_id, doi, title), score, title-field score, first-author check and the reason. An entry
    whose citing paper is itself a seed is never matched to that seed. Consecutive entries with
    the same "citing" are one reference list, in its printed order: an entry whose author is a
    ditto dash ("———. Title", "---. Title": same author as the entry before) takes the authors
    of the nearest earlier entry of that run that names any (the reason then says "authors from
    the entry before (ditto)"). Use it to check a
    bibliography by hand, or to measure the resolver on a labelled set
    (bench/resolve_styles.py does).

    \b
    Example:
      reflong-build match --seeds seeds.jsonl --entries refs.jsonl --format jsonl
    """
    from reflong.citations.match import RawEntry, build_index, load_seeds, match_in_order, read_entries

    t = thresholds_from(accept, review, profile)
    seeds = load_seeds(seeds_file)
    entries = list(read_entries(entries_file))  # every line checked before any output
    if not entries:
        raise ReflongError(f"--entries {entries_file} lists no entries")
    full = build_index(seeds, t)
    by_self: dict[str, SeedIndex] = {}
    counts = {"accept": 0, "review": 0, "none": 0}

    def index_for(entry: RawEntry) -> SeedIndex:
        if entry.citing and entry.citing in full.by_id:
            # As in the pipeline, a paper is never resolved against itself.
            if entry.citing not in by_self:
                by_self[entry.citing] = build_index([s for s in seeds if s.arxiv_id != entry.citing], t)
            return by_self[entry.citing]
        return full

    with tqdm_progress(total=len(entries), desc="match", unit="entry") as bar:
        for d in match_in_order(entries, index_for):
            entry = d.entry
            counts[d.decision] += 1
            if fmt == "jsonl":
                line = json.dumps(d.to_dict(), ensure_ascii=False)
            else:
                row = d.to_dict()
                score = "" if row["score"] is None or d.decision == "none" else f"{row['score']:g}"
                reason = row["reason"] if d.decision != "none" else "-"
                line = f"{entry.id}\t{d.decision}\t{d.seed or '-'}\t{score}\t{reason}"
            _echo_beside(bar, line)
            bar.update(1)
    click.echo(
        f"match: {len(entries)} entries x {len(seeds)} seeds: "
        f"{counts['accept']} accept, {counts['review']} review, {counts['none']} none",
        err=True,
    )


def _echo_beside(bar: object, line: str) -> None:
    """Print one decision on stdout without sharing a line with the progress bar on stderr.

    On a terminal both streams end on one screen: a tqdm bar left drawn (no newline) would get
    the next decision glued after it, and the summary after the last one. tqdm's external write
    mode clears the bar, prints, and redraws it below; line progress and no progress print whole
    lines already."""
    pause = getattr(type(bar), "external_write_mode", None)
    if pause is None:
        click.echo(line)
        return
    with pause(file=sys.stdout):
        click.echo(line)


COMMANDS = [match]
