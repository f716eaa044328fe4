"""The ingest options, shared by ``ingest`` and ``paper`` so both read and default the same."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from pathlib import Path

import click

from reflong.common.errors import ReflongError
from reflong.ingest.harvest.arxiv_client import API_PAGE_SIZE, API_RESULT_CAP
from reflong.ingest.netpolicy import DEFAULT_ARXIV_URL, NetPolicy
from reflong.ingest.plan.pdf_plan import PlanSettings
from reflong.ingest.plan.windows import parse_month
from reflong.ingest.stage import DEFAULT_CATEGORIES, IngestSettings


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


def _categories(_ctx, _param, value: str) -> tuple[str, ...]:
    return tuple(c.strip() for c in value.split(",") if c.strip())


_DECORATORS = [
    click.option(
        "--since",
        metavar="YYYY-MM",
        callback=_since,
        help="First month of the seed window (required for arXiv).",
    ),
    click.option("--seed-months", type=click.IntRange(min=1), default=1, show_default=True),
    click.option(
        "--pool-months",
        type=click.IntRange(min=0),
        default=6,
        show_default=True,
        help="Months of citing papers after the seed window.",
    ),
    click.option(
        "--distractor-months",
        type=click.IntRange(min=0),
        default=2,
        show_default=True,
        help="Months of earlier papers before the seed window.",
    ),
    click.option(
        "--categories",
        default=",".join(DEFAULT_CATEGORIES),
        show_default=True,
        callback=_categories,
        help="Comma-separated arXiv categories (cs.* for a prefix; empty: all).",
    ),
    click.option(
        "--max-papers", type=click.IntRange(min=1), default=None, help="At most N papers per window."
    ),
    click.option(
        "--cache",
        "cache_dir",
        type=click.Path(file_okay=False),
        default="reflong-cache",
        show_default=True,
        envvar="REFLONG_CACHE",
        help="PDF cache (by id+version). Env: REFLONG_CACHE.",
    ),
    click.option(
        "--arxiv-url",
        default=DEFAULT_ARXIV_URL,
        show_default=True,
        callback=_http_url,
        help="Base URL of an arXiv-compatible endpoint (/oai2, /api/query and /pdf/<id>vN).",
    ),
    click.option(
        "--source",
        "source_dir",
        type=click.Path(exists=True, file_okay=False),
        default=None,
        help="A local catalog folder (papers.jsonl + PDFs) instead of arXiv.",
    ),
    click.option(
        "--metadata",
        type=click.Choice(["oai", "api"]),
        default="oai",
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
        default=API_RESULT_CAP,
        hidden=True,
        help="Results one API query may return (arXiv: 30,000); for tests against a stand-in.",
    ),
    click.option(
        "--api-page-size",
        type=click.IntRange(min=1, max=2000),
        default=API_PAGE_SIZE,
        hidden=True,
        help="max_results per API page (arXiv allows up to 2,000).",
    ),
    click.option(
        "--delay",
        type=click.FloatRange(min=0),
        default=3.0,
        show_default=True,
        help="Seconds between requests (arXiv asks for >= 3).",
    ),
    click.option(
        "--timeout",
        type=click.FloatRange(min=0.1),
        default=30.0,
        show_default=True,
        help="Seconds to wait for an answer before retrying.",
    ),
    click.option(
        "--retries",
        type=click.IntRange(min=0),
        default=3,
        show_default=True,
        help="Retries (with exponential backoff) on 429/5xx/timeouts/empty pages.",
    ),
    click.option(
        "--citation-index",
        type=click.Choice(["auto", "s2", "openalex", "none"]),
        default="auto",
        show_default=True,
        help="Choose keys and citers with Semantic Scholar (auto: when S2_API_KEY or --s2-url is set; "
        "an unreachable index falls back to none), with OpenAlex (openalex; key from OPENALEX_API_KEY), "
        "or sample the pool without one.",
    ),
    click.option(
        "--s2-url",
        default=None,
        callback=_optional_http_url,
        help="Base URL of a Semantic Scholar Graph API endpoint [default: https://api.semanticscholar.org].",
    ),
    click.option(
        "--openalex-url",
        default=None,
        callback=_optional_http_url,
        help="Base URL of an OpenAlex API endpoint, for --citation-index openalex [default: https://api.openalex.org].",
    ),
    click.option(
        "--openalex-mailto",
        default=None,
        envvar="OPENALEX_MAILTO",
        metavar="EMAIL",
        help="Email sent as mailto= to OpenAlex (its polite pool). Env: OPENALEX_MAILTO.",
    ),
    click.option(
        "--index-delay",
        type=click.FloatRange(min=0),
        default=None,
        help="Seconds between index requests [default: the index's published rate: S2 1 with "
        "S2_API_KEY, 3 without; OpenAlex 0.11].",
    ),
    click.option(
        "--keys",
        "n_keys",
        type=click.IntRange(min=1),
        default=60,
        show_default=True,
        help="Keys to choose through the index, across citation bands.",
    ),
    click.option(
        "--citers-per-key",
        type=click.IntRange(min=2),
        default=30,
        show_default=True,
        help="At most this many of a key's citers (seeded sample) are fetched.",
    ),
    click.option(
        "--distractors",
        "n_distractors",
        type=click.IntRange(min=0),
        default=600,
        show_default=True,
        help="Distractor-window papers to fetch (seeded sample).",
    ),
    click.option(
        "--controls",
        "n_controls",
        type=click.IntRange(min=0),
        default=200,
        show_default=True,
        help="Pool papers the index links to no key, fetched to measure false positives.",
    ),
    click.option(
        "--max-pdfs",
        type=click.IntRange(min=1),
        default=3000,
        show_default=True,
        help="Cap on PDFs to fetch (3,000 x 3 s = 2.5 h at arXiv's rule).",
    ),
    click.option(
        "--dry-run", is_flag=True, help="Print the plan (requests, PDFs by role, GB, hours) and stop."
    ),
]


def ingest_options(func: Callable) -> Callable:
    """Apply every ingest option (window, categories, source, politeness) to a command."""
    for decorator in reversed(_DECORATORS):
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
        source_dir=Path(opts["source_dir"]) if opts["source_dir"] else None,
        net=NetPolicy(delay=opts["delay"], timeout=opts["timeout"], retries=opts["retries"]),
        plan=plan_settings(opts),
        metadata=opts["metadata"],
        pdfs=not opts["no_pdfs"],
        api_page_size=opts["api_page_size"],
        api_result_cap=opts["api_result_cap"],
    )


def plan_settings(opts: dict) -> PlanSettings:
    """The PDF plan's settings (the index keeps its own published gap unless --index-delay is given)."""
    index_delay = opts.get("index_delay")
    return PlanSettings(
        citation_index=opts.get("citation_index") or "auto",
        s2_url=opts.get("s2_url"),
        openalex_url=opts.get("openalex_url"),
        openalex_mailto=opts.get("openalex_mailto"),
        index_delay=index_delay,
        keys=opts.get("n_keys") or 60,
        citers_per_key=opts.get("citers_per_key") or 30,
        distractors=600 if opts.get("n_distractors") is None else opts["n_distractors"],
        controls=200 if opts.get("n_controls") is None else opts["n_controls"],
        max_pdfs=opts.get("max_pdfs") or 3000,
        seed=opts.get("seed") or 0,
        dry_run=bool(opts.get("dry_run")),
    )
