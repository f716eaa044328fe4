"""The PDF plan of a build: which papers to fetch, and what that costs, before any download.

With a citation index (``--citation-index s2``, or ``auto`` when ``S2_API_KEY`` or ``--s2-url`` is
set; ``--citation-index openalex`` asks OpenAlex the same questions; the providers and the ``auto``
rule are in ``ingest/index/registry.py``): seed-window papers are looked up in batches for their
citation counts; keys are tried
across citation bands (``selection.key_order``) and each key's citers are paged until ``--keys``
keys have at least two arXiv citers inside the pool window; up to ``--citers-per-key`` of those
(a seeded sample) are fetched per key. Then ``--controls`` pool papers the index links to none of
the keys (they measure false positives and feed hard negatives) and ``--distractors`` papers of
the distractor window (at their pinned, pre-seed version). ``--max-pdfs`` is a hard cap on the
sum; what it cuts first to keep a build usable is ``selection.cap_plan``'s order (citers past
what a task takes, controls, distractors past what the longest task needs, whole keys), and what
it cut is one warning line.

Without an index (``none``, ``auto`` without a key or URL, or the index host unreachable at the
first request, which is logged): a seeded sample of the pool window stratified by month and
primary category, up to the budget left after the distractors (the warning line says so when
the cap cuts either).

Every answer of the index is cached in the store, so the plan of a rerun asks nothing again, and
the plan (keys, picks by role) is stored per window for reports and audits. What the index could
not tell is said in the plan's lines (docs/architecture.md, invariant 8): citers lists cut by the
paging cap or left partial by the index's soft timeout, citing rows listed without an id (skipped),
seeds found only by their arXiv location (OpenAlex's merged works), and 429 spells waited out.
"""

from __future__ import annotations

import logging
import shutil
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from sqlalchemy.engine import Engine
from sqlmodel import Session, delete

from reflong.common.progress import ProgressFactory, null_progress
from reflong.db.index import IndexKey, PlanPick
from reflong.ingest.index import registry
from reflong.ingest.index.base import (
    CachedIndex,
    CitersReport,
    IndexUnreachable,
    citer_requests,
    lookup_requests,
)
from reflong.ingest.metadata import PaperMeta
from reflong.ingest.plan.pdf_size import TYPICAL, PdfSize, pdf_size
from reflong.ingest.plan.roles import RolePapers
from reflong.ingest.plan.selection import (
    MIN_CITATIONS,
    NEGATIVES_FLOOR,
    TASK_POSITIVES,
    cap_plan,
    key_order,
    seeded_sample,
)
from reflong.ingest.plan.windows import DISTRACTOR, POOL, SEED

log = logging.getLogger(__name__)

KEY_TRIES = 3  # page at most this many candidates per wanted key (keys without pool citers are skipped)
ROLES = ("citer", "control", "distractor", "sample")


@dataclass(frozen=True)
class PlanSettings:
    citation_index: str = "auto"  # auto | none | a provider's name (s2, openalex: ingest/index/registry.py)
    # The providers' own options by key (``s2_url``, ``openalex_url``, ``openalex_mailto``: see
    # ``IndexProvider.all_options``); a missing or None value is the provider's default (its URL,
    # $OPENALEX_MAILTO for OpenAlex's polite pool).
    index_options: Mapping[str, str | None] = field(default_factory=dict)
    index_delay: float | None = (
        None  # None: the index's own gap (S2: 1 s with a key, 3 s without; OpenAlex 0.11 s)
    )
    keys: int = 60
    citers_per_key: int = 30
    distractors: int = 600
    controls: int = 200
    max_pdfs: int | None = 3000
    seed: int = 0
    dry_run: bool = False
    # --licenses (kind names): papers the build would drop for their licence are never planned,
    # as keys, citers, controls, distractors or samples (``RolePapers``); None: every paper.
    licenses: tuple[str, ...] | None = None
    # --pdf-mb: the mean PDF size the GB estimate assumes (None: measured, ``pdf_size``); how the
    # run is checked, not what it builds, so it is not in ``to_json``.
    pdf_mb: float | None = None

    def to_json(self) -> dict:
        out = {
            "citation_index": self.citation_index,
            "keys": self.keys,
            "citers_per_key": self.citers_per_key,
            "distractors": self.distractors,
            "controls": self.controls,
            "max_pdfs": self.max_pdfs,
            "seed": self.seed,
        }
        if self.licenses is not None:  # only then: plans without the filter keep their bytes
            out["licenses"] = list(self.licenses)
        return out


