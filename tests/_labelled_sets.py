"""The checks every real labelled set of reference strings shares (tests/data/real/citation_*).

Why one module: the sets citation_fresh, citation_holdout, citation_plos, citation_pmc and its
test splits citation_pmc_test ... citation_pmc_test5, and LinkedBooks' test splits
citation_fresh_test ... citation_fresh_test5, are made the same way (the citation_styles format,
a builder in citations/quality/builders/ that rebuilds them byte for byte from a pinned snapshot, a label audit of
rules plus hand errata), so they are checked the same way: each set is one entry of the table in
tests/_labelled_set_files.py (its folder and split as a ``LabelledSet``, its ``Builder``, the
figures its SOURCES.md reports), and tests/test_labelled_set_files.py calls these checks on every
entry. What only one builder has (its converter's rules, its style rule) is tested in
tests/test_builder_<name>.py.

Nothing here runs our resolver: the sets are held out, and the bench is run with ``--no-ours``.
"""

from __future__ import annotations

import gzip
import importlib
import json
import os
import re
import subprocess
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import pytest

from reflong.citations.fields.entry_parse import parse_entry
from reflong.citations.fields.normalize import norm

REPO = Path(__file__).resolve().parents[1]
REAL = REPO / "tests" / "data" / "real"  # the committed labelled sets
RESOLVE_STYLES = REPO / "bench" / "resolve_styles.py"
BUILDERS = "reflong.citations.quality.builders"
# A row of a SOURCES.md per-style table: | style | entries | gold pairs | left out by the audit |
_TABLE_ROW = re.compile(
    r"^\| \*{0,2}(\w+)\*{0,2} \| \*{0,2}([\d,]+)\*{0,2} \| \*{0,2}([\d,]+)\*{0,2} \| \*{0,2}(\d+)\*{0,2} \|$",
    re.M,
)


@dataclass(frozen=True)
class LabelledSet:
    """One set: its folder, split, entries' source and id prefix, and per style the (entries,
    gold pairs) its SOURCES.md reports."""

    name: str  # the folder under tests/data/real
    split: str
    source: str
    style_counts: dict[str, tuple[int, int]]
    id_prefix: str = ""

    @property
    def data(self) -> Path:
        return REPO / "tests" / "data" / "real" / self.name

    def rows(self, name: str) -> list[dict]:
        """A file of the set as JSON rows (gzip read where the name says so)."""
        path = self.data / name
        text = (
            gzip.decompress(path.read_bytes()).decode("utf-8")
            if path.suffix == ".gz"
            else path.read_text("utf-8")
        )
        return [json.loads(line) for line in text.splitlines()]

    def entries(self) -> list[dict]:
        return self.rows(f"entries.{self.split}.jsonl.gz")

    def seeds(self) -> list[dict]:
        return self.rows(f"seeds.{self.split}.jsonl")


@dataclass(frozen=True)
class Builder:
    """A set's builder (citations/quality/builders), the flag naming its snapshot, where the snapshot is (an
    environment variable may point elsewhere)."""

    script: str  # the builder module, e.g. "plos"
    flag: str  # e.g. "--plos"
    env: str  # e.g. "REFLONG_PLOS_GIT"
    default: str  # the git dir the fetch tool leaves
    repo_name: str  # owner/name, for the skip reason

    @property
    def snapshot(self) -> Path:
        return Path(os.environ.get(self.env, self.default))

    def needs_snapshot(self) -> pytest.MarkDecorator:
        """Skip (with the reason every set test gives) when the snapshot is not on this machine."""
        return pytest.mark.skipif(
            not (self.snapshot / "HEAD").is_file(),
            reason=f"needs the {self.repo_name} snapshot, not on this machine (set {self.env} to its git directory)",
        )


# The labelled sets in the order they were built, one batch per step: sets built side by side
# (from two sources at once) share a batch and leave each other out, in the order their
# builders name them. A new set appends a batch here, and every older set's "built before" stays
# what its builder names (``test_every_committed_set_has_its_place_in_the_build_order``).
BUILD_ORDER: tuple[tuple[str, ...], ...] = (
    ("citation_styles",),
    ("citation_fresh",),
    ("citation_holdout",),
    ("citation_plos",),
    ("citation_pmc",),
    ("citation_pmc_test",),
    ("citation_pmc_test2",),
    ("citation_fresh_test",),
    ("citation_pmc_test3", "citation_fresh_test2"),
    ("citation_fresh_test3",),
    ("citation_fresh_test4", "citation_pmc_test4"),
    ("citation_fresh_test5",),
    ("citation_pmc_test5",),
)


