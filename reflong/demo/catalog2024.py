"""A metadata-only synthetic arXiv at 2024's real volume, to prove harvesting at scale.

``write_catalog(out, scale=1, seed=0, until="2024-10")`` writes ``out/papers.jsonl`` in the local
catalog format (``ingest/catalog/reader.py``; PDFs: ``file`` null) plus ``out/generator.json``, and
``python -m reflong.servers.arxiv_server --catalog out --delay 0`` serves it over the Atom API and
OAI-PMH.

Volumes. ``MONTHLY`` holds the papers a month whose first version is listed in cs.CL, cs.LG or
cs.AI (primary or cross-list): about 14K in 2024-01..02, 7.3K in 2024-03 and 45K in 2024-04..09,
the figures of issue 10 (from arXiv's per-category submission statistics); the month-by-month split
is a plausible shape (May and October peak before the NeurIPS and ICLR deadlines), and the months
after 2024-09 (through 2025-08, an extrapolation) exist so that refreshes have something new. 2023-12 is there so that a harvest from
2024-01 meets papers first published earlier and revised later (datestamps are last-modified
days: the harvester must filter by first-version date itself). ``scale`` multiplies every volume.

On top of those, ``OTHER_CS_SHARE`` more papers are in other cs categories only (``set=cs`` returns
them, ``--categories cs.CL,cs.LG,cs.AI`` must drop them) and ``NON_CS_SHARE`` outside cs
(``set=cs`` does not return them). Of the in-scope papers some have their primary outside the three
(cs.CV, stat.ML, eess.AS...) with a cross-list into them.

Revisions and withdrawals. About 38% of papers get a v2, a third of those a v3, fewer a v4, after
gaps from days to most of a year; about 0.6% are withdrawn by a last version that is only a
withdrawal notice (``"withdrawn": true, "size_kb": 1`` in ``versions``), most with a comment giving
the author's reason without the word "withdrawn". About 3% get a metadata-only update later (a DOI
added: the OAI datestamp moves, no new version). A few records are messy on purpose: TeX and
line breaks in titles, no categories, a version without a date.

Retitled papers: about 8% of the papers with a v2 carried another title in v1 (a subtitle added
later, a word added or replaced: ``messy.earlier_title``), kept as ``"title"`` in their v1 entry of
``versions``; the top-level title is the current one, as arXiv lists it. Citers may quote the old
one (``on_demand``).

Titles come from ``titles.realistic_title`` (see there): the demo grammar's few hundred thousand
one-word-apart titles made every reference look like dozens of a 7,000-seed window's papers.

Growth. Everything about a paper is drawn from a random stream seeded by (seed, scale, month of
its first version), so ``until`` only truncates: a paper is written when its first version is in a
month up to ``until``, with the versions, withdrawal and DOI update dated up to the end of that
month. Writing ``until=M+1`` over ``until=M`` therefore adds exactly month M+1's papers and the
revisions, withdrawals and updates dated in M+1; every other line is byte-identical.
"""

from __future__ import annotations

import calendar
import json
import os
import random
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import date, timedelta
from pathlib import Path

from reflong.demo import text
from reflong.demo.messy import earlier_title
from reflong.demo.titles import realistic_title
from reflong.servers.oai import LICENSE_MIX

FORMAT = "reflong-catalog2024/1"
FIRST_MONTH = "2023-12"

# Papers a month listed in cs.CL, cs.LG or cs.AI (primary or cross-list) at scale 1.
MONTHLY: dict[str, int] = {
    "2023-12": 5600,
    "2024-01": 6500,
    "2024-02": 7500,
    "2024-03": 7300,
    "2024-04": 7100,
    "2024-05": 8700,
    "2024-06": 7700,
    "2024-07": 7000,
    "2024-08": 6800,
    "2024-09": 7700,
    "2024-10": 8300,
    "2024-11": 7400,
    "2024-12": 7000,
    "2025-01": 7500,
    "2025-02": 8600,
    "2025-03": 8400,
    # extrapolated with the same shape (a May peak before NeurIPS), so that 12 monthly releases
    # from 2024-03 have their six-month citing pools (bench/refresh.py): through 2025-08
    "2025-04": 8200,
    "2025-05": 9800,
    "2025-06": 8900,
    "2025-07": 8500,
    "2025-08": 8300,
}
OTHER_CS_SHARE = 0.08  # extra papers in other cs categories only, relative to MONTHLY
NON_CS_SHARE = 0.04  # extra papers outside cs

