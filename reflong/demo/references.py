"""Bibliography entries in the styles real papers use, for the synthetic arXiv.

Two styles across papers (numbered ``[3] A. Lee and B. Kim. Title. ...`` and author-year
``Lee, A. and Kim, B. (2024). Title. ...``) and three evidence forms per entry: an arXiv id, a DOI,
or the title alone (venue and year). The form is recorded in truth.jsonl so a resolver's method
(arXiv id / DOI / title) can be checked against what the entry actually offers.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from reflong.demo.messy import Mess, damage, draw_mess, printed_title, provable, unpunctuated_style
from reflong.demo.world import Work


@dataclass(frozen=True)
class Entry:
    key: str  # the cited work
    label: str  # "[3]" for numbered bibliographies, "" for author-year
    text: str  # the entry without its label, on one line
    form: str  # "arxiv" | "doi" | "title"
    marker: str  # how the body cites it: "[3]" or "(Lee et al., 2024)"
    provable: bool = True  # False: no title, id or DOI (venue only): no reading can tie it to the work


def _initials(name: str) -> tuple[str, str]:
    first, _, last = name.rpartition(" ")
    return ("".join(f"{p[0]}." for p in first.split()) if first else ""), last


def _authors_numbered(authors: list[str]) -> str:
    names = [f"{i} {last}".strip() for i, last in map(_initials, authors)]
    if len(names) > 5:
        return f"{', '.join(names[:3])}, et al"
    if len(names) == 1:
        return names[0]
    if len(names) == 2:
        return f"{names[0]} and {names[1]}"
    return f"{', '.join(names[:-1])}, and {names[-1]}"


def _authors_year(authors: list[str]) -> str:
    names = [f"{last}, {i}".strip(", ") for i, last in map(_initials, authors)]
    if len(names) == 1:
        return names[0]
    return f"{', '.join(names[:-1])}, and {names[-1]}"


def _authors_iop(authors: list[str]) -> str:
    """IOP/Vancouver-like names: surname and initials without periods, "et al" after six."""
    names = [f"{last} {i.replace('.', '')}".strip() for i, last in map(_initials, authors)]
    if len(names) > 6:
        return f"{', '.join(names[:3])} et al"
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def _sentence_case(title: str) -> str:
    """BibTeX-style lower-casing that keeps system names (inner capitals or digits) intact."""
    words = title.split(" ")
    out = [words[0]]
    for w in words[1:]:
        keep = any(c.isupper() for c in w[1:]) or any(c.isdigit() for c in w)
        out.append(w if keep else w.lower())
    return " ".join(out)


def _marker_author_year(work: Work) -> str:
    surnames = [_initials(a)[1] for a in work.authors]
    year = work.first_date.year
    if len(surnames) == 1:
        return f"({surnames[0]}, {year})"
    if len(surnames) == 2:
        return f"({surnames[0]} and {surnames[1]}, {year})"
    return f"({surnames[0]} et al., {year})"


def choose_form(work: Work, rng: random.Random) -> str:
    r = rng.random()
    if work.arxiv_id and r < 0.45:
        return "arxiv"
    if work.doi and r < 0.8:
        return "doi"
    return "title"


_PLACES = ("Bangkok, Thailand", "Vienna, Austria", "Miami, Florida, USA", "Toronto, Canada", "Singapore")
_PUBLISHERS = ("Association for Computational Linguistics", "PMLR", "Curran Associates, Inc.", "IEEE")


def _long_tail(work: Work, form: str, rng: random.Random) -> str:
    """What real entries add (the ``real`` length model): volume, place, publisher, URL."""
    if form == "arxiv":
        return f"URL https://arxiv.org/abs/{work.arxiv_id}."
    volume = rng.choice(("Volume 1: Long Papers", "Volume 2: Short Papers", "Main Track"))
    return f"{volume}. {rng.choice(_PLACES)}. {rng.choice(_PUBLISHERS)}."


def entry_body(
    work: Work,
    style: str,
    form: str,
    rng: random.Random,
    long: bool = False,
    mess: Mess | None = None,
    unpunctuated: bool = False,
) -> str:
    """One entry's text (no label): authors, title, and the form's evidence (``long``: with the
    volume, place, publisher or URL real bibliographies print; drawn after everything else, so the
    short form's draws are unchanged). ``mess`` and ``unpunctuated`` (``reflong.demo.messy``) print
    it as real bibliographies go wrong; without them the entry is the clean one."""
    year = work.first_date.year
    raw_title = printed_title(work.title, mess) if mess else work.title
    title = _sentence_case(raw_title) if rng.random() < 0.3 else raw_title
    pages = rng.randint(1, 900)
    if form == "arxiv":
        tail = rng.choice(
            (
                f"arXiv preprint arXiv:{work.arxiv_id}, {year}.",
                f"CoRR, abs/{work.arxiv_id}, {year}.",
                f"arXiv:{work.arxiv_id}.",
            )
        )
    elif form == "doi":
        tail = rng.choice(
            (
                f"In {work.venue}, pages {pages}-{pages + rng.randint(8, 14)}, {year}. doi:{work.doi}",
                f"{work.venue}, {year}. https://doi.org/{work.doi}",
            )
        )
    else:
        tail = rng.choice(
            (
                f"In {work.venue}, pages {pages}-{pages + rng.randint(8, 14)}, {year}.",
                f"{work.venue}, {year}.",
            )
        )
    if mess is not None and (mess.venue_only or unpunctuated):
        return _messy_text(work, style, form, title, tail, year, mess, unpunctuated, long, rng)
    title = title if title.endswith(("?", "!", ".")) else f"{title}."
    if style == "numbered":
        text = f"{_authors_numbered(work.authors)}. {title} {tail}"
    else:
        # author-year: the year follows the authors, so drop it from the tail's end
        tail = tail.replace(f", {year}.", ".") if not tail.startswith("arXiv:") else tail
        text = f"{_authors_year(work.authors)} ({year}). {title} {tail}"
    text = f"{text} {_long_tail(work, form, rng)}" if long else text
    return damage(text, text.find(title) + len(title), mess) if mess else text


def _messy_text(
    work: Work,
    style: str,
    form: str,
    title: str,
    tail: str,
    year: int,
    mess: Mess,
    unpunctuated: bool,
    long: bool,
    rng: random.Random,
) -> str:
    """A venue-only entry (no title) or one in a style with no punctuation after the title."""
    if unpunctuated:
        # IOP-like: "Lee A, Kim B and Park C 2024 Title words Proc. of ACL pages 12-24"
        tail = tail.replace(f", {year}.", "").replace(f" {year}.", "").rstrip(".").replace("In ", "", 1)
        head = f"{_authors_iop(work.authors)} {year}"
        title = title.rstrip(".")
    elif style == "numbered":
        head = f"{_authors_numbered(work.authors)}."
    else:
        tail = tail.replace(f", {year}.", ".") if not tail.startswith("arXiv:") else tail
        head = f"{_authors_year(work.authors)} ({year})."
    text = f"{head} {tail}" if mess.venue_only else f"{head} {title} {tail}"
    text = f"{text} {_long_tail(work, form, rng)}" if long else text
    return damage(text, len(head) if mess.venue_only else text.find(title) + len(title), mess)


def _on_arxiv(work: Work) -> bool:
    """A catalog paper (keyed by its arXiv id), not an older work outside the catalog."""
    return work.arxiv_id is not None and work.key == work.arxiv_id


def bibliography(
    works: list[Work],
    style: str,
    stream: str,
    long: bool = False,
    messy: bool = False,
    earlier_titles: dict[str, str] | None = None,
) -> list[Entry]:
    """Entries in the order the bibliography prints them.

    Numbered lists follow a pseudo-random "order of first citation" and author-year lists are
    alphabetical. Each entry's form and wording is drawn from its own stream (``stream`` + the cited
    work), so a paper's v2 prints the entries of v1 unchanged and only adds new ones. ``messy``:
    entries go wrong as real ones do (``reflong.demo.messy``; ``earlier_titles``: the v1 title of
    each cited work retitled in a later version), each from a stream of its own.
    """
    unpunctuated = messy and unpunctuated_style(stream)
    if style == "author-year":
        works = sorted(works, key=lambda w: (_initials(w.authors[0])[1], w.first_date, w.title))
    else:
        works = sorted(works, key=lambda w: (random.Random(f"{stream}:{w.key}:order").random(), w.key))
    entries = []
    for i, w in enumerate(works, start=1):
        rng = random.Random(f"{stream}:{w.key}")
        form = choose_form(w, rng)
        mess = draw_mess(stream, w.key, (earlier_titles or {}).get(w.key), _on_arxiv(w)) if messy else None
        body = entry_body(w, style, form, rng, long, mess, unpunctuated)
        ok = provable(form, mess) if mess else True
        if style == "numbered":
            entries.append(Entry(w.key, f"[{i}]", body, form, f"[{i}]", ok))
        else:
            entries.append(Entry(w.key, "", body, form, _marker_author_year(w), ok))
    return entries
