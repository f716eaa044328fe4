"""A seed's main title printed without its subtitle: candidates and evidence.

Why this exists
---------------
Books carry long subtitles and citers leave them out: "Les archives de Venise. Histoire de la
Chancellerie Secrète" for a seed "Les archives de Venise: Histoire de la chancellerie secrète, le
sénat, le cabinet des ministres, le conseil des dix et les inquisiteurs d'état ...", "Die
Skulpturen von San Marco in Venedig" for the same head with a subtitle of twelve words. Such an
entry shares too few words with the seed to be a title candidate (60% of its words, ``resolve``),
and its field scores far under the threshold against the whole title.

The main title alone is weak evidence (another book may share it), so it is accepted only with
the seed's first author and a year near the seed's printed, the main title printed word for word
as a field of its own (a boundary or the entry's start before it, a boundary or the end after
it), three words or more, and nothing else against it (``resolve`` decides those: a sequel
number, another printing, a container). Otherwise nothing changes. A seed with no first author
(a catalogue, an exhibition's volume) has no name to check: its main title is accepted with five
words or more and the seed's own year printed (resolve-13).
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Collection, Sequence

from reflong.citations.fields.normalize import norm

MIN_HEAD_WORDS = 3  # "Venezia nel Settecento": a head of two words is any book's
MIN_HEAD_CHARS = 15
# A seed with no author has no name to check: its main title must be longer, and its own year
# printed (resolve-13: "Die Skulpturen von San Marco in Venedig ..., Berlino 1979").
AUTHORLESS_HEAD_WORDS = 5
# A main title ends at a period, colon, semicolon or question mark followed by a space.
_HEAD_END = re.compile(r"[.:;?!]\s")


# Abbreviations closed by a period inside a title ("Campylocentrum sect. Laevigatum", "Festuca
# subsp. rubra", "vol. 3", "Dr. Johnson"): no end of a main title. Cutting there made
# "Taxonomic revision of Campylocentrum sect." the head of another section's revision (resolve-12).
_ABBREVIATIONS_TEXT = """
    sect subsect subsp ssp var subvar f fo forma sp spp cf aff ser subg subgen gen nov comb stat
    vol vols no nos nr n pt ed eds edn rev repr trans dr mr mrs ms prof st ste mt ft co inc ltd
    jr sr vs ca approx fig figs p pp cap art
    """
_ABBREVIATIONS = frozenset(_ABBREVIATIONS_TEXT.split())
_WORD_BEFORE = re.compile(r"([^\W\d_]+)$")


def _head_end(title: str) -> int | None:
    """Where the main title ends: the first period, colon, semicolon or question mark followed
    by a space that does not close an abbreviation or an initial ("sect.", "vol.", "J.")."""
    for m in _HEAD_END.finditer(title):
        if title[m.start()] == ".":
            before = _WORD_BEFORE.search(title[: m.start()])
            if before and (len(before.group(1)) == 1 or before.group(1).lower() in _ABBREVIATIONS):
                continue
        return m.start()
    return None


def head_of(title: str) -> str | None:
    """The seed title's main title in comparison form, or None when it has no subtitle or the
    head is too short to stand on its own."""
    end = _head_end(title)
    if end is None or not title[end + 1 :].strip():
        return None
    head = norm(title[:end])
    if len(head.split()) < MIN_HEAD_WORDS or len(head) < MIN_HEAD_CHARS or head == norm(title):
        return None
    return head


class HeadIndex:
    """Main titles of the seeds that have a subtitle, each indexed under its rarest word: a
    reference is a candidate of a head only when every word of the head is in it."""

    def __init__(self, titles: Sequence[str], stopwords: Collection[str]) -> None:
        self.heads: dict[int, str] = {}
        words: dict[int, frozenset[str]] = {}
        df: dict[str, int] = defaultdict(int)
        for i, title in enumerate(titles):
            head = head_of(title)
            if head is None:
                continue
            toks = frozenset(t for t in head.split() if t not in stopwords) or frozenset(head.split())
            self.heads[i], words[i] = head, toks
            for t in toks:
                df[t] += 1
        self.words = words
        self.postings: dict[str, list[int]] = defaultdict(list)
        for i, toks in words.items():
            self.postings[min(toks, key=lambda t: (df[t], t))].append(i)

    def candidates(self, wordset: frozenset[str]) -> list[int]:
        """Seeds whose main title's words are all in the reference."""
        out = []
        for w in wordset:
            for i in self.postings.get(w, ()):
                if self.words[i] <= wordset:
                    out.append(i)
        return sorted(out)


def head_run(
    head: str,
    words: list[str],
    plain: str,
    starts: list[int],
    bounds: list[bool],
    colons: list[bool] | None = None,
) -> int | None:
    """The first word of the main title printed word for word as a field of its own (after a
    boundary, the entry's start or an author block closed by a colon: "BASCHET A.: Les archives
    de Venise. Histoire ..."), or None."""
    n = len(head.split())
    at = plain.find(head)
    while at >= 0:
        end = at + len(head)
        if (at == 0 or plain[at - 1] == " ") and (end == len(plain) or plain[end] == " "):
            first = starts.index(at)
            last = first + n - 1
            opened = first == 0 or bounds[first - 1] or bool(colons and colons[first - 1])
            if opened and (last == len(words) - 1 or bounds[last]):
                return first
        at = plain.find(head, at + 1)
    return None
