"""Synthetic bibliographies go wrong as real ones do, and a classifier measures how often.

The 2024 world's entries (``reflong.demo.messy`` through ``references.bibliography``) print
earlier-version titles, dropped subtitles, typos, unpunctuated styles, venue-only entries and
PDF-extraction damage; ``reflong.demo.bib_phenomena`` labels each phenomenon, on the real corpus
and on the world alike, and the world's shares must follow the corpus's.
"""

from __future__ import annotations

import json
import random
import sqlite3
from datetime import date

import pymupdf
import pytest

from reflong.demo.bib_phenomena import (
    ENTRY_PHENOMENA,
    TITLE_PHENOMENA,
    entry_phenomena,
    shares,
    title_phenomena,
)
from reflong.demo.catalog2024 import write_catalog
from reflong.demo.citation_graph import TRUTH_FILE, read_truth_pairs, write_world_index
from reflong.demo.messy import Mess, earlier_title
from reflong.demo.on_demand import OnDemandPdfs, unprovable_pairs
from reflong.demo.references import bibliography, entry_body
from reflong.demo.rehearsal import answers_vs_truth
from reflong.demo.world import Work
from reflong.ingest.catalog.reader import read_catalog

TITLE = "Famali: Chart-Based Dermatology for Large Language Models"
WORK = Work(
    "2403.01234", TITLE, ["Ann Lee", "Bo Kim", "Cy Park"], date(2024, 3, 5), "2403.01234", None, "ICML"
)


def _body(mess: Mess, form: str = "title", unpunctuated: bool = False) -> str:
    return entry_body(WORK, "numbered", form, random.Random(1), False, mess, unpunctuated)


def test_the_classifier_labels_each_phenomenon_a_messy_entry_carries():
    assert title_phenomena(_body(Mess()), TITLE) == {"exact"}
    assert entry_phenomena(_body(Mess())) == set()
    assert title_phenomena(_body(Mess(), unpunctuated=True), TITLE) == {"exact", "unpunctuated_title"}
    assert title_phenomena(_body(Mess(subtitle_dropped=True)), TITLE) == {"subtitle_dropped"}
    assert title_phenomena(_body(Mess(typo=True, rng_seed="t")), TITLE) == {"typo"}
    older = "Towards " + TITLE.replace("Chart-Based", "Improving")
    assert title_phenomena(_body(Mess(earlier_title=older)), TITLE) == {"title_changed"}
    venue_only = _body(Mess(venue_only=True))
    assert title_phenomena(venue_only, TITLE) == {"no_title"} and "venue_only" in entry_phenomena(venue_only)
    assert "hyphen_break" in entry_phenomena(_body(Mess(hyphen_break=True, rng_seed="h")))
    assert "glued" in entry_phenomena(_body(Mess(glued=True)))
    assert "truncated" in entry_phenomena(_body(Mess(truncated=True, rng_seed="c")))
    # real entries of the corpus's kinds
    assert entry_phenomena("Mommert, M., Hora, J. L., Farnocchia, D., et al. 2014a, ApJ, 786, 148") == {
        "venue_only"
    }
    assert entry_phenomena(
        "W.-R. Hu, Y.-L. Wu, The Taiji Program in Space for grav- itational wave physics."
    ) == {"hyphen_break"}
    assert shares([{"typo"}, set()], ("typo", "exact")) == {"typo": 0.5, "exact": 0.0, "n": 2}


@pytest.mark.slow
def test_clean_bibliographies_are_unchanged_and_messy_ones_are_reproducible():
    works = [WORK, Work("ext-1", "Older Work on Things", ["Di Roe"], date(2019, 5, 1), None, None, "ACL")]
    # the entries main printed before messy entries existed (messy=False is the default)
    assert [
        e.text for st in ("numbered", "author-year") for e in bibliography(works, st, "s", long=True)
    ] == [
        "A. Lee, B. Kim, and C. Park. Famali: Chart-Based dermatology for large language models. ICML, 2024. "
        "Main Track. Vienna, Austria. IEEE.",
        "D. Roe. Older Work on Things. ACL, 2019. Volume 2: Short Papers. Vienna, Austria. Curran Associates, Inc..",
        "Lee, A., Kim, B., and Park, C. (2024). Famali: Chart-Based dermatology for large language models. ICML. "
        "Main Track. Vienna, Austria. IEEE.",
        "Roe, D. (2019). Older Work on Things. ACL. Volume 2: Short Papers. Vienna, Austria. Curran Associates, Inc..",
    ]
    # messy: the same stream gives the same entries; over many streams every kind of mess shows up
    assert bibliography(works, "numbered", "s", messy=True) == bibliography(
        works, "numbered", "s", messy=True
    )
    texts = [e.text for i in range(5000) for e in bibliography([WORK], "numbered", f"p{i}", messy=True)]
    found = shares(
        (title_phenomena(t, TITLE) | entry_phenomena(t) for t in texts), TITLE_PHENOMENA + ENTRY_PHENOMENA
    )
    for name in ("typo", "subtitle_dropped", "no_title", "unpunctuated_title", "hyphen_break", "glued"):
        assert 0 < found[name] < 0.05, (name, found)
    assert found["exact"] > 0.9


