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

Candidates come from blocking, never all pairs: a reference is scored only against the seeds that
share 60% of their title words with it (found through each seed's rarest words), plus the seeds
its arXiv id or DOI names. Whether a seed is a candidate depends on the pair alone, never on the
other seeds indexed, so resolving old lists against new seeds only equals a full re-resolve.

Year and first author are cross-checks. Real bibliographies contain wrong arXiv ids (copy-paste)
and near-identical titles, so an id match whose title and authors disagree goes to ``review``,
as does a title match that carries a different arXiv id, a year long before the seed existed, or
a short generic title without the seed's first author. An older year *and* another first author
together reject: that is another work that happens to share the title. So does naming the first
author of another arXiv paper with the seed's exact title (``title_twins``); naming neither is a
doubt for review.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Collection, Iterable, Mapping, Sequence
from functools import cached_property
from itertools import chain, pairwise

from reflong.citations import second_readings
from reflong.citations.candidates import title_heads as th
from reflong.citations.decision.decide import decide, score_of
from reflong.citations.decision.id_match import decide_id_match
from reflong.citations.decision.reference import rank
from reflong.citations.evidence import name_tokens as nt
from reflong.citations.evidence.pair import read_author_before_title, read_pair
from reflong.citations.evidence.registry import gather
from reflong.citations.fields.ditto import inherited_authors, same_author_as_before
from reflong.citations.fields.entry_parse import ParsedEntry, find_arxiv_id, find_doi
from reflong.citations.fields.normalize import norm
from reflong.citations.fields.seed_title_form import without_etc
from reflong.citations.records import (
    STOPWORDS,
    Match,
    Reference,
    Seed,
    SeedTitle,
    author_keys,
)
from reflong.citations.thresholds import (
    Thresholds,
)


def published_after(published: str | None, written_on: str | None) -> bool:
    """A seed first published after the citing version was written (both dates known): a text
    cannot cite a paper that did not exist yet."""
    return bool(published and written_on and published[:10] > written_on[:10])


def glued_pairs(plain: str) -> list[tuple[str, str]]:
    """Two adjacent words of a seed's folded title that PDF text may print glued ("quantumfield")."""
    return [
        (a, b)
        for a, b in pairwise(plain.split())
        if a.isalpha() and b.isalpha() and a not in STOPWORDS and b not in STOPWORDS
    ]


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
            sid: [(tid, *author_keys(author)) for tid, author in pairs]
            for sid, pairs in (twins or {}).items()
        }
        self.seeds: list[Seed] = []
        self.by_id: dict[str, int] = {}
        self.by_doi: dict[str, int] = {}
        df: dict[str, int] = defaultdict(int)
        tokens: list[set[str]] = []
        for info in seeds:
            # "Delle iscrizioni veneziane, ecc": a catalogue's "etc." is no part of a book's title.
            plain = without_etc(norm(info.title)) if self.thresholds.books else norm(info.title)
            year = int(info.published[:4]) if info.published and info.published[:4].isdigit() else None
            phrase, last = author_keys(info.first_author)
            self.by_id[info.arxiv_id] = len(self.seeds)
            self.by_doi[f"10.48550/arxiv.{info.arxiv_id}".lower()] = len(self.seeds)
            for doi in info.dois:
                self.by_doi[doi.lower()] = len(self.seeds)
            toks = {t for t in plain.split() if t not in STOPWORDS} or set(plain.split())
            self.seeds.append(
                Seed(
                    info,
                    plain,
                    len(plain.split()),
                    year,
                    phrase,
                    last,
                    frozenset(toks),
                    nt.seed_name(info.title),
                )
            )
            tokens.append(toks)
            for t in toks:
                df[t] += 1
        # A title candidate shares 60% of the seed's words (``least``). By pigeonhole, a reference
        # holding ``least`` of a seed's n words holds one of any n - least + 1 of them, so the seed
        # is posted under its n - least + 1 rarest words and one hit proposes it: which words
        # are rarest (document frequency over the seeds indexed) only sets the lists' lengths,
        # never the candidates. A candidate is thus a property of the (reference, seed) pair
        # alone, whatever other seeds share the index: a refresh that resolves an old list
        # against a month's new seeds gets what a full re-resolve would (resolve_stage).
        self.least = [-(-len(toks) * 3 // 5) for toks in tokens]  # ceil(0.6 * n)
        self.postings: dict[str, list[int]] = defaultdict(list)
        self.ranked: list[tuple[str, ...]] = []  # each seed's words, rarest first
        for i, toks in enumerate(tokens):
            ranked = tuple(sorted(toks, key=lambda t: (df[t], -len(t), t)))
            self.ranked.append(ranked)
            for t in ranked[: len(toks) - self.least[i] + 1]:
                self.postings[t].append(i)
        self.tokens = [sd.tokens for sd in self.seeds]
        # Two adjacent seed words as PDF text glues them ("QuantumField"): a reference word equal
        # to one stands for both words in the candidate look-up.
        self.glued: dict[str, tuple[str, str]] = {}
        for sd in self.seeds:
            for a, b in glued_pairs(sd.plain):
                self.glued.setdefault(a + b, (a, b))
        # Main titles of seeds with a subtitle, for entries that leave the subtitle out.
        self.heads = th.HeadIndex([sd.info.title for sd in self.seeds], STOPWORDS)
        # How many seeds carry each folded title: a short title printed first is accepted only
        # where no other seed's title fits the same field (``short_title_first``).
        self.titled = Counter(sd.plain for sd in self.seeds)

    def __len__(self) -> int:
        return len(self.seeds)

    # --- candidates -------------------------------------------------------------------------
    def candidates(self, ref: Reference) -> dict[int, str]:
        """Seed index -> the method that proposed it (id and DOI before title).

        A title candidate shares 60% of the seed's title words with the reference (``least``:
        two of two or three, three of four or five): a typo'd or truncated word still leaves the
        rest, while a common word alone never drags in every seed that contains it."""
        postings, toks, least = self.postings, self.tokens, self.least
        ws = ref.wordset
        hits = set(chain.from_iterable(postings[w] for w in ws if w in postings))
        out = {i: "title" for i in sorted(hits) if len(toks[i] & ws) >= least[i]}
        if ref.entry.doi and ref.entry.doi in self.by_doi:
            out[self.by_doi[ref.entry.doi]] = "doi"
        if ref.entry.arxiv_id and ref.entry.arxiv_id in self.by_id:
            out[self.by_id[ref.entry.arxiv_id]] = "arxiv_id"
        return out

    def plausible(self, seed_i: int, ref: Reference) -> bool:
        """Cheap exact pre-check before the alignment: 60% of the seed's words must be there
        (a typo, a split hyphenation or a truncation costs one or two words, not half)."""
        return len(self.tokens[seed_i] & ref.wordset) >= self.least[seed_i]

    # --- evidence, then one decision --------------------------------------------------------
    @cached_property
    def seeds_by_author(self) -> dict[str, list[Seed]]:
        """Seeds by their first author's surname, built on the first back-reference read (most
        lists have none, so an index does not pay for it up front)."""
        by_author: dict[str, list[Seed]] = defaultdict(list)
        for sd in self.seeds:
            if sd.author_last:
                by_author[sd.author_last].append(sd)
        return by_author

    def score_pair(self, seed_i: int, method: str, ref: Reference) -> Match:
        """One (reference, seed) decision: the pair's readings, every reader's evidence
        (``evidence/registry.py``), then one decision (``decision/decide.py``)."""
        t = self.thresholds
        seed = self.seeds[seed_i]
        pair = read_pair(seed, ref, t, self.titled.__getitem__, self.twins)
        if method in ("arxiv_id", "doi"):
            return decide_id_match(pair, method)
        read_author_before_title(pair)
        evidence = gather(pair, lambda base, so_far: score_of(base, so_far, t, unopposed=False))
        verdict = decide(pair.title_score, evidence, t)
        return Match(
            seed.info.arxiv_id,
            "title",
            round(verdict.score, 2),
            verdict.band,
            round(pair.title_score, 2),
            pair.author,
            verdict.reason or f"title field score {pair.title_score:.1f}",
            verdict.notes,
            pair.lay.start,
            verdict.veto,
        )

    def resolve_list(
        self, entries: Sequence[ParsedEntry | str], exclude: Collection[str] = ()
    ) -> list[list[Match]]:
        """``resolve`` for every entry of ONE reference list, in its printed order: a ditto dash
        ("———. Title") takes the authors of the nearest earlier entry that names any."""
        inherited = inherited_authors(entries)
        return [self.resolve(e, inh, exclude) for e, inh in zip(entries, inherited, strict=True)]

    def prepare(self, entry: ParsedEntry | str, inherited: Sequence[str] | None = None) -> Reference:
        """One entry read once for scoring (``Reference.of``), before the index's glued split.
        ``inherited``: for a ditto entry, the authors of the entry before (``resolve_list``)."""
        if isinstance(entry, str):
            # Ids are all the resolver needs up front; the full parse runs only on an id match.
            arxiv_id, version = find_arxiv_id(entry)
            entry = ParsedEntry(raw=entry, arxiv_id=arxiv_id, arxiv_version=version, doi=find_doi(entry))
        ref = Reference.of(entry)
        if same_author_as_before(entry.raw):
            ref.ditto, ref.inherited = True, tuple(inherited or ())
        return ref

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
        return self.resolve_prepared(self.prepare(entry, inherited), exclude)

    def allowed(self, seed_i: int, exclude: Collection[str] = (), written_on: str | None = None) -> bool:
        """Whether seed ``seed_i`` may be matched: not excluded, and first published no later
        than ``written_on`` (the citing version's date, where known: a text cannot cite a paper
        that did not exist yet, so that pair is never scored)."""
        info = self.seeds[seed_i].info
        if exclude and info.arxiv_id in exclude:
            return False
        return not published_after(info.published, written_on)

    def resolve_prepared(
        self, ref: Reference, exclude: Collection[str] = (), written_on: str | None = None
    ) -> list[Match]:
        """``resolve`` for an entry already ``prepare``d (its words are read once: the resolve
        stage stores them for a later refresh's look-up). ``written_on``: the citing version's
        date; seeds first published after it are never matched (``allowed``)."""
        split = [part for w in ref.words if w in self.glued for part in self.glued[w]]
        if split:
            ref.wordset = ref.wordset.union(split)
        out = []
        cands = {i: m for i, m in self.candidates(ref).items() if self.allowed(i, exclude, written_on)}
        for seed_i, method in cands.items():
            m = self.score_pair(seed_i, method, ref)
            if m.score >= self.thresholds.keep or method != "title":
                out.append(m)
        out = second_readings.apply(self, ref, list(cands), out, exclude, written_on)
        return rank(out, ref, self.seeds, self.by_id, self.thresholds.late_years)