TARGET = ("cs.CL", "cs.LG", "cs.AI")
# Primary category of an in-scope paper (weights), and what it is cross-listed to.
IN_SCOPE_PRIMARY = (
    ("cs.LG", 40),
    ("cs.CL", 27),
    ("cs.AI", 12),
    ("cs.CV", 9),
    ("stat.ML", 5),
    ("cs.RO", 2),
    ("cs.IR", 2),
    ("eess.AS", 1),
    ("math.OC", 1),
    ("cs.SE", 1),
)
OTHER_CS = ("cs.CV", "cs.RO", "cs.CR", "cs.SE", "cs.DC", "cs.IR", "cs.HC", "cs.NI", "cs.DS", "cs.CY")
NON_CS = ("math.OC", "stat.ME", "eess.SP", "physics.comp-ph", "q-bio.NC", "econ.EM", "quant-ph")
LICENSES = LICENSE_MIX  # the stand-in's realistic mix (reflong/servers/oai.py)
COMMENTS = (
    "{p} pages, {f} figures",
    "{p} pages, {f} figures, {t} tables",
    "Accepted at ACL 2024",
    "Accepted to NeurIPS 2024",
    "ICML 2024 camera-ready",
    "Work in progress",
    "Preprint; under review",
    "Code available on GitHub",
)
# Withdrawal comments as authors write them; most do not say "withdrawn".
WITHDRAWAL_REASONS = (
    "The experimental results in Section 4 are affected by a data leakage; a corrected version will follow",
    "Duplicate of an earlier submission by the same authors",
    "Submitted without the consent of all co-authors",
    "An error in the proof of the main theorem invalidates the results",
    "The paper is superseded by a substantially revised manuscript",
    "Authorship dispute; the authors request removal of this version",
    "This paper has been withdrawn by the authors due to an error in the evaluation",
    "This submission has been withdrawn by arXiv administrators as incomplete",
)
DOI_PREFIXES = ("10.18653/v1", "10.1109/TPAMI", "10.1145/3637528", "10.48550/arXiv")


@dataclass
class CatalogSummary:
    out: Path
    papers: int
    by_month: dict[str, int]
    versions: int
    withdrawn: int
    bytes: int
    seconds: float = 0.0
    in_scope: int = 0
    extra: dict[str, int] = field(default_factory=dict)


def _months(first: str, last: str) -> list[str]:
    months = [m for m in MONTHLY if first <= m <= last]
    return sorted(months)


def _weighted(rng: random.Random, pairs: tuple[tuple[str, int], ...]) -> str:
    total = sum(w for _, w in pairs)
    x = rng.random() * total
    for value, w in pairs:
        x -= w
        if x < 0:
            return value
    return pairs[-1][0]


def _day_weights(month: str) -> list[tuple[date, float]]:
    """Submission days of a month: weekdays busier than weekends, as at arXiv."""
    year, mon = (int(p) for p in month.split("-"))
    days = calendar.monthrange(year, mon)[1]
    out = []
    for d in range(1, days + 1):
        day = date(year, mon, d)
        out.append((day, 0.35 if day.weekday() >= 5 else 1.0))
    return out


def _gap_days(d: _Draw) -> int:
    """Days between two versions: within weeks, within a few months, or much later."""
    x = d.r()
    if x < 0.3:
        return d.int(1, 14)
    if x < 0.75:
        return d.int(15, 90)
    return d.int(91, 300)


_ABSTRACT = (
    "We study {adj} {noun} for {task}, where {noun2} are often {adj2}. "
    "Our method {verb} the cost of {noun} by {n} points on {domain} while keeping {noun2} {adj2}."
)
_VERBS = ("reduces", "halves", "cuts", "improves", "lowers")
_AUTHOR_COUNTS = (1, 2, 2, 3, 3, 4, 4, 5, 6, 8)


