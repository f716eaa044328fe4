"""The ingest stage: metadata -> roles by date -> version-pinned PDFs, into the store.

From arXiv (or servers speaking its protocols, ``--arxiv-url`` for the API and PDFs, ``--oai-url``
for OAI-PMH):

1. metadata is harvested into ``arxiv_record``, one committed page at a time: by default with
   OAI-PMH (arXivRaw, every version with its date; ``harvest.oai``) from the endpoint's
   ``Identify``-checked repository, incrementally after the first run; with ``--metadata api``
   through the API within its limits (``harvest.api``);
2. roles and version pins are computed from the stored records, batch by batch (``plan.roles``);
3. the plan (``plan.pdf_plan``) decides which PDFs to fetch: citers of keys chosen through a citation index,
   controls and sampled distractors, or a stratified sample of the pool without an index, under
   ``--max-pdfs``; it is logged first (and is all ``--dry-run`` does);
4. the planned PDFs go to the cache, one commit per PDF (skipped with
   ``--no-pdfs``); a PDF arXiv is still generating is asked again after the others, at least
   ``pdf_not_ready_wait`` later, up to ``pdf_not_ready_tries`` requests, then recorded as
   ``pdf-not-ready`` (a rerun asks again). Every request (OAI, API, PDF) goes through one
   ``ArxivConnection``: one session, the 3 s gate, one retry policy; a 403, a throttling spell
   longer than ``--throttle-minutes`` or a long 503 spell stops the run, resumably. The summary
   line says how often and how long arXiv throttled the run.

From a local catalog (``--source DIR``, see ``catalog.source``):

1. papers of each window (seed, pool, distractor) at their latest version; bad metadata
   (withdrawn, duplicate id, no date, no title) is recorded as a failure and skipped;
2. distractors move to the newest version dated before the seed window (``plan.versions``);
3. metadata rows and roles are upserted (idempotent), committed before any download starts;
4. the same plan, then its PDFs go to the cache (``download``), one commit per PDF, so a killed run
   loses at most the file in flight and a rerun fetches only what is missing. ``--max-papers`` on
   the pool window is a seeded sample stratified by month and category, never the first N.

Without ``since`` (local catalogs only) every paper is stored at its latest version, without
roles: roles belong to a build and are assigned when one is made.
"""

from __future__ import annotations

import logging
import time
from collections import Counter, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from sqlalchemy.engine import Engine
from sqlmodel import delete

from reflong.common.errors import NetworkError, ReflongError
from reflong.common.progress import ProgressFactory, null_progress
from reflong.db.engine import session_for
from reflong.db.papers import PaperRole, clear_failure, record_failure, set_role, upsert_paper
from reflong.ingest.catalog.source import LocalSource, Source
from reflong.ingest.download import FetchOutcome, cache_name, download
from reflong.ingest.harvest.api import harvest_window, lookup_versions
from reflong.ingest.harvest.arxiv_client import API_PAGE_SIZE, API_RESULT_CAP, PoliteArxivClient
from reflong.ingest.harvest.oai import DEFAULT_OAI_URL, clamp_from, harvest_set, identify, sets_for
from reflong.ingest.metadata import PaperMeta
from reflong.ingest.netpolicy import DEFAULT_ARXIV_URL, ArxivConnection, NetPolicy
from reflong.ingest.paper_rows import paper_columns
from reflong.ingest.plan.pdf_plan import Plan, PlanSettings, make_plan
from reflong.ingest.plan.roles import IN_CHUNK, RolePapers, assign_roles
from reflong.ingest.plan.versions import pick_versions
from reflong.ingest.plan.windows import DISTRACTOR, POOL, SEED, BuildWindows, parse_month

log = logging.getLogger(__name__)

DEFAULT_CATEGORIES = ("cs.CL", "cs.LG", "cs.AI")


@dataclass
class IngestSettings:
    since: str | None = None  # YYYY-MM; None: store every paper of a local catalog, no roles
    seed_months: int = 1
    pool_months: int = 6
    distractor_months: int = 2
    categories: tuple[str, ...] = DEFAULT_CATEGORIES  # empty: no category filter
    max_papers: int | None = None  # per window
    cache_dir: Path = Path("reflong-cache")
    arxiv_url: str = DEFAULT_ARXIV_URL  # the API and PDFs
    oai_url: str = DEFAULT_OAI_URL  # the OAI-PMH endpoint (arXiv's documented one)
    source_dir: Path | None = None  # a local catalog instead of arXiv
    net: NetPolicy = field(default_factory=NetPolicy)
    metadata: str = "oai"  # oai (OAI-PMH, arXivRaw) | api (the search API)
    pdfs: bool = True  # False: metadata and roles only (--no-pdfs)
    disk_check: bool = True  # False: fetch even when the plan's GB estimate exceeds the free space
    api_page_size: int = API_PAGE_SIZE
    api_result_cap: int = API_RESULT_CAP
    plan: PlanSettings = field(default_factory=PlanSettings)


