"""The records that flow through the resolver: a seed as given (``SeedTitle``), a seed and a
reference prepared once for scoring against many (``Seed``, ``Reference``), and one decision with
its evidence (``Match``).

Why one module: every step of the engine reads these (candidates, evidence, decision) and none
owns them; one record type flowing through small steps keeps the steps apart (datatrove's
Document). Preparing a reference reads its printed fields once (words, boundaries, years, a name
run into the title, an author list closed by a colon), so no evidence module parses it again.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field
from functools import cached_property
from itertools import accumulate, pairwise

from reflong.citations.evidence import author_evidence as ae
from reflong.citations.evidence import colon_authors as ca
from reflong.citations.evidence import edition_evidence as ee
from reflong.citations.evidence import title_evidence as te
from reflong.citations.fields.entry_parse import ParsedEntry
from reflong.citations.fields.normalize import cased_words, norm, words_with_boundaries
from reflong.citations.fields.reference_keys import hyphen_parts
from reflong.common.dois import split_dois

_STOPWORD_TEXT = (
    "a an the of for and or in on to with from by at as via is are be its it this that we our using "
    "toward towards into over under than can do does not no all you your what how when why which"
)
STOPWORDS = frozenset(_STOPWORD_TEXT.split())


@dataclass(frozen=True)
class SeedTitle:
    arxiv_id: str
    title: str
    published: str | None = None  # first-version date, YYYY-MM-DD
    first_author: str | None = None
    doi: str | None = None  # one DOI or several, as arXiv's field or a seeds list gives them

    @property
    def dois(self) -> list[str]:
        """Every DOI of the seed: a reference naming any of them names the seed."""
        return split_dois(self.doi)


@dataclass
class Match:
    """One (reference, seed) decision with the evidence behind it."""

    seed_id: str
    method: str  # arxiv_id | doi | title
    score: float
    band: str  # accept | review | reject
    title_score: float
    author: str  # match | mismatch | unknown
    reason: str = ""
    notes: list[str] = field(default_factory=list)
    at: int = -1  # word of the raw string where the title is printed (-1: id match / unknown)
    veto: str = ""  # evidence that the reference cites another work: no late rule overrules it


@dataclass
class Seed:
    info: SeedTitle
    plain: str
    n_words: int
    year: int | None
    author_phrase: str
    author_last: str
    tokens: frozenset[str] = frozenset()
    name: str | None = None  # a coined name leading the title ("IndoNLU: ..."; ``name_tokens``)

    @cached_property
    def marks(self) -> frozenset[str]:
        """The title's own sequel and version marks, read once (every pair asks for them)."""
        return frozenset(sequel_marks_of(self.plain))

    @cached_property
    def arxiv_like(self) -> bool:
        """Whether the seed's id is an arXiv id (new "2302.13971" or old "hep-th/9711200" style)."""
        return bool(_ARXIV_LIKE.match(self.info.arxiv_id))

    @property
    def name_like(self) -> bool:
        """Whether the seed's title reads as a person's name ("Kent, J"): an author of the list
        annotated as a title. A reference printing it prints it among its authors, so it loses
        a tie to a real title of the entry (resolve-12)."""
        return bool(_PERSON_NAME.match(self.info.title.strip()))


_ARXIV_LIKE = re.compile(r"^(?:\d{4}\.\d{4,5}|[a-z-]+(?:\.[A-Z]{2})?/\d{7})$")
# "Kent, J", "Kent, J.A.", "da Fonseca, G. A. B.": a surname, a comma, one to three initials.
_PERSON_NAME = re.compile(
    r"^(?:[a-z]{1,3}\s)?[A-Z][^\W\d_]+(?:[-\s][A-Z][^\W\d_]+)?,\s*(?:[A-Z]\.?\s?){1,3}$"
)


