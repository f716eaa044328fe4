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
from collections import Counter, defaultdict
from collections.abc import Collection, Iterable, Mapping, Sequence
from functools import cached_property
from itertools import chain, pairwise

from rapidfuzz import fuzz

from reflong.citations.candidates import title_heads as th
from reflong.citations.decision.decide import decide, score_of
from reflong.citations.decision.id_match import decide_id_match
from reflong.citations.evidence import author_after_title as aat
from reflong.citations.evidence import author_evidence as ae
from reflong.citations.evidence import cit_back_reference as cbr
from reflong.citations.evidence import edition_evidence as ee
from reflong.citations.evidence import name_tokens as nt
from reflong.citations.evidence import part_numbers as pn
from reflong.citations.evidence import scan_agreement as sa
from reflong.citations.evidence import title_evidence as te
from reflong.citations.evidence import variant_years as vy
from reflong.citations.evidence.containers import container_doubts, own_title_before
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
    sequel_marks_of,
)
from reflong.citations.thresholds import (
    SCAN_MIN_RATIO,
    Thresholds,
)


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
            plain = without_etc(norm(info.title))  # "Delle iscrizioni veneziane, ecc"
            year = int(info.published[:4]) if info.published and info.published[:4].isdigit() else None
            phrase, last = author_keys(info.first_author)
            self.by_id[info.arxiv_id] = len(self.seeds)
            self.by_doi[f"10.48550/arxiv.{info.arxiv_id}".lower()] = len(self.seeds)
            for doi in info.dois:
                self.by_doi[doi.lower()] = len(self.seeds)
            toks = {t for t in plain.split() if t not in STOPWORDS} or set(plain.split())
            self.seeds.append(
                Seed(
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
    def candidates(self, ref: Reference) -> dict[int, str]:
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

    def plausible(self, seed_i: int, ref: Reference) -> bool:
        """Cheap exact pre-check before the alignment: 60% of the seed's words must be there
        (a typo, a split hyphenation or a truncation costs one or two words, not half)."""
        return len(self.tokens[seed_i] & ref.wordset) >= self.least[seed_i]

    # --- evidence, then one decision --------------------------------------------------------
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

    def _head_match(self, seed_i: int, ref: Reference) -> Match | None:
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
        if not authorless and ae.first_author(seed.author_phrase, seed.author_last, ref.words, ref.bounds, first, ref.dash_at, seed.plain).verdict != "match":
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
                sequel_marks_of(seed.plain),
                te.sequel_marks(words) | te.trailing_sequel(ref.words, ref.bounds, last),
            )
            - te.sequel_marks(head.split())
            or ee.edition_doubts(head.split(), seed.year, ref.words, ref.years, [words], last, t.late_years)
            or container_doubts(seed, ref, first, last, "unknown" if authorless else "match")
            or pn.part_doubt(
                seed.info.title,
                ref.words,
                ref.bounds,
                first,
                last,
                ref.cased,
                own_title_before(ref, first),
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
        self, seed: Seed, out: list[Match], reason: str, score: float, author: str, at: int
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

    def _cit_back_reference(self, ref: Reference, out: list[Match]) -> Match | None:
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
    def _seeds_by_author(self) -> dict[str, list[Seed]]:
        """Seeds by their first author's surname, built on the first back-reference read (most
        lists have none, so an index does not pay for it up front)."""
        by_author: dict[str, list[Seed]] = defaultdict(list)
        for sd in self.seeds:
            if sd.author_last:
                by_author[sd.author_last].append(sd)
        return by_author

    def _back_reference_accept(
        self, pool: Iterable[Seed], head: str, years: list[int], note: str, author: str, out: list[Match]
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

    def _cit_unnamed(self, ref: Reference, out: list[Match]) -> Match | None:
        """``_cit_back_reference`` for a head printed without a name and marked as cut ("La
        politica veneziana ecc., cit."): the one seed of the whole list that opens with it."""
        shape = cbr.read_unnamed(ref.entry.raw)
        if shape is None:
            return None
        head, years = shape
        return self._back_reference_accept(
            self.seeds, head, years, cbr.NOTE_UNNAMED.format(head=head), "unknown", out
        )

    def _author_after_title(self, ref: Reference, cands: list[int], out: list[Match]) -> Match | None:
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

    def _scan_agreement(self, ref: Reference, cands: list[int], out: list[Match]) -> Match | None:
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
            or container_doubts(seed, ref, first, last, "match")
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
        if te.differing_marks(sequel_marks_of(seed.plain), printed_marks) or pn.part_doubt(
            seed.info.title, ref.words, ref.bounds, first, last, ref.cased, own_title_before(ref, first)
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
        ref = Reference.of(entry)
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