@dataclass
class IngestSummary:
    window: str | None = None
    source: str = ""
    roles: dict[str, int] = field(default_factory=lambda: {SEED: 0, POOL: 0, DISTRACTOR: 0})
    papers: int = 0  # paper rows written or confirmed by this run
    fetched: int = 0  # PDFs put into the cache now
    cached: int = 0  # PDFs that were already there
    failed: int = 0  # PDFs that could not be had
    skipped: int = 0  # records skipped for bad metadata
    reasons: Counter = field(default_factory=Counter)  # failure reasons of this run
    requests: Counter = field(default_factory=Counter)  # requests sent to arXiv, by kind
    throttle_spells: int = 0  # times arXiv throttled (429s, no answers) and the run waited it out
    throttle_seconds: float = 0.0  # how long those spells lasted in all
    plan: Plan | None = None

    def nothing_usable(self) -> str | None:
        """Why this run produced no usable PDF although it tried (for a non-zero exit), or None."""
        if self.failed and not (self.fetched or self.cached):
            reasons = ", ".join(f"{k} {v}" for k, v in sorted(self.reasons.items()))
            return (
                f"no PDF could be had: all {self.failed} failed ({reasons}); the reasons are recorded "
                "(`reflong-build stats`); check the network or --arxiv-url, then rerun to retry them"
            )
        return None

    def line(self) -> str:
        where = f"window {self.window}" if self.window else "no window (papers stored without roles)"
        roles = ", ".join(f"{k} {v}" for k, v in self.roles.items()) if self.window else ""
        reasons = ", ".join(f"{k} {v}" for k, v in sorted(self.reasons.items()))
        return (
            f"ingest from {self.source}, {where}: {self.papers} papers"
            + (f" ({roles})" if roles else "")
            + f"; PDFs fetched {self.fetched}, cached {self.cached}, failed {self.failed}"
            + f"; skipped for bad metadata {self.skipped}"
            + (f" [{reasons}]" if reasons else "")
            + (
                "; requests " + ", ".join(f"{k} {v}" for k, v in sorted(self.requests.items()))
                if self.requests
                else ""
            )
            + (
                f"; arXiv throttled {self.throttle_spells} spell{'s' if self.throttle_spells != 1 else ''}"
                f" ({self.throttle_seconds:.0f} s waited out)"
                if self.throttle_spells
                else ""
            )
        )


def make_source(settings: IngestSettings) -> Source:
    return LocalSource(settings.source_dir)


def page_counter(bar, noun: str) -> Callable[[int], None]:
    """A page callback for a metadata progress bar: one tick a page, the running count beside it."""
    total = 0

    def page_done(n: int) -> None:
        nonlocal total
        total += n
        bar.update(1)
        bar.set_postfix_str(f"{total} {noun}")

    return page_done