@dataclass(frozen=True)
class Pick:
    role: str  # citer | control | distractor | sample
    meta: PaperMeta
    seed_arxiv_id: str | None = None


@dataclass
class Plan:
    window: str
    index: str  # "s2 at URL (key|shared pool, N s/request)" or "none (why)"
    picks: list[Pick] = field(default_factory=list)
    keys: list[tuple[str, int, str, int]] = field(default_factory=list)  # id, count, band, citers in pool
    metadata_requests: int = 0
    metadata_papers: dict[str, int] = field(default_factory=dict)
    index_requests: Counter = field(default_factory=Counter)  # made by this run, by kind
    index_cached: Counter = field(default_factory=Counter)  # answered from the store, by kind
    index_estimate: int = 0  # requests estimated before paging citers
    cached_pdfs: int = 0  # picks already in the PDF cache
    arxiv_delay: float = 3.0
    index_delay: float = 0.0
    index_rule_gap: float = 1.0  # seconds a request at the index's published rate (S2: 1/s with a key)
    free_gb: float = 0.0
    pdf_size: PdfSize = TYPICAL  # what the GB estimate assumes a PDF weighs, and why
    max_pdfs: int | None = None
    cut: str | None = None  # what --max-pdfs cut, when it cut anything
    local_catalog: str | None = None  # --source DIR: PDFs are copied, no request and no wait
    citers: CitersReport | None = None  # what the paged citers lists may lack (None: no index)
    index_notes: list[str] = field(default_factory=list)  # 429 waits, partial pages, merged works
    licenses: tuple[str, ...] | None = None  # --licenses kept kinds (None: no filter)
    licence_skipped: dict[str, int] = field(default_factory=dict)  # role -> papers --licenses leaves out
    licence_unknown_api: int = 0  # window papers with no licence known, harvested through the arXiv API

    @property
    def skipped_by_licenses(self) -> int:
        return sum(self.licence_skipped.values())

    def licence_line(self) -> str | None:
        """``licences: 41 skipped by --licenses (seed 9, pool 25, distractor 7); kept cc-by, ...``."""
        if self.licenses is None:
            return None
        roles = ", ".join(f"{r} {n}" for r, n in self.licence_skipped.items() if n)
        return (
            f"  licences: {self.skipped_by_licenses} skipped by --licenses"
            + (f" ({roles})" if roles else "")
            + f"; kept {', '.join(self.licenses)}: no PDF of a paper the build would drop is planned"
        )

    def by_role(self) -> dict[str, int]:
        counts = Counter(p.role for p in self.picks)
        return {r: counts[r] for r in ROLES if counts[r]}

    @property
    def to_fetch(self) -> int:
        return len(self.picks) - self.cached_pdfs

    def estimate_gb(self) -> float:
        return self.to_fetch * self.pdf_size.mb / 1000

    def estimate_hours(self) -> float:
        """PDFs still to fetch at the arXiv gap, plus index requests at the index gap."""
        index = self.index_estimate if self.index_estimate else sum(self.index_requests.values())
        return (self.to_fetch * self.arxiv_delay + index * self.index_delay) / 3600

    def hours_at_rules(self) -> float:
        """The same work at arXiv's 3 s rule and the index's published gap (S2: 1 s with a key)."""
        index = self.index_estimate if self.index_estimate else sum(self.index_requests.values())
        gap = 0.0 if self.index.startswith("none") else max(self.index_delay, self.index_rule_gap)
        pdf_gap = 0.0 if self.local_catalog else 3.0
        return (self.to_fetch * pdf_gap + index * gap) / 3600

    def _timing(self) -> str:
        """The time part of the estimate line: arXiv's gap for PDFs, or none for a local catalog."""
        if self.local_catalog:
            out = f"PDFs copied from the local catalog {self.local_catalog}: no request, no wait"
            if self.index_delay:
                out += f"; {self.estimate_hours():.2f} h at {self.index_delay:g} s an index request"
            return out
        return (
            f"{self.estimate_hours():.2f} h at {self.arxiv_delay:g} s a PDF request"
            + (f" and {self.index_delay:g} s an index request" if self.index_delay else "")
            + (f" ({self.hours_at_rules():.2f} h at arXiv's 3 s rule)" if self.arxiv_delay < 3 else "")
        )

    def lines(self) -> list[str]:
        roles = " + ".join(f"{n} {r}s" for r, n in self.by_role().items()) or "none"
        cap = f" (cap --max-pdfs {self.max_pdfs})" if self.max_pdfs else ""
        meta = ", ".join(f"{r} {n}" for r, n in self.metadata_papers.items())
        made = sum(self.index_requests.values())
        kinds = ", ".join(f"{k} {n}" for k, n in sorted(self.index_requests.items())) or "none"
        cached = sum(self.index_cached.values())
        bands = Counter(b for _, _, b, _ in self.keys)
        band_text = ", ".join(
            f"{b}: {n}" for b, n in sorted(bands.items(), key=lambda kv: int(kv[0].split("-")[0]))
        )
        out = [
            f"plan for window {self.window}; citation index: {self.index}",
            f"  metadata: {self.metadata_requests} requests ({meta})",
        ]
        if not self.index.startswith("none"):
            out.append(
                f"  index: {made} requests ({kinds}), estimated {self.index_estimate}; "
                f"{cached} answers from the store" + "".join(f"; {note}" for note in self.index_notes)
            )
        if self.citers is not None and self.citers.lists:
            out.append(f"  citers: {_citers_text(self.citers)}")
        if self.keys:
            out.append(f"  keys: {len(self.keys)} (by citation band {band_text})")
        if licence := self.licence_line():
            out.append(licence)
        if self.licence_unknown_api:
            out.append(
                f"  licences: {self.licence_unknown_api} papers of the window: licence unknown (API route: "
                "arXiv's API feed carries no licence; --metadata oai harvests arXivRaw, which does); "
                "--licenses drops them and the card counts them as not republishable"
            )
        out += [
            f"  PDFs: {roles} = {len(self.picks)}{cap}; {self.cached_pdfs} already cached, {self.to_fetch} to fetch",
            f"  estimate: {self.estimate_gb():.2f} GB at {self.pdf_size.text()}; " + self._timing(),
            f"  free disk at the PDF cache: {self.free_gb:.1f} GB"
            + (
                f", less than the plan's {self.estimate_gb():.2f} GB: a run stops before fetching"
                if self.short_of_disk()
                else ""
            ),
        ]
        return out

    def short_of_disk(self) -> str | None:
        """One line when the PDFs still to fetch would not fit the free space at the cache (the
        estimate at ``pdf_size`` a PDF), else None. Decided before the first request: a fetch
        of hours at arXiv's pace that would end on a full disk is better not started."""
        need = self.estimate_gb()
        if self.to_fetch == 0 or need <= self.free_gb:
            return None
        return (
            f"the plan's {self.to_fetch} PDFs need about {need:.2f} GB ({self.pdf_size.text()}) but only "
            f"{self.free_gb:.2f} GB are free at --cache: free space, lower --max-pdfs or give --cache "
            "on a larger disk, then rerun (nothing was fetched); --no-disk-check goes ahead anyway"
        )

    def to_json(self) -> dict:
        return {
            "window": self.window,
            "index": self.index,
            "keys": len(self.keys),
            "pdfs": self.by_role(),
            "pdfs_total": len(self.picks),
            "pdfs_cached": self.cached_pdfs,
            "metadata_requests": self.metadata_requests,
            "index_requests": dict(self.index_requests),
            "index_estimate": self.index_estimate,
            "estimate_gb": round(self.estimate_gb(), 3),
            "estimate_hours": round(self.estimate_hours(), 3),
            "hours_at_rules": round(self.hours_at_rules(), 3),
            "free_gb": round(self.free_gb, 1),
            "pdf_mb": round(self.pdf_size.mb, 4),
            "pdf_mb_basis": self.pdf_size.basis,
            "citers_lists": self.citers.lists if self.citers else 0,
            "citers_incomplete": self.citers.incomplete if self.citers else [],
            "citers_without_id": self.citers.without_id if self.citers else 0,
            "index_notes": list(self.index_notes),
            **({"licence_unknown_api": self.licence_unknown_api} if self.licence_unknown_api else {}),
            **({"licence_skipped": dict(self.licence_skipped)} if self.licenses is not None else {}),
        }


