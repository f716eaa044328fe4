"""Compose one paper version as a logical document: header, sections, paragraphs, bibliography.

Text comes from :mod:`reflong.demo.text` on per-paper random streams: the body stream depends on
the paper only, so v1 and v2 share their prose and differ where a revision would (new references,
a closing note). Every bibliography entry is cited in the body by its marker.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from reflong.demo import text
from reflong.demo.references import Entry
from reflong.demo.world import Paper, Version, Work

MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
TOKENS_PER_SENTENCE = 22  # measured with o200k_base on this generator's sentences
TOKENS_PER_ENTRY = 40


@dataclass(frozen=True)
class Block:
    kind: str  # "heading" | "subheading" | "para" | "ref"
    text: str
    label: str = ""  # "[3]" for numbered references


@dataclass(frozen=True)
class Document:
    title: str
    authors: list[str]
    running_title: str
    stamp: str  # the arXiv margin stamp, e.g. "arXiv:2403.01234v2 [cs.CL] 12 Aug 2024"
    blocks: list[Block]
    metadata: dict[str, str]


def _name(work: Work) -> str | None:
    head, sep, _ = work.title.partition(":")
    return head if sep and " " not in head.replace(" 2", "") else None


def _with_marker(sentence: str, marker: str) -> str:
    return f"{sentence[:-1]} {marker}{sentence[-1]}"


def compose(
    paper: Paper, version: Version, entries: list[Entry], works: dict[str, Work], seed: int
) -> Document:
    brng = random.Random(f"reflong-demo:{seed}:{paper.arxiv_id}:body")
    vrng = random.Random(f"reflong-demo:{seed}:{paper.arxiv_id}:{version.version}:markers")
    top = text.topic(brng)
    n_sent = max(40, (paper.target_tokens - TOKENS_PER_ENTRY * len(entries) - 150) // TOKENS_PER_SENTENCE)
    plan = [
        ("1 Introduction", None, 0.18),
        ("2 Related Work", None, 0.17),
        ("3 Method", "3.1 Overview", 0.12),
        (None, "3.2 Training Objective", 0.13),
        ("4 Experiments", "4.1 Setup", 0.12),
        (None, "4.2 Results", 0.18),
        ("5 Conclusion", None, 0.10),
    ]
    sections: list[tuple[str | None, str | None, list[list[str]]]] = []
    for heading, sub, share in plan:
        left = max(3, round(n_sent * share))
        paras = []
        while left > 0:
            k = min(left, brng.randint(4, 8))
            sents: list[str] = []
            while len(sents) < k:
                s = text.sentence(brng, top)
                if s not in sents or brng.random() < 0.1:  # rare repeats, as in hurried prose
                    sents.append(s)
            paras.append(sents)
            left -= k
        sections.append((heading, sub, paras))

    # Cite every entry in the introduction or related work (seeds preferably in the introduction).
    intro, related = sections[0][2], sections[1][2]
    for e in entries:
        where = (
            intro if (e.key in works and not e.key.startswith("ext-") and vrng.random() < 0.5) else related
        )
        para = where[vrng.randrange(len(where))]
        name = _name(works[e.key])
        if name and vrng.random() < 0.5:
            para.insert(
                vrng.randrange(len(para) + 1), f"{name} {e.marker} is closely related to our approach."
            )
        else:
            i = vrng.randrange(len(para))
            para[i] = _with_marker(para[i], e.marker)
    if version.version != "v1":
        sections[-1][2].append(
            [
                f"This revised version ({version.version}) extends the discussion of related "
                f"work and updates the bibliography."
            ]
        )

    blocks = [Block("heading", "Abstract"), Block("para", paper.abstract)]
    for heading, sub, paras in sections:
        if heading:
            blocks.append(Block("heading", heading))
        if sub:
            blocks.append(Block("subheading", sub))
        blocks.extend(Block("para", " ".join(p)[:1].upper() + " ".join(p)[1:]) for p in paras)
    blocks.append(Block("heading", "References"))
    blocks.extend(Block("ref", e.text, e.label) for e in entries)

    d = version.published
    day = f"{d.day} {MONTHS[d.month - 1]} {d.year}"
    stamp = f"arXiv:{paper.arxiv_id}{version.version}  [{paper.categories[0]}]  {day}"
    running = paper.work.title.split(":")[0] if ":" in paper.work.title else paper.work.title
    pdf_date = f"D:{d.year:04d}{d.month:02d}{d.day:02d}000000Z"
    meta = {
        "title": paper.work.title,
        "author": "; ".join(paper.work.authors),
        "subject": f"arXiv:{paper.arxiv_id}{version.version}",
        "keywords": ", ".join(paper.categories),
        "creator": "reflong-build synth-arxiv",
        "producer": "reflong-build synth-arxiv (PyMuPDF)",
        "creationDate": pdf_date,
        "modDate": pdf_date,
    }
    return Document(paper.work.title, list(paper.work.authors), running, stamp, blocks, meta)
