"""resolve-10: ditto dashes ("———. Distant Reading.": same author as the entry before; issue 19).

Humanities styles (Chicago, MLA) print a repeated author block as a dash. In a reference list
resolved in order, the dash takes the authors of the nearest earlier entry that names any; where
it cannot (no entry before, or not the seed's author), a short title is accepted only on strong
evidence: printed word for word as a field of its own, with the seed's year. Strings are short
real-looking entries in the forms the multi-style set's dev split shows.
"""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from sqlmodel import Session, select

from reflong.citations.fields.ditto import DITTO_NOTE, inherited_authors, is_ditto
from reflong.citations.resolve import SeedIndex, SeedTitle, Thresholds
from reflong.citations.stages.resolve_stage import run_resolve
from reflong.cli import main
from reflong.db.citations import Citation, Reference, ReferenceList
from reflong.db.engine import open_store

MORETTI = SeedTitle("w-distant", "Distant Reading", "2013-01-01", "Moretti")
HERO = SeedTitle("w-hero", "Stephen Hero", "1956-01-01", None)
GRAPHS = "Moretti, Franco. Graphs, Maps, Trees: Abstract Models for a Literary History. London: Verso, 2005."
KING = "King, Stephen. Lisey's Story. New York: Scribner, 2006."


def _index(*seeds: SeedTitle) -> SeedIndex:
    return SeedIndex(list(seeds), Thresholds())


@pytest.mark.parametrize(
    "raw",
    [
        "———. Distant Reading. London: Verso, 2013.",
        "---. Lisey's Story. New York: Scribner, 2006.",
        "______. De doctrina christiana, ed. Joseph Martin.",
        "–––––. Wieland; or The Transformation.",
        "--, 2003: Statistics of extremes, with applications.",
        "[12] ———. Distant Reading. 2013.",
        "⸻. Distant Reading. 2013.",
    ],
)
def test_ditto_dashes_are_recognised(raw):
    assert is_ditto(raw)


@pytest.mark.parametrize(
    "raw",
    [
        "Moretti, Franco. Distant Reading. 2013.",
        "Smith-Jones, A. A title. 2001.",
        "- Distant Reading",
        "A---B. T.",
    ],
)
def test_names_and_single_hyphens_are_no_ditto(raw):
    assert not is_ditto(raw)


def test_a_ditto_inherits_from_the_nearest_earlier_entry_that_names_authors():
    entries = [
        GRAPHS,
        "———. Distant Reading. London: Verso, 2013.",
        "———. Atlas of the European Novel. 1998.",
    ]
    got = inherited_authors(entries)
    assert got[0] is None
    assert got[1] == got[2] and "moretti" in got[1]
    assert inherited_authors(["———. Distant Reading. 2013."]) == [()]


def test_a_ditto_takes_the_seeds_first_author_from_the_entry_before():
    # No year printed: without the entry before, a two-word title has no evidence but itself.
    ditto = "———. Distant Reading. London: Verso."
    alone = _index(MORETTI).resolve(ditto)
    assert alone[0].band == "review", alone[0].reason
    listed = _index(MORETTI).resolve_list([GRAPHS, ditto])
    assert listed[0] == []
    m = listed[1][0]
    assert (m.seed_id, m.band, m.author) == ("w-distant", "accept", "match")
    assert DITTO_NOTE in m.reason


def test_a_run_of_dittos_all_take_the_authors_of_the_last_named_entry():
    seed = SeedTitle("w-atlas", "Atlas of the European Novel", "1998-01-01", "Moretti")
    listed = _index(MORETTI, seed).resolve_list(
        [GRAPHS, "———. Distant Reading. London: Verso.", "———. Atlas of the European Novel. London: Verso."]
    )
    assert [ms[0].seed_id for ms in listed[1:]] == ["w-distant", "w-atlas"]
    assert all(ms[0].band == "accept" and DITTO_NOTE in ms[0].reason for ms in listed[1:])


def test_another_authors_ditto_keeps_a_short_title_without_its_year_in_review():
    listed = _index(MORETTI).resolve_list([KING, "———. Distant Reading. London: Verso."])
    m = listed[1][0]
    assert m.band == "review" and m.author == "mismatch"
    assert "do not name the seed's first author" in m.reason


def test_an_unresolved_ditto_accepts_a_short_title_printed_as_its_own_field_with_the_seeds_year():
    m = _index(HERO).resolve(
        "———. Stephen Hero. Edited by John J. Slocum and Herbert Cahoon. Rev. ed. London: Jonathan Cape, 1956."
    )[0]
    assert m.band == "accept", m.reason
    assert "ditto author not resolved" in m.reason and "year 1956" in m.reason
    # Also after another author's entry: the title and the year are the evidence left.
    m = _index(MORETTI).resolve_list([KING, "———. Distant Reading. London: Verso, 2013."])[1][0]
    assert m.band == "accept" and "year 2013 printed" in m.reason, m.reason