class _Draw:
    """Fast draws from one ``random.Random`` (``random()`` only: generation is the hot path)."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.r = rng.random

    def pick(self, seq):
        return seq[int(self.r() * len(seq))]

    def int(self, lo: int, hi: int) -> int:
        return lo + int(self.r() * (hi - lo + 1))

    def weighted(self, pairs: tuple[tuple[str, int], ...]) -> str:
        return _weighted(self.rng, pairs)


def _categories(d: _Draw, kind: str) -> list[str]:
    if kind in ("other-cs", "non-cs"):
        pool = OTHER_CS if kind == "other-cs" else NON_CS
        primary = d.pick(pool)
        second = d.pick(pool)
        return [primary, second] if second != primary and d.r() < 0.4 else [primary]
    primary = d.weighted(IN_SCOPE_PRIMARY)
    cats = [primary]
    if primary not in TARGET:
        cats.append(d.pick(TARGET))  # in scope only through a cross-list
    x = d.r()
    n_more = 0 if x < 0.45 else 1 if x < 0.85 else 2
    pool = (*TARGET, "cs.CV", "stat.ML", "cs.IR", "cs.HC", "cs.CY", "cs.SD")
    for _ in range(4):
        if not n_more:
            break
        c = d.pick(pool)
        if c not in cats:
            cats.append(c)
            n_more -= 1
    return cats


def _paper(d: _Draw, arxiv_id: str, first: date, kind: str, serial: int, seed: int = 0) -> dict:
    """One paper's full history (every version, withdrawal, update), before truncation."""
    cats = _categories(d, kind)
    authors = [f"{d.pick(text.FIRST_NAMES)} {d.pick(text.LAST_NAMES)}" for _ in range(d.pick(_AUTHOR_COUNTS))]
    adj, adj2, noun, noun2 = (
        d.pick(text.ADJECTIVES),
        d.pick(text.ADJECTIVES),
        d.pick(text.NOUNS),
        d.pick(text.NOUNS),
    )
    task, domain = d.pick(text.TASKS), d.pick(text.DOMAINS)
    title = realistic_title(d.r)
    messy = d.r()
    if messy < 0.01:
        title = title.replace(" ", "\n  ", 1) + " with $\\mathcal{O}(n\\log n)$ Cost"
    abstract = _ABSTRACT.format(
        adj=adj,
        adj2=adj2,
        noun=noun,
        noun2=noun2,
        task=task.lower(),
        domain=domain.lower(),
        verb=d.pick(_VERBS),
        n=d.int(2, 19),
    )
    n_versions = 1
    while n_versions < 5 and d.r() < (0.38 if n_versions == 1 else 0.33 if n_versions == 2 else 0.25):
        n_versions += 1
    dates = [first]
    for _ in range(n_versions - 1):
        dates.append(dates[-1] + timedelta(days=_gap_days(d)))
    versions = [
        {"version": f"v{i}", "published": day.isoformat(), "size_kb": d.int(150, 4800)}
        for i, day in enumerate(dates, 1)
    ]
    # A few papers were retitled in v2 (from a stream of their own: the draws above are unchanged);
    # their v1 keeps the old title, which citers may still quote (reflong.demo.messy).
    old_title = earlier_title(arxiv_id, title, n_versions, seed)
    if old_title:
        versions[0]["title"] = old_title
    withdrawal = None
    if d.r() < 0.006:
        withdrawal = (dates[-1] + timedelta(days=d.int(3, 150)), d.pick(WITHDRAWAL_REASONS))
    doi_update = None
    if d.r() < 0.03:
        doi_update = (dates[-1] + timedelta(days=d.int(20, 240)), f"{d.pick(DOI_PREFIXES)}.{serial:05d}")
    comment = None
    if d.r() < 0.8:
        comment = d.pick(COMMENTS).format(p=d.int(6, 40), f=d.int(1, 12), t=d.int(1, 8))
    rec = {
        "arxiv_id": arxiv_id,
        "title": title,
        "authors": authors,
        "submitter": authors[0],
        "primary_category": cats[0],
        "categories": cats,
        "first_published": first.isoformat(),
        "comment": comment,
        "license": d.weighted(LICENSES),
        "abstract": abstract,
        "versions": versions,
    }
    if messy > 0.9995:
        rec["categories"], rec["primary_category"] = [], None  # no categories at all
    elif messy > 0.999 and len(versions) > 1:
        del versions[-1]["published"]  # a version whose date is missing
    return {"rec": rec, "withdrawal": withdrawal, "doi_update": doi_update}


