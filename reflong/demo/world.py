"""Plan a synthetic arXiv: papers, dates, versions, roles and who cites whom (no text, no PDFs).

The plan is the ground truth. Roles follow the windows around ``since`` (docs/architecture.md,
"Roles of papers, from dates"): distractors in the months before, seeds in the seed window, citing
papers after it. Everything the later stages must get right is planted on purpose:

- near-miss seed titles in *families*: sequels ("X: Y" / "X 2: Y"), hyphenated successors
  ("FlashThing: ..." / "FlashThing-2: ..."), same-prefix titles, and seeds whose older predecessor
  ("X: Y" from years ago, outside the catalog) is cited by distractors;
- distractors revised after the seed window whose later version adds a citation to a seed, so only
  the version dated before the window is date-safe (version pinning is testable);
- seeds revised later (their top-level ``published`` is not their first-version date).

All randomness comes from ``random.Random`` seeded with strings (stable across processes and
Python runs), so the same config gives the same plan.
"""

from __future__ import annotations

import math
import random
import re
from dataclasses import dataclass, field
from datetime import date, timedelta

from reflong.demo import text

PRIMARY_CATEGORIES = (("cs.CL", 35), ("cs.LG", 30), ("cs.AI", 15), ("cs.CV", 10), ("cs.IR", 10))
CROSS_LISTS = ("cs.CL", "cs.LG", "cs.AI", "cs.CV", "cs.IR", "stat.ML")
# How many citing papers a seed gets: mostly 2-5 (Ref-Long easy), enough 4-5 for hard settings,
# some 0-1 (not usable as keys) and a few popular ones (too many positives for a task).
CITER_COUNTS = ((0, 1), (1, 2), (2, 3), (3, 3), (4, 3), (5, 3), (6, 1), (8, 1))


# Real paper lengths, measured on ../shared/corpus through the project's parse (55 papers,
# o200k_base; `python bench/doc_lengths.py`): body tokens median 9,141 (quartiles 7,796-12,412,
# range 3,077-42,735); reference entries median 49 (35-64, range 9-577); reference-section tokens
# median 2,948 (2,122-5,146). Modelled as log-normals with the measured median and interquartile
# range (sigma = ln(q3 / q1) / 1.349), clamped to the measured range; entries are printed in the
# long form real bibliographies use (full venue, pages, place, publisher), about 60 tokens each.
REAL_BODY_TOKENS = (9141, 7796, 12412, 3000, 43000)  # median, q1, q3, min, max
REAL_ENTRIES = (49, 35, 64, 9, 400)
LENGTH_MODELS = ("demo", "real")
REAL_BODY_SCALE = 1.23  # planned / parsed body tokens of rendered papers (bench/doc_lengths.py)


@dataclass(frozen=True)
class SynthConfig:
    """Everything that decides the generated catalog (recorded in generator.json).

    ``lengths``: "demo" (default) gives short papers of about 3.5K tokens with 11-24 references
    (fast to render, what the tests and the demo use); "real" gives papers whose body tokens,
    reference entries and reference-section tokens follow the corpus (``REAL_BODY_TOKENS``,
    ``REAL_ENTRIES``). Roles, dates, near-miss families and citer counts are drawn the same way in
    both; the draws themselves differ (real bibliographies draw from more older works)."""

    papers: int = 120
    seed: int = 0
    since: str = "2024-03"
    seed_months: int = 1
    distractor_months: int = 6
    pool_months: int = 6
    lengths: str = "demo"
    # Entries that go wrong as real ones do (reflong.demo.messy): earlier-version titles (a few
    # revised papers were retitled; their v1 title is kept in papers.jsonl), typos, dropped
    # subtitles, unpunctuated styles, venue-only entries. Off by default: the demo's figures and
    # the tests built on them assume verbatim titles.
    messy: bool = False


@dataclass
class Work:
    """Anything a reference list can point to: a catalog paper or an older work outside it."""

    key: str  # the arXiv id for catalog papers, "ext-NNNN" for works outside the catalog
    title: str
    authors: list[str]
    first_date: date
    arxiv_id: str | None
    doi: str | None
    venue: str


