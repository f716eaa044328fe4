"""The fresh held-out set (tests/data/real/citation_fresh, LinkedBooks) and the bench reading it.

The set replaces citation_styles' test split as a held-out measure, so these tests pin what it
holds (counts per style, every gold a seed, the audit: rules plus hand errata, each with a reason
and naming an entry of the set) and that bench/resolve_styles.py scores it with ``--splits
fresh``, as labelled and as audited, and, when the LinkedBooks snapshot is on this machine, that
the builder gives the committed bytes again. The converter's token rules and the work-merging
rule are checked on token runs and titles as LinkedBooks prints them.
"""

from __future__ import annotations

import subprocess
import sys

import pytest
from _labelled_sets import (
    RESOLVE_STYLES,
    Builder,
    LabelledSet,
    assert_audit_is_rules_plus_errata,
    assert_counts,
    assert_errata_reasoned,
    assert_gold_is_cited_seed,
    assert_gzip_header_fixed,
    assert_rebuild_equals_committed,
    assert_wrong_snapshot_one_error,
    bench_baseline,
    builder_module,
)

# a labelled set's data checks: in the full suite (-m slow), not the fast one
pytestmark = pytest.mark.slow

# (entries, gold pairs) per style, as SOURCES.md reports them
FRESH = LabelledSet(
    "citation_fresh",
    split="fresh",
    source="linkedbooks",
    style_counts={
        "given_surname": (536, 403),
        "initials_first": (358, 262),
        "other": (130, 90),
        "surname_comma_given": (256, 190),
        "surname_initials": (553, 417),
        "title_first": (428, 315),
    },
)
DATA = FRESH.data
BENCH = RESOLVE_STYLES
# The LinkedBooks snapshot the set is built from (as the fetch tool leaves it);
# $REFLONG_LINKEDBOOKS_GIT points elsewhere. Without it the rebuild test skips.
BUILDER = Builder(
    "fresh",
    flag="--linkedbooks",
    env="REFLONG_LINKEDBOOKS_GIT",
    default="/work/.mirror/dhlab-epfl+LinkedBooksDeepReferenceParsing/repo",
    repo_name="dhlab-epfl/LinkedBooksDeepReferenceParsing",
)


def _builder():
    return builder_module("fresh")


def test_the_set_holds_the_counts_its_sources_file_reports():
    # every file small enough for the repository
    assert_counts(FRESH, entries=2261, seeds=1616, cited=1579, containers=37)


def test_every_gold_is_a_cited_seed_and_containers_are_never_gold():
    # every cited seed is cited by at least one entry; held-out works give null golds
    assert_gold_is_cited_seed(FRESH, held_out=584, ids_prefixed=False)


def test_every_erratum_has_a_reason_and_names_an_entry_of_the_set():
    errata = assert_errata_reasoned(
        FRESH,
        {
            "venue_as_title": 18,
            "work_split": 19,
            "cluster_merges_works": 16,
            "seed_title_corrupt": 8,
            "container_as_title": 6,
        },
    )
    assert len(errata) == 67


def test_the_audit_file_is_the_rules_rows_plus_the_errata():
    rules = assert_audit_is_rules_plus_errata(FRESH, rules=None, rows=87, kept=2197, kept_gold=1617)
    assert len(rules) == 20 and set(rules.values()) == {"titles_run_together"}


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
    assert_gzip_header_fixed(FRESH)


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
    fresh = bench_baseline(FRESH)
    assert (fresh["entries"], fresh["gold_pairs"], fresh["seeds"]) == (2261, 1677, 1616)
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
    assert (
        bad.returncode == 2
        and "unknown split 'train' (dev, test, fresh, holdout, plos, pmc, pmc_test, pmc_test2, fresh_test, fresh_test2, pmc_test3, fresh_test3, fresh_test4, pmc_test4, fresh_test5, pmc_test5)"
        in bad.stderr
    )


@BUILDER.needs_snapshot()
def test_the_builder_gives_the_committed_bytes_again(tmp_path):
    assert_rebuild_equals_committed(FRESH, BUILDER, tmp_path)


def test_a_wrong_snapshot_is_one_clear_error(tmp_path):
    assert_wrong_snapshot_one_error(
        BUILDER, tmp_path, "builders.fresh: cannot read 9411db4e918b in {dir} (git exit 128)"
    )