def _month_papers(seed: int, scale: float, month: str) -> Iterator[dict]:
    """Every paper first published in ``month``, ids in submission order, from its own stream.

    Yielded one at a time (a month at scale 4 is ~39K papers; memory stays flat).
    """
    rng = random.Random(f"catalog2024:{seed}:{scale:g}:{month}")
    base = MONTHLY[month] * scale
    kinds = (
        ["in-scope"] * round(base)
        + ["other-cs"] * round(base * OTHER_CS_SHARE)
        + ["non-cs"] * round(base * NON_CS_SHARE)
    )
    rng.shuffle(kinds)
    weights = _day_weights(month)
    days = rng.choices([d for d, _ in weights], weights=[w for _, w in weights], k=len(kinds))
    days.sort()
    max_step = max(1, min(3, 99000 // max(1, len(kinds))))  # arXiv numbers leave gaps (other fields)
    yymm = month[2:4] + month[5:7]
    number = 0
    d = _Draw(rng)
    for i, (kind, day) in enumerate(zip(kinds, days, strict=True)):
        number += d.int(1, max_step)
        paper = _paper(d, f"{yymm}.{number:05d}", day, kind, i, seed)
        paper["kind"] = kind
        yield paper


def _truncate(paper: dict, cutoff: str) -> dict:
    """The record as arXiv shows it at the end of day ``cutoff`` (YYYY-MM-DD)."""
    rec = dict(paper["rec"])
    versions = [v for v in rec["versions"] if v.get("published", rec["first_published"]) <= cutoff]
    if len(versions) == 1 and "title" in versions[0]:  # not retitled yet at the cutoff
        versions = [{k: v for k, v in versions[0].items() if k != "title"}]
    stamps = [v["published"] for v in versions if "published" in v]
    withdrawal = paper["withdrawal"]
    if withdrawal and withdrawal[0].isoformat() <= cutoff:
        wdate = withdrawal[0].isoformat()
        versions = [
            *versions,
            {"version": f"v{len(versions) + 1}", "published": wdate, "size_kb": 1, "withdrawn": True},
        ]
        rec["comment"] = withdrawal[1]
        stamps.append(wdate)
    doi = paper["doi_update"]
    if doi and doi[0].isoformat() <= cutoff:
        rec["doi"] = doi[1]
        stamps.append(doi[0].isoformat())
    rec["versions"] = versions
    rec["version"] = versions[-1]["version"]
    rec["published"] = versions[-1].get("published")
    rec["file"] = None
    rec["datestamp"] = max(stamps)
    return rec


def _month_end(month: str) -> str:
    year, mon = (int(p) for p in month.split("-"))
    return date(year, mon, calendar.monthrange(year, mon)[1]).isoformat()


def write_catalog(
    out: str | Path, scale: float = 1.0, seed: int = 0, until: str = "2024-10"
) -> CatalogSummary:
    """Write the catalog (papers first published in FIRST_MONTH..until, as of the end of until)."""
    if until not in MONTHLY:
        raise ValueError(f"until={until!r}: choose a month from {FIRST_MONTH} to {max(MONTHLY)}")
    if scale <= 0:
        raise ValueError("scale must be positive")
    t0 = time.perf_counter()
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    cutoff = _month_end(until)
    by_month: dict[str, int] = {}
    kinds: dict[str, int] = {}
    versions = withdrawn = 0
    tmp = out / "papers.jsonl.tmp"
    with tmp.open("w", encoding="utf-8", newline="\n") as fh:
        for month in _months(FIRST_MONTH, until):
            by_month[month] = 0
            for paper in _month_papers(seed, scale, month):
                rec = _truncate(paper, cutoff)
                by_month[month] += paper["kind"] == "in-scope"
                kinds[paper["kind"]] = kinds.get(paper["kind"], 0) + 1
                versions += len(rec["versions"])
                withdrawn += bool(rec["versions"][-1].get("withdrawn"))
                fh.write(json.dumps(rec, ensure_ascii=False, separators=(",", ":")) + "\n")
    os.replace(tmp, out / "papers.jsonl")
    total = sum(kinds.values())
    provenance = {
        "format": FORMAT,
        "scale": scale,
        "seed": seed,
        "until": until,
        "first_month": FIRST_MONTH,
        "papers": total,
        "in_scope_by_month": by_month,
        "papers_by_kind": dict(sorted(kinds.items())),
        "versions": versions,
        "withdrawn": withdrawn,
        "target_categories": list(TARGET),
    }
    (out / "generator.json").write_text(json.dumps(provenance, indent=1) + "\n", encoding="utf-8")
    return CatalogSummary(
        out=out,
        papers=total,
        by_month=by_month,
        versions=versions,
        withdrawn=withdrawn,
        bytes=(out / "papers.jsonl").stat().st_size,
        seconds=time.perf_counter() - t0,
        in_scope=sum(by_month.values()),
        extra=dict(sorted(kinds.items())),
    )