@dataclass
class Version:
    version: str
    published: date
    refs: list[str]  # keys of the cited works (order is decided when rendering)


@dataclass
class Paper:
    work: Work
    role: str  # "seed" | "citing" | "distractor" (relative to the config's since)
    categories: list[str]
    style: str  # "numbered" | "author-year"
    target_tokens: int
    abstract: str
    versions: list[Version] = field(default_factory=list)
    n_refs: int | None = None  # reference entries of v1 under the real length model (else 11-24)
    long_entries: bool = False  # print entries in the long form of real bibliographies

    @property
    def arxiv_id(self) -> str:
        return self.work.key


@dataclass
class Family:
    """Works with confusable titles; a reference to one member is a near miss for the others."""

    kind: str  # "sequel" | "hyphen" | "prefix" | "predecessor"
    members: list[str]


@dataclass
class World:
    config: SynthConfig
    papers: dict[str, Paper]  # by arXiv id, sorted
    works: dict[str, Work]  # every citable work, catalog papers included
    families: list[Family]
    windows: dict[str, str]  # ISO dates: distractor_start, seed_start, pool_start, pool_end (exclusive)

    def family_of(self, key: str) -> Family | None:
        for fam in self.families:
            if key in fam.members:
                return fam
        return None


def norm_title(title: str) -> str:
    """Lower-case letters and digits only: how titles are compared modulo case and hyphenation."""
    return re.sub(r"[^a-z0-9]", "", title.lower())


