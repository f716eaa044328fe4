"""A title led by a coined name ("IndoNLU: ...") printed with another name of the same shape
("IndoNLG: ...") is another work, whatever the rest of the title and the authors say."""

from __future__ import annotations

import pytest
from _decide import decide

from reflong.citations.evidence.name_tokens import differing_name, seed_name
from reflong.citations.resolve import SeedTitle

INDONLU = SeedTitle(
    "2009.05387",
    "IndoNLU: Benchmark and Resources for Evaluating Indonesian Natural Language Understanding",
    "2020-09-11",
    "Bryan Wilie",
)


def test_the_same_template_with_another_coined_name_is_rejected_even_by_the_same_authors():
    raw = (
        "Bryan Wilie, Karissa Vincentio, Genta Indra Winata, et al. IndoNLG: Benchmark and resources for "
        "evaluating Indonesian natural language understanding. In Proceedings of AACL, 2020."
    )
    decision, match = decide(INDONLU, raw)
    assert decision == "none"  # was accept at 98.9 (and again by the scan-agreement late rule)
    assert match.band == "reject" and "'indonlg' printed where the seed title's is 'indonlu'" in match.reason
    assert match.veto  # the late rules see it and leave it


def test_the_seeds_own_name_is_accepted():
    raw = (
        "Bryan Wilie, Karissa Vincentio, et al. IndoNLU: Benchmark and resources for evaluating Indonesian "
        "natural language understanding. In Proceedings of AACL, 2020."
    )
    decision, match = decide(INDONLU, raw)
    assert decision == "accept" and not match.veto


@pytest.mark.parametrize(
    ("title", "printed", "differs"),
    [
        ("IndoNLU: Benchmark", "indonlg", True),
        ("GLUE: A multi-task benchmark", "glue", False),
        ("MEGA4: Molecular evolutionary genetics", "mega", False),  # a spaced version number
        ("GPT-4 Technical Report", "gpt3", False),  # no colon after the name
        ("Transformers: State-of-the-art NLP", "transformer", False),  # a plain word, not coined
        ("BioBERT: a pre-trained model", "biobert", False),
        ("BioBERT: a pre-trained model", "biobart", True),
        ("BioBERT: a pre-trained model", "robert", False),  # not of one family
        # how typos and PDF text misprint a name: a letter dropped or two swapped (bench/resolve.py's
        # perturbations lost 18 true citations to the rule before it read them so)
        ("LLaMA: Open and efficient foundation language models", "llam", False),
        ("Sentence-BERT: Sentence embeddings", "sentencebret", False),
        ("BLOOM: A 176B-parameter open-access multilingual language model", "blomo", False),
        ("BLOOMZ: multitask finetuning", "bloomx", True),
    ],
)
def test_only_a_coined_leading_name_changed_in_a_letter_or_two_is_another_work(title, printed, differs):
    assert (differing_name(seed_name(title), printed) is not None) is differs
