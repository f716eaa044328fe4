"""PDFs rendered on request for a metadata-only catalog, from the world's citation truth.

The 2024-sized catalog (``synth-catalog``) has ~90,000 papers and no PDFs; rendering them all
would take hours and tens of GB, while a build fetches a few thousand. So the arXiv stand-in asks
``OnDemandPdfs(arxiv_id, version)`` for a version the catalog has no file of, and gets a two-column
PDF rendered by the demo's renderer (``document.compose`` + ``render.render_pdf``):

* its bibliography holds the seed-window papers the truth (``citations.jsonl``) says it cites,
  printed in the demo's entry forms (arXiv id, DOI, title only, author-year or numbered), plus
  older works outside the catalog (dated 2015-2022, so none can be mistaken for a seed by date);
* entries go wrong as real ones do (``messy``, the default: ``reflong.demo.messy``, at the shares
  measured on the real corpus): unpunctuated styles, titles of earlier versions (the catalog's
  ``versions`` keep a retitled paper's v1 title), dropped subtitles, typos, venue-only entries,
  PDF-extraction damage; ``provable(citing, cited)`` says whether the entry gives any reading a
  title, an arXiv id or a DOI to go on (a venue-only entry does not);
* a version dated before the seed window cites no seed (papers cannot cite the future), so a
  distractor read at its pinned version is date-safe, as in the real world;
* the length comes from ``length_model(arxiv_id) -> target tokens`` (default: the demo's ~3.5K),
  the hook where a realistic length distribution plugs in; ``lengths="real"`` plugs in the corpus
  model of ``synth-arxiv --paper-lengths real`` (``world.real_lengths``: body tokens and reference
  entries per paper, long-form entries), so a real-scale run sees real-sized documents.

Bytes depend only on (catalog, truth, seed, paper, version): a rerun gets the same PDF.
"""

from __future__ import annotations

import random
from collections import OrderedDict, defaultdict
from collections.abc import Callable
from datetime import date
from pathlib import Path

from reflong.demo import text
from reflong.demo.document import compose
from reflong.demo.messy import draw_mess, provable
from reflong.demo.references import Entry, bibliography, choose_form
from reflong.demo.render import render_pdf
from reflong.demo.titles import realistic_title
from reflong.demo.world import LENGTH_MODELS, REAL_BODY_SCALE, Paper, Version, Work, real_lengths
from reflong.ingest.catalog.reader import Catalog

DEFAULT_TOKENS = 3500


def _day(value: str | None) -> date:
    return date.fromisoformat(value[:10]) if value else date(2024, 1, 1)