def _select(
    source: Source, settings: IngestSettings, summary: IngestSummary, session, progress: ProgressFactory
) -> list[tuple[str | None, PaperMeta]]:
    """The (role, paper version) pairs of this run, bad metadata recorded and left out."""

    def skip(subject: str, reason: str, message: str) -> None:
        record_failure(session, "ingest", subject, reason, message)
        summary.skipped += 1
        summary.reasons[reason] += 1

    for problem in source.problems():
        skip(problem.subject, problem.reason, problem.message)

    if settings.since is None:
        chosen: list[tuple[str | None, PaperMeta]] = []
        for meta in source.all_papers():
            if meta.withdrawn:
                skip(meta.arxiv_id, "withdrawn", f"{meta.vid} is withdrawn: {meta.comment or ''}".strip())
            else:
                chosen.append((None, meta))
        return chosen

    build = BuildWindows(
        parse_month(settings.since), settings.seed_months, settings.pool_months, settings.distractor_months
    )
    summary.window = build.label
    categories = list(settings.categories)
    for arxiv_id in source.undated(categories):
        skip(arxiv_id, "missing-date", "no first-version date: cannot place it in a date window")

    seen: dict[str, str] = {}
    chosen, distractors = [], []
    with progress(total=None, desc="metadata pages", unit="page") as bar:
        page_done = page_counter(bar, "entries")
        source.on_page(page_done)
        for window in build.windows():
            metas = source.window(window, categories, None if window.role == POOL else settings.max_papers)
            for meta in metas:
                if meta.arxiv_id in seen:
                    skip(
                        f"{meta.arxiv_id}@{window.role}",
                        "duplicate-id",
                        f"in the {seen[meta.arxiv_id]} and the {window.role} window; kept the first",
                    )
                    continue
                seen[meta.arxiv_id] = window.role
                if meta.withdrawn:
                    skip(meta.arxiv_id, "withdrawn", f"{meta.vid} is withdrawn: {meta.comment or ''}".strip())
                elif not meta.title:
                    skip(meta.arxiv_id, "missing-title", f"{meta.vid} has no title")
                elif not window.contains(meta.first_published, slack_days=1):
                    skip(
                        meta.arxiv_id,
                        "missing-date" if not meta.first_published else "date-outside-window",
                        f"first version dated {meta.first_published} is not in {window.role} window",
                    )
                elif window.role == DISTRACTOR:
                    distractors.append(meta)
                else:
                    chosen.append((window.role, meta))
        versions = pick_versions(distractors, build.cutoff, source.lookup)
        source.on_page(None)

    for meta in distractors:
        pick = versions[meta.arxiv_id]
        if pick is None:
            skip(
                meta.arxiv_id,
                "no-version-before-seeds",
                f"no version of {meta.arxiv_id} is known to predate {build.cutoff}; not date-safe",
            )
        else:
            chosen.append((DISTRACTOR, pick))
    return chosen


PlanCallback = Callable[[Plan], None] | None
HarvestCallback = Callable[[], None] | None


def run_ingest(
    engine: Engine,
    settings: IngestSettings,
    progress: ProgressFactory = null_progress,
    plan_callback: PlanCallback = None,
    harvest_callback: HarvestCallback = None,
) -> IngestSummary:
    """Ingest one window (or a whole local catalog) into the store; safe to rerun at any point.

    ``plan_callback`` gets the PDF plan before any download (the CLI prints it).
    ``harvest_callback`` runs once the metadata and roles are committed, before the plan asks the
    citation index anything: ``refresh`` checks there that the data reaches the window (it may
    raise to stop the run; the harvest is kept)."""
    if settings.source_dir is None:
        return _run_arxiv(engine, settings, progress, plan_callback, harvest_callback)
    return _run_local(engine, settings, progress, plan_callback, harvest_callback)


def _plan(
    engine: Engine,
    settings: IngestSettings,
    window: str,
    cache_dir: Path,
    metadata_requests: int,
    plan_callback: PlanCallback,
    progress: ProgressFactory = null_progress,
) -> Plan:
    """Make, log and hand over the plan of this window (see ``plan``)."""
    plan = make_plan(
        engine,
        window,
        settings.plan,
        cache_dir,
        settings.net.delay,
        settings.net.timeout,
        settings.net.retries,
        is_cached=lambda m: (cache_dir / cache_name(m.arxiv_id, m.version)).is_file(),
        progress=progress,
        local_catalog=settings.source_dir,
    )
    plan.metadata_requests = metadata_requests
    if plan_callback is not None:
        plan_callback(plan)  # the CLI prints it; logging it as well showed every line twice
    else:
        for line in plan.lines():
            log.info(line)
    return plan


def sample_pool_roles(session, label: str, max_papers: int | None, seed: int) -> int:
    """Keep ``max_papers`` pool roles of ``label``: a seeded sample stratified by month and primary
    category (never the first N by date); the other pool roles are removed. Returns pool roles kept.

    Counted and sampled in the store (``RolePapers``), removed a page at a time."""
    session.commit()  # the roles as stored are what is counted and sampled
    pool = RolePapers(session.get_bind(), label, POOL)
    if max_papers is None or len(pool) <= max_papers:
        return len(pool)
    kept = set(pool.stratified_ids(max_papers, seed))
    drop: list[str] = []
    for arxiv_id in pool.iter_ids():  # one read cursor (WAL: it keeps its snapshot while we delete)
        if arxiv_id not in kept:
            drop.append(arxiv_id)
        if len(drop) == IN_CHUNK:
            _drop_roles(session, label, POOL, drop)
            drop = []
    _drop_roles(session, label, POOL, drop)
    session.commit()
    return len(kept)


def _drop_roles(session, label: str, role: str, ids: list[str]) -> None:
    if ids:
        session.exec(
            delete(PaperRole).where(
                PaperRole.window == label, PaperRole.role == role, PaperRole.arxiv_id.in_(ids)
            )
        )


