"""The label scan's shape flags (citations/quality/builders/holdout_sample.py ``scan``): a string
that may hold two references, or a title printed after a word the record lost. What it flags on
the PMC shares is checked in tests/test_labelled_set_files.py."""

from __future__ import annotations

import pytest
from _labelled_sets import builder_module

# moved with the set checks they sat beside, which are in the full suite (-m slow)
pytestmark = pytest.mark.slow


def test_the_scan_reads_the_shape_of_a_string():
    scan = builder_module("holdout_sample")
    two = (
        "Pirt SJ (1975) Principles of microbe and cell cultivation. John Wiley and Sons, New York "
        "Pirt SJ (1983) Maximum photosynthetic efficiency: a problem to be resolved. Biotechnol Bioeng 25"
    )
    assert scan.shape_flags(two, "Maximum photosynthetic efficiency: a problem to be resolved") == [
        "two_years"
    ]
    glued = (
        "Bohl S, Wassmuth R. Delayed enhancement imaging reveals patterns. Int J Cardiovasc Imaging. "
        "2008;24(6):597-607. 24. van der Wall EE, Siebelink HM, Bax JJ. Evaluation of hypertrophy."
    )
    assert scan.shape_flags(glued, "Delayed enhancement imaging reveals patterns") == ["authors_after_title"]
    one = (
        "Marsh, H. W. (2004). In search of golden rules: Hu and Bentler's (1999) findings. SEM, 11, 320-341."
    )
    assert scan.shape_flags(one, "In search of golden rules: Hu and Bentler's (1999) findings") == [
        "two_years"
    ]
    head = "Uemura N, Yamamoto S (2001) Helicobacter pylori infection and the development of gastric cancer. N Engl J Med"
    assert scan.shape_flags(head, "infection and the development of gastric cancer") == ["title_after_word"]
    # a name-year style prints the year right before the title: no flag
    assert scan.shape_flags("Atoda, K. 1951 The larva of the coral. Sci Rep", "The larva of the coral") == []
    assert (
        scan.shape_flags(
            "Kudo S. Pharmacokinetics of haloperidol. Clin Pharmacokinet. 1999;37:435-56.",
            "Pharmacokinetics of haloperidol",
        )
        == []
    )
