"""The PMC builder's rules (citations/quality/builders/pmc.py): a PDF string joined as printed, a
title cut at its first italic told from a whole one, the printed year, one work under two NLM
titles, its shares and its errors. What the shares it wrote hold is checked in
tests/test_labelled_set_files.py."""

from __future__ import annotations

import subprocess
from collections import Counter

import pytest
from _labelled_sets import builder_command, builder_module

# moved with the set checks they sat beside, which are in the full suite (-m slow)
pytestmark = pytest.mark.slow


def test_a_pdf_string_is_joined_as_printed():
    b = builder_module("pmc")
    # a word hyphenated at a line break keeps its hyphen and loses the break; other breaks are spaces
    assert b.raw_of(
        "Barold SS (2008) Echocardiograhic opti-\nmization of the atrioventricular \nintervals"
    ) == ("Barold SS (2008) Echocardiograhic opti-mization of the atrioventricular intervals")
    assert b.raw_of("Sex hormone-  \n  regulated renal transport") == "Sex hormone-regulated renal transport"
    assert b.raw_of("Title. Brain 132, 3443 -\n3455.") == "Title. Brain 132, 3443 - 3455."


def test_a_title_cut_at_its_first_italic_is_told_from_a_whole_one():
    b = builder_module("pmc")
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
    b = builder_module("pmc")
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
    b = builder_module("pmc")
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


def test_a_snapshot_whose_file_is_not_the_set_is_one_clear_error(tmp_path, monkeypatch):
    """A git dir holding the commit with another file at the path (a corrupt copy) is one line
    too, never a traceback: the reader raises ValueError, which main prints as one line."""
    b = builder_module("pmc")
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


def test_a_share_never_built_is_refused(tmp_path):
    """The file has SHARE shares and each is built (shares 1-5 are the test splits pmc_test ...
    pmc_test5 of tests/_labelled_set_files.py): a share past them is refused in one line, before
    any snapshot is read."""
    out = subprocess.run(
        [*builder_command("pmc"), "--glutton", str(tmp_path), "--share", "6"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert "--share: invalid choice: 6" in out.stderr


def test_every_share_has_its_own_id_letter_and_the_file_has_no_other_share():
    b = builder_module("pmc")
    assert len({s.prefix for s in b.SHARES.values()}) == len(b.SHARES)
    assert sorted(b.SHARES) == list(range(b.SHARE))  # share 5, the last test split, is the last
