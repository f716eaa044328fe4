"""Resolver at scale: 100,000 reference strings against 10,000 seed titles, with known answers.

    python bench/resolve.py [--refs 100000] [--seeds 10000] [--sample 40] [--agree-sample 2000] [--seed 0]

Material comes from the real corpus (../shared/corpus): seed and paper titles, GROBID TEI titles,
journal names and surnames, and the titles and author surnames of the corpus papers' own
bibliographies (raw PyMuPDF text of the pages from the "References" heading, split and parsed by
our code). Seeds: every distinct real title (a quarter held out as non-seeds), topped up with
titles from a word-bigram model of the real titles, plus near relatives ("... 2", "Towards ...",
"On ...", "... in Chinese", one word replaced); each seed gets a first author from the real
surnames. References: an author block (the seed's first author first, misspelt now and then)
and a venue around a seed title (40%; perturbed: case, line-break hyphens, quotes, zero-width
spaces, LaTeX, a typo; arXiv id with or without version) or a non-seed title (60%); each knows
its answer.

Prints, in one run: build and resolve time (wall and CPU) and peak memory of our resolver; time of
naive all-pairs ``rapidfuzz.process.cdist`` (partial_ratio, one worker, like ours) on --sample
references, scaled up to all; agreement on accepted edges between ours and (a) the cdist
candidates, (b) every seed scored without blocking on --agree-sample references, both decided by
the same rule, so only the blocking differs; accuracy of our accepted edges against the answers.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import resource
import sys
import time
import tracemalloc
from collections import Counter, defaultdict
from itertools import chain
from pathlib import Path

from rapidfuzz import fuzz, process

from reflong.citations.fields.entry_parse import parse_entry
from reflong.citations.fields.normalize import norm
from reflong.citations.fields.split import split_references
from reflong.citations.records import Reference
from reflong.citations.resolve import SeedIndex, SeedTitle

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"


_BAD_TITLE = re.compile(
    r"(?i)\b(in proceedings|proceedings|conference|journal|transactions|workshop|arxiv|preprint|http|"
    r"url|doi|pp|vol|volume|pages|press|university|advances in)\b|\d{4}|[\[\]{}]|,\s*$"
)
_SURNAME = re.compile(r"^[A-Z][a-z]+(?:-[A-Z][a-z]+)?$")


def corpus_material(corpus: Path) -> tuple[list[str], list[str], list[str]]:
    """Real titles, surnames and venues from the corpus: recorded metadata, GROBID TEI, and the
    corpus papers' own bibliographies (raw PyMuPDF text, split and parsed by our code). Only
    clean pieces are kept (titles that do not look like venues, capitalised surnames)."""
    import pymupdf

    from reflong.citations.fields.grobid import TEI, parse_tei

    titles: list[str] = []
    surnames: set[str] = set()
    venues: set[str] = set()
    for line in (corpus / "seeds.jsonl").read_text().splitlines():
        titles.append(json.loads(line)["title"])
    for line in (corpus / "papers.jsonl").read_text().splitlines():
        meta = json.loads(line)
        titles.append(meta["title"])
        surnames.update(a for a in meta["authors"] if _SURNAME.match(a))
    from lxml import etree

    for tei in sorted((corpus / "grobid").glob("*.tei.xml")):
        titles += [
            e.title for e in parse_tei(tei.read_bytes())[0] if e.title and not _BAD_TITLE.search(e.title)
        ]
        root = etree.fromstring(tei.read_bytes())
        surnames.update(x.text for x in root.iter(f"{TEI}surname") if x.text and _SURNAME.match(x.text))
        venues.update(
            " ".join(x.itertext()).strip()
            for x in root.iter(f"{TEI}title")
            if x.get("level") == "j" and 2 <= len(" ".join(x.itertext()).split()) <= 12
        )
    heading = re.compile(r"(?im)^\s*(?:\d+\.?\s*)?(references|bibliography)\s*$")
    year_after_authors = re.compile(r"\.\s(?:19|20)\d\d[a-z]?\.\s")
    for line in (corpus / "papers.jsonl").read_text().splitlines():
        meta = json.loads(line)
        pages: list[str] = []
        with pymupdf.open(corpus / meta["file"]) as doc:  # from the back to the references heading
            for page in reversed(doc):
                pages.insert(0, page.get_text())
                if heading.search(pages[0]) or len(pages) >= 12:
                    break
        text = "\n".join(pages)
        found = list(heading.finditer(text))
        if not found:
            continue
        entries, _ = split_references(text[found[-1].end() :][:200_000])
        for raw in entries:
            e = parse_entry(raw)
            if e.title and 4 <= len(e.title.split()) <= 20 and not _BAD_TITLE.search(e.title):
                titles.append(e.title)
            if year_after_authors.search(raw):  # ACL style: "Authors. 2019. Title." - clean authors
                surnames.update(a.capitalize() for a in e.authors if a.isalpha() and 3 <= len(a) <= 14)
    venues.update(
        [
            "In Advances in Neural Information Processing Systems",
            "In Proceedings of the 2019 Conference of the North American Chapter of the Association for "
            "Computational Linguistics: Human Language Technologies, pages 4171-4186",
            "In International Conference on Learning Representations",
            "arXiv preprint",
            "Journal of Machine Learning Research, 21(140):1-67",
            "In Proceedings of the IEEE Conference on Computer Vision and Pattern Recognition",
            "Phys. Rev. D 98, 030001",
            "CoRR",
        ]
    )
    # GROBID sometimes files a paper title as a journal title: a venue must not be a known title.
    known = {norm(t) for t in titles}
    venues = {v for v in venues if norm(v) not in known and ":" not in v and "ArXiv" not in v}
    return titles, sorted(surnames), sorted(venues)


def author_block(surnames: list[str], rng: random.Random, first: str | None = None) -> str:
    names = [
        f"{rng.choice('ABCDEFGHJKLMNPRSTVWXYZ')}. {rng.choice(surnames)}" for _ in range(rng.randint(1, 7))
    ]
    if first:  # a reference to a seed names the seed's first author first (misspelt now and then)
        if rng.random() < 0.05 and len(first) > 4:
            first = first[:2] + first[3] + first[2] + first[4:]
        names[0] = f"{rng.choice('ABCDEFGHJKLMNPRSTVWXYZ')}. {first}"
    if len(names) > 5 and rng.random() < 0.5:
        return ", ".join(names[:3]) + ", et al"
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + ", and " + names[-1]


def dedupe(titles: list[str]) -> list[str]:
    seen, out = set(), []
    for t in titles:
        key = norm(t)
        if len(key.split()) >= 2 and key not in seen:
            seen.add(key)
            out.append(t.strip())
    return out


def bigram_titles(real: list[str], n: int, rng: random.Random, avoid: set[str]) -> list[str]:
    """New titles that read like the real ones: a word-bigram walk over the real titles."""
    nxt: dict[str, list[str]] = defaultdict(list)
    starts = []
    for t in real:
        words = t.split()
        starts.append(words[0])
        for a, b in zip(["<s>", *words], [*words, "</s>"], strict=True):
            nxt[a].append(b)
    out: list[str] = []
    while len(out) < n:
        words = [rng.choice(starts)]
        while len(words) < 16:
            w = rng.choice(nxt[words[-1]]) if nxt[words[-1]] else "</s>"
            if w == "</s>":
                break
            words.append(w)
        title = " ".join(words)
        key = norm(title)
        if 4 <= len(words) <= 16 and key not in avoid:
            avoid.add(key)
            out.append(title)
    return out


def relatives(real: list[str], n: int, rng: random.Random, avoid: set[str]) -> list[str]:
    out = []
    forms = [
        lambda t: t.split(":")[0] + " 2" + (":" + t.split(":", 1)[1] if ":" in t else ""),
        lambda t: "Towards " + t[0].lower() + t[1:],
        lambda t: "On " + t[0].lower() + t[1:],
        lambda t: t + " in Chinese",
        lambda t: " ".join(w if i != len(t.split()) // 2 else "efficient" for i, w in enumerate(t.split())),
    ]
    while len(out) < n:
        t = rng.choice(forms)(rng.choice(real))
        if norm(t) not in avoid:
            avoid.add(norm(t))
            out.append(t)
    return out


def perturb_title(title: str, rng: random.Random) -> str:
    t = title
    r = rng.random()
    if r < 0.3:
        t = t.lower()
    elif r < 0.4:
        t = t.upper()
    words = t.split()
    if rng.random() < 0.3 and len(words) > 3:  # line-break hyphen inside a long word
        i = max(range(len(words)), key=lambda k: len(words[k]))
        w = words[i]
        if len(w) > 6:
            words[i] = w[: len(w) // 2] + "-\n" + w[len(w) // 2 :]
    if rng.random() < 0.15 and len(words) > 2:  # a typo
        i = rng.randrange(len(words))
        w = words[i]
        if len(w) > 4:
            j = rng.randrange(1, len(w) - 1)
            words[i] = w[:j] + w[j + 1] + w[j] + w[j + 2 :]
    t = " ".join(words)
    if rng.random() < 0.1:
        t = t.replace(" ", " \u200b", 1)
    if rng.random() < 0.1:
        t = "{\\em " + t + "}"
    if rng.random() < 0.15:
        t = "\u201c" + t + ",\u201d"
    return t


def make_reference(
    k: int, title: str, answer: str | None, surnames, venues, rng, first: str | None = None
) -> str:
    author = author_block(surnames, rng, first)
    venue = rng.choice(venues)
    year = rng.randint(2015, 2025)
    ident = ""
    if answer and rng.random() < 0.35:
        ident = (
            f" arXiv preprint arXiv:{answer}" + (f"v{rng.randint(1, 4)}" if rng.random() < 0.3 else "") + "."
        )
    style = rng.random()
    if style < 0.35:
        return f"{author}. {year}. {title}. {venue}.{ident}"
    if style < 0.75:
        return f"[{k}] {author}. {title}. {venue}, {year}.{ident}"
    return f"{author}, {title}, {venue} ({year}).{ident}"


def decided(index: SeedIndex, ref: Reference, candidates: dict[int, str]) -> set[str]:
    """Accepted seeds for one reference from given candidates (the resolver's own rule)."""
    ms = [index.score_pair(i, m, ref) for i, m in candidates.items()]
    acc = sorted((m for m in ms if m.band == "accept"), key=lambda m: (-m.score, m.seed_id))
    return {acc[0].seed_id} if acc else set()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--refs", type=int, default=100_000)
    ap.add_argument("--seeds", type=int, default=10_000)
    ap.add_argument("--sample", type=int, default=40, help="references for the timed cdist all-pairs run")
    ap.add_argument("--agree-sample", type=int, default=2000, help="references scored without blocking")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--corpus", type=Path, default=CORPUS)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    t_all = time.perf_counter()

    t0 = time.perf_counter()
    titles, surnames, venues = corpus_material(args.corpus)
    real = dedupe(titles)
    rng.shuffle(real)
    held_out = real[: len(real) // 4]  # real titles that are never seeds (negatives)
    seed_real = real[len(real) // 4 :]
    avoid = {norm(t) for t in real}
    n_rel = min(args.seeds // 20, 500)
    seed_titles = seed_real + relatives(seed_real, n_rel, rng, avoid)
    seed_titles += bigram_titles(real, max(0, args.seeds - len(seed_titles)), rng, avoid)
    seed_titles = seed_titles[: args.seeds]
    negatives = held_out + bigram_titles(real, 20_000, rng, avoid)
    seeds = [
        SeedTitle(f"{2101 + i // 90000}.{i % 90000 + 10000:05d}", t, None, rng.choice(surnames))
        for i, t in enumerate(seed_titles)
    ]
    refs: list[tuple[str, str | None]] = []
    for k in range(args.refs):
        answer = rng.choice(seeds) if rng.random() < 0.4 else None
        title = answer.title if answer else rng.choice(negatives)
        aid = answer.arxiv_id if answer else None
        first = answer.first_author if answer else None
        ref = make_reference(k % 80 + 1, perturb_title(title, rng), aid, surnames, venues, rng, first)
        refs.append((ref, aid))
    t_gen = time.perf_counter() - t0
    print(
        f"material: {len(real)} real titles, {len(surnames)} surnames, {len(venues)} venues from the corpus"
    )
    print(
        f"data: {len(seeds)} seeds ({len(seed_real)} real, {n_rel} relatives), {len(refs)} references "
        f"({sum(a is not None for _, a in refs)} cite a seed); generated in {t_gen:.1f}s"
    )

    # --- ours ---------------------------------------------------------------------------------
    t0 = time.perf_counter()
    index = SeedIndex(seeds)
    t_build = time.perf_counter() - t0
    t0, c0 = time.perf_counter(), time.process_time()
    ours: list[set[str]] = []
    for raw, _ in refs:
        ours.append({m.seed_id for m in index.resolve(raw) if m.band == "accept"})
    t_ours, c_ours = time.perf_counter() - t0, time.process_time() - c0
    tracemalloc.start()  # memory measured apart: tracing slows Python down several times
    SeedIndex(seeds).resolve(refs[0][0])
    for raw, _ in refs[:2000]:
        index.resolve(raw)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(
        f"ours: index {t_build:.2f}s, resolve {t_ours:.2f}s wall / {c_ours:.2f}s CPU "
        f"({len(refs) / t_ours:,.0f} refs/s, one process); "
        f"peak traced memory of index + resolving {peak / 2**20:.0f} MiB (process max RSS {rss:.0f} MiB)"
    )

    # --- naive all pairs: cdist timed on a small sample, exhaustive agreement on a larger one -----
    sample = rng.sample(range(len(refs)), min(args.sample, len(refs)))
    seed_norms = [s.plain for s in index.seeds]
    prepared = [Reference.of(parse_entry(refs[i][0])) for i in sample]
    t0, c0 = time.perf_counter(), time.process_time()
    scores = process.cdist(
        [r.plain for r in prepared], seed_norms, scorer=fuzz.partial_ratio, workers=1, score_cutoff=50
    )
    t_cdist, c_cdist = time.perf_counter() - t0, time.process_time() - c0
    t_naive_all = t_cdist * len(refs) / len(sample)
    c_naive_all = c_cdist * len(refs) / len(sample)
    agree = union = 0
    for row, ref, i in zip(scores, prepared, sample, strict=True):
        cands = {int(j): "title" for j in row.nonzero()[0]}
        if ref.entry.arxiv_id and ref.entry.arxiv_id in index.by_id:
            cands[index.by_id[ref.entry.arxiv_id]] = "arxiv_id"
        naive = decided(index, ref, cands)
        agree += len(naive & ours[i])
        union += len(naive | ours[i])
    print(
        f"naive cdist(partial_ratio): {t_cdist:.2f}s for {len(sample)} refs x {len(seeds)} seeds "
        f"-> {t_naive_all:,.0f}s wall / {c_naive_all:,.0f}s CPU scaled to {len(refs)} refs; "
        f"speed-up of ours: {t_naive_all / t_ours:,.0f}x wall, {c_naive_all / max(c_ours, 1e-9):,.0f}x CPU"
    )
    print(f"agreement on accepted edges, cdist sample: {agree / max(1, union):.4%} ({agree}/{union})")
    big = rng.sample(range(len(refs)), min(args.agree_sample, len(refs)))
    agree = union = 0
    differ: list[str] = []
    # Every seed that shares 60% of its words with the reference (the resolver never scores
    # fewer), found through an index of *all* title words rather than a loop over the seeds:
    # the same set an exhaustive scan with ``index.plausible`` gives, without blocking keys.
    every_word: dict[str, list[int]] = defaultdict(list)
    for j, s in enumerate(index.seeds):
        for w in s.tokens:
            every_word[w].append(j)
    for i in big:
        ref = Reference.of(parse_entry(refs[i][0]))
        shared = Counter(chain.from_iterable(every_word[w] for w in ref.wordset if w in every_word))
        cands = {j: "title" for j, n in shared.items() if n >= index.least[j]}
        if ref.entry.arxiv_id and ref.entry.arxiv_id in index.by_id:
            cands[index.by_id[ref.entry.arxiv_id]] = "arxiv_id"
        naive = decided(index, ref, cands)
        agree += len(naive & ours[i])
        union += len(naive | ours[i])
        if naive != ours[i]:
            differ.append(
                f"  differs: unblocked {sorted(naive)} vs ours {sorted(ours[i])}: {refs[i][0][:160]!r}"
            )
    print(
        f"agreement on accepted edges, all {len(seeds)} seeds scored without blocking, {len(big)} refs: "
        f"{agree / max(1, union):.4%} ({agree}/{union})"
    )
    print("\n".join(differ[:10]))

    # --- accuracy against the known answers -------------------------------------------------------
    tp = sum(1 for (_, a), got in zip(refs, ours, strict=True) if a and a in got)
    fp = sum(len(got - {a}) for (_, a), got in zip(refs, ours, strict=True))
    pos = sum(a is not None for _, a in refs)
    print(
        f"accuracy vs known answers: precision {tp / max(1, tp + fp):.4f}, recall {tp / max(1, pos):.4f} "
        f"(tp={tp} fp={fp} positives={pos})"
    )
    total = time.perf_counter() - t_all
    print(
        f"whole run: {total:.1f}s wall, {time.process_time():.1f}s CPU (machine load average "
        f"{__import__('os').getloadavg()[0]:.1f} on {__import__('os').cpu_count()} cores)"
    )
    sys.exit(0)


if __name__ == "__main__":
    main()
