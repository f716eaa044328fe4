"""The ingest options, shared by ``ingest`` and ``paper`` so both read and default the same."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from pathlib import Path

import click

from reflong.cli.options import default_of
from reflong.common.errors import ReflongError
from reflong.ingest.index import registry
from reflong.ingest.index.provider import ProviderOption
from reflong.ingest.netpolicy import NetPolicy
from reflong.ingest.plan.pdf_plan import PlanSettings
from reflong.ingest.plan.windows import parse_month
from reflong.ingest.stage import IngestSettings


def _since(_ctx, _param, value: str | None) -> str | None:
    if value is not None:
        try:
            month = parse_month(value)
        except ReflongError as exc:
            raise click.BadParameter(str(exc).split(": ", 1)[-1]) from None
        today = date.today()
        if month > today.replace(day=1):
            raise click.BadParameter(
                f"the seed window {value} is in the future (today is {today:%Y-%m-%d}): no paper can be "
                "in it yet; give a past month"
            )
    return value


def _http_url(_ctx, _param, value: str) -> str:
    """An http(s) URL with a host, checked before anything is fetched (requests would fail later
    with a traceback for ``ftp://...`` or ``not a url``)."""
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(value.strip())
        host_ok = bool(parts.hostname) and " " not in value.strip()
    except ValueError:
        parts, host_ok = None, False
    if parts is None or parts.scheme not in ("http", "https") or not host_ok:
        raise click.BadParameter(
            f"{value!r} is not an http(s) URL with a host (e.g. https://export.arxiv.org or http://127.0.0.1:8000)"
        )
    return value.strip()


def _optional_http_url(ctx, param, value: str | None) -> str | None:
    return None if value is None else _http_url(ctx, param, value)


def _categories(_ctx, param, value: str) -> tuple[str, ...]:
    """The categories, each a subject class arXiv has (a misspelt one filters every record out)."""
    from reflong.common.arxiv_taxonomy import category_error

    categories = tuple(c.strip() for c in value.split(",") if c.strip())
    for category in categories:
        if why := category_error(category):
            raise click.BadParameter(why, param_hint="--categories")
    return categories


def _index_option(option: ProviderOption) -> Callable:
    """A provider's own option (``--s2-url``, ``--openalex-mailto``), as the provider declares it."""
    return click.option(
        option.flag,
        option.key,
        default=None,
        envvar=option.envvar,
        metavar=option.metavar,
        callback=_optional_http_url if option.url else None,
        help=option.help,
    )


def _index_options() -> list[Callable]:
    """--citation-index, every provider's options, --index-delay: all read from the registry."""
    providers = registry.PROVIDERS
    return [
        click.option(
            "--citation-index",
            type=click.Choice(registry.choices()),
            default=default_of(PlanSettings, "citation_index"),
            show_default=True,
            help="Choose keys and citers with "
            + ", with ".join(p.description for p in providers)
            + ", or sample the pool without one.",
        ),
        *(_index_option(option) for p in providers for option in p.all_options),
        click.option(
            "--index-delay",
            type=click.FloatRange(min=0),
            default=default_of(PlanSettings, "index_delay"),
            help="Seconds between index requests [default: the index's published rate: "
            + "; ".join(p.delay_note for p in providers)
            + "].",
        ),
    ]


def _decorators() -> list[Callable]:
    """Every ingest option in ``--help`` order; built when a command is defined, so a provider
    registered before that (``registry.register``) is among the choices."""
    return [
        click.option(
            "--since",
            metavar="YYYY-MM",
            callback=_since,
            help="First month of the seed window (required for arXiv).",
        ),
        click.option(
            "--seed-months",
            type=click.IntRange(min=1),
            default=default_of(IngestSettings, "seed_months"),
            show_default=True,
        ),
        click.option(
            "--pool-months",
            type=click.IntRange(min=0),
            default=default_of(IngestSettings, "pool_months"),
            show_default=True,
            help="Months of citing papers after the seed window.",
        ),
        click.option(
            "--distractor-months",
            type=click.IntRange(min=0),
            default=default_of(IngestSettings, "distractor_months"),
            show_default=True,
            help="Months of earlier papers before the seed window.",
        ),
        click.option(
            "--categories",
            default=",".join(default_of(IngestSettings, "categories")),
            show_default=True,
            callback=_categories,
            help="Comma-separated arXiv categories (cs.* for a prefix; empty: all).",
        ),
        click.option(
            "--max-papers",
            type=click.IntRange(min=1),
            default=default_of(IngestSettings, "max_papers"),
            help="At most N papers per window.",
        ),
        click.option(
            "--cache",
            "cache_dir",
            type=click.Path(file_okay=False),
            default=str(default_of(IngestSettings, "cache_dir")),
            show_default=True,
            envvar="REFLONG_CACHE",
            help="PDF cache (by id+version). Env: REFLONG_CACHE.",
        ),
        click.option(
            "--arxiv-url",
            default=default_of(IngestSettings, "arxiv_url"),
            show_default=True,
            callback=_http_url,
            help="Base URL of an arXiv-compatible server for the API and PDFs (/api/query, /pdf/<id>vN).",
        ),
        click.option(
            "--oai-url",
            default=default_of(IngestSettings, "oai_url"),
            show_default=True,
            callback=_http_url,
            help="OAI-PMH endpoint for bulk metadata (arXiv's documented one); checked with Identify "
            "before harvesting.",
        ),
        click.option(
            "--source",
            "source_dir",
            type=click.Path(exists=True, file_okay=False),
            default=default_of(IngestSettings, "source_dir"),
            help="A local catalog folder (papers.jsonl + PDFs) instead of arXiv.",
        ),
        click.option(
            "--metadata",
            type=click.Choice(["oai", "api"]),
            default=default_of(IngestSettings, "metadata"),
            show_default=True,
            help="How arXiv metadata is fetched: oai = OAI-PMH harvest (arXivRaw, incremental, arXiv's "
            "route for bulk metadata); api = the search API (window queries split under its 30,000 cap).",
        ),
        click.option(
            "--no-pdfs",
            "no_pdfs",
            is_flag=True,
            help="Metadata and roles only: fetch no PDFs (a later run without it fetches them).",
        ),
        click.option(
            "--api-result-cap",
            type=click.IntRange(min=1),
            default=default_of(IngestSettings, "api_result_cap"),
            hidden=True,
            help="Results one API query may return (arXiv: 30,000); for tests against a stand-in.",
        ),
        click.option(
            "--api-page-size",
            type=click.IntRange(min=1, max=2000),
            default=default_of(IngestSettings, "api_page_size"),
            hidden=True,
            help="max_results per API page (arXiv allows up to 2,000).",
        ),
        click.option(
            "--delay",
            type=click.FloatRange(min=0),
            default=default_of(NetPolicy, "delay"),
            show_default=True,
            help="Seconds between requests (arXiv asks for >= 3).",
        ),
        click.option(
            "--timeout",
            type=click.FloatRange(min=0.1),
            default=default_of(NetPolicy, "timeout"),
            show_default=True,
            help="Seconds to wait for an answer before retrying.",
        ),
        click.option(
            "--retries",
            type=click.IntRange(min=0),
            default=default_of(NetPolicy, "retries"),
            show_default=True,
            help="Retries (with exponential backoff) on 5xx answers and malformed or empty pages.",
        ),
        click.option(
            "--throttle-minutes",
            type=click.FloatRange(min=0),
            default=default_of(NetPolicy, "throttle_minutes"),
            show_default=True,
            help="How long a throttling spell of arXiv (HTTP 429 'Rate exceeded.', or no answer within "
            "--timeout) is waited out, with growing waits up to a minute, before the run stops "
            "resumably.",
        ),
        *_index_options(),
        click.option(
            "--keys",
            "n_keys",
            type=click.IntRange(min=1),
            default=default_of(PlanSettings, "keys"),
            show_default=True,
            help="Keys to choose through the index, across citation bands.",
        ),
        click.option(
            "--citers-per-key",
            type=click.IntRange(min=2),
            default=default_of(PlanSettings, "citers_per_key"),
            show_default=True,
            help="At most this many of a key's citers (seeded sample) are fetched.",
        ),
        click.option(
            "--distractors",
            "n_distractors",
            type=click.IntRange(min=0),
            default=default_of(PlanSettings, "distractors"),
            show_default=True,
            help="Distractor-window papers to fetch (seeded sample).",
        ),
        click.option(
            "--controls",
            "n_controls",
            type=click.IntRange(min=0),
            default=default_of(PlanSettings, "controls"),
            show_default=True,
            help="Pool papers the index links to no key, fetched to measure false positives.",
        ),
        click.option(
            "--max-pdfs",
            type=click.IntRange(min=1),
            default=default_of(PlanSettings, "max_pdfs"),
            show_default=True,
            help="Cap on PDFs to fetch (3,000 x 3 s = 2.5 h at arXiv's rule).",
        ),
        click.option(
            "--dry-run", is_flag=True, help="Print the plan (requests, PDFs by role, GB, hours) and stop."
        ),
        click.option(
            "--pdf-mb",
            type=click.FloatRange(min=0, min_open=True),
            default=None,
            help="Mean PDF size in MB for the GB estimate and the disk check [default: the --source "
            "catalog's or the cache's mean, else arXiv's typical 1.7].",
        ),
        click.option(
            "--no-disk-check",
            is_flag=True,
            help="Fetch even when the plan's GB estimate exceeds the free space at --cache "
            "(otherwise the run stops before the first PDF).",
        ),
    ]


def ingest_options(func: Callable) -> Callable:
    """Apply every ingest option (window, categories, source, politeness) to a command."""
    for decorator in reversed(_decorators()):
        func = decorator(func)
    return func


def ingest_settings(opts: dict) -> IngestSettings:
    """IngestSettings from the parsed options (extra keys in ``opts`` are ignored)."""
    return IngestSettings(
        since=opts["since"],
        seed_months=opts["seed_months"],
        pool_months=opts["pool_months"],
        distractor_months=opts["distractor_months"],
        categories=opts["categories"],
        max_papers=opts["max_papers"],
        cache_dir=Path(opts["cache_dir"]),
        arxiv_url=opts["arxiv_url"],
        oai_url=opts["oai_url"],
        source_dir=Path(opts["source_dir"]) if opts["source_dir"] else None,
        net=NetPolicy(
            delay=opts["delay"],
            timeout=opts["timeout"],
            retries=opts["retries"],
            throttle_minutes=opts["throttle_minutes"],
        ),
        plan=plan_settings(opts),
        metadata=opts["metadata"],
        pdfs=not opts["no_pdfs"],
        disk_check=not opts.get("no_disk_check"),
        api_page_size=opts["api_page_size"],
        api_result_cap=opts["api_result_cap"],
    )


def plan_settings(opts: dict) -> PlanSettings:
    """The PDF plan's settings (the index keeps its own published gap unless --index-delay is given);
    a setting missing from ``opts`` (or None) keeps ``PlanSettings``' default."""
    given = {
        "citation_index": opts.get("citation_index"),
        "index_delay": opts.get("index_delay"),
        "keys": opts.get("n_keys"),
        "citers_per_key": opts.get("citers_per_key"),
        "distractors": opts.get("n_distractors"),
        "controls": opts.get("n_controls"),
        "max_pdfs": opts.get("max_pdfs"),
        "seed": opts.get("seed"),
    }
    return PlanSettings(
        **{name: value for name, value in given.items() if value is not None},
        index_options={
            option.key: opts[option.key]
            for p in registry.PROVIDERS
            for option in p.all_options
            if opts.get(option.key) is not None
        },
        dry_run=bool(opts.get("dry_run")),
        licenses=tuple(opts["licenses"]) if opts.get("licenses") is not None else None,
        pdf_mb=opts.get("pdf_mb"),
    )
