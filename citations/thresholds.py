"""Every score threshold the resolver decides by, in one file, each with where its value comes from.

Why one file: a threshold spread over the rule modules is changed in one place and forgotten in
another (the bands lived in ``resolve.py``, the scan and layout cut-offs in their modules). Scores
are rapidfuzz ratios on folded text, 0-100. Counts of words and letters that describe how a
printing looks (a "long" title of five words, a name of up to four words) are not thresholds of
the decision and stay beside the rule that reads them.

The resolver's version and fingerprint live here too: the fingerprint hashes these values, and
every build's manifest records it, so two builds differing only in a threshold can be told apart.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass

# What each version changed: docs/resolver-history.md.
RESOLVER_VERSION = "resolve-24"


# The rule sets a run may choose (``--profile``). The default serves arXiv seeds: papers, cited
# in any style their fields print. ``books`` adds the rules that exist only for seeds arXiv never
# holds (books, chapters, editions, humanities footnotes, OCR): each was measured to change no
# decision on any labelled set but LinkedBooks' (docs/parse-and-citations.md, "Profiles").
DEFAULT_PROFILE = "default"
BOOKS_PROFILE = "books"
PROFILES = (DEFAULT_PROFILE, BOOKS_PROFILE)


@dataclass(frozen=True)
class Thresholds:
    """The resolver's settings for a run (``reflong-build resolve``, ``match``): the band limits,
    the year windows and the profile (which rule set runs)."""

    # accept / review: from the precision/recall curve on ../shared/corpus/labels/dev.jsonl
    # (bench/thresholds.py): 90 sits above every labelled near miss and below every true citation.
    accept: float = 90.0
    review: float = 75.0
    # keep: reject edges at or above it are stored as near misses for the audit (resolve-1); a
    # title scoring below 60 against a field is another title, nothing an auditor reads.
    keep: float = 60.0
    # near_miss_floor: a reject is stored from this score up (or with its title scoring ``review``
    # or more: evidence held back a title that reads like the seed's, what an audit looks at; or
    # with a verdict on its pair). The rest are counted per reference (``near_misses_dropped``):
    # in a refresh they were two thirds of the edges, 60-70 title scores against seeds that the
    # entry is no printing of (issue 41: the store grew by every month's such pairs).
    near_miss_floor: float = 70.0
    # contradiction: an id match whose title field scores below it is a conflict (resolve-2: the
    # same floor as ``keep``, a title that far off is another work's).
    contradiction: float = 60.0
    # variant: a title scoring from here to accept is accepted with the first author and a near
    # year (resolve-7, on the multi-style dev split: reworded titles of the same work score 80-90).
    variant: float = 80.0
    # early_years: a reference printed up to this many years before the seed, with its first
    # author, is an earlier version (resolve-7: a report or conference version before the journal's).
    early_years: int = 2
    # late_years: the years after the seed's that count as "the year agrees" for a variant
    # (resolve-7: a preprint is published within two years).
    late_years: int = 2
    # profile: which rule set runs (``PROFILES``); recorded in the fingerprint like every setting.
    profile: str = DEFAULT_PROFILE

    def __post_init__(self) -> None:
        if self.profile not in PROFILES:
            raise ValueError(f"unknown resolver profile {self.profile!r}: one of {', '.join(PROFILES)}")

    @property
    def books(self) -> bool:
        """Whether the rules for books, chapters and humanities footnotes run (``--profile books``)."""
        return self.profile == BOOKS_PROFILE

    def fingerprint(self) -> str:
        blob = json.dumps({"v": RESOLVER_VERSION, **asdict(self)}, sort_keys=True)
        return hashlib.sha256(blob.encode()).hexdigest()[:16]


def resolver_identity() -> dict[str, str]:
    """The resolver's version and fingerprint (version + default thresholds), recorded in every
    paper build's manifest and every release: the answers depend on the resolver that decided them,
    so a reader can tell two builds from one store apart when only the resolver changed."""
    return {"version": RESOLVER_VERSION, "fingerprint": Thresholds().fingerprint()}


# The fuzzy alignment of a seed title in a reference is not read below this ratio: a window that
# matches half the title is no printing of it (resolve-1).
ALIGNMENT_CUTOFF = 50.0
# A title scoring at least this with its first author named outweighs a printed arXiv id that
# names another paper: a copy-paste error in the id (resolve-2, from the corpus's wrong ids).
ID_OUTWEIGHED = 98.0
# Points a long title loses when its first author is not found (resolve-1): a verbatim title
# (100) still accepts at 95; one at 94 goes to review.
MISMATCH_PENALTY = 5.0
# A title printed verbatim but for a typo or a split word: the layout reads it as printed
# (resolve-7, title_evidence's verbatim run).
NEAR_VERBATIM = 95.0
# The naive scan's ratio that the scan-agreement rule accepts on, with its other checks
# (resolve-18: the ratio at which the naive baseline's accepts on the sets were right).
SCAN_MIN_RATIO = 95.0
# A chapter's own words found in the entry at this partial ratio are printed, allowing OCR noise
# (resolve-17, chapter_seed).
CHAPTER_PRINTED = 90.0
# Two last words more alike than this are a typo or an inflection of one word, not another word
# (resolve-15, last_word).
LAST_WORD_SIMILAR = 70.0
