"""The resolver's profiles: the default serves arXiv seeds; books adds the rules for seeds arXiv
never holds (books, chapters, editions, humanities footnotes, OCR).

Each books rule was measured to change no decision on any labelled set but LinkedBooks' (issue
37); tests/test_labelled_set_floors.py holds LinkedBooks' sets to their floors under books and
every other set under the default. Here: each kind of books rule is off by default and on with
the profile, the profile is a setting the fingerprint records, and the CLI takes it.
"""

from __future__ import annotations

import json

import pytest
from _decide import decide
from click.testing import CliRunner

from reflong.citations.resolve import SeedTitle
from reflong.citations.thresholds import PROFILES, Thresholds
from reflong.cli import main

BOOKS = Thresholds(profile="books")
TRAMONTO = SeedTitle("w1", "Il tramonto della Repubblica di Venezia", "1920-01-01", "Dal Pane")
DOCUMENTI = SeedTitle("w2", "Documenti", "1940-01-01", None)
SCHISME = SeedTitle("w3", "Le schisme byzantin", None, "Jugie")


def _best(seed: SeedTitle, raw: str, thresholds: Thresholds | None = None) -> tuple[str, str]:
    decision, best = decide(seed, raw, thresholds)
    return decision, best.reason if best else ""


@pytest.mark.parametrize(
    ("seed", "raw", "rule"),
    [
        (TRAMONTO, "Dal Pane, Il tramonto, cit., p. 68.", "a back-reference"),
        (DOCUMENTI, "Documenti, cit., II, n. 72, pp. 146-148;", "locator"),  # a short title, a locator only
        (SCHISME, "M. Juoie, Le schisme byzantin.., pag. 224, n. 2;", "an OCR misreading"),
    ],
    ids=["back_reference", "short_title_first", "ocr_author"],
)
def test_a_books_rule_runs_with_the_books_profile_only(seed, raw, rule):
    decision, reason = _best(seed, raw, BOOKS)
    assert decision == "accept" and rule in reason
    decision, reason = _best(seed, raw)  # the default: an arXiv seed is never printed so
    assert rule not in reason  # (the scan's own check may still accept the OCR'd author)


def test_an_arxiv_style_reference_is_decided_alike_under_both_profiles():
    seed = SeedTitle("1706.03762", "Attention Is All You Need", "2017-06-12", "Ashish Vaswani")
    raw = "A. Vaswani, N. Shazeer, et al. Attention is all you need. In NeurIPS, 2017."
    assert _best(seed, raw) == _best(seed, raw, BOOKS) == ("accept", "title field score 100.0")


def test_the_profile_is_a_setting_the_fingerprint_records():
    assert PROFILES == ("default", "books")
    assert Thresholds().profile == "default"
    assert Thresholds().fingerprint() != BOOKS.fingerprint()
    with pytest.raises(ValueError, match="unknown resolver profile 'bookz': one of default, books"):
        Thresholds(profile="bookz")


def test_match_takes_the_profile_on_the_command_line(tmp_path):
    seeds = tmp_path / "seeds.jsonl"
    seeds.write_text(
        json.dumps(
            {"arxiv_id": "w1", "title": TRAMONTO.title, "first_author": "Dal Pane", "published": "1920-01-01"}
        )
        + "\n"
    )
    entries = tmp_path / "entries.jsonl"
    entries.write_text(
        json.dumps({"id": "1", "citing": "c", "raw": "Dal Pane, Il tramonto, cit., p. 68."}) + "\n"
    )

    def run(*extra: str):
        return CliRunner().invoke(main, ["match", "--seeds", str(seeds), "--entries", str(entries), *extra])

    assert run().stdout.split("\t")[1] == "none"
    books = run("--profile", "books")
    assert books.exit_code == 0 and books.stdout.split("\t")[1:3] == ["accept", "w1"]
    bad = run("--profile", "bookz")
    assert bad.exit_code == 2 and "'bookz' is not one of 'default', 'books'" in bad.output