def _run_arxiv(
    engine: Engine,
    settings: IngestSettings,
    progress: ProgressFactory,
    plan_callback: PlanCallback = None,
    harvest_callback: HarvestCallback = None,
) -> IngestSummary:
    """Harvest metadata (committed page by page), assign roles from the store, fetch PDFs."""
    if settings.since is None:
        raise ReflongError("--since is required when ingesting from arXiv (e.g. --since 2024-03)")
    if settings.metadata not in ("oai", "api"):
        raise ReflongError(f"--metadata {settings.metadata!r}: use oai or api")
    build = BuildWindows(
        parse_month(settings.since), settings.seed_months, settings.pool_months, settings.distractor_months
    )
    base_url = settings.arxiv_url.rstrip("/")
    oai_url = settings.oai_url.rstrip("/")
    source = f"{oai_url} (OAI-PMH)" if settings.metadata == "oai" else f"{base_url} (API)"
    summary = IngestSummary(window=build.label, source=source)
    conn = ArxivConnection(settings.net)
    categories = list(settings.categories)
    cache_dir = Path(settings.cache_dir).resolve()
    try:
        with session_for(engine) as session:
            with progress(total=None, desc="metadata pages", unit="page") as bar:
                page_done = page_counter(bar, "records")
                client = PoliteArxivClient(base_url, conn=conn, page_size=settings.api_page_size)
                if settings.metadata == "oai":
                    repository = identify(conn, oai_url)
                    needed_from = clamp_from(min(w.start for w in build.windows()).isoformat(), repository)
                    for set_spec in sets_for(categories):
                        harvest_set(session, conn, oai_url, set_spec, needed_from, page_done)
                else:
                    for window in build.windows():
                        harvest_window(
                            session, client, window.start, window.end, categories,
                            settings.api_result_cap, page_done,
                        )  # fmt: skip
                lookups = settings.metadata == "api"
                counts = assign_roles(
                    session, build, categories, settings.max_papers, base_url, "arxiv", lookups
                )
                if counts.needs_lookup:
                    lookup_versions(session, client, counts.needs_lookup, page_done)
                    counts = assign_roles(
                        session, build, categories, settings.max_papers, base_url, "arxiv", False
                    )
            if POOL in counts.roles:
                counts.roles[POOL] = sample_pool_roles(
                    session, build.label, settings.max_papers, settings.plan.seed
                )
            for role in summary.roles:
                summary.roles[role] = counts.roles.get(role, 0)
            summary.papers = sum(counts.roles.values())
            summary.skipped = counts.skipped
            summary.reasons.update(counts.reasons)
            cache_dir.mkdir(parents=True, exist_ok=True)
            session.commit()
            if harvest_callback is not None:
                harvest_callback()
            metadata_requests = sum(n for k, n in conn.requests_by_kind.items() if k != "pdf")
            plan = _plan(engine, settings, build.label, cache_dir, metadata_requests, plan_callback, progress)
            summary.plan = plan
            if settings.pdfs and not settings.plan.dry_run:
                _check_disk(settings, plan)
                _fetch_pdfs(session, conn, [p.meta for p in plan.picks], cache_dir, summary, progress)
    finally:
        summary.requests.update(conn.requests_by_kind)
        summary.throttle_spells = conn.throttling.spells
        summary.throttle_seconds = conn.throttling.seconds
    return summary


def _check_disk(settings: IngestSettings, plan: Plan) -> None:
    """Refuse, in one line, a fetch whose estimate does not fit the free space (``--no-disk-check``)."""
    if settings.disk_check and (why := plan.short_of_disk()):
        raise ReflongError(why)