def sets_built_before(own: LabelledSet) -> tuple[Path, ...]:
    """The sets built before ``own``, in ``BUILD_ORDER``: the prior sets ``own``'s builder names,
    so its rebuild never depends on a newer set."""
    batch = next(i for i, names in enumerate(BUILD_ORDER) if own.name in names)
    return tuple(REAL / name for names in BUILD_ORDER[:batch] for name in names)


def builder_module(name: str):
    """A labelled-set builder of citations/quality/builders (``"pmc"``, ``"audit"``, ...)."""
    return importlib.import_module(f"{BUILDERS}.{name}")


def builder_command(name: str) -> list[str]:
    """The command that runs a builder as its set's SOURCES.md says: ``python -m ...``."""
    return [sys.executable, "-m", f"{BUILDERS}.{name}"]


def assert_counts(s: LabelledSet, *, entries: int, seeds: int, cited: int, containers: int) -> None:
    """Entries, seeds, cited seeds and edited volumes nobody cites as SOURCES.md reports them,
    per style, one split and source, unique entry ids, every file under 1 MiB."""
    rows, seed_rows = s.entries(), s.seeds()
    assert len(rows) == entries and len(seed_rows) == seeds
    assert sum(x["cited"] for x in seed_rows) == cited
    assert sum(x["source"] == "container" for x in seed_rows) == containers
    per_style = Counter(e["style"] for e in rows)
    gold_per_style = Counter(e["style"] for e in rows if e["gold"] is not None)
    assert {k: (per_style[k], gold_per_style[k]) for k in per_style} == s.style_counts
    assert {e["split"] for e in rows} == {s.split} and {e["source"] for e in rows} == {s.source}
    assert len({e["id"] for e in rows}) == len(rows)
    assert all(p.stat().st_size < 1 << 20 for p in s.data.iterdir())


def assert_ids_and_order(s: LabelledSet) -> None:
    """Ids ``<prefix>00001``... numbered in (citing, raw) order, unique seed ids, each string
    once."""
    rows, seed_rows = s.entries(), s.seeds()
    ids = [e["id"] for e in rows]
    assert len(set(ids)) == len(ids) and all(re.fullmatch(rf"{s.id_prefix}\d{{5}}", i) for i in ids)
    assert len({x["arxiv_id"] for x in seed_rows}) == len(seed_rows)
    assert len({e["raw"] for e in rows}) == len(rows)  # identical strings kept once
    assert [(e["citing"], e["raw"]) for e in rows] == sorted((e["citing"], e["raw"]) for e in rows)


def assert_multi_cited(s: LabelledSet, works: int) -> None:
    """How many works more than one entry cites."""
    cited = Counter(e["gold"] for e in s.entries() if e["gold"] is not None)
    assert sum(n > 1 for n in cited.values()) == works


def assert_sources_table(s: LabelledSet) -> str:
    """SOURCES.md's per-style table (entries, gold pairs, left out by the audit) is read from the
    file itself, so the file and the data cannot drift apart. Returns the file's text."""
    text = (s.data / "SOURCES.md").read_text("utf-8")
    table = {
        m.group(1): tuple(int(x.replace(",", "")) for x in m.group(2, 3, 4))
        for m in _TABLE_ROW.finditer(text)
    }
    rows = s.entries()
    left_out = {r["id"] for r in s.rows("audit.jsonl") if r["field"] == "scored"}
    expected = {"all": (len(rows), sum(e["gold"] is not None for e in rows), len(left_out))}
    for style in s.style_counts:
        mine = [e for e in rows if e["style"] == style]
        expected[style] = (
            len(mine),
            sum(e["gold"] is not None for e in mine),
            sum(e["id"] in left_out for e in mine),
        )
    assert table == expected
    return text


def assert_gold_is_cited_seed(s: LabelledSet, *, held_out: int) -> dict[str, dict]:
    """Every gold is a cited seed and every cited seed is some entry's gold; ``held_out`` entries
    cite a work with no seed; works are ``w...`` and edited volumes nobody cites ``c...`` with an
    editor. Returns the seeds by id."""
    seeds = {x["arxiv_id"]: x for x in s.seeds()}
    rows = s.entries()
    gold = {e["gold"] for e in rows if e["gold"] is not None}
    assert gold <= {k for k, x in seeds.items() if x["cited"]}
    assert gold == {k for k, x in seeds.items() if x["cited"]}
    assert all(k.startswith("w") for k in gold)
    assert all(k.startswith("c") and x["first_author"] for k, x in seeds.items() if not x["cited"])
    assert sum(e["gold"] is None for e in rows) == held_out
    return seeds


