"""The edited-volume rule reads an editor mark, not a given name that folds to one.

Reported as "a title containing 'In' (`... in large language models. In Proceedings ...`) was
sent to review by the edited-volume rule": the "in" played no part. The author list ends with
"Ed H. Chi", whose given name folds to "ed", an editor mark, within three words of the title; a
label or a year before the list then made the names read as "a title of the entry's own", and a
true citation went to review. An abbreviated mark is closed by its period or a bracket ("(ed.)",
"eds.,"): run on into a name it is a name."""

from __future__ import annotations

import pytest
from _decide import decide

from reflong.citations.evidence.title_evidence import editors_at
from reflong.citations.fields.normalize import words_with_boundaries
from reflong.citations.resolve import SeedTitle

LEAST_TO_MOST = SeedTitle(
    "2205.10625",
    "Least-to-Most Prompting Enables Complex Reasoning in Large Language Models",
    "2022-05-21",
    "Denny Zhou",
)
AUTHORS = (
    "Denny Zhou, Nathanael Schärli, Le Hou, Jason Wei, Nathan Scales, Xuezhi Wang, Dale Schuurmans, "
    "Claire Cui, Olivier Bousquet, Quoc V Le, and Ed H. Chi."
)
TITLE = " Least-to-most prompting enables complex reasoning in large language models."


@pytest.mark.parametrize(
    "raw",
    [
        "[Zhou et al., 2023] " + AUTHORS + TITLE + " In Proceedings of ICLR, 2023.",  # a named.bst label
        "Zhou et al. [2023] " + AUTHORS + TITLE + " In The Eleventh International Conference on "
        "Learning Representations, 2023.",
        AUTHORS.replace("Schärli", "Sch\ufffdrli") + TITLE + " In Proceedings of ICLR, 2023.",  # a lost glyph
        AUTHORS.upper().replace(" AND ", " and ")
        + TITLE
        + " In Proceedings of ICLR, 2023.",  # small capitals
    ],
)
def test_an_author_named_ed_before_the_title_is_no_editor(raw):
    decision, best = decide(LEAST_TO_MOST, raw)
    assert decision == "accept", best.reason  # was review at 89.99
    assert best.author == "match"


@pytest.mark.parametrize(
    ("text", "edited"),
    [
        ("Quoc V Le, and Ed H. Chi. Least-to-most prompting", False),
        ("Quoc Le and Ed Chi. Least-to-most prompting", False),
        ("French, B.M. and Short, N.M., eds., Shock metamorphism", True),
        ("Minsky M (ed.) Semantic information processing", True),
        ("In: Smith J, ed. Handbook of pragmatics", True),
    ],
)
def test_an_editor_mark_counts_only_closed_as_an_abbreviation(text, edited):
    words, bounds = words_with_boundaries(text)
    first = next(i for i, w in enumerate(words) if w in ("leasttomost", "shock", "semantic", "handbook"))
    assert (editors_at(words, bounds, first, len(words) - 1) is not None) is edited
