"""Reference strings -> seed papers, with evidence: exact arXiv id, then DOI, then fuzzy title.

Why the title match is built this way
-------------------------------------
Searching a seed title anywhere in a reference (rapidfuzz ``partial_ratio``) finds "Layer
Normalization" inside "On layer normalization in the transformer architecture" and "Measuring
massive multitask language understanding" inside "CMMLU: Measuring massive multitask language
understanding in Chinese". So the aligned window is widened to the bibliographic *field* that
contains it (up to the nearest ". ", ",", "?", bracket or quote on both sides) and the seed title
is compared with that whole field (``fuzz.ratio``). A title embedded in a longer title then
scores low, while a real title - wherever the style puts it - scores high.

Candidates come from blocking, never all pairs: each seed is indexed under its rarest title words
(document frequency over the seed titles); a reference is scored only against the seeds one of
its words points to, plus the seeds its arXiv id or DOI names.

Year and first author are cross-checks. Real bibliographies contain wrong arXiv ids (copy-paste)
and near-identical titles, so an id match whose title and authors disagree goes to ``review``,
as does a title match that carries a different arXiv id, a year long before the seed existed, or
a short generic title without the seed's first author. An older year *and* another first author
together reject: that is another work that happens to share the title. So does naming the first
author of another arXiv paper with the seed's exact title (``title_twins``); naming neither is a
doubt for review.
"""

from __future__ import annotations

import bisect
import re
from collections import Counter, defaultdict
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from itertools import accumulate, chain, pairwise

from rapidfuzz import fuzz

from reflong.citations.candidates import title_heads as th
from reflong.citations.evidence import author_after_title as aat
from reflong.citations.evidence import author_before_title as abt
from reflong.citations.evidence import author_evidence as ae
from reflong.citations.evidence import chapter_seed as cs
from reflong.citations.evidence import cit_back_reference as cbr
from reflong.citations.evidence import colon_authors as ca
from reflong.citations.evidence import container_in as ci
from reflong.citations.evidence import earlier_version as ev
from reflong.citations.evidence import edition_evidence as ee
from reflong.citations.evidence import edition_left_out as el
from reflong.citations.evidence import editor_after as eda
from reflong.citations.evidence import greek_marks as gm
from reflong.citations.evidence import institution_author as ia
from reflong.citations.evidence import last_word as lw
from reflong.citations.evidence import name_tokens as nt
from reflong.citations.evidence import ocr_author as oa
from reflong.citations.evidence import part_numbers as pn
from reflong.citations.evidence import prose_remark as pr
from reflong.citations.evidence import scan_agreement as sa
from reflong.citations.evidence import seed_prefix as sp
from reflong.citations.evidence import sequel_lookalikes as sl
from reflong.citations.evidence import short_title_first as sf
from reflong.citations.evidence import title_after_names as tan
from reflong.citations.evidence import title_evidence as te
from reflong.citations.evidence import variant_years as vy
from reflong.citations.fields.ditto import DITTO_NOTE, inherited_authors, same_author_as_before
from reflong.citations.fields.entry_parse import ParsedEntry, find_arxiv_id, find_doi, parse_entry
from reflong.citations.fields.normalize import cased_words, norm, words_with_boundaries
from reflong.citations.fields.reference_keys import hyphen_parts
from reflong.citations.fields.seed_title_form import without_etc
from reflong.citations.thresholds import (
    ALIGNMENT_CUTOFF,
    ID_OUTWEIGHED,
    MISMATCH_PENALTY,
    SCAN_MIN_RATIO,
    Thresholds,
)
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
class _Seed:
    info: SeedTitle
    plain: str
    n_words: int
    year: int | None
    author_phrase: str
    author_last: str
    tokens: frozenset[str] = frozenset()
    name: str | None = None  # a coined name leading the title ("IndoNLU: ..."; ``name_tokens``)

    @property
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
class _Ref:
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
    def of(cls, entry: ParsedEntry) -> _Ref:
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


def _sequel_marks(plain: str) -> set[str]:
    """Short numbers and roman numerals that name a sequel or version ("2", "v3", "gpt4", "ii"),
    not years or page numbers."""
    return te.sequel_marks(plain.split())


@dataclass
class _Layout:
    """What the raw string's layout around the seed title says (``title_evidence``)."""

    score: float  # the title score after the layout evidence (the field's, or the verbatim run's)
    start: int  # first word of the title as printed (the author block is before it)
    marks: set[str]  # sequel/version marks of the title as printed in the reference
    notes: list[str]  # evidence that raised the score
    doubts: list[str]  # evidence that keeps the edge out of accept (container, series volume)
    first: int = 0  # first word of the title run as printed (where its layout is read)
    last: int = 0  # its last word
    short: bool = False  # a short seed title printed verbatim: accepted only with author and year
    prefix: str | None = None  # a name printed with a colon before the title run ("ID5:")
    field_score: float = 0.0  # the field's own score, before the run's layout raised it
    needs: str | None = None  # accepted only with the first author and the seed's year (resolve-13)


def _title_words(seed: _Seed) -> int:
    """Words of the seed title with a hyphenated word counted as its parts: normalising joins
    "Instance-based" into one word, but it says as much about the work as two words do."""
    return len(norm(_WORD_HYPHEN.sub(" ", seed.info.title)).split())


_WORD_HYPHEN = re.compile(r"(?<=[^\W\d_])-(?=[^\W\d_])")  # between letters: not "1971-1977"


def _word_at(ref: _Ref, char: int) -> str | None:
    """The word of the reference's comparison form at character ``char`` (None: no alignment)."""
    if char < 0 or not ref.words:
        return None
    return ref.words[max(0, bisect.bisect_right(ref.starts, char) - 1)]


def _author_keys(name: str | None) -> tuple[str, str]:
    return ae.author_keys(name)  # one letter or an editor word ("M", "di)") is no key