@pytest.fixture(scope="module")
def messy_world(tmp_path_factory):
    out = tmp_path_factory.mktemp("messy2024")
    write_catalog(out, scale=0.02)
    write_world_index(out, since="2024-03")
    return out


def test_the_world_has_retitled_v2s_whose_v1_title_citers_quote(messy_world):
    records = [json.loads(x) for x in (messy_world / "papers.jsonl").read_text().splitlines()]
    retitled = {r["arxiv_id"]: r for r in records if "title" in r["versions"][0]}
    assert retitled and all(len(r["versions"]) >= 2 for r in retitled.values())
    assert all(r["versions"][0]["title"] != r["title"] for r in retitled.values())
    assert earlier_title("2403.00001", "One Title", 1) is None  # one version: nothing to change
    catalog = read_catalog(messy_world)
    truth = read_truth_pairs(messy_world / TRUTH_FILE)
    pdfs = OnDemandPdfs(catalog, messy_world / TRUTH_FILE)
    quoted = []
    for citing, cited in sorted(truth):
        if cited in retitled:
            entries, _ = pdfs.entries(citing, catalog.papers[citing].latest.number)
            entry = next(e for e in entries if e.key == cited)
            old = retitled[cited]["versions"][0]["title"]
            if old.split(":")[0].lower() in entry.text.lower() and "title_changed" in title_phenomena(
                entry.text, retitled[cited]["title"]
            ):
                quoted.append((citing, cited, entry))
    assert quoted, "no citer quotes a v1 title"
    citing, cited, entry = quoted[0]
    assert (citing, cited) in truth  # the truth still says the citer cites the seed
    with pymupdf.open(stream=pdfs(citing, catalog.papers[citing].latest.number), filetype="pdf") as doc:
        text = " ".join(" ".join(p.get_text().split()) for p in doc)
    assert retitled[cited]["versions"][0]["title"].split()[-1].lower() in text.lower()


def test_venue_only_citations_of_seeds_count_neither_way(messy_world, tmp_path):
    truth = read_truth_pairs(messy_world / TRUTH_FILE)
    moot = unprovable_pairs(messy_world)
    assert moot and moot < truth and len(moot) < 0.02 * len(truth)
    catalog = read_catalog(messy_world)
    pdfs = OnDemandPdfs(catalog, messy_world / TRUTH_FILE)
    citing, cited = sorted(moot)[0]
    entries, _ = pdfs.entries(citing, catalog.papers[citing].latest.number)
    entry = next(e for e in entries if e.key == cited)
    assert (
        not entry.provable
        and entry.form == "title"
        and "no_title" in title_phenomena(entry.text, catalog.papers[cited].title)
    )
    # one task whose documents are the moot citer and a true one: missing the moot one costs no
    # recall, answering it costs no precision
    other = next(c for c, s in sorted(truth) if s == cited and (c, s) not in moot)
    db = tmp_path / "store.db"
    con = sqlite3.connect(db)
    con.execute("create table build (id integer primary key)")
    con.execute(
        "create table build_task (build_id int, key_arxiv_id text, documents_json text, answer_json text)"
    )
    con.execute("insert into build values (1)")
    for answer in ([1], [0, 1]):
        con.execute("delete from build_task")
        con.execute(
            "insert into build_task values (1, ?, ?, ?)",
            (cited, json.dumps([f"{citing}v1", f"{other}v1"]), json.dumps(answer)),
        )
        con.commit()
        assert answers_vs_truth(db, truth, moot) == (1.0, 1.0)
        assert answers_vs_truth(db, truth) == ((1.0, 0.5) if answer == [1] else (1.0, 1.0))
    con.close()


