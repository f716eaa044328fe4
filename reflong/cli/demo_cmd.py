"""``reflong-build synth-arxiv`` writes a synthetic arXiv catalog (PDFs, metadata, ground truth);
``reflong-build demo`` serves one through the local arXiv-protocol server and runs ``paper`` on it.

Benches use the same catalogs as a scale source with known answers.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import click

from reflong.cli.command import ReflongCommand, Renamed
from reflong.cli.options import SEED, default_of
from reflong.common.progress import tqdm_progress
from reflong.demo.catalog2024 import write_catalog
from reflong.demo.citation_graph import IndexConfig, write_world_index
from reflong.demo.rehearsal import INDEX_RULE_S, LENGTHS, WORLDS, RehearsalSettings
from reflong.demo.world import SynthConfig


def _month(ctx: click.Context, param: click.Parameter, value: str) -> str:
    if not re.fullmatch(r"\d{4}-(0[1-9]|1[0-2])", value):
        raise click.BadParameter("use YYYY-MM, e.g. 2024-03")
    return value


#: One meaning per option name: ``--lengths`` is a task's length in paper, a and f (before 0.2 it was
#: also the paper-length model here), ``--workers`` counts processes everywhere (here ``--jobs``).
PAPER_LENGTHS_RENAMED = Renamed("--lengths", "--paper-lengths")


@click.command(
    "synth-arxiv", cls=ReflongCommand, renamed=(PAPER_LENGTHS_RENAMED, Renamed("--jobs", "--workers"))
)
@click.option(
    "--out",
    "out",
    type=click.Path(file_okay=False),
    required=True,
    help="Folder for the catalog (new, empty, or one this command wrote before).",
)
@click.option(
    "--papers",
    type=click.IntRange(min=12),
    default=default_of(SynthConfig, "papers"),
    show_default=True,
    help="Number of papers (about 15% seeds, 45% citing, 40% distractors).",
)
@click.option(
    "--seed",
    type=SEED,
    default=default_of(SynthConfig, "seed"),
    show_default=True,
    help="Same seed, same bytes.",
)
@click.option(
    "--since",
    default=default_of(SynthConfig, "since"),
    show_default=True,
    callback=_month,
    help="First month of the seed window (YYYY-MM).",
)
@click.option(
    "--seed-months",
    type=click.IntRange(min=1),
    default=default_of(SynthConfig, "seed_months"),
    show_default=True,
)
@click.option(
    "--distractor-months",
    type=click.IntRange(min=1),
    default=default_of(SynthConfig, "distractor_months"),
    show_default=True,
)
@click.option(
    "--pool-months",
    type=click.IntRange(min=1),
    default=default_of(SynthConfig, "pool_months"),
    show_default=True,
)
@click.option(
    "--paper-lengths",
    type=click.Choice(["demo", "real"]),
    default=default_of(SynthConfig, "lengths"),
    show_default=True,
    help="demo: ~3.5K-token papers (fast); real: body, references and entries per paper as "
    "measured on real arXiv papers (body median ~9K tokens, 49 entries).",
)
@click.option(
    "--messy/--clean",
    default=default_of(SynthConfig, "messy"),
    show_default=True,
    help="--messy: bibliography entries go wrong as real ones do, at the shares measured on the real "
    "corpus (earlier-version titles, typos, dropped subtitles, unpunctuated styles, venue-only "
    "entries); a venue-only seed citation goes under 'ambiguous' in truth.jsonl.",
)
@click.option(
    "--workers",
    "jobs",
    type=click.IntRange(min=1),
    default=None,
    help="Rendering processes (default: CPU count, at most 4). Output does not depend on it.",
)
def synth_arxiv(
    out: str,
    papers: int,
    seed: int,
    since: str,
    seed_months: int,
    distractor_months: int,
    pool_months: int,
    paper_lengths: str,
    messy: bool,
    jobs: int | None,
) -> None:
    """Generate a synthetic arXiv: seeds, citing papers and distractors as two-column PDFs.

    \b
    Writes OUT/papers.jsonl, OUT/seeds.jsonl (the local catalog format), OUT/pdf/<id>v<N>.pdf,
    OUT/truth.jsonl (which seeds each paper version cites, near misses) and OUT/generator.json.
    """
    from reflong.demo.generate import generate  # PyMuPDF: ~1 s, not for every `--help`

    cfg = SynthConfig(
        papers=papers,
        seed=seed,
        since=since,
        seed_months=seed_months,
        distractor_months=distractor_months,
        pool_months=pool_months,
        lengths=paper_lengths,
        messy=messy,
    )
    summary = generate(Path(out), cfg, jobs=jobs, progress=tqdm_progress)
    roles = ", ".join(f"{n} {r}" for r, n in summary.roles.items())
    click.echo(
        f"synthetic arXiv: {summary.papers} papers ({roles}), {summary.pdfs} PDFs "
        f"in {summary.seconds:.1f} s ({summary.papers / summary.seconds:.0f} papers/s) -> {summary.out}"
    )


@click.command(
    cls=ReflongCommand,
    renamed=(PAPER_LENGTHS_RENAMED, Renamed("--format", "table", value="text")),
)
@click.option("--out", "out_dir", type=click.Path(file_okay=False), default="reflong-demo", show_default=True)
@click.option(
    "--papers", type=click.IntRange(min=40), default=100, show_default=True, help="Synthetic papers."
)
@click.option("--seed", type=SEED, default=0, show_default=True)
@click.option(
    "--world",
    type=click.Choice(WORLDS),
    default=None,
    help="Rehearse the real run instead: `paper --since 2024-03` on a synthetic arXiv of that year's "
    "volume, with a citation index; prints its requests, their cost at arXiv's 3 s rule, and the "
    "answers' precision and recall against the world's truth.",
)
@click.option(
    "--scale",
    type=click.FloatRange(min=0.001),
    default=default_of(RehearsalSettings, "scale"),
    show_default=True,
    help="With --world: the world's size against the real year's (1: ~90K papers, ~2,100 PDFs; "
    "0.05: ~4.5K papers, ~1,550 PDFs, ~5 min on 2 cores; the time goes with the PDFs).",
)
@click.option(
    "--index",
    type=click.Choice(list(INDEX_RULE_S)),
    default=default_of(RehearsalSettings, "index"),
    show_default=True,
    help="With --world: the citation index stand-in (Semantic Scholar, keyed: 1 request/s; or OpenAlex).",
)
@click.option(
    "--paper-lengths",
    type=click.Choice(LENGTHS),
    default=default_of(RehearsalSettings, "lengths"),
    show_default=True,
    help="With --world: paper lengths of the PDFs rendered on request (real: the corpus model, body "
    "median ~9K tokens, ~49 references; demo: ~3.5K tokens, faster).",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["table", "json"]),
    default="table",
    show_default=True,
    help="With --world: the summary as lines to read, or as one JSON line.",
)
@click.argument("paper_args", nargs=-1, type=click.UNPROCESSED, metavar="[-- PAPER OPTIONS]")
@click.pass_context
def demo(
    ctx: click.Context,
    out_dir: str,
    papers: int,
    seed: int,
    world: str | None,
    scale: float,
    index: str,
    paper_lengths: str,
    fmt: str,
    paper_args: tuple[str, ...],
) -> None:
    """See the whole pipeline work offline, in about a minute.

    Generates a small synthetic arXiv (two-column PDFs with numbered and author-year
    bibliographies, seeds, citing papers, distractors, near-miss titles, revised versions), serves
    it on 127.0.0.1 through the same arXiv-protocol server the tests use, and runs
    `reflong-build paper` against it through the real arxiv client. Outputs land in OUT/paper.

    \b
    With --world 2024: a rehearsal of the real run, to check an install, a setting or a new
    version before spending hours on arXiv. It generates a metadata-only arXiv at 2024's volume
    x --scale (PDFs rendered on request at real lengths), a citation truth and an imperfect index
    view (OUT/world-SCALE, reused), serves them on 127.0.0.1 (arXiv OAI-PMH + API + PDFs, and the
    index), runs the default `reflong-build paper --since 2024-03` against them with only the URLs
    changed (and --delay 0; folders under OUT/run-...), then prints the requests by kind, the PDFs
    against the plan, what the same requests take at arXiv's 3 s rule, the answers' precision and
    recall against the world's truth, and wall time and peak RSS here. Progress goes to stderr.
    Options after -- go to `paper` (e.g. -- --doc-policy trim). A rerun resumes after Ctrl-C or a
    kill, and reprints a finished rehearsal.
    """
    if world is not None:
        _rehearsal(ctx, out_dir, world, scale, index, paper_lengths, fmt, paper_args)
        return
    _no_rehearsal_options(ctx, paper_args)
    check_demo_disk(Path(out_dir))
    from reflong.cli.paper_cmd import paper
    from reflong.servers.arxiv_server import ArxivServer

    out = Path(out_dir)
    world = SynthConfig(papers=papers, seed=seed)  # the run below uses the world's own windows
    since, pool_months, distractor_months = world.since, world.pool_months, world.distractor_months
    from reflong.demo.generate import generate
    from reflong.ingest.plan.pdf_size import pdf_size

    summary = generate(out / "catalog", world, progress=tqdm_progress)
    click.echo(f"synthetic arXiv: {summary.papers} papers, {summary.pdfs} PDFs in {out / 'catalog'}")
    # The disk check assumes what this arXiv serves (~9 KB a PDF), not arXiv's 1.7 MB.
    demo_pdf_mb = pdf_size(out / "cache", local_catalog=out / "catalog").mb
    with ArxivServer(out / "catalog") as server:
        click.echo(f"serving it at {server.url} (arXiv API protocol)")
        ctx.invoke(
            paper,
            since=since,
            distractor_months=distractor_months,
            pool_months=pool_months,
            categories=(),
            arxiv_url=server.url,
            oai_url=server.oai_url,
            delay=0.0,
            pdf_mb=demo_pdf_mb,
            db_path=str(out / "store.db"),
            cache_dir=str(out / "cache"),
            out_dir=str(out / "paper"),
            seed=seed,
        )
    _score_lexical_baseline(out / "paper")
    click.echo(
        f"done: outputs in {out / 'paper'} (open {out / 'paper' / 'README.md'}); store {out / 'store.db'}"
    )
    click.echo("next, on what the demo built:")
    for command, why in next_commands(out, since, pool_months, distractor_months, seed):
        click.echo(f"  {command}  # {why}")


#: What ``demo`` writes with its defaults: 212 MB measured (206 MB of outputs: prompts of 4 lengths
#: x 2 difficulties and the parquet dataset; catalog 1.6 MB, PDF cache 0.9 MB, store 4.2 MB).
DEMO_DISK_MB = 220


def check_demo_disk(out: Path) -> None:
    """Refuse, in one line naming only the demo's own options, a disk that cannot hold the demo
    (before anything is written: a full disk half-way said "give another --db/--cache", options
    the demo does not take)."""
    import shutil

    from reflong.common.errors import ReflongError

    folder = out.resolve()
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    free_mb = shutil.disk_usage(folder).free / 1e6
    # a rerun rewrites what an earlier run left there: only the rest must fit
    written_mb = sum(f.stat().st_size for f in out.rglob("*") if f.is_file()) / 1e6 if out.is_dir() else 0.0
    need_mb = max(DEMO_DISK_MB - written_mb, 0.0)
    if free_mb < need_mb:
        raise ReflongError(
            f"the demo writes about {DEMO_DISK_MB} MB to {out} but only {free_mb:.0f} MB are free there: "
            "free space or give --out on a larger disk"
        )


def _no_rehearsal_options(ctx: click.Context, paper_args: tuple[str, ...]) -> None:
    """--scale, --index, --paper-lengths, --format and options after -- belong to --world."""
    from click.core import ParameterSource

    given = [
        flag
        for flag, name in (
            ("--scale", "scale"),
            ("--index", "index"),
            ("--paper-lengths", "paper_lengths"),
            ("--format", "fmt"),
        )
        if ctx.get_parameter_source(name) in (ParameterSource.COMMANDLINE, ParameterSource.ENVIRONMENT)
    ]
    if paper_args:
        given.append(" ".join(paper_args))
    if given:
        raise click.UsageError(f"{', '.join(given)}: only with --world 2024 (the rehearsal of the real run)")


def _rehearsal(
    ctx: click.Context,
    out_dir: str,
    world: str,
    scale: float,
    index: str,
    lengths: str,
    fmt: str,
    paper_args: tuple[str, ...],
) -> None:
    """``demo --world 2024``: reflong.demo.rehearsal, its summary on stdout, progress on stderr."""
    import json
    import logging

    from click.core import ParameterSource

    from reflong.common.errors import ReflongError
    from reflong.demo.rehearsal import rehearse, summary_lines

    for name in ("papers", "seed"):
        if ctx.get_parameter_source(name) in (ParameterSource.COMMANDLINE, ParameterSource.ENVIRONMENT):
            raise click.UsageError(f"--{name} shapes the small demo world; --world {world} has its own")
    try:
        settings = RehearsalSettings(scale=scale, index=index, lengths=lengths, paper_args=paper_args)
    except ReflongError as exc:
        raise click.UsageError(str(exc)) from None
    if paper_args:  # checked as `paper` reads them, before the world is written
        from reflong.cli.paper_cmd import paper

        try:
            paper.make_context("paper", list(paper_args))
        except click.UsageError as exc:
            raise click.UsageError(f"after -- (options of `paper`): {exc.format_message()}") from None
    progress = logging.getLogger("reflong").isEnabledFor(logging.INFO)  # -q: errors only
    result = rehearse(
        Path(out_dir), settings, echo=lambda line: click.echo(line, err=True) if progress else None
    )
    if fmt == "json":
        click.echo(json.dumps(result, sort_keys=True))
    else:
        click.echo("\n".join(summary_lines(result)))


def next_commands(out: Path, since: str, pool_months: int, distractor_months: int, seed: int):
    """The follow-up commands that work on a demo folder: its own store, window and outputs
    (a plain `reflong-build paper --reuse-db` would look at ./reflong.db and the default window).

    In the order a user runs them, so none undoes an earlier one: a rebuild owns its --out and
    removes the report.html of the build it replaces, so the report comes last."""
    q = shlex.quote
    db, paper_out = q(str(out / "store.db")), q(str(out / "paper"))
    return [
        (f"reflong-build audit --db {db} --build {paper_out}", "edges that deserve a human look"),
        (
            f"reflong-build paper --db {db} --since {since} --pool-months {pool_months} "
            f"--distractor-months {distractor_months} --seed {seed} --reuse-db --out {paper_out}",
            "reassemble from the store, e.g. after audit verdicts",
        ),
        (f"reflong-build report --db {db} --build {paper_out}", "one HTML page about the (latest) build"),
    ]


def _score_lexical_baseline(paper_dir: Path) -> None:
    """End the demo the way a user's evaluation starts: score a no-model baseline on the tasks."""
    from reflong.evaluate.baseline_run import score_baselines
    from reflong.evaluate.scoring import results_table

    results, overall = score_baselines(paper_dir, paper_dir, ["lexical"])["lexical"]
    click.echo(
        f"lexical baseline (key as a substring of each paper; `reflong-build eval baseline --build "
        f"{paper_dir} --prompts {paper_dir} --kind lexical`):"
    )
    click.echo(results_table(results, overall))
    perfect = [r.name for r in results if r.summary.n and r.summary.exacc == 1.0]
    if perfect:
        click.echo(perfect_baseline_note(perfect))