def assert_titles_printed(s: LabelledSet, *, seed_title_differs: int) -> None:
    """Each entry's labelled title is printed in its string (placed by the builders'
    ``title_start``, holdout's, which pmc and plos import); ``seed_title_differs`` gold entries
    print their seed's title otherwise (a typo, glue, a dash)."""
    seeds = {x["arxiv_id"]: x for x in s.seeds()}
    rows = s.entries()
    differs = sum(seeds[e["gold"]]["title"].lower() not in e["raw"].lower() for e in rows if e["gold"])
    assert differs == seed_title_differs
    title_start = builder_module("holdout").title_start
    assert all(title_start(e["raw"], e["title"]) >= 0 for e in rows)


def assert_no_work_of_the_prior_sets(s: LabelledSet, prior: tuple[Path, ...]) -> None:
    """No seed's or entry's title is a title (entry or seed) of the sets built before, ``prior``
    (the builders' ``set_norm``, as ``fresh.styles_titles`` reads them)."""
    fresh = builder_module("fresh")
    seen = set().union(*(fresh.styles_titles(p) for p in prior))
    assert not any(fresh.norm(x["title"]) in seen for x in s.seeds())
    assert not any(fresh.norm(e["title"]) in seen for e in s.entries())


def splits_of(folder: Path) -> list[LabelledSet]:
    """Every split a set folder holds (one per entries file), to read another set's rows."""
    return [
        LabelledSet(
            folder.name,
            split=p.name.removeprefix("entries.").removesuffix(".jsonl.gz"),
            source="",
            style_counts={},
        )
        for p in sorted(folder.glob("entries.*.jsonl.gz"))
    ]


def assert_no_title_or_string_of(s: LabelledSet, prior: tuple[Path, ...]) -> None:
    """No seed or entry title of ``s`` (the builders' ``set_norm``) is an entry title of a set
    built before it, and no raw string of ``s`` is one of theirs: nothing read or tuned on is in
    a test split."""
    fresh = builder_module("fresh")
    mine = {fresh.norm(x["title"]) for x in s.seeds()} | {fresh.norm(e["title"]) for e in s.entries()}
    raws = {e["raw"] for e in s.entries()}
    for folder in prior:
        for other in splits_of(folder):
            rows = other.entries()
            assert not mine & {fresh.norm(e["title"]) for e in rows if e.get("title")}, (
                other.name,
                other.split,
            )
            assert not raws & {e["raw"] for e in rows}, (other.name, other.split)


def assert_own_id_letter(s: LabelledSet, prior: tuple[Path, ...]) -> None:
    """``s``'s entry ids use a letter no earlier set uses for an entry or a seed id (every set's
    works are w..., its edited volumes c...), and none is one of its own seed ids: an id names
    one row of one file."""
    for folder in prior:
        for other in splits_of(folder):
            assert not any(e["id"].startswith(s.id_prefix) for e in other.entries()), (
                other.name,
                other.split,
            )
            assert not any(x["arxiv_id"].startswith(s.id_prefix) for x in other.seeds()), (
                other.name,
                other.split,
            )
    assert not {e["id"] for e in s.entries()} & {x["arxiv_id"] for x in s.seeds()}


def assert_gzip_header_fixed(s: LabelledSet) -> None:
    raw = (s.data / f"entries.{s.split}.jsonl.gz").read_bytes()
    assert raw[4:8] == b"\0\0\0\0"  # mtime 0: the same bytes on every rebuild
    assert raw[3] & 0x08 == 0  # no file name stored


def assert_errata_reasoned(s: LabelledSet, categories: dict[str, int]) -> list[dict]:
    """Every hand erratum has a reason, names an entry of the set with its old value, a new gold
    that is another cited seed, and only seeds of the set in its note. Returns the errata."""
    audit = builder_module("audit")
    rows = {e["id"]: e for e in s.entries()}
    seeds = {x["arxiv_id"]: x for x in s.seeds()}
    errata = audit.read_errata(s.data / "errata.jsonl")  # raises on a row without a note
    assert Counter(r["category"] for r in errata) == categories
    for row in errata:
        assert row["id"] in rows and len(row["note"]) > 30
        old = rows[row["id"]]["gold"] if row["field"] == "gold" else True
        assert row["old"] == old
        if row["field"] == "gold" and row["new"] is not None:
            assert seeds[row["new"]]["cited"] and row["new"] != old
        for sid in re.findall(r"\b[wc]\d{5}\b", row["note"]):
            assert sid in seeds, (row["id"], sid)
    return errata