class OnDemandPdfs:
    """``pdfs(arxiv_id, number) -> bytes | None`` for any catalog paper version (None: unknown)."""

    def __init__(
        self,
        catalog: Catalog,
        truth_file: Path | str,
        seed: int = 0,
        length_model: Callable[[str], int] | None = None,
        cache_size: int = 64,
        lengths: str = "demo",
        messy: bool = True,
    ) -> None:
        import json

        if lengths not in LENGTH_MODELS:
            raise ValueError(f"unknown length model {lengths!r}: use one of {', '.join(LENGTH_MODELS)}")
        self.catalog = catalog
        self.seed = seed
        self.lengths = lengths
        self.messy = messy
        self.earlier_titles = earlier_titles(Path(truth_file).parent / "papers.jsonl") if messy else {}
        self.length_model = length_model or (
            self._real_tokens if lengths == "real" else lambda _id: DEFAULT_TOKENS
        )
        self.cites: dict[str, list[str]] = defaultdict(list)
        for line in Path(truth_file).read_text(encoding="utf-8").splitlines():
            if line:
                rec = json.loads(line)
                self.cites[rec["citing"]].append(rec["cited"])
        self._cache: OrderedDict[tuple[str, int], bytes] = OrderedDict()
        self._size = cache_size
        self.rendered = 0

    def _work(self, arxiv_id: str) -> Work:
        p = self.catalog.papers[arxiv_id]
        authors = list(p.authors) or ["A. Author"]
        return Work(arxiv_id, p.title, authors, _day(p.first_published), arxiv_id, p.doi, "arXiv preprint")

    def _real_tokens(self, arxiv_id: str) -> int:
        # As world.plan_world sizes a real-length paper: compose() subtracts 40 a planned entry.
        body, n_refs = real_lengths(self.seed, arxiv_id)
        return round(body * REAL_BODY_SCALE) + 40 * n_refs + 150

    def _fillers(self, arxiv_id: str, n_cited: int) -> list[Work]:
        rng = random.Random(f"on-demand:{self.seed}:{arxiv_id}:fillers")
        n = rng.randint(15, 35)
        if self.lengths == "real":
            n = max(0, real_lengths(self.seed, arxiv_id)[1] - n_cited)
        out = []
        for i in range(n):
            year = rng.randint(2015, 2022)
            authors = [text.person(rng) for _ in range(rng.randint(1, 4))]
            venue = rng.choice(text.VENUES)
            out.append(
                Work(
                    f"ext-{arxiv_id}-{i}",
                    realistic_title(rng.random),
                    authors,
                    date(year, 6, 1),
                    None,
                    None,
                    venue,
                )
            )
        return out

    def _stream(self, arxiv_id: str) -> str:
        return f"on-demand:{self.seed}:{arxiv_id}:bib"

    def provable(self, citing: str, cited: str) -> bool:
        """Whether ``citing``'s entry for ``cited`` gives a reading anything to tie it to the work
        (a title, an arXiv id, a DOI): the same draws as the rendered entry's."""
        if not self.messy or cited not in self.catalog.papers:
            return True
        stream = self._stream(citing)
        form = choose_form(self._work(cited), random.Random(f"{stream}:{cited}"))
        return provable(form, draw_mess(stream, cited, self.earlier_titles.get(cited)))

    def entries(self, arxiv_id: str, number: int) -> tuple[list[Entry], str] | None:
        """The bibliography (and its style) the PDF of this version prints; None: no such version."""
        printed = self._printed(arxiv_id, number)
        return (printed[1], printed[2]) if printed else None

    def _printed(self, arxiv_id: str, number: int) -> tuple[list[Work], list[Entry], str, date] | None:
        """(cited works, their entries, the style, the version's date) of one paper version."""
        paper = self.catalog.papers.get(arxiv_id)
        version = self.catalog.version(arxiv_id, number) if paper else None
        if paper is None or version is None:
            return None
        vdate = _day(version.date or paper.first_published)
        cited = [
            self._work(s)
            for s in sorted(set(self.cites.get(arxiv_id, ())))
            if s in self.catalog.papers and _day(self.catalog.papers[s].first_published) <= vdate
        ]
        works = cited + self._fillers(arxiv_id, len(cited))
        style = (
            "numbered" if random.Random(f"on-demand:{self.seed}:{arxiv_id}").random() < 0.6 else "author-year"
        )
        entries = bibliography(
            works, style, self._stream(arxiv_id), self.lengths == "real", self.messy, self.earlier_titles
        )
        return works, entries, style, vdate

    def __call__(self, arxiv_id: str, number: int) -> bytes | None:
        slot = (arxiv_id, number)
        if slot in self._cache:
            self._cache.move_to_end(slot)
            return self._cache[slot]
        printed = self._printed(arxiv_id, number)
        if printed is None:
            return None
        works, entries, style, vdate = printed
        paper = self.catalog.papers[arxiv_id]
        rng = random.Random(f"on-demand:{self.seed}:{arxiv_id}")
        rng.random()  # the style's draw (_printed)
        categories = list(paper.categories) or [paper.primary_category or "cs.CL"]
        vname = f"v{self.catalog.version(arxiv_id, number).number or 1}"
        demo_paper = Paper(
            work=self._work(arxiv_id),
            role="citing",
            categories=categories,
            style=style,
            target_tokens=self.length_model(arxiv_id),
            abstract=text.paragraph(rng, text.topic(rng), rng.randint(4, 6)),
            versions=[Version(vname, vdate, [w.key for w in works])],
        )
        by_key = {w.key: w for w in works} | {demo_paper.work.key: demo_paper.work}
        data = render_pdf(compose(demo_paper, demo_paper.versions[0], entries, by_key, self.seed), style)
        self.rendered += 1
        self._cache[slot] = data
        if len(self._cache) > self._size:
            self._cache.popitem(last=False)
        return data


def earlier_titles(papers_jsonl: Path) -> dict[str, str]:
    """{arXiv id: v1 title} of the catalog's papers retitled in a later version (their v1 entry of
    ``versions`` has a ``title``); empty when the catalog has no papers.jsonl."""
    import json

    out: dict[str, str] = {}
    if not papers_jsonl.is_file():
        return out
    with papers_jsonl.open(encoding="utf-8") as fh:
        for line in fh:
            if line.count('"title":') < 2:  # cheap: most records carry one title
                continue
            rec = json.loads(line)
            versions = rec.get("versions") or []
            if versions and isinstance(versions[0], dict) and versions[0].get("title"):
                out[rec["arxiv_id"]] = versions[0]["title"]
    return out


def unprovable_pairs(world: Path | str) -> set[tuple[str, str]]:
    """The world's true (citing, cited) pairs whose printed entry no reading can tie to the cited
    paper (venue only: no title, arXiv id or DOI). Ref-Long's truth is what the PDF proves, so
    scoring counts these neither way."""
    from reflong.demo.citation_graph import TRUTH_FILE, read_truth_pairs
    from reflong.ingest.catalog.reader import read_catalog

    world = Path(world)
    pdfs = OnDemandPdfs(read_catalog(world), world / TRUTH_FILE)
    return {pair for pair in sorted(read_truth_pairs(world / TRUTH_FILE)) if not pdfs.provable(*pair)}
