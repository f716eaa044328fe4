"""The third held-out set (tests/data/real/citation_holdout, SciELO) and the bench reading it.

The set is held out: nothing here runs our resolver on it. These tests pin what the committed
files hold (counts per style as SOURCES.md reports them, every gold a cited seed, unique ids,
the audit: rules plus hand errata, each with a reason and naming an entry), that
bench/resolve_styles.py scores it with ``--splits holdout`` (the naive baseline only), the
builder's rules on strings as SciELO prints them, and, when the packtools snapshot is on this
machine, that the builder gives the committed bytes again.
"""

from __future__ import annotations

import gzip
import json
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
DATA = REPO / "tests" / "data" / "real" / "citation_holdout"
BENCH = REPO / "bench" / "resolve_styles.py"
# The packtools snapshot the set is built from (as the fetch tool leaves it); $REFLONG_SCIELO_GIT
# points elsewhere. Without it the rebuild test skips; every other test reads the committed files.
SCIELO_GIT = Path(os.environ.get("REFLONG_SCIELO_GIT", "/work/.mirror/scieloorg+packtools/repo"))
# (entries, gold pairs) per style, as SOURCES.md reports them
STYLE_COUNTS = {
    "abnt": (383, 280),
    "apa": (231, 154),
    "name_year": (399, 302),
    "other": (344, 256),
    "vancouver": (793, 590),
}


def _rows(name: str) -> list[dict]:
    path = DATA / name
    text = (
        gzip.decompress(path.read_bytes()).decode("utf-8")
        if path.suffix == ".gz"
        else path.read_text("utf-8")
    )
    return [json.loads(line) for line in text.splitlines()]


def _bench_module(name: str):
    sys.path.insert(0, str(REPO / "bench"))
    return __import__(name)


def test_the_set_holds_the_counts_its_sources_file_reports():
    entries, seeds = _rows("entries.holdout.jsonl.gz"), _rows("seeds.holdout.jsonl")
    assert len(entries) == 2150 and len(seeds) == 1604
    assert sum(s["cited"] for s in seeds) == 1560 and sum(s["source"] == "container" for s in seeds) == 44
    per_style = Counter(e["style"] for e in entries)
    gold_per_style = Counter(e["style"] for e in entries if e["gold"] is not None)
    assert {s: (per_style[s], gold_per_style[s]) for s in per_style} == STYLE_COUNTS
    assert {e["split"] for e in entries} == {"holdout"} and {e["source"] for e in entries} == {"scielo"}
    assert len({e["citing"] for e in entries}) == 74  # one citing document per SciELO article
    ids = [e["id"] for e in entries]
    assert len(set(ids)) == len(ids) and all(re.fullmatch(r"h\d{5}", i) for i in ids)
    assert len({s["arxiv_id"] for s in seeds}) == len(seeds)
    assert len({e["raw"] for e in entries}) == len(entries)  # identical strings kept once
    # the entries are sorted by (citing, raw) and numbered in that order
    assert [(e["citing"], e["raw"]) for e in entries] == sorted((e["citing"], e["raw"]) for e in entries)
    # works cited by more than one entry (printed by several articles or in several forms)
    cited = Counter(e["gold"] for e in entries if e["gold"] is not None)
    assert sum(n > 1 for n in cited.values()) == 19
    assert all(p.stat().st_size < 1 << 20 for p in DATA.iterdir())


def test_the_sources_file_tables_are_the_committed_counts():
    """SOURCES.md's per-style table (entries, gold pairs, left out by the audit) and its naive
    figures are read from the file itself, so the file and the data cannot drift apart."""
    text = (DATA / "SOURCES.md").read_text("utf-8")
    table = dict(
        (m.group(1), tuple(int(x.replace(",", "")) for x in m.group(2, 3, 4)))
        for m in re.finditer(
            r"^\| \*{0,2}(\w+)\*{0,2} \| \*{0,2}([\d,]+)\*{0,2} \| \*{0,2}([\d,]+)\*{0,2} \| \*{0,2}(\d+)\*{0,2} \|$",
            text,
            re.M,
        )
    )
    entries = _rows("entries.holdout.jsonl.gz")
    left_out = {r["id"] for r in _rows("audit.jsonl") if r["field"] == "scored"}
    expected = {"all": (len(entries), sum(e["gold"] is not None for e in entries), len(left_out))}
    for style in STYLE_COUNTS:
        mine = [e for e in entries if e["style"] == style]
        expected[style] = (
            len(mine),
            sum(e["gold"] is not None for e in mine),
            sum(e["id"] in left_out for e in mine),
        )
    assert table == expected