def perfect_baseline_note(configs: list[str]) -> str:
    """Why a no-model baseline can score 1.000 here, so nobody reads it as the benchmark being easy.

    The demo's synthetic citing papers print each seed's exact title in their references, so the
    key as a substring finds every citer; real papers shorten and mangle titles, and other key
    forms name the seed without its title."""
    return (
        f"note: the lexical baseline's ExAcc is 1.000 on {len(configs)} configuration(s) "
        f"({', '.join(configs[:3])}{', ...' if len(configs) > 3 else ''}) because the demo's synthetic "
        "papers cite each seed by its exact title; for a key the text does not print, rebuild with "
        "`--key-form abstract` or `--key-form arxiv-id` (the paper command above)"
    )


@click.command("synth-index")
@click.option(
    "--catalog", type=click.Path(exists=True, file_okay=False), required=True, help="Catalog folder."
)
@click.option(
    "--out", "out", type=click.Path(file_okay=False), default=None, help="[default: the catalog folder]"
)
@click.option(
    "--since",
    default=default_of(write_world_index, "since"),
    show_default=True,
    callback=_month,
    help="Seed window start.",
)
@click.option("--seed", type=SEED, default=default_of(IndexConfig, "seed"), show_default=True)
@click.option(
    "--missing",
    type=click.FloatRange(0, 1),
    default=default_of(IndexConfig, "missing"),
    show_default=True,
    help="True citations the index lacks.",
)
@click.option(
    "--spurious",
    type=click.FloatRange(0, 1),
    default=default_of(IndexConfig, "spurious"),
    show_default=True,
    help="Spurious ones (share of true).",
)
@click.option(
    "--off-arxiv",
    type=click.FloatRange(0),
    default=default_of(IndexConfig, "off_arxiv"),
    show_default=True,
    help="Non-arXiv citers per true citer.",
)
def synth_index(
    catalog: str, out: str | None, since: str, seed: int, missing: float, spurious: float, off_arxiv: float
) -> None:
    """Write a world's citation truth (citations.jsonl) and an imperfect index view (s2_index.jsonl).

    \b
    A rendered demo catalog's truth comes from its truth.jsonl; a metadata-only catalog gets a
    generated graph (pool papers cite seed-window papers with power-law popularity). Serve the
    view with: python -m reflong.servers.s2_server --catalog DIR (Semantic Scholar's protocol) or
    python -m reflong.servers.openalex_server --catalog DIR (OpenAlex's).
    """
    truth, index, n_truth, n_index = write_world_index(
        catalog, out, since, IndexConfig(seed=seed, missing=missing, spurious=spurious, off_arxiv=off_arxiv)
    )
    click.echo(f"citation truth: {n_truth} pairs -> {truth}; index view: {n_index} rows -> {index}")