def _fetch_pdfs(
    session, conn: ArxivConnection, metas: list[PaperMeta], cache_dir: Path, summary, progress
) -> None:
    """The planned PDFs, at their pinned versions, one commit each.

    A PDF arXiv is still generating (``pdf-not-ready``) waits in a queue while the others are
    fetched, and is asked again ``pdf_not_ready_wait`` seconds after its last try at the earliest,
    up to ``pdf_not_ready_tries`` requests; then it is recorded as ``pdf-not-ready``."""
    policy = conn.policy
    not_ready: deque[tuple[PaperMeta, int, float]] = deque()  # (paper, requests so far, last request)

    def fetch(meta: PaperMeta) -> FetchOutcome:
        if not meta.pdf_url:
            return FetchOutcome("failed", reason="no-pdf", message=f"no PDF link for {meta.vid}")
        try:
            return download(conn, meta.pdf_url, cache_dir / cache_name(meta.arxiv_id, meta.version))
        except NetworkError:
            session.commit()
            raise

    def settle(meta: PaperMeta, outcome: FetchOutcome, tries: int) -> None:
        if outcome.reason == "pdf-not-ready" and tries < policy.pdf_not_ready_tries:
            log.warning(
                "arXiv is still generating the PDF of %s (an HTML page instead); asking again after the "
                "other PDFs, in %g s at the earliest (request %d of %d)",
                meta.vid,
                policy.pdf_not_ready_wait,
                tries,
                policy.pdf_not_ready_tries,
            )
            not_ready.append((meta, tries, time.monotonic()))
            return
        if outcome.reason == "pdf-not-ready":
            outcome = FetchOutcome(
                "failed",
                reason="pdf-not-ready",
                message=f"{outcome.message}; still so after {tries} requests, "
                f"{policy.pdf_not_ready_wait:g} s or more apart: a rerun asks again",
            )
        _record_outcome(session, meta, outcome, summary)
        session.commit()
        bar.update(1)
        bar.set_postfix_str(f"fetched {summary.fetched}, cached {summary.cached}, failed {summary.failed}")

    with progress(total=len(metas), desc="PDFs", unit="pdf") as bar:
        for meta in metas:
            settle(meta, fetch(meta), 1)
        while not_ready:
            meta, tries, last = not_ready.popleft()
            conn.politeness.sleep(last + policy.pdf_not_ready_wait - time.monotonic())
            settle(meta, fetch(meta), tries + 1)


def _record_outcome(session, meta: PaperMeta, outcome: FetchOutcome, summary: IngestSummary) -> None:
    if outcome.status in ("fetched", "cached"):
        upsert_paper(
            session,
            meta.arxiv_id,
            meta.version,
            status="downloaded",
            pdf_path=str(outcome.path),
            pdf_sha256=outcome.sha256,
            error=None,
        )
        clear_failure(session, "download", meta.vid)
        if outcome.status == "fetched":
            summary.fetched += 1
        else:
            summary.cached += 1
    else:
        upsert_paper(
            session,
            meta.arxiv_id,
            meta.version,
            status="failed",
            error=f"{outcome.reason}: {outcome.message}",
        )
        record_failure(session, "download", meta.vid, outcome.reason or "failed", outcome.message)
        summary.failed += 1
        summary.reasons[outcome.reason or "failed"] += 1


def _run_local(
    engine: Engine,
    settings: IngestSettings,
    progress: ProgressFactory,
    plan_callback: PlanCallback = None,
    harvest_callback: HarvestCallback = None,
) -> IngestSummary:
    """A local catalog: the whole selection at once (catalogs are small), then PDFs copied."""
    source = make_source(settings)
    summary = IngestSummary(source=str(settings.source_dir or settings.arxiv_url))
    cache_dir = Path(settings.cache_dir).resolve()
    cache_dir.mkdir(parents=True, exist_ok=True)
    with session_for(engine) as session:
        chosen = _select(source, settings, summary, session, progress)
        for role, meta in chosen:
            upsert_paper(session, meta.arxiv_id, meta.version, **paper_columns(meta, source.kind))
            clear_failure(session, "ingest", meta.arxiv_id)
            if role is not None:
                set_role(session, summary.window, meta.arxiv_id, role, meta.version)
                summary.roles[role] += 1
        summary.papers = len(chosen)
        session.commit()
        if summary.window is not None:
            summary.roles[POOL] = sample_pool_roles(
                session, summary.window, settings.max_papers, settings.plan.seed
            )
            summary.papers = sum(summary.roles.values())

        if summary.window is None:
            todo = [(role, m) for role, m in chosen if m.pdf_url]
        else:
            if harvest_callback is not None:
                harvest_callback()
            plan = _plan(engine, settings, summary.window, cache_dir, 0, plan_callback, progress)
            summary.plan = plan
            todo = [] if settings.plan.dry_run else [(p.role, p.meta) for p in plan.picks]
        if not settings.pdfs:
            todo = []
        if todo and summary.plan is not None:
            _check_disk(settings, summary.plan)
        with progress(total=len(todo), desc="PDFs", unit="pdf") as bar:
            for _role, meta in todo:
                try:
                    outcome = source.fetch(meta, cache_dir / cache_name(meta.arxiv_id, meta.version))
                except NetworkError:
                    session.commit()
                    raise
                _record_outcome(session, meta, outcome, summary)
                session.commit()
                bar.update(1)
                bar.set_postfix_str(
                    f"fetched {summary.fetched}, cached {summary.cached}, failed {summary.failed}"
                )
    return summary