@pytest.mark.parametrize(
    "raw",
    [
        "———. Stephen Hero. London: Jonathan Cape, 1944.",  # another year
        "———. Stephen Hero. In Obra Completa, 1: 807–944.",  # no year
        # No ditto and no author printed: review while the seed names a first author; an
        # anonymous seed is accepted on the title as its own field and the year (resolve-11,
        # tests/test_which_printing_is_cited.py).
        "Stephen Hero. London: Jonathan Cape, 1944.",
        "———. Introduction. In Stephen Hero, ed. John J. Slocum. London: Cape, 1956.",  # a container
    ],
)
def test_weaker_evidence_for_a_short_title_stays_in_review(raw):
    matches = _index(HERO).resolve(raw)
    assert not matches or matches[0].band != "accept", matches[0].reason


def test_resolve_stage_reads_a_stored_list_in_order(tmp_path):
    engine = open_store(tmp_path / "store.db")
    with Session(engine) as s:
        s.add(ReferenceList(arxiv_id="2401.00002", version=1, parser="builtin-test", n_references=3))
        refs = [GRAPHS, "———. Distant Reading. London: Verso.", "———. Atlas of the European Novel."]
        for order, raw in enumerate(refs, 1):
            s.add(Reference(arxiv_id="2401.00002", version=1, order=order, raw=raw))
        s.commit()
    seeds = tmp_path / "seeds.jsonl"
    seeds.write_text(
        json.dumps(
            {
                "arxiv_id": "2301.00001",
                "title": "Distant Reading",
                "published": "2013-01-01",
                "first_author": "Franco Moretti",
            }
        )
        + "\n"
    )
    run_resolve(engine, str(seeds))
    with Session(engine) as s:
        edges = s.exec(select(Citation)).all()
    assert [(e.ref_order, e.band) for e in edges] == [(2, "accept")]
    assert DITTO_NOTE in edges[0].reason


def _run_match(tmp_path, rows: list[dict]) -> list[dict]:
    seeds = tmp_path / "seeds.jsonl"
    seeds.write_text(
        json.dumps(
            {
                "arxiv_id": "w-distant",
                "title": "Distant Reading",
                "published": "2013-01-01",
                "first_author": "Moretti",
            }
        )
        + "\n"
    )
    entries = tmp_path / "entries.jsonl"
    entries.write_text("".join(json.dumps(r) + "\n" for r in rows))
    res = CliRunner().invoke(
        main, ["match", "--seeds", str(seeds), "--entries", str(entries), "--format", "jsonl"]
    )
    assert res.exit_code == 0, res.stderr
    return [json.loads(line) for line in res.stdout.splitlines()]


def test_match_reads_consecutive_entries_of_one_citing_paper_as_one_list(tmp_path):
    ditto = "———. Distant Reading. London: Verso."
    out = _run_match(
        tmp_path,
        [
            {"id": "1", "citing": "p1", "raw": GRAPHS},
            {"id": "2", "citing": "p1", "raw": ditto},
            {"id": "3", "citing": "p2", "raw": ditto},  # another paper's list: nothing before it
        ],
    )
    assert [(r["id"], r["decision"]) for r in out] == [("1", "none"), ("2", "accept"), ("3", "review")]
    assert DITTO_NOTE in out[1]["reason"]


def test_match_help_explains_the_ditto():
    res = CliRunner().invoke(main, ["match", "--help"])
    assert res.exit_code == 0 and "ditto" in res.stdout


def test_the_final_text_check_reads_the_ditto_as_resolution_did():
    # Assembly re-runs the splitter and the resolver on a final references text (invariant 1):
    # the ditto entry must be read with the entry before it there too.
    from reflong.assemble.paper.inputs import ResolverMatcher
    from reflong.assemble.paper.model import KeyCandidate

    key = KeyCandidate("w-distant", "Distant Reading", "2013-01-01", ())
    known = {key.arxiv_id: MORETTI}
    references = f"References\n[1] {KING}\n[2] {GRAPHS}\n[3] ———. Distant Reading. London: Verso.\n"
    found = ResolverMatcher([key], known)(references)
    assert found["w-distant"].band == "accept"


def test_the_author_year_splitter_starts_an_entry_at_a_ditto_dash():
    from reflong.citations.fields.split import split_references

    text = (
        "References\nAdorno, Theodor. Minima Moralia. London: Verso, 1974.\n"
        f"{KING}\n{GRAPHS}\n———. Distant Reading. London: Verso.\n"
        "———. Atlas of the European Novel, 1800-1900. London:\nVerso, 1998.\n"
    )
    entries, style = split_references(text)
    assert style == "author-year"
    assert entries[-3:] == [
        GRAPHS,
        "———. Distant Reading. London: Verso.",
        "———. Atlas of the European Novel, 1800-1900. London: Verso, 1998.",
    ]
    # ... so the final text check of an author-year list reads the ditto with the entry before it.
    from reflong.assemble.paper.inputs import ResolverMatcher
    from reflong.assemble.paper.model import KeyCandidate

    key = KeyCandidate("w-distant", "Distant Reading", "2013-01-01", ())
    assert ResolverMatcher([key], {key.arxiv_id: MORETTI})(text)["w-distant"].band == "accept"
