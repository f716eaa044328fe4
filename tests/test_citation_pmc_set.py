"""The fifth held-out set (tests/data/real/citation_pmc, PDF-extracted PMC references) and the bench
reading it.

The set is held out: nothing here runs our resolver on it. These tests pin what the committed
files hold (counts per style as SOURCES.md reports them, every gold a cited seed, unique ids, the
audit: one rule row plus hand errata, each with a reason and naming an entry), that
bench/resolve_styles.py scores it with ``--splits pmc`` (the naive baseline only), the builder's
rules on strings as GROBID extracts them from PDFs and titles as the NLM records hold them, and,
when the biblio-glutton snapshot is on this machine, that the builder gives the committed bytes
again.
"""

from __future__ import annotations

import subprocess
from collections import Counter

import pytest
from _labelled_sets import (
    REPO,
    Builder,
    LabelledSet,
    assert_audit_is_rules_plus_errata,
    assert_counts,
    assert_errata_reasoned,
    assert_gold_is_cited_seed,
    assert_gzip_header_fixed,
    assert_ids_and_order,
    assert_multi_cited,
    assert_no_work_of_the_prior_sets,
    assert_rebuild_equals_committed,
    assert_sources_table,
    assert_titles_printed,
    assert_wrong_snapshot_one_error,
    bench_baseline,
    builder_module,
)

# a labelled set's data checks: in the full suite (-m slow), not the fast one
pytestmark = pytest.mark.slow

# (entries, gold pairs) per style, as SOURCES.md reports them
PMC = LabelledSet(
    "citation_pmc",
    split="pmc",
    source="glutton",
    id_prefix="g",
    style_counts={"apa": (1298, 983), "name_year": (47, 33), "other": (223, 157), "vancouver": (1053, 777)},
)
# The biblio-glutton snapshot the set is built from (as the fetch tool leaves it);
# $REFLONG_GLUTTON_GIT points elsewhere. Without it the rebuild test skips; every other test reads
# the committed files.
BUILDER = Builder(
    "pmc",
    flag="--glutton",
    env="REFLONG_GLUTTON_GIT",
    default="/work/.mirror/kermitt2+biblio-glutton/repo",
    repo_name="kermitt2/biblio-glutton",
)


def _builder():
    return builder_module("pmc")


def test_the_set_holds_the_counts_its_sources_file_reports():
    assert_counts(PMC, entries=2621, seeds=1928, cited=1928, containers=0)
    # the file names no citing article: every entry is cited from the sample as a whole
    assert {e["citing"] for e in PMC.entries()} == {"glutton:pmc_sample_1943"}
    assert_ids_and_order(PMC)
    assert_multi_cited(PMC, 17)
    # no PDF line break is left in a string, and no word hyphenated across one lost its hyphen
    assert not any("\n" in e["raw"] for e in PMC.entries())
    seeds = PMC.seeds()
    assert sum(s["first_author"] is None for s in seeds) == 592  # the NLM record names none
    assert sum(s["published"] is None for s in seeds) == 4


def test_the_sources_file_tables_are_the_committed_counts():
    text = assert_sources_table(PMC)
    b = _builder()
    assert b.GLUTTON_COMMIT in text and b.GLUTTON_PATH in text
    assert (
        f"SHARE = {b.SHARE}" in text
        and f"SHARE = {b.SHARE}" in (REPO / "citations" / "quality" / "builders" / "pmc.py").read_text()
    )


def test_every_gold_is_a_cited_seed_and_every_title_is_printed_in_its_string():
    assert_gold_is_cited_seed(PMC, held_out=671)  # entries citing a held-out work
    # gold entries whose string prints the seed's title other than verbatim (a hyphen kept at a
    # PDF line break, a dash or quote, a character the PDF lost)
    assert_titles_printed(PMC, "pmc", seed_title_differs=364)
    # no work of the four other sets is here
    assert_no_work_of_the_prior_sets(PMC, "pmc")


def test_the_gzip_header_is_fixed():
    assert_gzip_header_fixed(PMC)


def test_the_audit_file_is_the_rule_row_plus_the_errata_each_with_a_reason():
    assert_errata_reasoned(PMC, {"not_one_reference": 19})
    # the one rule row: "... centromere protein a" (protein A) read as a dangling article
    assert_audit_is_rules_plus_errata(
        PMC, rules={"g02564": "not_a_title"}, rows=20, kept=2601, kept_gold=1936
    )


def test_the_bench_scores_the_pmc_split_with_the_baseline_only():
    result = bench_baseline(PMC)
    assert (result["entries"], result["gold_pairs"], result["seeds"]) == (2621, 1950, 1928)
    overall = result["naive"]["overall"]
    assert (overall["tp"], overall["fp"], overall.get("fn", 0)) == (1950, 2, 0)
    audited = result["audited"]
    assert (audited["entries"], audited["left_out"], audited["regolded"]) == (2601, 20, 0)
    assert audited["naive"]["overall"]["tp"] == 1936


def test_a_pdf_string_is_joined_as_printed():
    b = _builder()
    # a word hyphenated at a line break keeps its hyphen and loses the break; other breaks are spaces
    assert b.raw_of(
        "Barold SS (2008) Echocardiograhic opti-\nmization of the atrioventricular \nintervals"
    ) == ("Barold SS (2008) Echocardiograhic opti-mization of the atrioventricular intervals")
    assert b.raw_of("Sex hormone-  \n  regulated renal transport") == "Sex hormone-regulated renal transport"
    assert b.raw_of("Title. Brain 132, 3443 -\n3455.") == "Title. Brain 132, 3443 - 3455."