@pytest.mark.slow
def test_the_worlds_shares_follow_the_corpus(messy_world, corpus_dir):
    from reflong.demo.phenomena_shares import corpus_shares

    corpus = corpus_shares(corpus_dir)
    catalog = read_catalog(messy_world)
    pdfs = OnDemandPdfs(catalog, messy_world / TRUTH_FILE, lengths="real")
    citers = sorted({c for c, _ in read_truth_pairs(messy_world / TRUTH_FILE)})
    cited, every = [], []
    for c in citers:
        entries, _ = pdfs.entries(c, catalog.papers[c].latest.number)
        every += [e.text for e in entries]
        cited += [(e.text, catalog.papers[e.key].title) for e in entries if e.key in catalog.papers]
    world = {
        "entries": shares((entry_phenomena(t) for t in every), ENTRY_PHENOMENA),
        "cited_titles": shares((title_phenomena(e, t) for e, t in cited), TITLE_PHENOMENA),
    }
    assert corpus["entries"]["n"] > 3000 and corpus["cited_titles"]["n"] > 150
    for population, names in (("entries", ENTRY_PHENOMENA), ("cited_titles", TITLE_PHENOMENA)):
        for name in names:
            w, c = world[population][name], corpus[population][name]
            # within a percentage point or a factor of three of the corpus's share
            assert abs(w - c) <= 0.01 or c / 3 <= w <= 3 * c, (population, name, w, c)
    assert world["cited_titles"]["exact"] < 0.99  # not every seed title printed verbatim any more


@pytest.mark.slow
def test_synth_arxiv_messy_prints_messy_entries_and_keeps_unprovable_ones_out_of_cites(tmp_path):
    from reflong.demo.generate import generate
    from reflong.demo.world import SynthConfig

    out = tmp_path / "messy-demo"
    generate(out, SynthConfig(papers=400, seed=1, messy=True), jobs=1)
    assert json.loads((out / "generator.json").read_text())["config"]["messy"] is True
    papers = {r["arxiv_id"]: r for r in map(json.loads, (out / "papers.jsonl").read_text().splitlines())}
    retitled = {k for k, r in papers.items() if "title" in r["versions"][0]}
    assert retitled and all(papers[k]["versions"][0]["title"] != papers[k]["title"] for k in retitled)
    truth = [json.loads(x) for x in (out / "truth.jsonl").read_text().splitlines()]
    labels = [title_phenomena(c["reference"], papers[c["seed"]]["title"]) for t in truth for c in t["cites"]]
    assert 0.9 < sum("exact" in x for x in labels) / len(labels) < 1.0  # messy, mostly still verbatim
    for t in truth:
        for a in t.get("ambiguous", []):
            assert "no_title" in title_phenomena(a["reference"], papers[a["seed"]]["title"])
            assert a["seed"] not in {c["seed"] for c in t["cites"]}


def test_text_edges_are_scored_against_what_each_read_pdf_prints(messy_world, tmp_path):
    from reflong.demo.edge_truth import text_edges_vs_truth

    catalog = read_catalog(messy_world)
    truth = read_truth_pairs(messy_world / TRUTH_FILE)
    pdfs = OnDemandPdfs(catalog, messy_world / TRUTH_FILE, lengths="real")
    seeds = sorted({s for _, s in truth})
    citing = next(c for c in sorted({c for c, _ in truth}) if sum(1 for x, _ in truth if x == c) >= 2)
    number = catalog.papers[citing].latest.number
    printed = [e.key for e in pdfs.entries(citing, number)[0] if e.key in catalog.papers and e.provable]
    wrong = next(s for s in seeds if s not in printed)
    db = tmp_path / "run" / "store.db"
    db.parent.mkdir()
    con = sqlite3.connect(db)
    con.execute("create table reference_list (arxiv_id text, version int, status text)")
    con.execute("create table seed (arxiv_id text)")
    con.execute(
        "create table citation (citing_arxiv_id text, citing_version int, seed_arxiv_id text, band text)"
    )
    con.execute("insert into reference_list values (?, ?, 'ok')", (citing, number))
    con.executemany("insert into seed values (?)", [(s,) for s in seeds])
    # every printed seed but the first accepted, and one seed the PDF does not print
    edges = [(citing, number, s, "accept") for s in [*printed[1:], wrong]] + [
        (citing, number, printed[0], "review")
    ]
    con.executemany("insert into citation values (?, ?, ?, ?)", edges)
    con.commit()
    con.close()
    got = text_edges_vs_truth(db.parent, messy_world)
    n = len(printed)
    assert got["edges_printed"] == n and got["edges_accepted"] == n
    assert got["edge_recall"] == round((n - 1) / n, 4) and got["edge_precision"] == round((n - 1) / n, 4)