def _citers_text(report: CitersReport) -> str:
    """``8 lists paged; 1 incomplete (0 cut by the paging cap, 1 timed out at the index: 2403.00012);
    3 citing rows without an index id skipped``."""
    incomplete = report.incomplete
    text = f"{report.lists} lists paged; {len(incomplete)} incomplete"
    if incomplete:
        shown = ", ".join(incomplete[:5]) + (", ..." if len(incomplete) > 5 else "")
        text += (
            f" ({len(report.capped)} cut by the paging cap, {len(report.timed_out)} timed out at the "
            f"index: {shown})"
        )
    return text + f"; {report.without_id} citing rows without an index id skipped"


def _index_notes(provider) -> list[str]:
    """What the provider met on the way that the report must say (attributes a provider may have)."""
    notes = []
    waited = getattr(provider, "busy_waited", 0.0)
    if waited:
        notes.append(f"waited {waited:.0f} s out of 429 spells (no Retry-After)")
    partial = getattr(provider, "timed_out_pages", 0)
    if partial:
        notes.append(f"{partial} partial pages (meta.timed_out)")
    merged = getattr(provider, "found_by_location", 0)
    if merged:
        notes.append(
            f"{merged} seeds found only by their arXiv location, not under arXiv's DOI (merged with a "
            "published version, or no DOI)"
        )
    return notes