@dataclass
class Reference:
    """A reference string prepared once for scoring against many candidates."""

    entry: ParsedEntry
    words: list[str]
    bounds: list[bool]
    plain: str
    starts: list[int]
    years: list[int]
    wordset: frozenset[str] = frozenset()
    ditto: bool = False  # the author block is a ditto dash ("———. Title"): same as the entry before
    inherited: tuple[str, ...] = ()  # for a ditto, the authors of the nearest earlier entry naming any
    dash_at: int = -1  # where the title starts after a name run into it (``author_evidence``)
    colon_list_end: int = -1  # last word of an author list closed by a colon (``colon_authors``)
    _printed: tuple[list[str], list[bool]] | bool | None = False  # computed on first use

    @property
    def cased(self) -> list[str] | None:
        """The words as printed (case kept), or None where folding changed the tokens. Layout
        evidence reads case only where the entry is not printed in capitals throughout."""
        printed = self._layout_words()
        return printed[0] if printed else None

    @property
    def colons(self) -> list[bool] | None:
        """For each word, whether a colon follows it ("CMMLU: Measuring ..."), or None."""
        printed = self._layout_words()
        return printed[1] if printed else None

    def _layout_words(self) -> tuple[list[str], list[bool]] | None:
        if self._printed is False:
            printed = cased_words(self.entry.raw, self.words)
            if printed and te.mostly_capitals(printed[0]):
                printed = None  # "SIMPLIFYING GRAPH FOR THE ...": case says nothing here
            self._printed = printed
        return self._printed  # type: ignore[return-value]

    @classmethod
    def of(cls, entry: ParsedEntry) -> Reference:
        entry, dash_at = ae.unglue_name_dash(entry)  # "Michael Greenhalgh-The discovery of ..."
        words, bounds = words_with_boundaries(entry.raw)
        # "Ellis RJ, van der Vies SM: Molecular chaperones.": the colon closing an author list is
        # a field boundary, so the title's field does not run back into the names (resolve-14).
        colon_end, printed = None, False
        if ca.may_close_a_list(entry.raw):
            printed = cased_words(entry.raw, words)
            if printed and te.mostly_capitals(printed[0]):
                printed = None  # as ``_layout_words`` reads it, which this computes once for both
            if printed:
                colon_end = ca.list_end(printed[0], bounds, printed[1])
        if colon_end is not None:
            bounds = [*bounds[:colon_end], True, *bounds[colon_end + 1 :]]
        starts = list(accumulate((len(w) + 1 for w in words[:-1]), initial=0)) if words else []
        # Adjacent words glued as well: a seed's hyphenated word ("cascade-correlation" ->
        # "cascadecorrelation") printed as two words ("cascade correlation") is still a key.
        glued = (a + b for a, b in pairwise(words) if a.isalpha() and b.isalpha())
        wordset = frozenset(words).union(glued, hyphen_parts(entry.raw))  # "Venice-the" too
        years = ee.printed_years(entry.raw)  # years before 1900 too, where no modern one is printed
        colon_list_end = -1 if colon_end is None else colon_end
        return cls(
            entry,
            words,
            bounds,
            " ".join(words),
            starts,
            years,
            wordset,
            dash_at=dash_at,
            colon_list_end=colon_list_end,
            _printed=printed,
        )


def sequel_marks_of(plain: str) -> set[str]:
    """Short numbers and roman numerals that name a sequel or version ("2", "v3", "gpt4", "ii"),
    not years or page numbers."""
    return te.sequel_marks(plain.split())


def title_words(seed: Seed) -> int:
    """Words of the seed title with a hyphenated word counted as its parts: normalising joins
    "Instance-based" into one word, but it says as much about the work as two words do."""
    return len(norm(_WORD_HYPHEN.sub(" ", seed.info.title)).split())


_WORD_HYPHEN = re.compile(r"(?<=[^\W\d_])-(?=[^\W\d_])")  # between letters: not "1971-1977"


def word_at(ref: Reference, char: int) -> str | None:
    """The word of the reference's comparison form at character ``char`` (None: no alignment)."""
    if char < 0 or not ref.words:
        return None
    return ref.words[max(0, bisect.bisect_right(ref.starts, char) - 1)]


def author_keys(name: str | None) -> tuple[str, str]:
    return ae.author_keys(name)  # one letter or an editor word ("M", "di)") is no key
