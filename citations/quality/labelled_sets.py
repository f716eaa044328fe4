"""Score the resolver on a labelled set of reference strings: the figures every set is held to.

Why in the package: the floors test (tests/test_labelled_set_floors.py) and the bench
(bench/resolve_styles.py) must count the same way, and a test must not import bench/ through
sys.path. A labelled set is a folder holding ``seeds.<split>.jsonl`` (one seed per line:
arxiv_id, title, published, first_author), ``entries.<split>.jsonl.gz`` (id, citing, raw, style,
gold: the seed the string cites or null) and, for most sets, ``audit.jsonl`` (the label audit:
rows that re-gold an entry or leave it out of the audited scores; see each set's SOURCES.md).

Counting is per entry: an accepted seed equal to the gold seed is a true positive; any other
accepted seed is a false positive (and, if the entry has a gold seed, also a false negative); an
entry with a gold seed and no accepted seed is a false negative. Only the accept band counts.
"""

from __future__ import annotations

import gzip
import json
from collections import Counter, defaultdict
from pathlib import Path

from reflong.citations.match import EntryDecision, RawEntry, build_index, match_raw
from reflong.citations.resolve import SeedTitle
from reflong.citations.thresholds import DEFAULT_PROFILE, Thresholds

# Every labelled set, by the split name of its files (``seeds.<split>.jsonl``): the multi-style
# set's dev and test splits, then each other set in the order it was built (their SOURCES.md).
# The committed labelled sets in a checkout (the builders write there; an installed wheel has none).
REAL = Path(__file__).resolve().parents[2] / "tests" / "data" / "real"
SPLITS = (
    "dev",
    "test",
    "fresh",
    "holdout",
    "plos",
    "pmc",
    "pmc_test",
    "pmc_test2",
    "fresh_test",
    "fresh_test2",
    "pmc_test3",
    "fresh_test3",
    "fresh_test4",
    "pmc_test4",
    "fresh_test5",
    "pmc_test5",
)


def folder_of(split: str, real: Path) -> Path:
    """The folder of a split under ``real`` (tests/data/real in a checkout): the multi-style set
    for dev and test, ``citation_<split>`` for every other split."""
    return real / ("citation_styles" if split in ("dev", "test") else f"citation_{split}")


def load_set(data: Path, split: str, limit: int | None = None) -> tuple[list[SeedTitle], list[dict]]:
    """One split's seeds and entries from the folder of its set (the first ``limit`` entries)."""
    seeds = []
    for line in (data / f"seeds.{split}.jsonl").read_text(encoding="utf-8").splitlines():
        s = json.loads(line)
        seeds.append(SeedTitle(s["arxiv_id"], s["title"], s.get("published"), s.get("first_author")))
    text = gzip.decompress((data / f"entries.{split}.jsonl.gz").read_bytes()).decode("utf-8")
    entries = [json.loads(x) for x in text.splitlines()]
    return seeds, entries[:limit] if limit else entries


def load_audit(data: Path) -> list[dict]:
    """The set's label audit rows (empty when the set has none)."""
    path = data / "audit.jsonl"
    if not path.is_file():
        return []
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]


def load_corpus_labels(corpus: Path) -> tuple[list[SeedTitle], list[dict]]:
    """The corpus labels as entries: each labelled reference string (cited or a near miss) once
    per paper, gold = the seed it cites (null for a near miss only); ambiguous pairs are kept
    aside in ``ambiguous`` and count neither way."""
    seeds = []
    for line in (corpus / "seeds.jsonl").read_text(encoding="utf-8").splitlines():
        s = json.loads(line)
        seeds.append(
            SeedTitle(s["arxiv_id"], s["title"], s.get("published"), s.get("first_author"), s.get("doi"))
        )
    entries: dict[tuple[str, str], dict] = {}
    for line in (corpus / "labels" / "dev.jsonl").read_text(encoding="utf-8").splitlines():
        label = json.loads(line)
        ambiguous = sorted(a["seed"] for a in label.get("ambiguous", []))
        for kind in ("cites", "near_misses"):
            for c in label.get(kind, []):
                key = (label["paper"], c["reference"])
                e = entries.setdefault(
                    key,
                    {
                        "id": f"{label['paper']}#{len(entries) + 1}",
                        "citing": label["paper"],
                        "raw": c["reference"],
                        "style": "corpus",
                        "gold": None,
                        "ambiguous": ambiguous,
                    },
                )
                if kind == "cites":
                    e["gold"] = c["seed"]
    return seeds, list(entries.values())


