"""The fourth held-out set (tests/data/real/citation_plos, PLOS articles) and the bench reading it.

The set is held out: nothing here runs our resolver on it. These tests pin what the committed
files hold (counts per style as SOURCES.md reports them, every gold a cited seed, unique ids,
the audit: hand errata, each with a reason and naming an entry), that bench/resolve_styles.py
scores it with ``--splits plos`` (the naive baseline only), the builder's rules on references as
PLOS marks them up, and, when the allofplos snapshot is on this machine, that the builder gives
the committed bytes again.
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
DATA = REPO / "tests" / "data" / "real" / "citation_plos"
BENCH = REPO / "bench" / "resolve_styles.py"
# The allofplos snapshot the set is built from (as the fetch tool leaves it); $REFLONG_PLOS_GIT
# points elsewhere. Without it the rebuild test skips; every other test reads the committed files.
PLOS_GIT = Path(os.environ.get("REFLONG_PLOS_GIT", "/work/.mirror/PLOS+allofplos/repo"))
# (entries, gold pairs) per style, as SOURCES.md reports them
STYLE_COUNTS = {"name_year": (1981, 1485), "other": (99, 73), "vancouver": (489, 357)}


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
    entries, seeds = _rows("entries.plos.jsonl.gz"), _rows("seeds.plos.jsonl")
    assert len(entries) == 2569 and len(seeds) == 1921
    assert sum(s["cited"] for s in seeds) == 1903 and sum(s["source"] == "container" for s in seeds) == 18
    per_style = Counter(e["style"] for e in entries)
    gold_per_style = Counter(e["style"] for e in entries if e["gold"] is not None)
    assert {s: (per_style[s], gold_per_style[s]) for s in per_style} == STYLE_COUNTS
    assert {e["split"] for e in entries} == {"plos"} and {e["source"] for e in entries} == {"plos"}
    assert len({e["citing"] for e in entries}) == 50  # MAX_ARTICLES PLOS articles
    assert all(e["citing"].startswith("plos:10.1371/journal.") for e in entries)
    ids = [e["id"] for e in entries]
    assert len(set(ids)) == len(ids) and all(re.fullmatch(r"p\d{5}", i) for i in ids)
    assert len({s["arxiv_id"] for s in seeds}) == len(seeds)
    assert len({e["raw"] for e in entries}) == len(entries)  # identical strings kept once
    assert [(e["citing"], e["raw"]) for e in entries] == sorted((e["citing"], e["raw"]) for e in entries)
    cited = Counter(e["gold"] for e in entries if e["gold"] is not None)
    assert sum(n > 1 for n in cited.values()) == 12
    assert all(p.stat().st_size < 1 << 20 for p in DATA.iterdir())
    # names are printed with a space between surname and initials ("Lauth MR", never "LauthMR")
    assert not any(re.match(r"^[A-Z][a-z]+[A-Z]{1,3}, ", e["raw"]) for e in entries)


def test_the_sources_file_tables_are_the_committed_counts():
    """SOURCES.md's per-style table (entries, gold pairs, left out by the audit) is read from the
    file itself, so the file and the data cannot drift apart."""
    text = (DATA / "SOURCES.md").read_text("utf-8")
    table = dict(
        (m.group(1), tuple(int(x.replace(",", "")) for x in m.group(2, 3, 4)))
        for m in re.finditer(
            r"^\| \*{0,2}(\w+)\*{0,2} \| \*{0,2}([\d,]+)\*{0,2} \| \*{0,2}([\d,]+)\*{0,2} \| \*{0,2}(\d+)\*{0,2} \|$",
            text,
            re.M,
        )
    )
    entries = _rows("entries.plos.jsonl.gz")
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
    b = _bench_module("build_citation_plos")
    assert (
        b.PLOS_COMMIT in text
        and f"MAX_ARTICLES = {b.MAX_ARTICLES}" in (REPO / "bench" / "build_citation_plos.py").read_text()
    )


def test_every_gold_is_a_cited_seed_and_containers_are_never_gold():
    seeds = {s["arxiv_id"]: s for s in _rows("seeds.plos.jsonl")}
    entries = _rows("entries.plos.jsonl.gz")
    gold = {e["gold"] for e in entries if e["gold"] is not None}
    assert gold == {k for k, s in seeds.items() if s["cited"]}
    assert all(k.startswith("w") for k in gold)
    assert all(k.startswith("c") and s["first_author"] for k, s in seeds.items() if not s["cited"])
    assert sum(e["gold"] is None for e in entries) == 654  # entries citing a held-out work
    # one gold entry prints the seed's title differently ("morphometry—the" for "morphometry–the")
    assert sum(seeds[e["gold"]]["title"].lower() not in e["raw"].lower() for e in entries if e["gold"]) == 1
    b = _bench_module("build_citation_plos")
    assert all(b.title_start(e["raw"], e["title"]) >= 0 for e in entries)
    # no work of the three other sets is here
    fresh = _bench_module("build_citation_fresh")
    seen = set().union(*(fresh.styles_titles(p) for p in b.PRIOR_SETS))
    assert not any(fresh.norm(s["title"]) in seen for s in seeds.values())  # the builders' set_norm


def test_the_gzip_header_is_fixed():
    raw = (DATA / "entries.plos.jsonl.gz").read_bytes()
    assert raw[4:8] == b"\0\0\0\0"  # mtime 0: the same bytes on every rebuild
    assert raw[3] & 0x08 == 0  # no file name stored


def test_the_audit_file_is_the_errata_each_with_a_reason():
    audit = _bench_module("citation_styles_audit")
    entries = {e["id"]: e for e in _rows("entries.plos.jsonl.gz")}
    errata = audit.read_errata(DATA / "errata.jsonl")  # raises on a row without a note
    assert Counter(r["category"] for r in errata) == {"not_one_reference": 2, "not_a_title": 1}
    for row in errata:
        assert row["id"] in entries and len(row["note"]) > 30 and row["old"] is True
    rows = _rows("audit.jsonl")
    assert not [r for r in rows if r["by"] == "rule"]  # no audit rule fires on PLOS's markup
    seeds = {"plos": {s["arxiv_id"] for s in _rows("seeds.plos.jsonl") if s["cited"]}}
    assert audit.audit_rows(list(entries.values()), {}, errata, seeds) == rows
    kept = audit.apply_audit(list(entries.values()), rows)
    assert len(kept) == 2566 and sum(e["gold"] is not None for e in kept) == 1912


def test_the_bench_scores_the_plos_split_with_the_baseline_only():
    out = subprocess.run(
        [
            sys.executable,
            str(BENCH),
            "--data",
            str(DATA),
            "--splits",
            "plos",
            "--no-ours",
            "--corpus",
            str(REPO / "no-such-corpus"),
        ],
        capture_output=True,
        text=True,
        timeout=600,
        check=True,
    )
    result = json.loads(out.stdout)["plos"]
    assert (result["entries"], result["gold_pairs"], result["seeds"]) == (2569, 1915, 1921)
    assert result["styles"] == {s: n for s, (n, _) in STYLE_COUNTS.items()}
    assert result["ours"] is None and result["audited"]["ours"] is None
    overall = result["naive"]["overall"]
    assert (overall["tp"], overall["fp"], overall["fn"]) == (1885, 46, 30)
    audited = result["audited"]
    assert (audited["entries"], audited["left_out"], audited["regolded"]) == (2566, 3, 0)


def test_the_style_rule_reads_the_printed_author_layout():
    b = _bench_module("build_citation_plos")
    assert (
        b.style_of(
            "Leung L, Klopper AV (2011) Apical migration of nuclei. Development 138",
            "Apical migration of nuclei",
        )
        == "name_year"
    )
    assert (
        b.style_of(
            "Harms E, Kivimae S. Posttranscriptional regulation. J Biol Rhythms. 2004;19",
            "Posttranscriptional regulation",
        )
        == "vancouver"
    )
    assert (
        b.style_of("Guo T., Newmark P. A., “A bruno-like gene,” Dev. Cell, vol. 11", "A bruno-like gene")
        == "other"
    )
    assert (
        b.style_of(
            "National Research Council. A Framework for K-12 Science Education. 2012",
            "A Framework for K-12 Science Education",
        )
        == "other"
    )
    # the opening quote of a quoted title does not hide the year before it
    assert (
        b.style_of(
            "Wood JP, Maly MR (2009) “Holding me back”: living with arthritis. Arch",
            "“Holding me back”: living with arthritis",
        )
        == "name_year"
    )


def test_the_converter_reads_a_plos_reference_as_printed_and_as_marked():
    b = _bench_module("build_citation_plos")
    mixed = ET.fromstring(
        "<mixed-citation publication-type='book'><name><surname>Rice</surname><given-names>SO</given-names>"
        "</name> (<year>1954</year>) <article-title>Mathematical analysis of random noise</article-title>. In:"
        " <name><surname>Wax</surname><given-names>N</given-names></name>, editor, <source>Selected papers on"
        " noise and stochastic processes</source>, Dover Publications, New York. pp. <fpage>133</fpage>"
        "\u2013<lpage>294</lpage>.</mixed-citation>"
    )
    assert b.raw_of(mixed) == (
        "Rice SO (1954) Mathematical analysis of random noise. In: Wax N, editor, Selected papers on noise and"
        " stochastic processes, Dover Publications, New York. pp. 133\u2013294."
    )
    fields = b.annotated(mixed)
    assert (fields["title"], fields["container"], fields["editor"], fields["surname"], fields["year"]) == (
        "Mathematical analysis of random noise",
        "Selected papers on noise and stochastic processes",
        "Wax",
        "Rice",
        1954,
    )
    # a journal reference whose journal was marked inside the article title is flagged (left out)
    glued = ET.fromstring(
        "<mixed-citation publication-type='journal'><name><surname>Fogel</surname></name> (<year>2006</year>)"
        " <article-title>A dynamic mechanism. Genes Dev</article-title>. <volume>20</volume></mixed-citation>"
    )
    assert b.annotated(glued)["journal_unmarked"]
    # a book names its work by its source; an institution as author gives no surname
    book = ET.fromstring(
        "<mixed-citation publication-type='book'><collab>WHO</collab>. <source>Report on the Global Tobacco"
        " Epidemic</source>. Geneva; <year>2008</year>.</mixed-citation>"
    )
    fields = b.annotated(book)
    assert (fields["title"], fields["surname"], fields["container"]) == (
        "Report on the Global Tobacco Epidemic",
        "",
        "",
    )
    assert b.licence_kind("http://creativecommons.org/licenses/by/4.0", "") == "CC BY 4.0"
    assert (
        b.licence_kind("", "... under the terms of the Creative Commons Attribution License, ...")
        == "CC BY (no version)"
    )
    assert b.licence_kind("http://creativecommons.org/publicdomain/zero/1.0", "") == "CC0 / public domain"
    assert b.licence_kind("http://creativecommons.org/licenses/by-nd/4.0", "") is None


@pytest.mark.skipif(
    not (PLOS_GIT / "HEAD").is_file(),
    reason=f"needs the PLOS/allofplos snapshot at {PLOS_GIT} (set REFLONG_PLOS_GIT)",
)
def test_the_builder_gives_the_committed_bytes_again(tmp_path):
    out = subprocess.run(
        [
            sys.executable,
            str(REPO / "bench" / "build_citation_plos.py"),
            "--plos",
            str(PLOS_GIT),
            "--out",
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert out.returncode == 0, out.stderr
    for name in ("entries.plos.jsonl.gz", "seeds.plos.jsonl", "audit.jsonl"):
        assert (tmp_path / name).read_bytes() == (DATA / name).read_bytes(), name


def test_a_wrong_snapshot_is_one_clear_error(tmp_path):
    out = subprocess.run(
        [
            sys.executable,
            str(REPO / "bench" / "build_citation_plos.py"),
            "--plos",
            str(tmp_path),
            "--out",
            str(tmp_path / "o"),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert out.stderr.strip() == f"build_citation_plos: cannot read 07fdeed848b2 in {tmp_path} (git exit 128)"
    assert not (tmp_path / "o").exists()
