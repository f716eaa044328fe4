"""First-author evidence reads the author's place in the list, and group authors.

A co-author who shares the seed's first-author surname is no first-author evidence (the
resolver accepted "Adversarial ranking for language generation", by Lin, Li, He, ... for Jiwei
Li's "Adversarial learning for neural dialogue generation" on a title printed differently plus
"first author agrees"); a group author block ("BIG-bench authors", "Gemini Team") names no person
against the seed's first author, and names the seed's first author when that is the group."""

from __future__ import annotations

import pytest
from _decide import decide

from reflong.citations.evidence.author_position import group_name, named_after_another
from reflong.citations.fields.normalize import words_with_boundaries
from reflong.citations.resolve import SeedTitle

ADVERSARIAL = SeedTitle(
    "1701.06547", "Adversarial Learning for Neural Dialogue Generation", "2017-01-23", "Jiwei Li"
)
BIG_BENCH = SeedTitle(
    "2206.04615",
    "Beyond the Imitation Game: Quantifying and extrapolating the capabilities of language models",
    "2022-06-09",
    "Aarohi Srivastava",
)
GEMINI = SeedTitle(
    "2312.11805", "Gemini: A Family of Highly Capable Multimodal Models", "2023-12-19", "Gemini Team"
)


def test_a_middle_author_with_the_seeds_surname_does_not_vouch_for_another_title():
    raw = (
        "Kevin Lin, Dianqi Li, Xiaodong He, Zhengyou Zhang, and Ming-Ting Sun. Adversarial ranking for "
        "language generation. In Advances in Neural Information Processing Systems, pages 3155-3165, 2017."
    )
    decision, match = decide(ADVERSARIAL, raw)
    assert decision == "review"  # was accept: "title printed differently; first author and year agree"
    assert match.author == "unknown" and "co-author" in match.reason
    assert match.score < 90.0


def test_the_seeds_first_author_printed_first_still_vouches_for_a_title_printed_differently():
    raw = (
        "Jiwei Li, Will Monroe, Tianlin Shi, Sébastien Jean, Alan Ritter, and Dan Jurafsky. Adversarial "
        "learning for neural dialog generation and evaluation. In Proceedings of EMNLP, 2017."
    )
    decision, match = decide(ADVERSARIAL, raw)
    assert decision == "accept" and match.author == "match"


@pytest.mark.parametrize(
    ("block", "middle"),
    [
        ("Kevin Lin, Dianqi Li, Xiaodong He", True),
        ("Lin, Kevin and Li, Dianqi", True),
        ("Jiwei Li, Will Monroe", False),
        ("J. Li, W. Monroe", False),
        ("Li, J., Monroe, W.", False),
        ("Micheal J. Pazzani and Dennis Kibler", False),  # a misspelt given name is no co-author
        ("Marcantonio e Alvise Li", False),  # brothers sharing the surname
        ("Cod. Cic. 2550, [Domenico Li,]", False),  # a shelfmark before the name
        ("NIST Mass Spec Data Center, Li, S. E.", False),  # an institution before the name
    ],
)
def test_a_surname_counts_as_a_co_authors_only_after_another_persons_name(block, middle):
    words, _ = words_with_boundaries(block)
    seed_phrase = "jiwei li" if "Pazzani" not in block else "michael pazzani"
    last = seed_phrase.split()[-1]
    assert named_after_another(seed_phrase, last, words) is middle


def test_a_group_author_block_is_no_evidence_against_the_seeds_first_person():
    raw = (
        "BIG-bench authors. Beyond the imitation game: Quantifying and extrapolating the capabilities of "
        "language models. Transactions on Machine Learning Research, 2023."
    )
    decision, match = decide(BIG_BENCH, raw)
    assert decision == "accept"  # was review: "first author not found" plus another title-like field
    assert match.author == "unknown" and "a group ('bigbench authors')" in match.reason
    decision, match = decide(BIG_BENCH, raw.replace("BIG-bench authors", "Srivastava et al."))
    assert decision == "accept" and match.author == "match"


def test_a_group_seed_author_is_matched_by_its_group_and_not_by_another_team():
    decision, match = decide(
        GEMINI, "Gemini Team. Gemini: a family of highly capable multimodal models, 2023."
    )
    assert decision == "accept" and match.author == "match"
    # "team" is no surname: another team is not the seed's first author
    _, other = decide(GEMINI, "Qwen Team. Gemini: a family of highly capable multimodal models, 2023.")
    assert other.author != "match"


def test_a_list_of_persons_headed_by_a_group_is_a_list_of_persons():
    words, bounds = words_with_boundaries("Gemini Team, Rohan Anil, Sebastian Borgeaud")
    assert group_name(words, bounds) is None
    words, bounds = words_with_boundaries("The ATLAS Collaboration")
    assert group_name(words, bounds) == "the atlas collaboration"