def open_index(
    engine: Engine, settings: PlanSettings, timeout: float, retries: int
) -> tuple[CachedIndex | None, str]:
    """The index this plan uses (or None) and a description saying which and why."""
    from reflong.ingest.netpolicy import NetPolicy

    choice = settings.citation_index
    if choice == registry.NONE:
        return None, "none (--citation-index none)"
    if choice == registry.AUTO:
        provider, why_not = registry.auto_choice(settings.index_options, settings.index_delay)
        if provider is None:
            return None, why_not
    else:
        provider = registry.provider(choice)
    setup = provider.setup(settings.index_options, settings.index_delay)
    client, detail = provider.open(setup)
    client.policy = NetPolicy(delay=client.delay, timeout=timeout, retries=retries)
    return CachedIndex(engine, client), f"{provider.name} at {setup.url} ({detail})"


def _vid(meta: PaperMeta) -> str:
    return meta.arxiv_id


def make_plan(
    engine: Engine,
    window: str,
    settings: PlanSettings,
    cache_dir: Path,
    arxiv_delay: float,
    timeout: float = 30.0,
    retries: int = 3,
    is_cached=lambda meta: False,
    progress: ProgressFactory = null_progress,
    local_catalog: Path | None = None,
) -> Plan:
    """Decide which PDFs to fetch (and store the decision); no PDF is downloaded here.

    The window's papers are read from its stored roles, sampled in the store (``RolePapers``).
    ``local_catalog``: the PDFs come from that folder (``--source``), not over the network."""
    by_role = {role: RolePapers(engine, window, role, settings.licenses) for role in (SEED, POOL, DISTRACTOR)}
    index, described = open_index(engine, settings, timeout, retries)
    plan = Plan(
        window,
        described,
        arxiv_delay=0.0 if local_catalog else arxiv_delay,
        max_pdfs=settings.max_pdfs,
        local_catalog=str(local_catalog) if local_catalog else None,
    )
    if settings.licenses is not None:
        plan.licenses = settings.licenses
        plan.licence_skipped = {r: m.skipped_by_licence() for r, m in by_role.items()}
    plan.metadata_papers = {r: len(m) + plan.licence_skipped.get(r, 0) for r, m in by_role.items()}
    plan.licence_unknown_api = sum(m.licence_unknown_via_api() for m in by_role.values())
    seed = settings.seed
    distractors = by_role[DISTRACTOR].sample(settings.distractors, seed, "distractors")

    citer_picks: dict[str, list[str]] = {}
    controls: list[PaperMeta] = []
    samples: list[PaperMeta] = []
    cut: str | None = None
    if index is not None:
        try:
            plan.index_delay = index.provider.delay
            plan.index_rule_gap = index.provider.published_gap
            citer_picks, controls = _index_plan(index, by_role, settings, plan, progress)
        except IndexUnreachable as exc:
            if sum(index.provider.requests.values()) > 1 or plan.keys:
                raise
            log.warning("%s; planning without an index", exc)
            plan.index = f"none (index unreachable: {str(exc).split('(')[-1].split(')')[0]})"
            plan.index_delay = 0.0
            index = None
        if index is not None:
            plan.index_requests = Counter(index.provider.requests)
            plan.index_cached = Counter(index.hits)
            plan.index_notes = _index_notes(index.provider)
    if index is None:
        # The distractors asked for first (they are few), the pool sample fills the budget left.
        n_wanted = len(distractors)
        budget = settings.max_pdfs if settings.max_pdfs is not None else len(distractors) + len(by_role[POOL])
        n_distractors = min(len(distractors), budget)
        wanted = {"distractor": n_distractors, "sample": min(len(by_role[POOL]), budget - n_distractors)}
        distractors = seeded_sample(distractors, wanted["distractor"], seed, "distractors-cap", key=_vid)
        samples = by_role[POOL].stratified(wanted["sample"], seed)
        plan.picks = [Pick("sample", m) for m in samples] + [Pick("distractor", m) for m in distractors]
        cut = _cut_line(
            settings.max_pdfs,
            {"distractor": n_wanted, "sample": len(by_role[POOL])},
            {"distractor": len(distractors), "sample": len(samples)},
        )
    else:
        capped = cap_plan(
            citer_picks, [k for k, *_ in plan.keys], controls, distractors, settings.max_pdfs, seed
        )
        cut = _cut_line(
            settings.max_pdfs,
            {"citer": _union(citer_picks), "control": len(controls), "distractor": len(distractors)},
            {
                "citer": _union(capped.citers),
                "control": len(capped.controls),
                "distractor": len(capped.distractors),
            },
        )
        if cut:
            cut += (
                f"; keys {len(citer_picks)} -> {len(capped.citers)} (cut in turn: citers past "
                f"{TASK_POSITIVES} a key, controls, distractors past {NEGATIVES_FLOOR}, whole keys)"
            )
        plan.keys = [k for k in plan.keys if k[0] in capped.citers]
        first_key = {}
        for key_id in sorted(capped.citers):
            for a in capped.citers[key_id]:
                first_key.setdefault(a, key_id)
        pool_by_id = by_role[POOL].metas(first_key)
        plan.picks = (
            [Pick("citer", pool_by_id[a], first_key[a]) for a in sorted(first_key)]
            + [Pick("control", m) for m in capped.controls]
            + [Pick("distractor", m) for m in capped.distractors]
        )
    if cut:
        plan.cut = cut
        log.warning("%s", cut)
    plan.cached_pdfs = sum(1 for p in plan.picks if is_cached(p.meta))
    cache_dir.mkdir(parents=True, exist_ok=True)
    plan.free_gb = shutil.disk_usage(cache_dir).free / 1e9
    plan.pdf_size = pdf_size(cache_dir, local_catalog, settings.pdf_mb)
    _store(engine, plan)
    return plan


