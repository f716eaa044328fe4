"""The LinkedBooks builder's rules (citations/quality/builders/fresh.py): tokens joined as
printed, the title and style read from the annotated fields, one work printed two ways merged,
its test samples and its command line. What the sets it wrote hold is checked in
tests/test_labelled_set_files.py."""

from __future__ import annotations

import subprocess
from collections import Counter

import pytest
from _labelled_set_files import SETS
from _labelled_sets import builder_command, builder_module

# moved with the set checks they sat beside, which are in the full suite (-m slow)
pytestmark = pytest.mark.slow


def test_one_work_printed_two_ways_is_one_work_and_two_editions_are_two():
    b = builder_module("fresh")

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


def test_tokens_are_joined_as_printed_and_the_journal_is_cut_off_the_title():
    b = builder_module("fresh")
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
    b = builder_module("fresh")
    T = b.Token

    def style(*author: str) -> str:
        return b.style_of([T(a, "author") for a in author] + [T("Title", "title")])

    assert style("C", ".", "Agnoletti", ",") == "initials_first"
    assert style("Moore", ",", "Andrew", ".") == "surname_comma_given"
    assert style("Albasini", "C", ".,") == "surname_initials"
    assert style("Patrizio", "Barbieri", ",") == "given_surname"
    assert b.style_of([T("Title", "title")]) == "title_first"


def test_an_author_field_of_punctuation_alone_is_title_first():
    b = builder_module("fresh")
    T = b.Token
    assert b.style_of([T(",", "author"), T("Romanus", "title"), T("bilinguis", "title")]) == "title_first"


def test_a_work_printed_two_ways_across_the_samples_is_left_out():
    """``seed_works`` drops a work any of whose references belongs to the earlier sample, and
    counts the strings of this sample it drops; works of the earlier sample alone count nothing."""
    fresh = builder_module("fresh")

    def item(title: str, raw: str, year: int, earlier: bool = False) -> dict:
        it = {
            "file": "clean_train.txt",
            "citing": "linkedbooks:clean_train.txt#000",
            "raw": raw,
            "title": title,
            "fields": 1,
            "surname": "Targhetta",
            "author": "R. Targhetta",
            "year": year,
            "style": "initials_first",
            "volumes": [],
        }
        return {**it, "_earlier_sample": True} if earlier else it

    counts: Counter = Counter()
    items = [
        item("La Massoneria veneta dalle origini alla chiusura delle logge", "a", 1988, earlier=True),
        item("La massoneria veneta delle origini alla chiusura delle logge", "b", 1988),
        item("Un'altra opera del tutto diversa", "c", 1990),
        item("Solo del campione precedente", "d", 1970, earlier=True),
    ]
    _, seeds, entries = fresh.seed_works(
        items, set(), counts, source="linkedbooks", split="fresh_test2", seen_count="seen"
    )
    assert [e["raw"] for e in entries] == ["c"]
    assert {x["title"] for x in seeds} <= {"Un'altra opera del tutto diversa"}  # the work may be held out
    assert counts["merged_with_earlier_sample"] == 1
    assert all(not e["_item"].get("_earlier_sample") for e in entries)


def test_an_unknown_part_is_refused_by_the_command_line(tmp_path):
    out = subprocess.run(
        [
            *builder_command("fresh"),
            "--linkedbooks",
            str(tmp_path),
            "--part",
            "x",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 2 and "Traceback" not in out.stderr and "invalid choice: 'x'" in out.stderr


def test_a_sample_is_one_work_in_nine_and_every_part_has_its_own_id_letter():
    fresh = builder_module("fresh")
    assert fresh.TEST_SHARE == 9
    assert len({p.prefix for p in fresh.PARTS.values()}) == len(fresh.PARTS)
    # every entry's own title is in its sample (all strings of a work go together)
    samples = {f.set.split: f.set for f in SETS if f.residue is not None}
    assert all(fresh.in_test_share(e["title"]) for e in samples["fresh_test"].entries())
    assert not any(fresh.in_test_share(e["title"]) for e in samples["fresh_test2"].entries())
