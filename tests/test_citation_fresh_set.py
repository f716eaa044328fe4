"""The fresh held-out set (tests/data/real/citation_fresh, LinkedBooks) and the bench reading it.

The set replaces citation_styles' test split as a held-out measure, so these tests pin what it
holds (counts per style, every gold a seed, rules-only audit, no errata) and that
bench/resolve_styles.py scores it with ``--splits fresh``. They run the naive baseline only
(``--no-ours``): nobody is to read our resolver's decisions on this set before the lead's one run.
The converter's token rules are checked on token runs as LinkedBooks stores them.
"""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DATA = REPO / "tests" / "data" / "real" / "citation_fresh"
BENCH = REPO / "bench" / "resolve_styles.py"
# (entries, gold pairs) per style, as SOURCES.md reports them
STYLE_COUNTS = {
    "given_surname": (535, 403),
    "initials_first": (358, 258),
    "other": (129, 89),
    "surname_comma_given": (256, 190),
    "surname_initials": (551, 414),
    "title_first": (427, 310),
}


def _rows(name: str) -> list[dict]:
    path = DATA / name
    text = (
        gzip.decompress(path.read_bytes()).decode("utf-8")
        if path.suffix == ".gz"
        else path.read_text("utf-8")
    )
    return [json.loads(line) for line in text.splitlines()]


def _builder():
    sys.path.insert(0, str(REPO / "bench"))
    import build_citation_fresh

    return build_citation_fresh


def test_the_set_holds_the_counts_its_sources_file_reports():
    entries, seeds = _rows("entries.fresh.jsonl.gz"), _rows("seeds.fresh.jsonl")
    assert len(entries) == 2256 and len(seeds) == 1635
    assert sum(s["cited"] for s in seeds) == 1598 and sum(s["source"] == "container" for s in seeds) == 37
    per_style = Counter(e["style"] for e in entries)
    gold_per_style = Counter(e["style"] for e in entries if e["gold"] is not None)
    assert {s: (per_style[s], gold_per_style[s]) for s in per_style} == STYLE_COUNTS
    assert {e["split"] for e in entries} == {"fresh"} and {e["source"] for e in entries} == {"linkedbooks"}
    assert len({e["id"] for e in entries}) == len(entries)
    # every file small enough for the repository
    assert all(p.stat().st_size < 1 << 20 for p in DATA.iterdir())


def test_every_gold_is_a_cited_seed_and_containers_are_never_gold():
    seeds = {s["arxiv_id"]: s for s in _rows("seeds.fresh.jsonl")}
    entries = _rows("entries.fresh.jsonl.gz")
    gold = {e["gold"] for e in entries if e["gold"] is not None}
    assert gold <= {k for k, s in seeds.items() if s["cited"]}
    # every cited seed is cited by at least one entry; held-out works give null golds
    assert gold == {k for k, s in seeds.items() if s["cited"]}
    assert sum(e["gold"] is None for e in entries) == 592


def test_the_audit_is_rules_only_and_names_entries_of_the_set():
    ids = {e["id"] for e in _rows("entries.fresh.jsonl.gz")}
    rows = _rows("audit.jsonl")
    assert len(rows) == 20 and {r["id"] for r in rows} <= ids
    assert {(r["by"], r["field"], r["category"]) for r in rows} == {("rule", "scored", "titles_run_together")}
    assert not (DATA / "errata.jsonl").exists()  # no hand errata on the fresh set


def test_the_gzip_header_is_fixed():
    raw = (DATA / "entries.fresh.jsonl.gz").read_bytes()
    assert raw[4:8] == b"\0\0\0\0"  # mtime 0: the same bytes on every rebuild
    assert raw[3] & 0x08 == 0  # no file name stored