def _index_plan(
    index: CachedIndex,
    by_role: dict[str, RolePapers],
    settings: PlanSettings,
    plan: Plan,
    progress: ProgressFactory = null_progress,
) -> tuple[dict[str, list[str]], list[PaperMeta]]:
    """Keys and their citers, and controls, from the index. Its questions can take minutes at
    the index's gap (S2: 1 s a request): progress lines say how far they are (``progress``)."""
    seed = settings.seed
    seed_ids = by_role[SEED].ids()
    provider = index.provider
    batches = lookup_requests(len(index.uncached_papers(seed_ids)), provider.batch_size)
    with progress(total=batches, desc="index lookups", unit="batch") as bar:
        answers = index.papers(seed_ids, on_batch=lambda: bar.update(1))
    counts = {a: p.citation_count for a, p in answers.items() if p.found}
    order = key_order(counts, seed)
    done = index.cached_citers(a for a, _ in order[: settings.keys])
    uncached = len(seed_ids) - index.hits["batch"]
    per_batch = getattr(provider, "lookups_per_batch", 1)
    plan.index_estimate = lookup_requests(uncached, provider.batch_size, per_batch) + sum(
        citer_requests(counts[a], provider.page_size, provider.max_citers)
        for a, _ in order[: settings.keys]
        if a not in done
    )
    log.info("index plan: %d seed papers cited at least %d times", len(order), MIN_CITATIONS)
    citer_picks: dict[str, list[str]] = {}
    linked: set[str] = set()
    paged: list[str] = []
    with progress(total=min(settings.keys, len(order)), desc="index citers", unit="key") as bar:
        for asked, (arxiv_id, band) in enumerate(order[: settings.keys * KEY_TRIES], start=1):
            if len(citer_picks) >= settings.keys:
                break
            citers = index.citers(arxiv_id)
            paged.append(arxiv_id)
            in_pool = sorted(by_role[POOL].among(c.arxiv_id for c in citers))
            bar.set_postfix_str(f"{asked} seeds asked, {sum(provider.requests.values())} requests")
            if len(in_pool) < MIN_CITATIONS:
                bar.update(0)  # a candidate skipped is progress too: the line may be due
                continue
            linked.update(in_pool)
            citer_picks[arxiv_id] = seeded_sample(
                in_pool, settings.citers_per_key, seed, f"citers:{arxiv_id}"
            )
            plan.keys.append((arxiv_id, counts[arxiv_id], band, len(in_pool)))
            bar.update(1)
    plan.citers = index.citers_report(paged)
    controls = by_role[POOL].sample(settings.controls, seed, "controls", exclude=linked)
    return citer_picks, controls


