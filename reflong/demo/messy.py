"""How a synthetic bibliography entry goes wrong, as real ones do, deterministically from the seed.

Real bibliographies do not print every cited title verbatim. ``reflong.demo.bib_phenomena``
labels what goes wrong; ``RATES`` here are the shares that classifier measured on the real corpus
(``python bench/bib_phenomena.py``: 3,572 entries read from the 55 PDFs of ../shared/corpus, and
203 entries citing one of its seeds), so the synthetic worlds follow them:

* ``unpunctuated``: a citing paper in an IOP/Vancouver-like style (``Lee A, Kim B 2024 Title
  words Proc. NeurIPS 12-24``), no punctuation after any title (per paper: 0.8%, between the
  corpus's 0.5% of seed citations and the 2.6% of the issue's real strings of other fields);
* ``earlier_title``: the cited paper's title changed between arXiv versions and the citer quotes
  the v1 title (the world's catalog holds that v1 title in its ``versions``; the index of current
  titles knows only the new one);
* ``subtitle_dropped`` ("X: Y" printed "X"), ``typo`` (two letters swapped or one dropped);
* ``venue_only``: no title at all, authors and venue (mostly physics, astronomy and web pages in the
  corpus: "Mommert, M., et al. 2014a, ApJ, 786, 148"; rarely an arXiv paper, 1 of its 203 seed
  citations), so 1.1% of the entries for other works and 0.5% for arXiv papers; the arXiv id or DOI
  stays when the entry's form has one;
* PDF-extraction damage: ``hyphen_break`` ("grav- itational"), ``glued`` ("networks.In NeurIPS"),
  ``truncated`` (cut at a comma, the rest lost at a column end).

The corpus shows 0 of 203 seed citations with a changed title or a dropped subtitle (a 95% upper
bound of 1.5%); the issue's 4,100 real gold pairs of other fields show 1.1% "printed differently",
which is the rate used for those. Every draw comes from the entry's own stream
(``<bibliography stream>:<cited key>:messy``), so the clean draws of ``references`` are unchanged.

What a venue-only entry proves: Ref-Long's truth is what reading the PDF can prove. An entry with
no title, no arXiv id and no DOI names a venue and authors only, which no reading can tie to one
paper, so ``provable`` says False for it and the rehearsal counts such a (citing, seed) pair
neither way, as the corpus labels count their "ambiguous" pairs.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass

# Per-entry rates (per-paper for the style), from the corpus measurement above.
RATES = {
    "unpunctuated": 0.008,
    "subtitle_dropped": 0.011,
    "typo": 0.008,
    "venue_only": 0.011,  # other works (older papers, web pages, physics journals)
    "venue_only_arxiv": 0.005,  # arXiv papers (the seeds): 1 of the corpus's 203 seed citations
    "hyphen_break": 0.001,
    "glued": 0.001,
    "truncated": 0.001,
}
RETITLED = 0.08  # share of papers with a v2 whose v1 carried another title
QUOTES_V1 = 0.5  # share of citations of a retitled paper that quote its v1 title

_ADDED_WORDS = ("Towards", "Efficient", "Scalable", "Robust", "Simple", "Fast")


@dataclass(frozen=True)
class Mess:
    """What goes wrong in one entry (all False: the clean entry)."""

    venue_only: bool = False
    subtitle_dropped: bool = False
    typo: bool = False
    hyphen_break: bool = False
    glued: bool = False
    truncated: bool = False
    earlier_title: str | None = None  # the v1 title the citer quotes
    rng_seed: str = ""  # where the damage falls, drawn from its own stream


def draw_mess(stream: str, key: str, earlier: str | None, on_arxiv: bool = True) -> Mess:
    """The mess of the entry for ``key`` in the bibliography ``stream`` (``earlier``: the cited
    paper's v1 title when it differs from the current one; ``on_arxiv``: the cited work is an arXiv
    paper, printed venue-only far less often than the rest, as in the corpus)."""
    r = random.Random(f"{stream}:{key}:messy").random
    return Mess(
        venue_only=r() < RATES["venue_only_arxiv" if on_arxiv else "venue_only"],
        subtitle_dropped=r() < RATES["subtitle_dropped"],
        typo=r() < RATES["typo"],
        hyphen_break=r() < RATES["hyphen_break"],
        glued=r() < RATES["glued"],
        truncated=r() < RATES["truncated"],
        earlier_title=earlier if earlier and r() < QUOTES_V1 else None,
        rng_seed=f"{stream}:{key}:where",
    )


def unpunctuated_style(stream: str) -> bool:
    """Whether the citing paper of ``stream`` prints its titles without punctuation."""
    return random.Random(f"{stream}:style").random() < RATES["unpunctuated"]


def provable(form: str, mess: Mess) -> bool:
    """Whether reading the entry can tie it to the cited paper: a title, an arXiv id or a DOI."""
    return not (mess.venue_only and form == "title")


def earlier_title(arxiv_id: str, title: str, n_versions: int, seed: int = 0) -> str | None:
    """The v1 title of a paper retitled in its v2, or None (not retitled; one version; a title with
    TeX or line breaks, whose cleaned form the reader would print otherwise).

    The change is one a real revision makes: a subtitle added later (v1 had none), a word dropped
    from inside the title (v1 had it), or a word of it replaced."""
    if n_versions < 2 or "$" in title or "\n" in title:
        return None
    rng = random.Random(f"retitle:{seed}:{arxiv_id}")
    if rng.random() >= RETITLED:
        return None
    head, sep, _sub = title.partition(": ")
    words = title.split()
    kind = rng.random()
    if sep and " " in head.strip() and kind < 0.4:
        return head  # v2 added the subtitle
    if kind < 0.7 or len(words) < 4:  # v2 dropped a word (inside the title, after its first)
        i = rng.randrange(1, len(words))
        return " ".join([*words[:i], rng.choice(_ADDED_WORDS).lower(), *words[i:]])
    i = rng.randrange(1, len(words))
    while words[i].lower() in ("for", "of", "and", "the", "a", "in", "on", "with", "via") and i > 1:
        i -= 1
    replacement = rng.choice(("Improving", "Learning", "Understanding", "Rethinking", "Evaluating"))
    if replacement.lower() == words[i].lower():
        replacement = "Revisiting"
    return " ".join([*words[:i], replacement, *words[i + 1 :]])


def printed_title(title: str, mess: Mess) -> str:
    """The title as the entry prints it (before the style's case and punctuation)."""
    t = mess.earlier_title or title
    if mess.subtitle_dropped and ": " in t:
        t = t.partition(": ")[0]
    if mess.typo:
        rng = random.Random(mess.rng_seed + ":typo")
        words = t.split(" ")
        long = [i for i, w in enumerate(words) if len(w) >= 5 and w.isalpha()]
        if long:
            i = rng.choice(long)
            w = words[i]
            j = rng.randrange(1, len(w) - 2)
            words[i] = w[:j] + w[j + 1] + w[j] + w[j + 2 :] if rng.random() < 0.5 else w[:j] + w[j + 1 :]
            t = " ".join(words)
    if mess.hyphen_break:
        rng = random.Random(mess.rng_seed + ":hyphen")
        words = t.split(" ")
        long = [i for i, w in enumerate(words) if len(w) >= 8 and w.isalpha()]
        if long:
            i = rng.choice(long)
            j = rng.randrange(3, len(words[i]) - 3)
            words[i] = f"{words[i][:j]}- {words[i][j:].lower()}"
            t = " ".join(words)
    return t


_SENTENCE_END = re.compile(r"(?<=[a-z]{2})\. (?=[A-Z][a-z]|arXiv)")


def damage(text: str, title_end: int, mess: Mess) -> str:
    """PDF-extraction damage after the title: glue the title to what follows, or cut the entry."""
    if mess.glued:
        m = _SENTENCE_END.search(text, max(0, title_end - 2))
        if m:
            text = text[: m.start() + 1] + text[m.end() :]
    if mess.truncated:
        commas = [m.start() for m in re.finditer(", ", text) if m.start() > title_end]
        if commas:
            text = text[: random.Random(mess.rng_seed + ":cut").choice(commas) + 1]
    return text