def month_start(since: str, offset: int) -> date:
    year, month = (int(p) for p in since.split("-"))
    idx = year * 12 + (month - 1) + offset
    return date(idx // 12, idx % 12 + 1, 1)


def _arxiv_id(year: int, month: int, number: int) -> str:
    """New-style arXiv id: YYMM.NNNN up to 2014, YYMM.NNNNN since 2015."""
    return f"{year % 100:02d}{month:02d}.{number:0{4 if year < 2015 else 5}d}"


def _weighted(rng: random.Random, pairs) -> object:
    values, weights = zip(*pairs, strict=True)
    return rng.choices(values, weights=weights)[0]


def _day_in(rng: random.Random, start: date, end: date) -> date:
    """A day in [start, end)."""
    return start + timedelta(days=rng.randrange((end - start).days))


class _Titles:
    """Keeps every title unique and no seed title inside another title (so negatives are clean)."""

    def __init__(self) -> None:
        self.all: set[str] = set()
        self.seeds: list[str] = []
        self.names: set[str] = set()

    def ok(self, title: str, is_seed: bool) -> bool:
        n = norm_title(title)
        if n in self.all or any(s in n or n in s for s in self.seeds):
            return False
        return not (is_seed and any(n in other for other in self.all))

    def add(self, title: str, is_seed: bool) -> None:
        n = norm_title(title)
        self.all.add(n)
        if is_seed:
            self.seeds.append(n)

    def name(self, rng: random.Random) -> str:
        for _ in range(1000):
            name = text.system_name(rng)
            if name not in self.names and not any(name.lower() in s for s in self.all):
                self.names.add(name)
                return name
        name = f"{text.system_name(rng)}{len(self.names)}"
        self.names.add(name)
        return name


def _authors(rng: random.Random) -> list[str]:
    names: list[str] = []
    while len(names) < rng.choice((1, 2, 2, 3, 3, 3, 4, 4, 5, 6)):
        name = text.person(rng)
        if name not in names:
            names.append(name)
    return names


def _doi(rng: random.Random, year: int) -> str:
    kind = rng.randrange(3)
    if kind == 0:
        venue = f"{rng.choice(('acl', 'emnlp', 'naacl'))}-{rng.choice(('long', 'main'))}"
        return f"10.18653/v1/{year}.{venue}.{rng.randint(1, 900)}"
    if kind == 1:
        return f"10.1145/{rng.randint(3000000, 3700000)}.{rng.randint(3000000, 3700000)}"
    return f"10.1109/CVPR{year}.{rng.randint(10000, 99999)}"


def _seed_titles(rng: random.Random, n: int, titles: _Titles) -> list[tuple[list[str], str, str | None]]:
    """Seed title groups: (seed titles, family kind or "", title of an older predecessor or None)."""
    groups: list[tuple[list[str], str, str | None]] = []
    left = n
    # One family of each kind first (so even a small catalog has every near-miss case), then chance.
    forced = [0.1, 0.25, 0.4, 0.55] if n >= 8 else []
    while left > 0:
        r = forced.pop(0) if forced else rng.random()
        name = titles.name(rng)
        sub = text.subtitle(rng)
        if r < 0.18 and left >= 2:
            group = ([f"{name}: {sub}", f"{name} 2: {sub}"], "sequel", None)
        elif r < 0.32 and left >= 2:
            group = ([f"{name}: {sub}", f"{name}-2: {text.subtitle(rng)}"], "hyphen", None)
        elif r < 0.46 and left >= 2:
            group = (list(text.prefix_pair(rng)), "prefix", None)
        elif r < 0.60:
            succ = rng.choice((f"{name} 2: {sub}", f"{name}-2: {sub}"))
            group = ([succ], "predecessor", f"{name}: {sub}")
        else:
            group = ([f"{name}: {sub}" if rng.random() < 0.5 else text.plain_title(rng)], "", None)
        candidates = group[0] + ([group[2]] if group[2] else [])
        if all(titles.ok(t, True) for t in candidates) and len({norm_title(t) for t in candidates}) == len(
            candidates
        ):
            for t in group[0]:
                titles.add(t, True)
            if group[2]:
                titles.add(group[2], False)
            groups.append(group)
            left -= len(group[0])
    return groups


def _plain_title(rng: random.Random, titles: _Titles, named: float) -> str:
    for _ in range(1000):
        t = f"{titles.name(rng)}: {text.subtitle(rng)}" if rng.random() < named else text.plain_title(rng)
        if titles.ok(t, False):
            titles.add(t, False)
            return t
    raise RuntimeError("title space exhausted")  # pragma: no cover - thousands of combinations left


def _lognormal(rng: random.Random, model: tuple[int, int, int, int, int]) -> int:
    median, q1, q3, lo, hi = model
    sigma = math.log(q3 / q1) / 1.349
    return int(min(hi, max(lo, round(rng.lognormvariate(math.log(median), sigma)))))


def real_lengths(seed: int, arxiv_id: str) -> tuple[int, int]:
    """(body tokens, reference entries) of one paper under the real length model, from a stream of
    its own (so the default world's draws are untouched)."""
    rng = random.Random(f"reflong-demo:{seed}:{arxiv_id}:lengths")
    return _lognormal(rng, REAL_BODY_TOKENS), _lognormal(rng, REAL_ENTRIES)


def plan_world(cfg: SynthConfig) -> World:
    """Build the whole plan for ``cfg`` (fast: no text, no PDFs)."""
    if cfg.papers < 12:
        raise ValueError("synthetic arXiv needs at least 12 papers")
    if cfg.lengths not in LENGTH_MODELS:
        raise ValueError(f"unknown length model {cfg.lengths!r}: use one of {', '.join(LENGTH_MODELS)}")
    rng = random.Random(f"reflong-demo:{cfg.seed}")
    d_start = month_start(cfg.since, -cfg.distractor_months)
    s_start = month_start(cfg.since, 0)
    p_start = month_start(cfg.since, cfg.seed_months)
    p_end = month_start(cfg.since, cfg.seed_months + cfg.pool_months)
    ext_end = d_start  # older works outside the catalog all predate the distractor window
    ext_start = month_start(cfg.since, -cfg.distractor_months - 96)

    n_seed = max(4, round(cfg.papers * 0.15))
    n_dis = max(4, round(cfg.papers * 0.40))
    n_cit = cfg.papers - n_seed - n_dis
    titles = _Titles()
    works: dict[str, Work] = {}
    families: list[Family] = []

    n_ext = [0]
    ext_ids: set[str | None] = set()

    def ext_work(title: str) -> Work:
        d = _day_in(rng, ext_start, ext_end)
        n_ext[0] += 1
        key = f"ext-{n_ext[0]:04d}"
        arxiv_id = None
        while (d.year < 2015 or rng.random() < 0.5) and arxiv_id in (None, *ext_ids):
            arxiv_id = _arxiv_id(d.year, d.month, rng.randint(1000, 9999 if d.year < 2015 else 29999))
        ext_ids.add(arxiv_id)
        w = Work(
            key,
            title,
            _authors(rng),
            d,
            arxiv_id,
            _doi(rng, d.year) if rng.random() < 0.4 else None,
            rng.choice(text.VENUES),
        )
        works[key] = w
        return w

    # 1. Seed titles (families first), then the papers' and the older works' titles.
    groups = _seed_titles(rng, n_seed, titles)
    seed_titles: list[tuple[str, int]] = []  # (title, group index)
    for gi, (members, _kind, _pred) in enumerate(groups):
        seed_titles.extend((t, gi) for t in members)
    # Real bibliographies cite up to 400 works, nearly all older than the catalog.
    n_older = max(30, cfg.papers // 2) if cfg.lengths == "demo" else max(450, cfg.papers // 2)
    for _ in range(n_older):
        ext_work(_plain_title(rng, titles, named=0.3))

    # 2. Catalog papers with first dates by role.
    raw: list[tuple[str, str, date, int]] = []  # (role, title, first date, group index or -1)
    for t, gi in seed_titles:
        raw.append(("seed", t, _day_in(rng, s_start, p_start), gi))
    for _ in range(n_dis):
        raw.append(("distractor", _plain_title(rng, titles, 0.2), _day_in(rng, d_start, s_start), -1))
    for _ in range(n_cit):
        raw.append(("citing", _plain_title(rng, titles, 0.2), _day_in(rng, p_start, p_end), -1))

    # 3. arXiv ids: YYMM.NNNNN numbered in date order within each month.
    ids: dict[int, str] = {}
    by_month: dict[tuple[int, int], list[int]] = {}
    for i, (_r, _t, d, _g) in enumerate(raw):
        by_month.setdefault((d.year, d.month), []).append(i)
    for (year, month), idxs in sorted(by_month.items()):
        num = rng.randint(100, 900)
        step = max(1, min(40, 8000 // len(idxs)))  # stays below 10000 (4-digit ids before 2015)
        for i in sorted(idxs, key=lambda i: (raw[i][2], i)):
            num += rng.randint(1, step)
            ids[i] = _arxiv_id(year, month, num)

    papers: dict[str, Paper] = {}
    group_members: dict[int, list[str]] = {}
    for i, (role, title, d, gi) in enumerate(raw):
        prng = random.Random(f"reflong-demo:{cfg.seed}:{ids[i]}")
        primary = _weighted(prng, PRIMARY_CATEGORIES)
        cross = [c for c in prng.sample(CROSS_LISTS, prng.choice((0, 1, 1, 2))) if c != primary]
        work = Work(
            ids[i],
            title,
            _authors(prng),
            d,
            ids[i],
            _doi(prng, d.year) if prng.random() < 0.35 else None,
            prng.choice(text.VENUES),
        )
        works[work.key] = work
        abstract = text.paragraph(prng, text.topic(prng), prng.randint(4, 6))
        papers[work.key] = Paper(
            work,
            role,
            [primary, *cross],
            "numbered" if prng.random() < 0.6 else "author-year",
            prng.randint(2900, 4600),
            abstract,
        )
        if cfg.lengths == "real":
            body, n_refs = real_lengths(cfg.seed, work.key)
            paper = papers[work.key]
            paper.n_refs, paper.long_entries = n_refs, True
            # compose() sizes the body as target - entries x TOKENS_PER_ENTRY - 150, and its
            # sentence estimate runs high: REAL_BODY_SCALE is measured through PDF and parse.
            paper.target_tokens = round(body * REAL_BODY_SCALE) + 40 * n_refs + 150
        if gi >= 0:
            group_members.setdefault(gi, []).append(work.key)

    for gi, (_members, kind, pred) in enumerate(groups):
        if not kind:
            continue
        keys = list(group_members[gi])
        if pred:
            keys.append(ext_work(pred).key)
        families.append(Family(kind, keys))

    _plan_citations(rng, cfg, papers, works, families, p_start, p_end, s_start)
    windows = {
        "distractor_start": d_start.isoformat(),
        "seed_start": s_start.isoformat(),
        "pool_start": p_start.isoformat(),
        "pool_end": p_end.isoformat(),
    }
    return World(cfg, dict(sorted(papers.items())), works, families, windows)


def _plan_citations(
    rng: random.Random,
    cfg: SynthConfig,
    papers: dict[str, Paper],
    works: dict[str, Work],
    families: list[Family],
    p_start: date,
    p_end: date,
    s_start: date,
) -> None:
    seeds = sorted(k for k, p in papers.items() if p.role == "seed")
    citing = sorted(k for k, p in papers.items() if p.role == "citing")
    distractors = sorted(k for k, p in papers.items() if p.role == "distractor")
    ext = sorted(k for k in works if k.startswith("ext-"))
    predecessor = {f.members[0]: f.members[-1] for f in families if f.kind == "predecessor"}
    pred_works = sorted(predecessor.values())

    # Which citing papers cite which seeds: each seed draws a citer count, spread over the least
    # loaded citing papers so every citing paper ends up citing at least one seed.
    cites: dict[str, list[str]] = {k: [] for k in citing}
    for s in seeds:
        k = min(int(_weighted(rng, CITER_COUNTS)), len(citing))
        order = sorted(citing, key=lambda c: (len(cites[c]), rng.random()))
        for c in order[:k]:
            cites[c].append(s)
    for c in citing:
        if not cites[c]:
            cites[c].append(rng.choice(seeds))

    def older(pool: list[str], before: date, n: int) -> list[str]:
        ok = [k for k in pool if works[k].first_date < before]
        return rng.sample(ok, min(n, len(ok)))

    def fill(refs: list[str], before: date, total: int) -> list[str]:
        extra = [k for k in older(ext, before, total) if k not in refs]
        return refs + extra[: max(0, total - len(refs))]

    for key in sorted(papers):
        p = papers[key]
        v1 = p.work.first_date
        n_refs = rng.randint(11, 24)
        n_refs = p.n_refs or n_refs  # the real length model's count
        if p.role == "citing":
            refs = list(cites[key])
            refs += [predecessor[s] for s in refs if s in predecessor and rng.random() < 0.6]
            refs += older(distractors, v1, rng.randint(0, 3))
        elif p.role == "seed":
            refs = [predecessor[key]] if key in predecessor and rng.random() < 0.8 else []
            refs += older(distractors, v1, rng.randint(0, 3))
        else:
            refs = older(distractors, v1, rng.randint(0, 2))
            if pred_works and rng.random() < 0.3:
                refs.append(rng.choice(pred_works))  # cites "X: Y" years before the seed "X 2: Y"
        p.versions = [Version("v1", v1, fill(refs, v1, n_refs))]

        r = rng.random()
        if p.role == "distractor" and r < 0.2:
            # Late revision: v2 after the seed window adds a seed; only v1 is date-safe.
            v2 = _day_in(rng, p_start, p_end)
            p.versions.append(
                Version("v2", v2, fill([*p.versions[0].refs, rng.choice(seeds)], v2, n_refs + 2))
            )
        elif p.role == "distractor" and r < 0.35 and (s_start - v1).days > 2:
            # Early revision, still before the window: the newest date-safe version is v2.
            v2 = v1 + timedelta(days=rng.randint(1, min(40, (s_start - v1).days - 1)))
            p.versions.append(Version("v2", v2, fill(list(p.versions[0].refs), v2, n_refs + 2)))
        elif p.role in ("seed", "citing") and r < 0.25 and (p_end - v1).days > 30:
            lo = max(v1 + timedelta(days=1), p_start)
            v2 = _day_in(rng, lo, p_end) if lo < p_end else None
            if v2 and v2 > v1:
                p.versions.append(Version("v2", v2, fill(list(p.versions[0].refs), v2, n_refs + 2)))