def test_every_gold_is_a_cited_seed_and_containers_are_never_gold():
    seeds = {s["arxiv_id"]: s for s in _rows("seeds.holdout.jsonl")}
    entries = _rows("entries.holdout.jsonl.gz")
    gold = {e["gold"] for e in entries if e["gold"] is not None}
    assert gold == {k for k, s in seeds.items() if s["cited"]}
    assert all(k.startswith("w") for k in gold)
    assert all(k.startswith("c") and s["first_author"] for k, s in seeds.items() if not s["cited"])
    assert sum(e["gold"] is None for e in entries) == 568  # entries citing a held-out work
    # gold entries whose string prints the seed's title differently (a typo, glue, a subtitle)
    assert sum(seeds[e["gold"]]["title"].lower() not in e["raw"].lower() for e in entries if e["gold"]) == 16
    # the labelled title of each entry is printed in its string (the source annotates the
    # mixed-citation it stands beside)
    b = _bench_module("build_citation_holdout")
    assert all(b.title_start(e["raw"], e["title"]) >= 0 for e in entries)


def test_the_gzip_header_is_fixed():
    raw = (DATA / "entries.holdout.jsonl.gz").read_bytes()
    assert raw[4:8] == b"\0\0\0\0"  # mtime 0: the same bytes on every rebuild
    assert raw[3] & 0x08 == 0  # no file name stored


def test_every_erratum_has_a_reason_and_names_an_entry_of_the_set():
    audit = _bench_module("citation_styles_audit")
    entries = {e["id"]: e for e in _rows("entries.holdout.jsonl.gz")}
    seeds = {s["arxiv_id"]: s for s in _rows("seeds.holdout.jsonl")}
    errata = audit.read_errata(DATA / "errata.jsonl")  # raises on a row without a note
    assert Counter(r["category"] for r in errata) == {
        "not_a_title": 11,
        "seed_title_corrupt": 2,
        "venue_as_title": 1,
        "work_split": 2,
    }
    for row in errata:
        assert row["id"] in entries and len(row["note"]) > 30
        old = entries[row["id"]]["gold"] if row["field"] == "gold" else True
        assert row["old"] == old
        if row["field"] == "gold" and row["new"] is not None:
            assert seeds[row["new"]]["cited"] and row["new"] != old
        for sid in re.findall(r"\b[wc]\d{5}\b", row["note"]):
            assert sid in seeds, (row["id"], sid)


def test_the_audit_file_is_the_rules_rows_plus_the_errata():
    audit = _bench_module("citation_styles_audit")
    entries = _rows("entries.holdout.jsonl.gz")
    rows = _rows("audit.jsonl")
    rules = {r["id"]: r["category"] for r in rows if r["by"] == "rule"}
    assert rules == {"h01979": "venue_as_title"}  # a workshop's web page, annotated as the title
    seeds = {"holdout": {s["arxiv_id"] for s in _rows("seeds.holdout.jsonl") if s["cited"]}}
    rebuilt = audit.audit_rows(entries, rules, audit.read_errata(DATA / "errata.jsonl"), seeds)
    assert rebuilt == rows and len(rows) == 17
    kept = audit.apply_audit(entries, rows)
    assert len(kept) == 2137 and sum(e["gold"] is not None for e in kept) == 1574


def test_the_bench_scores_the_holdout_split_with_the_baseline_only():
    out = subprocess.run(
        [
            sys.executable,
            str(BENCH),
            "--data",
            str(DATA),
            "--splits",
            "holdout",
            "--no-ours",
            "--corpus",
            str(REPO / "no-such-corpus"),
        ],
        capture_output=True,
        text=True,
        timeout=600,
        check=True,
    )
    result = json.loads(out.stdout)["holdout"]
    assert (result["entries"], result["gold_pairs"], result["seeds"]) == (2150, 1582, 1604)
    assert result["styles"] == {s: n for s, (n, _) in STYLE_COUNTS.items()}
    assert result["ours"] is None and result["audited"]["ours"] is None
    overall = result["naive"]["overall"]
    assert overall["tp"] + overall["fn"] == 1582
    assert (overall["tp"], overall["fp"], overall["fn"]) == (1524, 88, 58)
    audited = result["audited"]
    assert (audited["entries"], audited["left_out"], audited["regolded"]) == (2137, 13, 4)
    assert audited["naive"]["overall"]["tp"] + audited["naive"]["overall"]["fn"] == 1574