class SeedIndex:
    """Seeds prepared for resolution: normalised titles, an id/DOI map and a rare-word index."""

    def __init__(
        self,
        seeds: Iterable[SeedTitle],
        thresholds: Thresholds | None = None,
        twins: Mapping[str, Sequence[tuple[str, str]]] | None = None,
    ) -> None:
        self.thresholds = thresholds or Thresholds()
        # Other arXiv papers with a seed's exact title (``title_twins.find_twins``): seed id ->
        # [(their id, their first author)], as author keys ready for ``_names``.
        self.twins = {
            sid: [(tid, *_author_keys(author)) for tid, author in pairs]
            for sid, pairs in (twins or {}).items()
        }
        self.seeds: list[_Seed] = []
        self.by_id: dict[str, int] = {}
        self.by_doi: dict[str, int] = {}
        df: dict[str, int] = defaultdict(int)
        tokens: list[set[str]] = []
        for info in seeds:
            plain = without_etc(norm(info.title))  # "Delle iscrizioni veneziane, ecc"
            year = int(info.published[:4]) if info.published and info.published[:4].isdigit() else None
            phrase, last = _author_keys(info.first_author)
            self.by_id[info.arxiv_id] = len(self.seeds)
            self.by_doi[f"10.48550/arxiv.{info.arxiv_id}".lower()] = len(self.seeds)
            for doi in info.dois:
                self.by_doi[doi.lower()] = len(self.seeds)
            toks = {t for t in plain.split() if t not in STOPWORDS} or set(plain.split())
            self.seeds.append(
                _Seed(
                    info, plain, len(plain.split()), year, phrase, last, frozenset(toks), nt.seed_name(info.title)
                )
            )
            tokens.append(toks)
            for t in toks:
                df[t] += 1
        self.postings: dict[str, list[int]] = defaultdict(list)
        self.need: list[int] = []
        cap = max(50, len(self.seeds) // 200)
        for i, toks in enumerate(tokens):
            ranked = sorted(toks, key=lambda t: (df[t], -len(t), t))
            # Common words make long posting lists (slow, and weak evidence): a seed uses them as
            # keys only to reach four keys, so that two damaged keys (a typo, a split
            # hyphenation) still leave the two a candidate needs.
            keys = [t for t in ranked if df[t] <= cap][: self.thresholds.keys_per_seed]
            if len(keys) < 4:
                keys = ranked[:4]
            for t in keys:
                self.postings[t].append(i)
            self.need.append(min(2, len(keys)))
        self.tokens = [sd.tokens for sd in self.seeds]
        # Two adjacent seed words as PDF text glues them ("QuantumField"): a reference word equal
        # to one stands for both words in the candidate look-up.
        self.glued: dict[str, tuple[str, str]] = {}
        for sd in self.seeds:
            for a, b in pairwise(sd.plain.split()):
                if a.isalpha() and b.isalpha() and a not in STOPWORDS and b not in STOPWORDS:
                    self.glued.setdefault(a + b, (a, b))
        self.least = [-(-len(sd.tokens) * 3 // 5) for sd in self.seeds]  # ceil(0.6 * n)
        # Main titles of seeds with a subtitle, for entries that leave the subtitle out.
        self.heads = th.HeadIndex([sd.info.title for sd in self.seeds], STOPWORDS)
        # How many seeds carry each folded title: a short title printed first is accepted only
        # where no other seed's title fits the same field (``short_title_first``).
        self.titled = Counter(sd.plain for sd in self.seeds)

    def __len__(self) -> int:
        return len(self.seeds)

    # --- candidates -------------------------------------------------------------------------
    def candidates(self, ref: _Ref) -> dict[int, str]:
        """Seed index -> the method that proposed it (id and DOI before title).

        A title candidate must share two of its key words with the reference (one if the seed
        has a single key word): one typo'd or truncated key still leaves the others, while a
        common word alone no longer drags in every seed that happens to contain it."""
        postings, need, toks, least = self.postings, self.need, self.tokens, self.least
        ws = ref.wordset
        hits = Counter(chain.from_iterable(postings[w] for w in ws if w in postings))
        # Key hits first, then the word-overlap pre-check (see ``plausible``), fused for speed.
        out = {i: "title" for i, n in hits.items() if n >= need[i] and len(toks[i] & ws) >= least[i]}
        if ref.entry.doi and ref.entry.doi in self.by_doi:
            out[self.by_doi[ref.entry.doi]] = "doi"
        if ref.entry.arxiv_id and ref.entry.arxiv_id in self.by_id:
            out[self.by_id[ref.entry.arxiv_id]] = "arxiv_id"
        return out

    def plausible(self, seed_i: int, ref: _Ref) -> bool:
        """Cheap exact pre-check before the alignment: 60% of the seed's words must be there
        (a typo, a split hyphenation or a truncation costs one or two words, not half)."""
        return len(self.tokens[seed_i] & ref.wordset) >= self.least[seed_i]

    # --- evidence ---------------------------------------------------------------------------
    def title_field_score(self, seed: _Seed, ref: _Ref) -> tuple[float, int, str]:
        """Score of the seed title against the reference field that holds its best alignment,
        the index of the field's first word (-1 if nothing aligned) and the field itself."""
        return self._title_field(seed, ref)[:3]

    def _title_field(self, seed: _Seed, ref: _Ref) -> tuple[float, int, str, int]:
        """``title_field_score`` and the character where the fuzzy alignment starts (-1: none)."""
        if not ref.words or not seed.plain:
            return 0.0, -1, "", -1
        al = fuzz.partial_ratio_alignment(seed.plain, ref.plain, score_cutoff=ALIGNMENT_CUTOFF)
        if al is None:
            return 0.0, -1, "", -1
        best = self._field_at(seed, ref, al.dest_start, max(al.dest_end, al.dest_start + 1))
        if best[0] < 100.0:
            # The title may occur more than once (its own field, and inside a URL such as
            # ".../Training_language_models_to_follow_..."): the alignment finds one occurrence,
            # so every exact occurrence is scored too and the best field wins.
            at = ref.plain.find(seed.plain)
            while at >= 0:
                best = max(best, self._field_at(seed, ref, at, at + len(seed.plain)), key=lambda f: f[0])
                at = ref.plain.find(seed.plain, at + 1)
        return (*best, al.dest_start)

    def layout(self, seed: _Seed, ref: _Ref, field: tuple[float, int, str, int]) -> _Layout:
        """The raw string as evidence beside the field (``title_evidence``): a title printed
        verbatim but not closed by punctuation scores as printed; the title's own sequel marks
        (not a volume or page number after it); container and series positions as doubts."""
        score, start, span, near = field
        # Near-verbatim runs are looked for only where the field falls short (cost: a few ratios).
        fuzzy = score < self.thresholds.accept
        runs = (
            te.windows(seed.plain, seed.n_words, ref.words, ref.plain, ref.starts, near, fuzzy)
            if near >= 0
            else []
        )
        if not runs:
            # No run of words carries the title nearly verbatim: the field decides, and the
            # layout is read from where the fuzzy alignment starts.
            first = max(0, bisect.bisect_right(ref.starts, near) - 1) if near >= 0 else start
            last = min(first + max(0, len(span.split()) - 1), len(ref.words) - 1)
            # Sequel marks from the words the title aligns with, not the whole field: an
            # unclosed field runs on into the volume and pages ("... formalizm Uspehi Mat Nauk 30").
            marks = te.sequel_marks(span.split())
            if near >= 0 and start >= 0:
                # From the field's start (a name before the title, "M6: ...", is the title's) to
                # the end of the alignment.
                lo = max(first, start)
                hi = max(lo, min(lo + seed.n_words, start + len(span.split())) - 1)
                marks = te.sequel_marks(ref.words[start : hi + 1])
                marks |= te.trailing_sequel(ref.words, ref.bounds, hi)
            return _Layout(score, start, marks, [], [], first, last)
        long_enough = seed.n_words >= te.MIN_VERBATIM_WORDS and len(seed.plain) >= te.MIN_VERBATIM_CHARS
        chosen, notes, short, prefix, needs = None, [], False, None, None
        if score < 100.0:
            cased = ref.cased
            for run in runs:
                if run.score <= score or not (long_enough or run.score == 100.0):
                    continue
                # A title in capitals gives its case no say ("... PREDICTION IS ALL CONVOLUTIONAL").
                run_case = (
                    None if te.mostly_capitals(cased[run.first : run.last + 1] if cased else []) else cased
                )
                before = te.before_is_not_title(ref.words, run_case, ref.colons, ref.bounds, run.first)
                if before is None and te.author_block_before(
                    ref.words, ref.bounds, ref.colons, run.first, seed.author_last
                ):
                    before = "an author block closed by a colon"
                if before is None:
                    before = te.name_block_before(run_case, ref.bounds, run.first, seed.author_last)
                if before is None:
                    before = ae.own_block_before(ref.words, ref.cased, ref.colons, ref.bounds, run.first)
                name = None
                if before is None and run.score == 100.0:
                    name = te.name_prefix(ref.words, ref.cased, ref.colons, ref.bounds, run.first)
                    before = f"the name prefix '{name}:'" if name else None
                after = te.after_is_not_title(
                    ref.words, run_case, ref.colons, ref.bounds, run.last, ref.entry.raw
                )
                if after is None and run.score == 100.0 and seed.n_words >= ci.MIN_WORDS:
                    after = ci.after(ref.words, run_case, ref.bounds, run.last)  # "... in Quellen"
                if after is None:
                    after = eda.phrase_after(ref.words, run.last)  # "... a cura di L. Messedaglia"
                # A near-verbatim run closed by boundaries on both sides is a field of its own:
                # the field's score decides it (the run exists for unclosed and glued fields).
                both_closed = before == after == te.BOUNDARY_NOTE
                if before and after and (run.score == 100.0 or not both_closed):
                    chosen, short, prefix = run, not long_enough, name
                    needs = ci.NEEDS if after == ci.NOTE else None
                    notes.append(
                        f"title printed {'verbatim' if run.score == 100 else f'near-verbatim ({run.score:.1f})'}"
                        f" in the raw string, field score {score:.1f} (before it {before}, after it {after})"
                    )
                    break
        if chosen is None:
            # The run inside the field that scored (the field path): the first one in the field.
            inside = [r for r in runs if start <= r.first] or runs
            chosen = inside[0]
        else:
            score, start = chosen.score, chosen.first
        words = ref.words
        marks = te.sequel_marks(words[chosen.first : chosen.last + 1])
        marks |= te.trailing_sequel(words, ref.bounds, chosen.last)
        marks |= te.leading_sequel(words, ref.bounds, chosen.first)
        series = te.series_note(seed.plain.split(), words, ref.entry.raw, chosen.last)
        doubts = [series] if series else []
        field_score = field[0]
        return _Layout(
            score, start, marks, notes, doubts, chosen.first, chosen.last, short, prefix, field_score, needs
        )

    @staticmethod
    def _field_at(seed: _Seed, ref: _Ref, lo: int, hi: int) -> tuple[float, int, str]:
        """The reference field around characters ``lo:hi`` of ``ref.plain``, scored against the seed."""
        first = max(0, bisect.bisect_right(ref.starts, lo) - 1)
        last = max(first, bisect.bisect_right(ref.starts, hi - 1) - 1)
        # The window has the seed's length, so a shorter (truncated, typo'd) title drags in a
        # sliver of the neighbouring word: drop edge words the window covers less than half of.
        if first < last and (ref.starts[first] + len(ref.words[first]) - lo) * 2 < len(ref.words[first]):
            first += 1
        if last > first and (hi - ref.starts[last]) * 2 < len(ref.words[last]):
            last -= 1
        while first > 0 and not ref.bounds[first - 1]:
            first -= 1
        while last < len(ref.words) - 1 and not ref.bounds[last]:
            last += 1
        span = " ".join(ref.words[first : last + 1])
        best = (fuzz.ratio(seed.plain, span), first, span)
        # A seed longer than the title as printed pulls the alignment over a boundary into the
        # next field ("The cascade-correlation architecture. In Touretzky ..."): each field the
        # alignment touches is scored on its own too, since a title is one field.
        lo_w = first
        for i in range(first, last + 1):
            if ref.bounds[i] or i == last:
                if lo_w > first or i < last:
                    part = " ".join(ref.words[lo_w : i + 1])
                    best = max(best, (fuzz.ratio(seed.plain, part), lo_w, part), key=lambda f: f[0])
                lo_w = i + 1
        return best

    def _container_doubts(
        self, seed: _Seed, ref: _Ref, first: int, last: int, author: str, notes: list[str] | None = None
    ) -> list[str]:
        """Why the title printed from word ``first`` may be the container of the cited work
        rather than the work: after "In" (a chapter of the volume); or, when the seed's first
        author cannot vouch for it (no author, or not named), after another title-like field, or
        a venue-like seed title (proceedings, a series) printed after the entry's own fields.
        An institution read as the author block is written to ``notes`` (the edge's evidence)."""
        if first > 0 and self._chapter(seed, ref, first):
            return [te.CONTAINER_NOTE]
        field_first = first
        while field_first > 0 and not ref.bounds[field_first - 1]:
            field_first -= 1
        # The entry's own editors or authors, read from its start ("R. Polacco (a cura di), Title").
        block = ae.own_block_end(ref.words, ref.cased, ref.colons, ref.bounds, first + 2)
        k = block[0] if block and ref.cased else 0  # no title-like field inside the author block
        if tan.colon_closes_names(ref.colon_list_end, field_first):
            k = field_first  # "Vogel SS, Thaler C, Koushik SV: Fanciful FRET": names (``colon_authors``)
        heads = field_first <= k <= first + 1  # up to the title (an alignment may start a word early)
        k = field_first if heads else min(k, field_first)
        e = te.editors_at(ref.words, ref.bounds, first, last)
        if e is not None and not heads and te.prose_between_names_and(ref.cased, e):
            return [
                "the seed title is printed as an edited volume (editors next to it) after a title of the entry's own"
            ]
        if seed.author_phrase and author != "mismatch":
            return []
        why = "seed has no author to check" if not seed.author_phrase else "first author not named"
        held: list[str] = []
        if not seed.author_phrase and ref.cased:
            # An institution printed as the author ("NBS – National Bureau of Statistics of
            # China."): an author block, not a title of the entry's own (``institution_author``).
            inst = ia.institution_block(ref.cased, ref.bounds, field_first)
            if inst and inst[0] > k:
                k = inst[0]
                held.append(f"an institution printed as the author ('{inst[1]}')")
        # A field opening lower-case is the footnote's remark, not a title (``prose_remark``).
        earlier = pr.earlier_title_field(
            ref.cased and ref.cased[k:], ref.bounds[k:], field_first - k, at_start=k == 0
        )
        if earlier:
            return [f"{why} and {earlier}"]
        lead = 1 if ref.words and ref.words[0].isdigit() else 0  # "[12]" numbering
        if field_first > lead and te.venue_like(seed.plain):
            # Printed right after the entry's author list, it is the entry's title, not a venue
            # ("Streit WR: Advances in recovery of ...": ``title_after_names``, resolve-15).
            # Only for a seed with no author, and a field that opens with the seed's words: a seed
            # whose first author is not named, or "2015, in Proc. 34th ICRC" (an "in" the seed
            # title does not open with), is the volume of a contribution (dev e04222).
            container_in = ref.words[field_first] == "in" and not seed.plain.startswith("in ")
            own = None
            if not seed.author_phrase and not container_in:
                own = tan.own_title_field(ref.cased, ref.bounds, ref.colon_list_end, field_first)
            if own is None:
                return [f"{why}; the seed reads as a venue, printed after the entry's own fields"]
            held.append(own)
        if notes is not None:
            notes.extend(held)
        return []

    @staticmethod
    def _own_title_before(ref: _Ref, first: int) -> bool:
        """Whether a title-like field of the entry's own (prose, ``earlier_title_field``) is
        printed before the field that holds word ``first``."""
        field_first = first
        while field_first > 0 and not ref.bounds[field_first - 1]:
            field_first -= 1
        return te.earlier_title_field(ref.cased, ref.bounds, field_first) is not None

    def _chapter(self, seed: _Seed, ref: _Ref, first: int) -> bool:
        """The title run is printed as the container of the entry ("Chapter. In: Eds (eds)
        Volume"): a chapter of the volume, not the volume. Unless nothing but the entry's authors
        comes before the "In" and they include the seed's first author: physics styles cite a
        contribution as "Author, in: Eds (Eds.), Book" with no chapter title, and the book is
        meant. An editor who wrote a chapter of their own volume is caught by the chapter title
        printed between their name and the "In"."""
        p = te.container_at(ref.words, ref.bounds, first)
        if p is None:
            return False
        if self._names(seed.author_phrase, seed.author_last, ref, p) != "match":
            return True
        return te.prose_between_names_and(ref.cased, p)

    @staticmethod
    def author_evidence(seed: _Seed, ref: _Ref, title_start: int) -> ae.FirstAuthor:
        """The first-author verdict and its reason, read where the author is printed
        (``author_evidence``: a title printed first, "Id.", "AA. VV.", editors after the title)."""
        return ae.first_author(
            seed.author_phrase, seed.author_last, ref.words, ref.bounds, title_start, ref.dash_at, seed.plain
        )

    @staticmethod
    def _ditto_author(seed: _Seed, ref: _Ref, title_start: int, author: str, notes: list[str]) -> str:
        """The first-author check of a ditto entry ("———. Title"): the dash prints no names, so
        the authors inherited from the entry before are read instead; without them, nothing
        before a title printed right after the dash is an author block (publisher and place
        after the title are no evidence against the seed's author)."""
        if ref.inherited and seed.author_phrase:
            text = " " + " ".join(norm(a) for a in ref.inherited) + " "
            phrase, last = seed.author_phrase, seed.author_last
            named = f" {phrase} " in text or (last and f" {last} " in text)
            named = named or (len(phrase) >= 4 and phrase.replace(" ", "") in text.replace(" ", ""))
            notes.append(DITTO_NOTE if named else f"{DITTO_NOTE} do not name the seed's first author")
            return "match" if named else "mismatch"
        return "unknown" if title_start <= 0 else author

    def _ditto_short_title(self, seed: _Seed, ref: _Ref, field: tuple[float, int, str, int]) -> str | None:
        """Why a short title of a ditto entry whose authors are not the seed's known ones may
        still be accepted, or None: the title printed word for word as a complete field of its
        own (a boundary, or the ditto dash, before it; a boundary or the end after it; nothing
        else in the field) and the seed's own year printed in the entry."""
        score, start, span, _ = field
        if seed.n_words > 3 or score < 100.0 or start < 0 or span != seed.plain or not seed.year:
            return None
        last = start + seed.n_words - 1
        before = start == 0 or ref.bounds[start - 1]
        after = last == len(ref.words) - 1 or ref.bounds[last]
        if not (before and after and seed.year in ref.years):
            return None
        return (
            "ditto author not resolved; the short title printed verbatim as a field of its own "
            f"and the seed's year {seed.year} printed"
        )

    @staticmethod
    def _names(phrase: str, last: str, ref: _Ref, title_start: int) -> str:
        """Whether the reference's author block (the words before its title) names this author."""
        return ae.legacy_verdict(phrase, last, ref.words, title_start)

    # --- decision ---------------------------------------------------------------------------
    def score_pair(self, seed_i: int, method: str, ref: _Ref) -> Match:
        t = self.thresholds
        seed = self.seeds[seed_i]
        field = self._title_field(seed, ref)
        lay = self.layout(seed, ref, field)
        title_score, start = lay.score, lay.start
        found = self.author_evidence(seed, ref, start)
        author = found.verdict
        notes: list[str] = list(lay.notes) + ([found.note] if found.note else [])
        if author == "mismatch" and start > 0 and f" {seed.plain} " in f" {ref.plain} ":
            # The title printed word for word and the seed's surname one OCR letter off ("Juoie" for Jugie):
            # the same author as the scan printed it (``ocr_author``).
            printed = oa.variant(seed.author_last, ref.words[:start])
            if printed:
                author = "match"
                notes.append(oa.NOTE.format(printed=printed, seed=seed.author_last))
        if tan.colon_closes_names(ref.colon_list_end, start):
            notes.append(ca.note(ref.entry.raw))
        ditto_short = None
        if ref.ditto:
            author = self._ditto_author(seed, ref, start, author, notes)
            if author != "match":
                ditto_short = self._ditto_short_title(seed, ref, field)
                if ditto_short:
                    notes.append(ditto_short)
        elif not seed.author_phrase and self._ditto_short_title(seed, ref, field):
            # No author to look for: the same strong layout a ditto without authors needs.
            ditto_short = ae.no_author_short_title(ref.words, start, seed.year)
            if ditto_short:
                notes.append(ditto_short)
        year_agrees = bool(seed.year) and any(
            seed.year - 1 <= y <= seed.year + t.late_years  # type: ignore[operator]
            for y in ref.years
        )
        # A footnote's short form, the title and a locator only (``short_title_first``): read
        # only where the title alone would not be accepted, so other edges keep their reasons.
        held = (
            title_score < t.accept
            or (lay.short and not (author == "match" and year_agrees))
            or (author == "unknown" and seed.n_words <= 2)
        )
        short_first = None
        if held and seed.n_words <= 3 and author == "unknown":
            short_first = sf.evidence(
                seed.plain,
                seed.year,
                ref.entry.raw,
                self.titled.__getitem__,
                authorless=not seed.author_phrase,
                ditto=ref.ditto,
            )
        elif held and seed.n_words <= 3 and author == "match" and not ref.ditto:
            short_first = sf.after_author(
                seed.plain, seed.year, ref.entry.raw, self.titled.__getitem__, seed.author_last
            )
        if min(t.variant, t.accept) <= title_score < 100.0:
            # A near title whose difference is a short token extended into another ("UTRAN Iu"
            # for "UTRAN Iub"): another name, not a typo; a person decides.
            printed = field[2].split() if field[1] >= 0 else []
            run = ref.words[lay.first : lay.last + 1]
            extended = te.extended_tokens(seed.plain.split(), printed, ref.entry.raw) or te.extended_tokens(
                seed.plain.split(), run, ref.entry.raw
            )
            if extended:
                seed_tok, ref_tok = extended[0]
                lay.doubts.append(
                    f"'{ref_tok}' printed where the seed title has '{seed_tok}' (a short token is a name, not a typo)"
                )
            changed = lw.changed_last_word(seed.plain.split(), printed, ref.wordset) or lw.changed_last_word(
                seed.plain.split(), run, ref.wordset
            )
            if (
                changed
                and author == "match"
                and vy.variant_years(seed.year, ref.years, seed.arxiv_like, t.late_years)
            ):
                # "Instance-based learning methods" for "... algorithms" by Aha, 1991: the title
                # misquoted, with the evidence the variant rule asks.
                notes.append(lw.note(changed) + "; first author and year agree")
            elif changed:
                lay.doubts.append(lw.note(changed))  # "... in soil" for "... in sludge" (``last_word``)
        if lay.short and not short_first:
            if author == "match" and year_agrees:
                notes.append("a short title printed verbatim; first author and year agree")
            else:
                lay.doubts.append("a short title printed verbatim, without the seed's first author and year")
        if lay.needs and not (author == "match" and seed.year in ref.years):
            lay.doubts.append(lay.needs)  # ``container_in``: the seed's own year, exactly
        if lay.prefix:
            if author == "match" and year_agrees:
                # "ID5: An incremental ID3" for "An incremental ID3": the name of the system the
                # work introduces, printed by one citer and left out by another; not a sequel.
                lay.marks.discard(lay.prefix.lower())
                notes.append(
                    f"printed with the name prefix '{lay.prefix}:' the seed title leaves out; "
                    "first author and year agree"
                )
            else:
                # Without them the name may be another system built on the seed's: the field
                # decides, as if the run had not been read, and a number in the name is a sequel's.
                notes[:] = [
                    f"printed with the name prefix '{lay.prefix}:', without the seed's first author and "
                    f"year: field score {lay.field_score:.1f}"
                ]
                title_score = lay.score = lay.field_score
        entry = ref.entry
        if method in ("arxiv_id", "doi"):
            if entry.title is None and not entry.authors:
                entry = parse_entry(entry.raw)  # the title guess is needed only here
            guess_words = len(norm(entry.title or "").split())
            if title_score < t.contradiction and guess_words >= 3:
                if author != "match":
                    return Match(
                        seed.info.arxiv_id,
                        method,
                        round(title_score, 2),
                        "review",
                        round(title_score, 2),
                        author,
                        "id-conflict: the id names this seed but title and first author disagree",
                    )
                # Same id, same first author, other title: arXiv titles change between versions
                # (GELU's v1 was "Bridging nonlinearities and stochastic regularizers ...").
                return Match(
                    seed.info.arxiv_id,
                    method,
                    100.0,
                    "accept",
                    round(title_score, 2),
                    author,
                    f"{method} match; title differs but first author matches (retitled version?)",
                )
            return Match(
                seed.info.arxiv_id, method, 100.0, "accept", round(title_score, 2), author, f"{method} match"
            )
        score = title_score
        if score < t.accept and author != "mismatch" and not ref.ditto:
            # The whole seed title right after its first author's name, the seed's year printed
            # ("C. Tentori nel suo Della legislazione ..., 1792": ``author_before_title``).
            named = abt.evidence(
                seed.plain, seed.author_last, seed.year, ref.words, ref.bounds, ref.cased, ref.years
            )
            if named:
                notes.append(named)
                author, score = "match", t.accept
        if short_first:
            # The whole string is the title verbatim and a locator, however the field parse scored
            # it ("Törtelnelmi Tár XIII, 700" unpunctuated); a sequel or year below still caps it.
            score = max(score, t.accept)
        # A seed known by another kind of id (a labelled set, a local source) is not contradicted
        # by an arXiv id: only an arXiv seed can carry "another" one.
        other_id = bool(entry.arxiv_id and entry.arxiv_id != seed.info.arxiv_id and seed.arxiv_like)
        if other_id:
            if title_score >= ID_OUTWEIGHED and author == "match":
                # Title and first author agree against the id: a copy-paste error in the id.
                notes.append(f"reference carries another arXiv id ({entry.arxiv_id}); title and author agree")
            else:
                notes.append(f"reference carries another arXiv id ({entry.arxiv_id})")
                score = min(score, t.accept - 0.01)
        sequel = te.differing_marks(_sequel_marks(seed.plain), lay.marks)
        if sequel:
            spaced = te.glued_numbers(sequel, seed.plain.split(), ref.words)
            if spaced:
                notes.append(f"number {', '.join(sorted(spaced))} printed glued to the word after it")
                sequel -= spaced
            named = sl.spaced_names(sequel, seed.plain.split(), ref.words)
            if named:
                # "MEGA 4" for "MEGA4" (``sequel_lookalikes``): the same name and number.
                notes.append(sl.SPACED_NOTE.format(forms="glued and spaced", marks=", ".join(sorted(named))))
                sequel -= named
            locants = sl.locant_numbers(sequel, seed.info.title, ref.entry.raw) if sequel else set()
            if locants:
                # "its 3′ untranslated region" with the "3′" lost (``sequel_lookalikes``).
                notes.append(sl.LOCANT_NOTE.format(marks=", ".join(sorted(locants))))
                sequel -= locants
            greek = gm.greek_marks(sequel, seed.plain.split(), ref.words) if sequel else {}
            if greek:
                # "PGC-1a" / "accessory 1 subunit" for "PGC-1[alpha]" / "β1" (``greek_marks``).
                notes.append(
                    gm.NOTE.format(
                        marks=", ".join(sorted(greek)), word=", ".join(greek[k] for k in sorted(greek))
                    )
                )
                sequel -= set(greek)
            misread = te.misread_numerals(seed.plain.split(), ref.words[lay.first : lay.last + 1], sequel)
            if misread:
                notes.append(
                    f"'{', '.join(sorted(misread))}' printed where the seed title has a word with 'l' (OCR)"
                )
                sequel -= misread
        prefix = sp.left_out(seed.info.title, sequel, ref.words) if sequel else None
        if prefix:
            # "DS14: standard assessment of ..." cited without its name (``seed_prefix``): a name
            # the citer left out, not a version; the first author and the seed's year vouch for it.
            sequel = set()
            if author == "match" and vy.variant_years(seed.year, ref.years, seed.arxiv_like, t.late_years):
                notes.append(sp.LEFT_OUT.format(name=prefix) + "; first author and year agree")
            else:
                lay.doubts.append(
                    sp.LEFT_OUT.format(name=prefix) + ", without the seed's first author and year"
                )
        edition = el.left_out(seed.info.title, sequel, ref.words) if sequel else None
        if edition:
            # "... guidelines (8th edition)" cited without it (``edition_left_out``): another
            # edition has the same title, so the seed's own year must be printed to accept.
            sequel = set()
            if seed.year is not None and seed.year in ref.years:
                notes.append(el.LEFT_OUT.format(mark=edition) + f"; the seed's year {seed.year} printed")
            else:
                lay.doubts.append(el.LEFT_OUT.format(mark=edition) + ", without the seed's year")
        veto = ""
        if sequel:
            # "NimFlow 2: ..." is not "NimFlow: ..." (nor "Llama 2" "LLaMA"): a version or sequel
            # number present on one side only is another work, however close the rest.
            # Not a veto over the late rules: a subtitle's head read on its own (``title_heads``)
            # may show the mark was the container's ("InterCHI93").
            notes.append(f"sequel/version number differs ({', '.join(sorted(sequel))})")
            # Not a doubt for a person to settle but a different work: kept as reject evidence.
            score = min(score, t.review - 0.01)
        renamed = nt.differing_name(seed.name, _word_at(ref, field[3])) if seed.name else None
        if renamed:
            # "IndoNLG: ..." for "IndoNLU: ..." (``name_tokens``): another coined name, another work.
            veto = nt.NOTE.format(seed=renamed[0], printed=renamed[1])
            notes.append(veto)
            score = min(score, t.review - 0.01)
        predates = ee.predates(seed.year, ref.years, author)
        gap = (seed.year or 0) - max(ref.years, default=0)
        earlier = ev.window(ref.entry.raw) if predates else None
        if predates and author == "match" and gap <= t.early_years and score >= t.accept:
            # A technical report or conference version printed before the version the seed
            # came from: a small gap with the seed's first author is the same work.
            notes.append(
                f"reference year {max(ref.years)} is {gap} years before the seed ({seed.year}); "
                "first author agrees: an earlier version"
            )
        elif predates and earlier and author == "match" and gap <= earlier[0] and score >= t.accept:
            # A report or preprint before its journal paper, up to 4 years (``earlier_version``).
            notes.append(
                f"reference year {max(ref.years)} is {gap} years before the seed ({seed.year}); "
                f"first author agrees and {earlier[1]}: an earlier version"
            )
        elif predates:
            notes.append(f"reference year {max(ref.years)} predates the seed ({seed.year})")
            score = min(score, t.accept - 0.01)
        if predates and author == "mismatch":
            # Written before the seed existed, by someone else: two independent facts against, so
            # another work with the same title ("Can Diffusion Models Reason?" 2019 vs 2024), not
            # a doubt for a person to settle.
            notes.append("first author not found: another work of the same title")
            score = min(score, t.review - 0.01)
        elif author == "mismatch":
            notes.append("first author not found")
            if ditto_short:
                pass  # the inherited authors may be a wrong parse; the title and year decide
            elif seed.n_words <= 3:
                score = min(score, t.accept - 0.01)
            else:
                score -= MISMATCH_PENALTY
        elif short_first:
            notes.append(short_first)  # ``short_title_first``: the title and a locator, no more
        elif author == "unknown" and seed.n_words <= 2 and not ditto_short:
            # An entry that prints no author either: a seed without one may still be accepted on
            # its own field and year (``own_field_with_year``); one with a first author waits
            # for it ("Stephen Hero. London, 1956.").
            own = (
                None
                if seed.author_phrase
                else te.own_field_with_year(
                    seed.plain, seed.year, ref.words, ref.bounds, ref.years, field[:3]
                )
            )
            notes.append(own or "short title without author evidence")
            if not own:
                score = min(score, t.accept - 0.01)
        if author != "match" and seed.info.arxiv_id in self.twins and title_score >= t.review:
            twins = self.twins[seed.info.arxiv_id]
            named = [tid for tid, phrase, last in twins if self._names(phrase, last, ref, start) == "match"]
            if named:
                notes.append(f"names the first author of {named[0]}, another arXiv paper with this title")
                score = min(score, t.review - 0.01)
            else:
                notes.append(f"{twins[0][0]} has this title too and neither first author is named")
                score = min(score, t.accept - 0.01)
        if score >= t.variant:
            # Another printing of the title: a date in it, a later edition (edition_evidence).
            forms = [field[2].split() if field[1] >= 0 else [], ref.words[lay.first : lay.last + 1]]
            lay.doubts.extend(
                ee.edition_doubts(
                    seed.plain.split(),
                    seed.year,
                    ref.words,
                    ref.years,
                    forms,
                    lay.last,
                    t.late_years,
                )
            )
            # Another part of a numbered series or another volume (``part_numbers``).
            part = pn.part_doubt(
                seed.info.title,
                ref.words,
                ref.bounds,
                lay.first,
                lay.last,
                ref.cased,
                self._own_title_before(ref, lay.first),
            )
            if part:
                lay.doubts.append(part)
            # A chapter seed ("Il Settecento, in La Repubblica ...") whose own title the entry
            # does not print: the entry cites the volume (``chapter_seed``, resolve-17).
            chapter = cs.container_only_doubt(seed.info.title, ref.plain)
            if chapter:
                lay.doubts.append(chapter)
        # Container doubts are read only for an edge that could be accepted (they only ever hold
        # one back), which keeps the layout reading off the hot path.
        # A printed year near the seed's: a preprint's window for an arXiv seed, the printing's
        # own year for a seed dated by its printing (``variant_years``).
        near_years = vy.variant_years(seed.year, ref.years, seed.arxiv_like, t.late_years)
        variant = (
            t.variant <= score < t.accept
            and author == "match"
            and not (sequel or predates or other_id or lay.doubts)
            and _title_words(seed) >= 4
            and bool(near_years)
        )
        if variant or score >= t.accept:
            lay.doubts[:0] = self._container_doubts(seed, ref, lay.first, lay.last, author, notes)
        if variant and not lay.doubts and seed.year:
            # A title printed differently (a word inserted or changed, a subtitle left out): the
            # title alone is not enough, the first author and a year near the seed's are.
            notes.append(
                f"title printed differently (score {score:.1f}); first author and year {near_years[0]} agree"
            )
            score = t.accept
        elif t.variant <= score < t.accept and author == "match" and not near_years:
            late = vy.variant_years(seed.year, ref.years, True, t.late_years)
            if late:  # what the preprint's window would have taken: said, so a person sees why
                notes.append(vy.too_late_note(score, late[-1], seed.year))
        for doubt in lay.doubts:
            notes.append(doubt)
            score = min(score, t.accept - 0.01)
        band = "accept" if score >= t.accept else "review" if score >= t.review else "reject"
        reason = "; ".join(notes) if notes else f"title field score {title_score:.1f}"
        return Match(
            seed.info.arxiv_id,
            "title",
            round(score, 2),
            band,
            round(title_score, 2),
            author,
            reason,
            notes,
            start,
            veto,
        )

    def _head_match(self, seed_i: int, ref: _Ref) -> Match | None:
        """An accept for a seed whose main title is printed without its subtitle (``title_heads``):
        as a field of its own, with the first author and a year near the seed's, and none of the
        doubts the full title's decision reads (a sequel or date, another printing, a container,
        another arXiv id, a title twin). None otherwise, and where the full title decides."""
        seed, t = self.seeds[seed_i], self.thresholds
        head = self.heads.heads[seed_i]
        first = th.head_run(head, ref.words, ref.plain, ref.starts, ref.bounds, ref.colons)
        if first is None:
            return None
        # A seed with no author (a catalogue, an exhibition's volume) has no name to check: a
        # long main title with the seed's own year printed stands in for it (resolve-13).
        authorless = (
            not seed.author_phrase
            and seed.year in ref.years
            and len(head.split()) >= th.AUTHORLESS_HEAD_WORDS
        )
        if not authorless and self.author_evidence(seed, ref, first).verdict != "match":
            return None
        years = vy.variant_years(seed.year, ref.years, seed.arxiv_like, t.late_years)
        if not years or seed.info.arxiv_id in self.twins:
            return None
        entry = ref.entry
        if entry.arxiv_id and entry.arxiv_id != seed.info.arxiv_id and seed.arxiv_like:
            return None
        full = self.score_pair(seed_i, "title", ref)
        if full.band == "accept":
            return None  # the whole title decides
        last = first + len(head.split()) - 1
        words = ref.words[first : last + 1]
        if (
            te.differing_marks(
                _sequel_marks(seed.plain),
                te.sequel_marks(words) | te.trailing_sequel(ref.words, ref.bounds, last),
            )
            - te.sequel_marks(head.split())
            or ee.edition_doubts(head.split(), seed.year, ref.words, ref.years, [words], last, t.late_years)
            or self._container_doubts(seed, ref, first, last, "unknown" if authorless else "match")
            or pn.part_doubt(
                seed.info.title,
                ref.words,
                ref.bounds,
                first,
                last,
                ref.cased,
                self._own_title_before(ref, first),
            )
        ):
            return None
        agree = (
            f"the seed has no author; its year {seed.year} printed"
            if authorless
            else f"first author and year {years[0]} agree"
        )
        reason = f"the seed's main title printed as a field of its own, its subtitle left out; {agree}"
        return Match(
            seed.info.arxiv_id,
            "title",
            t.accept,
            "accept",
            full.title_score,
            "unknown" if authorless else "match",
            reason,
            [reason],
            first,
        )

    def _late_accept(
        self, seed: _Seed, out: list[Match], reason: str, score: float, author: str, at: int
    ) -> Match:
        """The accept a late rule gives ``seed`` where the field rules held its edge back: the
        held edge's method and score are kept, and its reason is quoted so an auditor sees what
        the field rules doubted and what overruled them. ``score`` stands in where none was held."""
        held = next((m for m in out if m.seed_id == seed.info.arxiv_id), None)
        if held is not None and held.reason:
            reason += f" (the field rules held it: {held.reason})"
        return Match(
            seed.info.arxiv_id,
            held.method if held is not None else "title",
            self.thresholds.accept,
            "accept",
            held.title_score if held is not None else score,
            author,
            reason,
            [reason],
            at,
        )

    def _cit_back_reference(self, ref: _Ref, out: list[Match]) -> Match | None:
        """An accept for a footnote's back-reference "Dal Pane, Il tramonto, cit., p. 68." to the
        one candidate seed of that author whose title opens with the printed head
        (``cit_back_reference``). None where the string is not one or not exactly one seed fits."""
        shape = cbr.read(ref.entry.raw)
        if shape is None:
            return self._cit_unnamed(ref, out)
        name, surname, head, years = shape
        # The seed's own key words need not be printed (a head is its first words): every seed
        # of the printed author is looked at, not only the candidates.
        return self._back_reference_accept(
            self._seeds_by_author.get(surname, ()),
            head,
            years,
            cbr.NOTE.format(name=name, head=head),
            "match",
            out,
        )

    @cached_property
    def _seeds_by_author(self) -> dict[str, list[_Seed]]:
        """Seeds by their first author's surname, built on the first back-reference read (most
        lists have none, so an index does not pay for it up front)."""
        by_author: dict[str, list[_Seed]] = defaultdict(list)
        for sd in self.seeds:
            if sd.author_last:
                by_author[sd.author_last].append(sd)
        return by_author

    def _back_reference_accept(
        self, pool: Iterable[_Seed], head: str, years: list[int], note: str, author: str, out: list[Match]
    ) -> Match | None:
        """The accept for a back-reference's printed ``head``: the one seed of ``pool`` whose title
        opens with it, not a numbered volume, its year among any printed. None where the head is a
        whole title of its own (another work), or no seed or more than one opens so."""
        if self.titled[head]:
            return None
        own = [sd for sd in pool if cbr.opens_with(sd.plain, head)]
        if len(own) != 1 or cbr.numbered(own[0].plain):
            return None  # two works open so; a volume of a set the head cannot tell
        seed = own[0]
        if years and (seed.year is None or seed.year not in years):
            return None
        reason = note + (f"; the seed's year {seed.year} printed" if years else "")
        return self._late_accept(seed, out, reason, self.thresholds.accept, author, 0)

    def _cit_unnamed(self, ref: _Ref, out: list[Match]) -> Match | None:
        """``_cit_back_reference`` for a head printed without a name and marked as cut ("La
        politica veneziana ecc., cit."): the one seed of the whole list that opens with it."""
        shape = cbr.read_unnamed(ref.entry.raw)
        if shape is None:
            return None
        head, years = shape
        return self._back_reference_accept(
            self.seeds, head, years, cbr.NOTE_UNNAMED.format(head=head), "unknown", out
        )

    def _author_after_title(self, ref: _Ref, cands: list[int], out: list[Match]) -> Match | None:
        """An accept for a short seed title that opens the entry with its first author printed
        right after it ("Nautica mediterranea di Bartolomeo Crescenzio Romano, Roma, 1602"):
        ``author_after_title``. None where more than one seed fits or any evidence is missing."""
        found = []
        for i in cands:
            seed = self.seeds[i]
            if seed.n_words > 3:
                continue
            why = aat.evidence(
                seed.plain, seed.author_last, seed.year, ref.entry.raw, self.titled.__getitem__
            )
            if why:
                found.append((seed, why))
        if len(found) != 1:
            return None
        seed, reason = found[0]
        return self._late_accept(seed, out, reason, self.thresholds.accept, "match", 0)

    def _scan_agreement(self, ref: _Ref, cands: list[int], out: list[Match]) -> Match | None:
        """An accept for the seed the naive scan finds in the raw string where no rule accepted
        one, with the scan's blind spots covered by evidence it does not read (``scan_agreement``:
        a distinctive title, its first author printed before it, no year in conflict, no other
        seed found as well). None where any of it is missing: the edge keeps its band."""
        if not cands or ref.ditto:
            return None
        ratios = sorted(((sa.ratio(self.seeds[i].plain, ref.plain), i) for i in cands), reverse=True)
        best, seed_i = ratios[0]
        if best < SCAN_MIN_RATIO or (len(ratios) > 1 and ratios[1][0] >= best):
            return None
        seed = self.seeds[seed_i]
        if sa.year_conflict(seed.year, ref.years):
            return None
        entry = ref.entry
        if entry.arxiv_id and entry.arxiv_id != seed.info.arxiv_id and seed.arxiv_like:
            return None  # the entry names another arXiv paper
        al = fuzz.partial_ratio_alignment(seed.plain, ref.plain)
        if al is None:
            return None
        first = max(0, bisect.bisect_right(ref.starts, al.dest_start) - 1)
        last = max(first, bisect.bisect_right(ref.starts, al.dest_end - 1) - 1)
        printed = sa.author_before(seed.author_last, ref.words, first)
        if printed is None:
            return None
        opens = first == 0 or ref.bounds[first - 1] or bool(ref.colons and ref.colons[first - 1])
        if (
            not sa.distinctive(seed.n_words, len(seed.tokens), opens)
            or sa.cut_short(seed.plain.split()[-1], ref.words[last])
            or sa.continued(ref.cased, ref.words, ref.bounds, last, sa.year_printed(seed.year, ref.years))
            or sa.carried_from_before(ref.cased, ref.bounds, ref.colons, first, printed)
            or self._container_doubts(seed, ref, first, last, "match")
        ):
            # Too short to tell; "Volumen I" found in "Volumen II"; a longer title of another
            # work ("... trivigiana e veronese", "Deep learning for ..."); a volume the entry
            # cites a chapter of, after "In" or as an edited volume after the entry's own title
            # ("Chapter," Journal, 1989. Reprint in Michael Earle, ed., Volume): the author the
            # scan finds is then the volume's editor, and the volume is not what is cited.
            return None
        printed_marks = (
            te.sequel_marks(ref.words[first : last + 1])
            | te.trailing_sequel(ref.words, ref.bounds, last)
            | te.leading_sequel(ref.words, ref.bounds, first)
        )
        if te.differing_marks(_sequel_marks(seed.plain), printed_marks) or pn.part_doubt(
            seed.info.title, ref.words, ref.bounds, first, last, ref.cased, self._own_title_before(ref, first)
        ):
            # Another part, edition or version ("Part 2:", "(7th edition)", "DS16:"), or another
            # volume of a numbered work ("Volumen V" for the seed's "Volumen I": ``part_numbers``).
            return None
        reason = sa.note(best, printed, seed.year, ref.years)
        return self._late_accept(seed, out, reason, best, "match", first)

    def resolve_list(
        self, entries: Sequence[ParsedEntry | str], exclude: Collection[str] = ()
    ) -> list[list[Match]]:
        """``resolve`` for every entry of ONE reference list, in its printed order: a ditto dash
        ("———. Title") takes the authors of the nearest earlier entry that names any."""
        inherited = inherited_authors(entries)
        return [self.resolve(e, inh, exclude) for e, inh in zip(entries, inherited, strict=True)]

    def resolve(
        self,
        entry: ParsedEntry | str,
        inherited: Sequence[str] | None = None,
        exclude: Collection[str] = (),
    ) -> list[Match]:
        """Every candidate seed of one reference that scored at least ``keep`` (or was named by id),
        best first. At most one ``accept`` per reference: a second one is demoted to review.
        ``inherited``: for a ditto entry, the authors of the entry before (``resolve_list``).

        ``exclude``: seed ids never to match, before ranking (a paper's own id when its list is
        resolved: one index then serves every list, where an index without the paper's own seed
        cost one build, and its memory, per list)."""
        if isinstance(entry, str):
            # Ids are all the resolver needs up front; the full parse runs only on an id match.
            arxiv_id, version = find_arxiv_id(entry)
            entry = ParsedEntry(raw=entry, arxiv_id=arxiv_id, arxiv_version=version, doi=find_doi(entry))
        ref = _Ref.of(entry)
        if same_author_as_before(entry.raw):
            ref.ditto, ref.inherited = True, tuple(inherited or ())
        split = [part for w in ref.words if w in self.glued for part in self.glued[w]]
        if split:
            ref.wordset = ref.wordset.union(split)
        out = []
        cands = {
            i: m
            for i, m in self.candidates(ref).items()
            if not (exclude and self.seeds[i].info.arxiv_id in exclude)
        }
        for seed_i, method in cands.items():
            m = self.score_pair(seed_i, method, ref)
            if m.score >= self.thresholds.keep or method != "title":
                out.append(m)
        # A late rule accepts where the field rules held an edge back, never where they found
        # another work (a veto: another sequel number, another coined name).
        vetoed = {m.seed_id for m in out if m.veto}
        for seed_i in self.heads.candidates(ref.wordset):
            if not (exclude and self.seeds[seed_i].info.arxiv_id in exclude):
                head = self._head_match(seed_i, ref)
                if head is not None and head.seed_id not in vetoed:
                    out = [m for m in out if m.seed_id != head.seed_id] + [head]
        if not any(m.band == "accept" for m in out):
            agreed = self._scan_agreement(ref, list(cands), out)
            if agreed is not None and agreed.seed_id not in vetoed:
                out = [m for m in out if m.seed_id != agreed.seed_id] + [agreed]
        if not any(m.band == "accept" for m in out) and not ref.ditto:
            after = self._author_after_title(ref, list(cands), out) or self._cit_back_reference(ref, out)
            if after is not None and after.seed_id not in vetoed:
                out = [m for m in out if m.seed_id != after.seed_id] + [after]
        # Ties (two variant titles both lifted to the accept score) go to the closer title; then
        # to the title printed first: an entry prints its own title before its container's
        # ("Chapter. In Editors, Volume"), so a tie is never settled by the seeds' ids.
        late = self.thresholds.late_years
        out.sort(
            key=lambda m: (
                m.band != "accept",
                -m.score,
                -m.title_score,
                self.seeds[self.by_id[m.seed_id]].name_like,  # "Kent, J": an author, no title
                m.at if m.at >= 0 else 1 << 30,
                # Printed at the same place: the seed whose year is printed, then the longer
                # title ("Der Codex Millenarius. Faksimilie-Ausgabe", 1974, over its head "Der
                # Codex Millenarius", 1959): two printings of one title, the entry names one.
                not ee.year_printed(self.seeds[self.by_id[m.seed_id]].year, ref.years, late),
                -self.seeds[self.by_id[m.seed_id]].n_words,
                -len(self.seeds[self.by_id[m.seed_id]].plain),  # the longer title printed in full
                m.seed_id,
            )
        )
        for m in out[1:]:
            if m.band == "accept":
                m.band = "review"
                named = self.seeds[self.by_id[m.seed_id]].name_like
                why = "; the seed title reads as a person's name (an author of the list)" if named else ""
                m.reason = f"also matches {out[0].seed_id} better{why}; " + m.reason
        return out
