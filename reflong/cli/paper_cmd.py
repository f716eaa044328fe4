"""``reflong-build paper``: the whole Ref-Long-Paper pipeline, resuming whatever is done."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import click

from reflong.assemble.paper.build import PaperSettings
from reflong.assemble.prompts import KEY_FORMS
from reflong.cli.command import ReflongCommand
from reflong.cli.ingest_options import ingest_options, ingest_settings
from reflong.cli.options import (
    SEED,
    baseline_sections,
    check_tokenizer,
    default_of,
    lengths_option,
    no_baselines_option,
    writes_store,
)
from reflong.cli.split_cmd import held_out_for, split_options
from reflong.common.errors import ReflongError
from reflong.common.length_labels import canonical_label, label_tokens
from reflong.common.progress import tqdm_progress
from reflong.ingest.parse.settings import ParseSettings

NOMINAL_DOCS = {"30K": 8, "45K": 12, "60K": 16, "75K": 20}
TOKENS_PER_DOC = 3750  # Ref-Long-Paper: 30K tokens for 8 papers
EVEN_WITHIN = 0.005  # tokens per paper may differ this much between lengths before prompts fall short


def parse_lengths(text: str) -> tuple[tuple[str, int], ...]:
    """``30K,45K`` (M from Ref-Long: 8, 12, ...; other sizes at ~3.75K tokens a paper) or ``30K:8``.

    Labels as people write them (``128k``, ``1M``, ``1.5M``; ``reflong.common.length_labels``) in
    whole thousands of tokens; ``1M`` is the setting ``1000K`` (same files, same tasks).

    M of a label Ref-Long did not use is ``floor(tokens / 3750)``: at least 3,750 tokens a paper.
    Why floor and not round: the ``fit`` policy gives every length one per-paper budget, the
    tightest length's (cumulative tasks show the same text at every length), so a length with
    fewer tokens a paper than the others makes the others' prompts fall short of their labels.
    Rounding gave 512K 137 papers (3,737 tokens each) beside 128K's 34 (3,765): 128K, 256K and 1M
    prompts came out 0.5-1.1% under the label on the 2024-sized world (``bench/long_settings.py``);
    with floor, 512K has 136 and 1M 266, 3,759-3,765 tokens a paper at all four."""
    out = []
    if not text.strip():
        raise click.BadParameter("give at least one length, e.g. 30K,45K")
    for part in (p.strip() for p in text.split(",") if p.strip()):
        m = re.fullmatch(r"([^:]+?)(?::(\d+))?", part)
        tokens = label_tokens(m.group(1)) if m else None
        if tokens is None or tokens < 1000 or tokens % 1000:
            raise click.BadParameter(
                f"{part!r}: expected e.g. 30K, 1M or 30K:8 (label:documents), in whole thousands of tokens"
            )
        label = canonical_label(tokens)
        n_docs = int(m.group(2)) if m.group(2) else NOMINAL_DOCS.get(label, tokens // TOKENS_PER_DOC)
        if n_docs < 2:
            raise click.BadParameter(f"{part!r}: a task needs at least 2 documents")
        out.append((label, n_docs))
    if not out:
        raise click.BadParameter("no length given; use e.g. 30K,45K or 30K:8", param_hint="--lengths")
    if [n for _, n in out] != sorted({n for _, n in out}):
        raise click.BadParameter(
            "lengths must grow: cumulative sampling adds documents from one length to the next"
        )
    return tuple(out)


def _check_licenses(ctx, param, value):
    """--licenses as sorted kind names, checked before any stage runs (one line when unknown)."""
    if value is None:
        return None
    from reflong.common.licenses import parse_allowed

    try:
        return tuple(sorted(parse_allowed(value)))
    except ReflongError as exc:
        raise click.BadParameter(str(exc).removeprefix("--licenses: ")) from None


def uneven_lengths(lengths: tuple[tuple[str, int], ...]) -> list[tuple[str, float]]:
    """Lengths whose prompts will fall short of their label by more than EVEN_WITHIN, and by how
    much: one per-paper budget, the tightest length's, fills each length's M papers."""
    per_paper = {label: label_tokens(label) / n for label, n in lengths}
    tightest = min(per_paper.values())
    return [
        (label, 1 - tightest / size) for label, size in per_paper.items() if 1 - tightest / size > EVEN_WITHIN
    ]


#: What ``paper --help`` lists first: the window, where it comes from, the build's sizes and where
#: it goes; every other option follows under "Advanced options".
PAPER_COMMON = (
    "since",
    "out_dir",
    "db_path",
    "lengths",
    "difficulty",
    "n_tasks",
    "seed",
    "categories",
    "max_papers",
    "source_dir",
    "dry_run",
    "reuse_db",
)


@click.command(cls=ReflongCommand, common=PAPER_COMMON)
@ingest_options
@lengths_option(
    ",".join(label for label, _ in default_of(PaperSettings, "lengths")),
    "Nominal lengths, comma-separated: 30K, 128k, 1M (= 1000K, the same setting), 1.5M; "
    "30K:8 sets M (else Ref-Long's M, or ~3.75K tokens a paper).",
    parse_lengths,
)
@click.option(
    "--difficulty",
    default=",".join(default_of(PaperSettings, "difficulties")),
    show_default=True,
    help="easy (2-5 positives), hard (4-5).",
)
@click.option(
    "--tasks",
    "n_tasks",
    type=click.IntRange(min=1),
    default=default_of(PaperSettings, "n_tasks"),
    show_default=True,
    help="Per setting.",
)
@click.option(
    "--seed",
    type=SEED,
    default=default_of(PaperSettings, "seed"),
    show_default=True,
    help="Random seed (same seed, same bytes).",
)
@click.option(
    "--out",
    "out_dir",
    type=click.Path(file_okay=False),
    default="out/paper",
    show_default=True,
    help="Output folder.",
)
@writes_store
@click.option("--grobid-url", default=None, help="Extract references with this GROBID server.")
@click.option("--grobid-fallback", is_flag=True, help="Use the built-in parser when GROBID is down.")
@click.option(
    "--seeds", "seeds_file", type=click.Path(exists=True, dir_okay=False), help="Explicit seed list (jsonl)."
)
@click.option(
    "--min-positives",
    type=click.IntRange(min=1),
    default=default_of(PaperSettings, "min_positives"),
    show_default=True,
    help="Citing papers a key needs.",
)
@click.option(
    "--doc-policy",
    type=click.Choice(["fit", "trim", "whole"]),
    default=default_of(PaperSettings, "doc_policy"),
    show_default=True,
    help="fit: every paper cut alike to the setting's size (body start, sampled references that keep "
    "every entry deciding a label); trim: body cut, references whole; whole: longer papers left out.",
)
@click.option(
    "--max-doc-tokens",
    type=click.IntRange(min=100),
    default=default_of(PaperSettings, "max_doc_tokens"),
    help="Per-paper budget [default: fit: tokens / M minus the prompt (3,733 for 30K:8); else 5000].",
)
@click.option("--trim", is_flag=True, help="Same as --doc-policy trim (kept for old scripts).")
@click.option(
    "--ref-share",
    type=click.FloatRange(0.05, 0.9),
    default=default_of(PaperSettings, "ref_share"),
    show_default=True,
    help="fit: share of the budget a cut paper's references may take.",
)
@click.option(
    "--many-citers",
    type=click.Choice(["sample", "skip"]),
    default=default_of(PaperSettings, "many_citers"),
    show_default=True,
    help="Keys with more citers than a task takes: sample positives per task, or skip the key.",
)
@click.option("--question-last", is_flag=True, help="Put the question after the papers (paper's Figure 7).")
@click.option(
    "--strategy-prompt",
    is_flag=True,
    help="Ask the model to build a dictionary while reading (the paper's human-strategy prompt).",
)
@click.option(
    "--key-form",
    type=click.Choice(KEY_FORMS),
    default=default_of(PaperSettings, "key_form"),
    show_default=True,
    help="How the question names the cited paper: its title (Ref-Long), its arXiv id, or the opening "
    "of its abstract (keys a string search for the title cannot find). Ground truth is unchanged.",
)
@click.option(
    "--tokenizer",
    default=default_of(PaperSettings, "tokenizer"),
    show_default=True,
    callback=check_tokenizer,
    help="o200k_base, cl100k_base or tokenizer.json.",
)
@click.option(
    "--workers",
    type=click.IntRange(min=1),
    default=default_of(ParseSettings, "workers"),
    show_default=True,
    help="PDF parse processes.",
)
@click.option("--reuse-db", is_flag=True, help="Only assemble, from what the store already holds.")
@click.option(
    "--licenses",
    default=None,
    callback=_check_licenses,
    help="Keep only documents (and keys) whose arXiv licence is one of these, comma separated: short "
    "names (cc-by, cc-by-sa, cc0, public-domain, cc-by-nc-sa, cc-by-nc-nd, arxiv-nonexclusive), licence "
    "URLs, or 'redistributable' (cc-by, cc-by-sa, cc0, public-domain: the ones that let anyone "
    "republish the cut texts). Default: every paper; the card then says which may be republished.",
)
@split_options
@no_baselines_option
def paper(**opts) -> None:
    """Build the Ref-Long-Paper subset end to end: ingest, parse, cite, resolve, assemble.

    \b
    Every stage resumes: a rerun (or a run after a crash) does only what is missing.
    Outputs in --out: {difficulty}_{length}.json and {difficulty}_{length}_answers.json
    (Ref-Long format), data/*.parquet with README.md (a `datasets` dataset with card),
    manifest.json (versions, sha256s, settings) and build_report.json (what was left out, why).
    """
    result = run_paper(opts)
    if result is None:
        return  # --dry-run: the plan is printed, nothing was downloaded
    if result.removed:
        from reflong.assemble.outputs_ownership import removed_line

        click.echo(removed_line(result.out_dir, result.removed))
    for change in result.changes[:50]:
        click.echo(f"changed: {change}")
    if len(result.changes) > 50:
        click.echo(f"... and {len(result.changes) - 50} more changes")
    click.echo(result.line())


def run_paper(opts: dict, on_plan: Callable | None = None, on_harvest: Callable | None = None):
    """The ``paper`` command's work on its parsed options: stages (unless ``reuse_db``), then the
    assembly. Returns the build's result, or None after ``--dry-run``'s plan.

    ``on_plan`` gets the ingest's plan right after it is printed (``refresh`` adds its own line);
    ``on_harvest`` runs after the metadata harvest, before the plan (``refresh``'s data check).
    Shared with ``refresh`` so both build a window the same way from the same options."""
    from reflong.assemble.paper.stage import run_paper_build
    from reflong.db.engine import open_store
    from reflong.ingest.plan.windows import BuildWindows, parse_month

    if not opts["since"]:
        raise click.UsageError("--since YYYY-MM is required: it names the seed window of the build")
    lengths = parse_lengths(opts["lengths"])
    for label, short in uneven_lengths(lengths):
        click.echo(
            f"note: {label} prompts will be about {short:.1%} under {label}: every length shares the "
            "tightest length's tokens per paper (give M per length, e.g. 128K:34, to even them out)",
            err=True,
        )
    held_out = held_out_for(opts["split"], opts["disjoint_from"], "paper")
    difficulties = tuple(d.strip() for d in opts["difficulty"].split(",") if d.strip())
    for d in difficulties:
        if d not in ("easy", "hard"):
            raise click.BadParameter(f"{d!r}: use easy and/or hard", param_hint="--difficulty")
    window = BuildWindows(
        parse_month(opts["since"]), opts["seed_months"], opts["pool_months"], opts["distractor_months"]
    ).label
    engine = open_store(opts["db_path"])
    if not opts["reuse_db"] and _run_stages(engine, opts, window, on_plan, on_harvest):
        return None  # --dry-run: the plan is printed, nothing was downloaded
    seed_ids = None
    if opts["seeds_file"]:
        from reflong.citations.candidates.seeds import load_seed_file

        seed_ids = [s.arxiv_id for s in load_seed_file(opts["seeds_file"])]
    settings = PaperSettings(
        lengths=lengths,
        difficulties=difficulties,
        n_tasks=opts["n_tasks"],
        seed=opts["seed"],
        max_doc_tokens=opts["max_doc_tokens"],
        doc_policy="trim" if opts["trim"] else opts["doc_policy"],
        ref_share=opts["ref_share"],
        many_citers=opts["many_citers"],
        question_last=opts["question_last"],
        strategy_prompt=opts["strategy_prompt"],
        key_form=opts["key_form"],
        split=opts["split"],
        held_out_manifest=held_out.build.manifest_sha256 if held_out else "",
        tokenizer=opts["tokenizer"],
        min_positives=opts["min_positives"],
        licenses=opts["licenses"],
    )
    result = run_paper_build(
        engine,
        window,
        Path(opts["out_dir"]),
        settings,
        seed_ids,
        progress=tqdm_progress,
        card_sections=baseline_sections(opts["seed"], opts.get("no_baselines", False)),
        held_out=held_out,
    )
    return result


def _run_stages(
    engine, opts: dict, window: str, on_plan: Callable | None = None, on_harvest: Callable | None = None
) -> bool:
    """Ingest, parse, cite and resolve; each resumes and prints its one-line summary.

    Returns True when the run stops after the plan (``--dry-run``)."""
    from reflong.citations.quality.index_agreement import run_index_agreement
    from reflong.citations.stages.cite_stage import run_cite
    from reflong.citations.stages.resolve_stage import run_resolve
    from reflong.ingest.harvest.oai import DEFAULT_OAI_URL
    from reflong.ingest.netpolicy import DEFAULT_ARXIV_URL
    from reflong.ingest.parse.stage import nothing_parsed, run_parse
    from reflong.ingest.stage import run_ingest

    if opts["source_dir"] and opts["arxiv_url"] != DEFAULT_ARXIV_URL:
        raise ReflongError("give --source DIR or --arxiv-url URL, not both")
    if opts["source_dir"] and opts["oai_url"] != DEFAULT_OAI_URL:
        raise ReflongError("give --source DIR or --oai-url URL, not both")
    settings = ingest_settings(opts)
    summary = run_ingest(
        engine,
        settings,
        progress=tqdm_progress,
        plan_callback=lambda plan: _show_plan(plan, on_plan),
        harvest_callback=on_harvest,
    )
    if settings.plan.dry_run:
        click.echo("dry run: nothing downloaded; rerun without --dry-run to fetch the planned PDFs")
        return True
    click.echo(summary.line())
    if why := summary.nothing_usable():
        raise ReflongError(why)
    parsed = run_parse(
        engine, ParseSettings(workers=opts["workers"], tokenizer=opts["tokenizer"]), progress=tqdm_progress
    )
    click.echo(
        f"parse: {parsed.parsed} parsed, {parsed.skipped} already parsed, {parsed.failed} failed, "
        f"{parsed.without_references} without a references section"
    )
    if why := nothing_parsed(parsed):
        raise ReflongError(why)
    cited = run_cite(engine, opts["grobid_url"], opts["grobid_fallback"], progress=tqdm_progress)
    click.echo(f"cite: {cited.cited} reference lists, {cited.references} references, {cited.failed} failed")
    resolved = run_resolve(engine, opts["seeds_file"], progress=tqdm_progress)
    edges = ", ".join(f"{band} {n}" for band, n in sorted(resolved.edges.items()))
    click.echo(
        f"resolve: {resolved.seeds} seeds, {resolved.lists_resolved} lists resolved; edges {edges or 'none'}; "
        f"{resolved.title_twins} other arXiv papers share a seed's title"
    )
    agreement = run_index_agreement(engine, window)
    if agreement is not None:
        click.echo(agreement.line())
    return False


def _show_plan(plan, on_plan: Callable | None) -> None:
    click.echo("\n".join(plan.lines()))
    if on_plan is not None:
        on_plan(plan)


COMMANDS = [paper]