def test_the_style_rule_reads_the_printed_shape():
    b = _bench_module("build_citation_holdout")
    assert (
        b.style_of(
            "Mendes, L. (2017). Gentrificação turística em Lisboa. Cadernos",
            "Gentrificação turística em Lisboa",
        )
        == "apa"
    )
    assert (
        b.style_of(
            "AKSOY, S., 2003. Control of tsetse flies. Veterinary Parasitology", "Control of tsetse flies"
        )
        == "name_year"
    )
    assert (
        b.style_of(
            "Brand-Williams, W. & Berset, C. 1995. Use of a free radical method. LWT",
            "Use of a free radical method",
        )
        == "name_year"
    )
    assert (
        b.style_of(
            "Abreu MGL, Germano F. Impact of oral health. Glob Pediatr Health", "Impact of oral health"
        )
        == "vancouver"
    )
    assert (
        b.style_of("SEARLE, J. R. Expression and Meaning. New York: Cambridge", "Expression and Meaning")
        == "abnt"
    )
    assert (
        b.style_of("Bufrem, L. S. Perspectivas da pesquisa. In: Guimarães", "Perspectivas da pesquisa")
        == "other"
    )


def test_the_converter_reads_a_scielo_reference_as_printed_and_as_annotated():
    b = _bench_module("build_citation_holdout")
    ref = ET.fromstring(
        "<ref><label>5</label><mixed-citation>5. BAKHTIN, M. Os gêneros do discurso. <italic>In:</italic>"
        " BAKHTIN, M. <italic>Os gêneros do discurso</italic> Trad. Paulo Bezerra. São Paulo: Editora 34,"
        "\n 2016. p.11-107.</mixed-citation><element-citation publication-type='book'><person-group"
        " person-group-type='author'><name><surname>BAKHTIN</surname><given-names>M.</given-names></name>"
        "</person-group><chapter-title>Os gêneros do discurso</chapter-title><person-group"
        " person-group-type='editor'><name><surname>BAKHTIN</surname></name></person-group>"
        "<source>In: Os gêneros do discurso</source><year>2016</year></element-citation></ref>"
    )
    assert b.raw_of(ref.find("mixed-citation")) == (
        "BAKHTIN, M. Os gêneros do discurso. In: BAKHTIN, M. Os gêneros do discurso Trad. Paulo Bezerra."
        " São Paulo: Editora 34, 2016. p.11-107."
    )
    fields = b.annotated(ref.find("element-citation"))
    assert (fields["title"], fields["container"], fields["editor"], fields["surname"], fields["year"]) == (
        "Os gêneros do discurso",
        "Os gêneros do discurso",
        "BAKHTIN",
        "BAKHTIN",
        2016,
    )
    # a journal reference printed without its article's title names no work
    journal = ET.fromstring(
        "<element-citation publication-type='journal'><source>Cerâm. Ind.</source><year>2018</year>"
        "</element-citation>"
    )
    assert b.annotated(journal)["title"] == ""
    # HTML entities a file uses without its DTD are read as their characters
    root = b._parse(b"<article><p>a&nbsp;b &amp; c</p></article>")
    assert root.find("p").text == "a\u00a0b & c"
    assert b.redistributable("http://creativecommons.org/licenses/by-nc/4.0")
    assert not b.redistributable("http://creativecommons.org/licenses/by-nc-nd/4.0")
    assert not b.redistributable(None)


@pytest.mark.skipif(
    not (SCIELO_GIT / "HEAD").is_file(),
    reason=f"needs the scieloorg/packtools snapshot at {SCIELO_GIT} (set REFLONG_SCIELO_GIT)",
)
def test_the_builder_gives_the_committed_bytes_again(tmp_path):
    out = subprocess.run(
        [
            sys.executable,
            str(REPO / "bench" / "build_citation_holdout.py"),
            "--scielo",
            str(SCIELO_GIT),
            "--out",
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert out.returncode == 0, out.stderr
    for name in ("entries.holdout.jsonl.gz", "seeds.holdout.jsonl", "audit.jsonl"):
        assert (tmp_path / name).read_bytes() == (DATA / name).read_bytes(), name


def test_a_wrong_snapshot_is_one_clear_error(tmp_path):
    out = subprocess.run(
        [
            sys.executable,
            str(REPO / "bench" / "build_citation_holdout.py"),
            "--scielo",
            str(tmp_path),
            "--out",
            str(tmp_path / "o"),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert (
        out.stderr.strip() == f"build_citation_holdout: cannot read fe1ada8cd7cc in {tmp_path} (git exit 128)"
    )
    assert not (tmp_path / "o").exists()