@click.command("synth-catalog")
@click.option(
    "--out", "out", type=click.Path(file_okay=False), required=True, help="Folder for papers.jsonl."
)
@click.option(
    "--scale",
    type=click.FloatRange(min=0.001),
    default=default_of(write_catalog, "scale"),
    show_default=True,
    help="Multiplies 2024's volumes (1: ~14K papers in 2024-01..02, 7.3K in 03, 45K in 04..09).",
)
@click.option(
    "--seed",
    type=SEED,
    default=default_of(write_catalog, "seed"),
    show_default=True,
    help="Same arguments, same bytes.",
)
@click.option(
    "--until",
    default=default_of(write_catalog, "until"),
    show_default=True,
    callback=_month,
    help="Last month written (2023-12 .. 2025-08); one month more adds only that month's changes.",
)
def synth_catalog(out: str, scale: float, seed: int, until: str) -> None:
    """Generate a metadata-only arXiv at 2024's real volume (cs.CL + cs.LG + cs.AI, and others).

    \b
    Writes OUT/papers.jsonl (local catalog format, no PDFs) and OUT/generator.json. Serve it with
      python -m reflong.servers.arxiv_server --catalog OUT --delay 0
    (Atom API, OAI-PMH at /oai as arXiv's current server, request counts at /_stats).
    """
    try:
        summary = write_catalog(Path(out), scale=scale, seed=seed, until=until)
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from None
    click.echo(
        f"synthetic 2024 catalog: {summary.papers} papers ({summary.in_scope} in cs.CL/cs.LG/cs.AI; "
        f"{summary.versions} versions, {summary.withdrawn} withdrawn), {summary.bytes / 1e6:.1f} MB "
        f"in {summary.seconds:.1f} s -> {summary.out / 'papers.jsonl'}"
    )


COMMANDS = [synth_arxiv, synth_catalog, demo, synth_index]