def apply_audit(entries: list[dict], rows: list[dict]) -> list[dict]:
    """The entries as audited: gold replaced, unscored entries left out (the input is kept)."""
    change = {r["id"]: r for r in rows}
    out = []
    for e in entries:
        r = change.get(e["id"])
        if r is None:
            out.append(e)
        elif r["field"] == "gold":
            out.append({**e, "gold": r["new"]})
    return out


def decide(
    seeds: list[SeedTitle], entries: list[dict], profile: str = DEFAULT_PROFILE
) -> list[EntryDecision]:
    """The pipeline's decision on each entry under the resolver ``profile``, the citing paper
    never resolved against itself."""
    thresholds = Thresholds(profile=profile)
    full = build_index(seeds, thresholds)
    ids = {s.arxiv_id for s in seeds}
    by_citing: dict[str, object] = {}
    out: list[EntryDecision] = []
    for e in entries:
        index = full
        if e["citing"] in ids:  # the pipeline never resolves a paper against itself
            if e["citing"] not in by_citing:
                by_citing[e["citing"]] = build_index(
                    [s for s in seeds if s.arxiv_id != e["citing"]], thresholds
                )
            index = by_citing[e["citing"]]
        out.append(match_raw(index, RawEntry(e["id"], e["citing"], e["raw"])))
    return out


def accepted(decisions: list[EntryDecision]) -> list[str | None]:
    """The seed each entry is accepted for (None: review or nothing): the accept band counts."""
    return [d.seed if d.decision == "accept" else None for d in decisions]


def score(entries: list[dict], predicted: list[str | None]) -> dict:
    """Precision / recall / F1 per style and overall (entry-level counting, module doc)."""
    counts: dict[str, Counter] = defaultdict(Counter)
    for e, p in zip(entries, predicted, strict=True):
        if p is not None and p in e.get("ambiguous", ()):
            continue
        for key in ("overall", e["style"]):
            c = counts[key]
            if p is not None and p == e["gold"]:
                c["tp"] += 1
            else:
                if p is not None:
                    c["fp"] += 1
                if e["gold"] is not None:
                    c["fn"] += 1
    out = {}
    for key in sorted(counts, key=lambda k: (k != "overall", k)):
        c = counts[key]
        p = c["tp"] / (c["tp"] + c["fp"]) if c["tp"] + c["fp"] else 1.0
        r = c["tp"] / (c["tp"] + c["fn"]) if c["tp"] + c["fn"] else 1.0
        f1 = 2 * p * r / (p + r) if p + r else 0.0
        out[key] = {
            "precision": round(p, 4),
            "recall": round(r, 4),
            "f1": round(f1, 4),
            **dict(sorted(c.items())),
        }
    return out


def complete_seed_recall(seeds: list[SeedTitle], entries: list[dict], predicted: list[str | None]) -> dict:
    """Recall on the gold pairs whose seed names a first author and a date, as every arXiv record
    does: ``pairs`` counted, ``tp`` found, ``recall``; counted by ``score`` on those entries alone."""
    complete = {s.arxiv_id for s in seeds if s.first_author and s.published}
    picked = [(e, p) for e, p in zip(entries, predicted, strict=True) if e["gold"] in complete]
    overall = score([e for e, _ in picked], [p for _, p in picked]).get("overall", {})
    tp, fn = overall.get("tp", 0), overall.get("fn", 0)
    return {"pairs": tp + fn, "tp": tp, "recall": overall.get("recall", 1.0)}


def audited_overall(data: Path, split: str, profile: str = DEFAULT_PROFILE) -> dict:
    """The resolver's overall figures on one split as audited (as labelled where it has no
    audit) under ``profile``: precision, recall, tp, fp, fn."""
    seeds, entries = load_set(data, split)
    predicted = accepted(decide(seeds, entries, profile))
    audit = load_audit(data)
    keep = {e["id"] for e in apply_audit(entries, audit)}
    kept = apply_audit(entries, audit)
    mine = [p for e, p in zip(entries, predicted, strict=True) if e["id"] in keep]
    return score(kept, mine)["overall"]