def _union(citers: dict[str, list[str]]) -> int:
    return len({a for v in citers.values() for a in v})


def _cut_line(cap: int | None, wanted: dict[str, int], kept: dict[str, int]) -> str | None:
    """One line saying what ``--max-pdfs`` cut from the plan, or None when it cut nothing."""
    if cap is None or sum(kept.values()) >= sum(wanted.values()):
        return None
    cuts = ", ".join(f"{r}s {wanted[r]} -> {kept[r]}" for r in wanted if kept[r] != wanted[r])
    return f"--max-pdfs {cap} cut the plan from {sum(wanted.values())} to {sum(kept.values())} PDFs: {cuts}"


def _store(engine: Engine, plan: Plan) -> None:
    with Session(engine) as session:
        session.exec(delete(IndexKey).where(IndexKey.window == plan.window))
        session.exec(delete(PlanPick).where(PlanPick.window == plan.window))
        for arxiv_id, count, band, in_pool in plan.keys:
            session.add(
                IndexKey(
                    window=plan.window,
                    arxiv_id=arxiv_id,
                    citation_count=count,
                    band=band,
                    citers_in_pool=in_pool,
                )
            )
        for pick in plan.picks:
            session.add(
                PlanPick(
                    window=plan.window,
                    arxiv_id=pick.meta.arxiv_id,
                    role=pick.role,
                    seed_arxiv_id=pick.seed_arxiv_id,
                )
            )
        session.commit()