def test_a_title_cut_at_its_first_italic_is_told_from_a_whole_one():
    b = _builder()
    raw = "Frischknecht PM (2001) Phenotypic plasticity of Senecio vulgaris from contrasting habitat types. Oecologia"
    assert b.title_cut(raw, "Phenotypic plasticity of", "Oecologia")
    assert not b.title_cut(
        raw, "Phenotypic plasticity of Senecio vulgaris from contrasting habitat types", "Oecologia"
    )
    # a comma before the species name does not end the title
    assert b.title_cut(
        "Fenton MB (1987) Hunting behaviour of fiddler crab, Uca pugilator. Estuaries 10",
        "Hunting behaviour of fiddler crab",
        "Estuaries",
    )
    # a whole title printed with no punctuation before its journal is no cut title
    assert not b.title_cut(
        "Eto K (1978) Neuropathology of 3 children and 3 fetuses Journal of the Neurological Sciences, 41",
        "Neuropathology of 3 children and 3 fetuses",
        "J Neurol Sci",
    )
    # a one- or two-letter word after the title is its italics, not the journal's abbreviation
    assert b.title_cut(
        "Cumming, G. (2008). Replication and p intervals: p values predict the future only vaguely. "
        "Perspectives on Psychological Science, 3, 286-300.",
        "Replication and",
        "Perspectives on Psychological Science",
    )
    assert b.title_cut(
        "Bhandari KH. Synthesis, characterization and in vitro evaluation of a bone targeting "
        "delivery system. Int J Pharm. 2010;394:26-34.",
        "Synthesis, characterization and",
        "Int J Pharm",
    )
    # a title that closes on its own question mark, or with a quote, is whole
    assert not b.title_cut(
        "Cheng Y (2009) Solo or duet? J Am Soc Mass Spectrom 19", "Solo or duet?", "J Am Soc Mass Spectrom"
    )
    assert not b.title_cut(
        'Hirth C, "Non-invasive mapping," Neuroreport 7', "Non-invasive mapping", "Neuroreport"
    )


def test_the_year_is_the_printed_one_never_a_page_number():
    b = _builder()
    assert (
        b.printed_year(
            'Hirth C, "Non-invasive mapping," Neuroreport 7, 1977-1981 (1996).', "Non-invasive mapping"
        )
        == 1996
    )
    assert b.printed_year("Smith AB: Some title. Lancet 1993, 342:1879-82.", "Some title") == 1993
    assert b.printed_year("Smith AB (2010a) Effects of 2009 floods. J", "Effects of 2009 floods") == 2010
    assert b.printed_year("Smith AB. Some title. J Biol 12:1-9.", "Some title") is None


def test_one_work_printed_under_two_nlm_titles_is_one_work():
    b = _builder()
    go = "Gene ontology: tool for the unification of biology"
    kept = [
        {
            "doi": "10.1038/75556",
            "title": go + ". The Gene Ontology Consortium",
            "raw": f"Ashburner M (2000) {go}. The Gene Ontology Consortium. Nat Genet 25",
        },
        {
            "doi": "10.1038/75556",
            "title": go + ". The Gene Ontology Consortium",
            "raw": f"Ashburner M. {go}. The Gene Ontology Consortium. Nat Genet 2000",
        },
        {"doi": "10.1038/75556", "title": go, "raw": f"Ashburner M: {go}. Nat Genet 2000, 25:25-29."},
        {"doi": "10.1/x", "title": "Another work", "raw": "Smith A. Another work. J 2001"},
    ]
    counts: Counter = Counter()
    b.unify_by_doi(kept, counts)
    # the form every string of the DOI prints, though fewer records give it
    assert [k["title"] for k in kept] == [go, go, go, "Another work"]
    assert counts == {"dois_with_several_titles": 1, "titles_unified": 2}


@BUILDER.needs_snapshot()
def test_the_builder_gives_the_committed_bytes_again(tmp_path):
    assert_rebuild_equals_committed(PMC, BUILDER, tmp_path)


def test_a_wrong_snapshot_is_one_clear_error(tmp_path):
    assert_wrong_snapshot_one_error(
        BUILDER,
        tmp_path,
        "builders.pmc: cannot read acda234c54b9:doc/references-doi-matching.json.gz in {dir} (git exit 128)",
    )


def test_a_snapshot_whose_file_is_not_the_set_is_one_clear_error(tmp_path, monkeypatch):
    """A git dir holding the commit with another file at the path (a corrupt copy) is one line
    too, never a traceback: the reader raises ValueError, which main prints as one line."""
    b = _builder()
    repo = tmp_path / "repo"
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-C", str(repo)]
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / "doc").mkdir()
    (repo / "doc" / "references-doi-matching.json.gz").write_bytes(b"not gzip")
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "x"], check=True)
    head = subprocess.run(
        [*git, "rev-parse", "HEAD"], check=True, capture_output=True, text=True
    ).stdout.strip()
    monkeypatch.setattr(b, "GLUTTON_COMMIT", head)
    with pytest.raises(ValueError) as err:
        b.read_records(repo / ".git")
    assert str(err.value).startswith(
        f"doc/references-doi-matching.json.gz at {head[:12]} is not a gzip file: "
    )
    assert "\n" not in str(err.value)