def assert_audit_is_rules_plus_errata(
    s: LabelledSet, *, rules: dict[str, str] | None, rows: int, kept: int, kept_gold: int
) -> dict[str, str]:
    """audit.jsonl is exactly the rules' rows plus the errata's (rebuilt from them); ``rules``
    (id -> category) when given is what the rules must have fired on; ``kept`` entries are scored
    after the audit, ``kept_gold`` of them with a gold. Returns the rules' rows."""
    audit = builder_module("audit")
    entries = s.entries()
    audit_rows = s.rows("audit.jsonl")
    fired = {r["id"]: r["category"] for r in audit_rows if r["by"] == "rule"}
    if rules is not None:
        assert fired == rules
    seeds = {s.split: {x["arxiv_id"] for x in s.seeds() if x["cited"]}}
    rebuilt = audit.audit_rows(entries, fired, audit.read_errata(s.data / "errata.jsonl"), seeds)
    assert rebuilt == audit_rows and len(audit_rows) == rows
    after = audit.apply_audit(entries, audit_rows)
    assert len(after) == kept and sum(e["gold"] is not None for e in after) == kept_gold
    return fired


def bench_baseline(s: LabelledSet) -> dict:
    """bench/resolve_styles.py on the set's split with the naive baseline only (no corpus): its
    figures for the split, after checking the counts it read and that ours was not run."""
    out = subprocess.run(
        [
            sys.executable,
            str(RESOLVE_STYLES),
            "--data",
            str(s.data),
            "--splits",
            s.split,
            "--no-ours",
            "--corpus",
            str(REPO / "no-such-corpus"),
        ],
        capture_output=True,
        text=True,
        timeout=600,
        check=True,
    )
    result = json.loads(out.stdout)[s.split]
    gold_pairs = sum(g for _, g in s.style_counts.values())
    assert (result["entries"], result["gold_pairs"], result["seeds"]) == (
        sum(n for n, _ in s.style_counts.values()),
        gold_pairs,
        len(s.seeds()),
    )
    assert result["styles"] == {k: n for k, (n, _) in s.style_counts.items()}
    assert result["ours"] is None and result["audited"]["ours"] is None and result["seconds"]["ours"] is None
    overall = result["naive"]["overall"]
    assert overall["tp"] + overall.get("fn", 0) == gold_pairs
    return result


def assert_rebuild_equals_committed(
    s: LabelledSet, b: Builder, tmp_path: Path, args: tuple[str, ...] = ()
) -> None:
    """The builder, run on the snapshot (with ``args``, e.g. ``--share 1``), writes the committed
    files byte for byte."""
    out = subprocess.run(
        [
            *builder_command(b.script),
            b.flag,
            str(b.snapshot),
            *args,
            "--out",
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert out.returncode == 0, out.stderr
    for name in (f"entries.{s.split}.jsonl.gz", f"seeds.{s.split}.jsonl", "audit.jsonl"):
        assert (tmp_path / name).read_bytes() == (s.data / name).read_bytes(), name


def assert_wrong_snapshot_one_error(
    b: Builder, tmp_path: Path, message: str, args: tuple[str, ...] = ()
) -> None:
    """A directory that is no snapshot (``tmp_path``) is one error line (``message``, with
    ``{dir}`` for the directory), exit 2, no traceback, nothing written (``args``: more options)."""
    out = subprocess.run(
        [
            *builder_command(b.script),
            b.flag,
            str(tmp_path),
            *args,
            "--out",
            str(tmp_path / "o"),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert out.stderr.strip() == message.format(dir=tmp_path)
    assert not (tmp_path / "o").exists()


def label_scan(s: LabelledSet) -> dict[str, list[str]]:
    """The label scan (builders/holdout_sample.py ``scan``) on the set's split: each flagged
    entry's id with its shape flags."""
    out = subprocess.run(
        [*builder_command("holdout_sample"), "scan", "--data", str(s.data), "--split", s.split],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    assert out.stderr.strip().endswith("entries whose shape may hide a label fault")
    return {
        line.split()[0]: line.split()[1].split(",")
        for line in out.stdout.splitlines()
        if not line.startswith(" ")
    }


def parsed_titles_equal_to_gold(folder: str, split: str) -> int:
    """How many labelled entries of a set the built-in parser gives exactly the gold title (after
    the resolver's normalisation): the count a parser change must hold or raise on every set."""
    path = REPO / "tests" / "data" / "real" / folder / f"entries.{split}.jsonl.gz"
    rows = [json.loads(line) for line in gzip.decompress(path.read_bytes()).decode("utf-8").splitlines()]
    return sum(norm(parse_entry(r["raw"]).title or "") == norm(r["title"]) for r in rows if r.get("title"))
