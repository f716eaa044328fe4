"""The fresh held-out set (tests/data/real/citation_fresh, LinkedBooks) and the bench reading it.

The set replaces citation_styles' test split as a held-out measure, so these tests pin what it
holds (counts per style, every gold a seed, the audit: rules plus hand errata, each with a reason
and naming an entry of the set) and that bench/resolve_styles.py scores it with ``--splits
fresh``, as labelled and as audited. The converter's token rules and the work-merging rule are
checked on token runs and titles as LinkedBooks prints them.
"""

from __future__ import annotations

import gzip
import json
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DATA = REPO / "tests" / "data" / "real" / "citation_fresh"
BENCH = REPO / "bench" / "resolve_styles.py"
# (entries, gold pairs) per style, as SOURCES.md reports them
STYLE_COUNTS = {
    "given_surname": (536, 403),
    "initials_first": (358, 262),
    "other": (130, 90),
    "surname_comma_given": (256, 190),
    "surname_initials": (553, 417),
    "title_first": (428, 315),
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
    assert len(entries) == 2261 and len(seeds) == 1616
    assert sum(s["cited"] for s in seeds) == 1579 and sum(s["source"] == "container" for s in seeds) == 37
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
    assert sum(e["gold"] is None for e in entries) == 584


def _audit():
    sys.path.insert(0, str(REPO / "bench"))
    import citation_styles_audit

    return citation_styles_audit


def test_every_erratum_has_a_reason_and_names_an_entry_of_the_set():
    audit = _audit()
    entries = {e["id"]: e for e in _rows("entries.fresh.jsonl.gz")}
    seeds = {s["arxiv_id"]: s for s in _rows("seeds.fresh.jsonl")}
    errata = audit.read_errata(DATA / "errata.jsonl")  # raises on a row without a note
    assert len(errata) == 67
    assert Counter(r["category"] for r in errata) == {
        "venue_as_title": 18,
        "work_split": 19,
        "cluster_merges_works": 16,
        "seed_title_corrupt": 8,
        "container_as_title": 6,
    }
    for row in errata:
        assert row["id"] in entries and len(row["note"]) > 30
        old = entries[row["id"]]["gold"] if row["field"] == "gold" else True
        assert row["old"] == old
        if row["field"] == "gold" and row["new"] is not None:
            assert seeds[row["new"]]["cited"] and row["new"] != old
        # a seed the note names is a seed of the set
        for sid in re.findall(r"\b[wc]\d{5}\b", row["note"]):
            assert sid in seeds, (row["id"], sid)


def test_the_audit_file_is_the_rules_rows_plus_the_errata():
    audit = _audit()
    entries = _rows("entries.fresh.jsonl.gz")
    rows = _rows("audit.jsonl")
    rules = {r["id"]: r["category"] for r in rows if r["by"] == "rule"}
    assert len(rules) == 20 and set(rules.values()) == {"titles_run_together"}
    seeds = {"fresh": {s["arxiv_id"] for s in _rows("seeds.fresh.jsonl") if s["cited"]}}
    rebuilt = audit.audit_rows(entries, rules, audit.read_errata(DATA / "errata.jsonl"), seeds)
    assert rebuilt == rows and len(rows) == 87
    kept = audit.apply_audit(entries, rows)
    assert len(kept) == 2197 and sum(e["gold"] is not None for e in kept) == 1617


def test_one_work_printed_two_ways_is_one_work_and_two_editions_are_two():
    b = _builder()

    def group(title, surname, year, author=None):
        return {"title": title, "surname": surname, "year": year, "names": b._names(author or surname)}

    # OCR slip ("República") and a subtitle added: one work
    assert b.same_work(
        group("La Repubblica e i magistrati di Vinegia", "Contarini", 1551),
        group("La República e i magistrati di Vinegia", "Contarini", 1551, "Contarini, Gasparo"),
    )
    assert b.same_work(
        group("Venezia nel Settecento", "Manlio", 1980, "Brusatin Manlio"),
        group("Venezia nel Settecento. Stato, architettura, territorio", "Brusatin", 1980),
    )
    # another year (edition or volume), another author, two different subtitles: apart
    assert not b.same_work(
        group("Per la storia della giurisprudenza e delle università italiane. Nuovi saggi", "Brugi", 1921),
        group("Per la storia della giurisprudenza e delle università italiane. Saggi", "Brugi", 1915),
    )
    assert not b.same_work(
        group("Le chiese di Venezia", "Franzoi", 1975), group("Le chiese di Venezia", "Soravia", 1975)
    )
    assert not b.same_work(
        group("Storia dell’arte marciana: l'architettura", "Polacco", 1997),
        group("Storia dell’arte marciana: sculture, tesoro, arazzi", "Polacco", 1997),
    )
    merged = b.merge_works(
        {
            "a": [
                {
                    "title": "Le Minere della Pittura",
                    "surname": "Boschini",
                    "year": 1664,
                    "author": "Marco Boschini",
                }
            ],
            "b": [
                {
                    "title": "Le miniere della pittura",
                    "surname": "Boschini",
                    "year": 1664,
                    "author": "M. Boschini",
                }
            ],
            "c": [
                {
                    "title": "Le miniere della pittura",
                    "surname": "Boschini",
                    "year": 1674,
                    "author": "M. Boschini",
                }
            ],
        }
    )
    assert sorted((k, len(v)) for k, v in merged.items()) == [("a", 2), ("c", 1)]


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

    # a quoted title closes on its closing quote, not on an apostrophe inside it
    def quoted_title(*words: str) -> str:
        return b.title_of([T(w, "title") for w in words])[0]

    assert quoted_title(
        "“", "Parliament", "Street", "and", "Canaletto", "’", "s", "Views", ".”", "Burlington"
    ) == ("Parliament Street and Canaletto’s Views")
    assert quoted_title("‘", "Domenico", "de", "’", "Benintendi", "da", "Firenze", "’,", "AV") == (
        "Domenico de’Benintendi da Firenze"
    )
    assert quoted_title("‘", "Renaissance", "armies", "1509-1529", "’", "journal", "of") == (
        "Renaissance armies 1509-1529"
    )
    # the journal glued after a title: in guillemets, or in double quotes after a comma
    assert quoted_title("«", "Gut", "strings", "»,", "Early", "Music") == "Gut strings"
    assert quoted_title("Conflitti", "sociali", ",", "“", "Quaderni", "storici", "”,") == "Conflitti sociali"
    # ... but a quoted phrase the title goes on after is part of it
    assert quoted_title("Stati", "padani", ",", "“", "Stato", "del", "Rinascimento", "”:", "problemi") == (
        "Stati padani, “Stato del Rinascimento”: problemi"
    )


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
    assert (fresh["entries"], fresh["gold_pairs"], fresh["seeds"]) == (2261, 1677, 1616)
    assert fresh["styles"] == {s: n for s, (n, _) in STYLE_COUNTS.items()}
    assert fresh["ours"] is None and fresh["audited"]["ours"] is None and fresh["seconds"]["ours"] is None
    overall = fresh["naive"]["overall"]
    assert overall["tp"] + overall["fn"] == 1677
    audited = fresh["audited"]
    assert (audited["entries"], audited["left_out"], audited["regolded"]) == (2197, 64, 23)
    assert audited["naive"]["overall"]["tp"] + audited["naive"]["overall"]["fn"] == 1617


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
    assert bad.returncode == 2 and "unknown split 'train' (dev, test, fresh, holdout, plos)" in bad.stderr