def test_tokens_are_joined_as_printed_and_the_journal_is_cut_off_the_title():
    b = _builder()
    assert b.detokenise(["Ackerman", "J", ".", "S", ".,", "Palladio", ",", "Torino", "1972", "."]) == (
        "Ackerman J. S., Palladio, Torino 1972."
    )
    assert b.detokenise(["«", "Recercare", "»,", "Repubbli", "-", "ca", "d", "’", "Orfeo"]) == (
        "«Recercare», Repubbli-ca d’Orfeo"
    )
    T = b.Token
    quoted = [T("Moore", "author"), T(",", "author"), T("“", "title"), T("Contemporary", "title")]
    quoted += [T("Satire", "title"), T(".”", "title"), T("Publications", "title"), T("of", "title")]
    quoted += [T("the", "title"), T("MLA", "title")]
    assert b.title_of(quoted) == ("Contemporary Satire", 1)
    guillemets = [T("X", "author"), T(",", "author"), T("The", "title"), T("acoustics", "title")]
    guillemets += [T(",", "title"), T("«", "title"), T("Recercare", "title"), T("»,", "title")]
    assert b.title_of(guillemets) == ("The acoustics", 1)
    # a second title run after "in" (even untagged, even after the editor) is the container ...
    chapter = [T("Venice", "title"), T("Drama", "title"), T("In", "o"), T("Milner", "author")]
    chapter += [T(",", "author"), T("At", "title"), T("the", "title"), T("Margins", "title")]
    assert b.title_of(chapter) == ("Venice Drama", 1)
    # ... while an author annotated as a title gives two title fields (the audit's rule)
    slip = [T("Giandomenico", "title"), T("Romanelli", "title"), T("1977", "year")]
    slip += [T("Venezia", "title"), T("Ottocento", "title")]
    assert b.title_of(slip) == ("Giandomenico Romanelli", 2)


def test_the_style_rule_reads_the_first_author_as_printed():
    b = _builder()
    T = b.Token

    def style(*author: str) -> str:
        return b.style_of([T(a, "author") for a in author] + [T("Title", "title")])

    assert style("C", ".", "Agnoletti", ",") == "initials_first"
    assert style("Moore", ",", "Andrew", ".") == "surname_comma_given"
    assert style("Albasini", "C", ".,") == "surname_initials"
    assert style("Patrizio", "Barbieri", ",") == "given_surname"
    assert b.style_of([T("Title", "title")]) == "title_first"


def test_the_bench_scores_the_fresh_split_with_the_baseline_only():
    out = subprocess.run(
        [
            sys.executable,
            str(BENCH),
            "--data",
            str(DATA),
            "--splits",
            "fresh",
            "--no-ours",
            "--corpus",
            str(REPO / "no-such-corpus"),
        ],
        capture_output=True,
        text=True,
        timeout=600,
        check=True,
    )
    result = json.loads(out.stdout)
    fresh = result["fresh"]
    assert (fresh["entries"], fresh["gold_pairs"], fresh["seeds"]) == (2256, 1664, 1635)
    assert fresh["styles"] == {s: n for s, (n, _) in STYLE_COUNTS.items()}
    assert fresh["ours"] is None and fresh["audited"]["ours"] is None and fresh["seconds"]["ours"] is None
    overall = fresh["naive"]["overall"]
    assert overall["tp"] + overall["fn"] == 1664
    assert fresh["audited"]["entries"] == 2236 and fresh["audited"]["left_out"] == 20
    assert fresh["audited"]["naive"]["overall"]["tp"] + fresh["audited"]["naive"]["overall"]["fn"] == 1648


def test_a_split_the_data_does_not_hold_is_one_clear_error():
    out = subprocess.run(
        [sys.executable, str(BENCH), "--data", str(DATA), "--splits", "dev", "--no-ours", "--no-naive"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert out.stderr.strip().splitlines()[-1] == f"--splits: {DATA} has no dev split (seeds.dev.jsonl)"
    bad = subprocess.run(
        [sys.executable, str(BENCH), "--splits", "train"], capture_output=True, text=True, timeout=120
    )
    assert bad.returncode == 2 and "unknown split 'train' (dev, test, fresh)" in bad.stderr
