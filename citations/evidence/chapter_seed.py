"""A seed that is a chapter ("Il Settecento, in La Repubblica di Venezia ...") is not its volume.

Why this exists
---------------
Humanities seed lists (LinkedBooks) keep a chapter's title with its container: "Il Settecento,
in La Repubblica di Venezia nell'eta moderna. Dal 1517 alla fine della Repubblica, Torino" is
Scarabello's chapter, and "Introduzione all'inventario, in L'archivio di Santa Maria di Mogliano"
is Romanelli's introduction. An entry citing the VOLUME ("G. Cozzi, M. Knapton, G. Scarabello,
La Repubblica di Venezia nell'eta moderna ..., 1992") prints the container's words, scores in
the variant band against the seed's whole title, and names the chapter's author among its own
editors or authors with the same year: resolve-16 accepted two such entries of LinkedBooks'
second test split, both another work by the audit.

So where the seed title holds ", in " and a capitalised container after it, and the chapter's
own words (the part before ", in") are not printed in the entry, the entry prints the container
only: the edge is held back from accept with that sentence (never rejected: a person decides).
An entry that prints the chapter's title ("H. Jedin, Gasparo Contarini e il contributo ..., in
La civilta veneziana del Rinascimento") is untouched.

Profile: runs with ``--profile books`` only; switched off, it changes no decision on any labelled
set but LinkedBooks' (docs/parse-and-citations.md, "Profiles").
"""

from __future__ import annotations

import re

from rapidfuzz import fuzz

from reflong.citations.fields.normalize import norm
from reflong.citations.thresholds import CHAPTER_PRINTED

# ", in " then a capitalised word, a quote or a guillemet: the container's title starts there.
_IN_CONTAINER = re.compile(r",\s+in\s+(?=[«“\"'‘<]?\s*[A-ZÀ-Ý])")


def _chapter_printed(seed_title: str) -> str | None:
    """The chapter's own title as the seed prints it ("Il Settecento") when the seed title is
    "<chapter>, in <Container>", else None."""
    match = _IN_CONTAINER.search(seed_title)
    return seed_title[: match.start()].strip() if match else None


def chapter_part(seed_title: str) -> str | None:
    """The chapter's own title, folded, when the seed title is "<chapter>, in <Container>", else None."""
    printed = _chapter_printed(seed_title)
    return (norm(printed) or None) if printed is not None else None


def container_only_doubt(seed_title: str, ref_plain: str) -> str | None:
    """A sentence when the seed is a chapter whose own title the entry does not print."""
    shown = _chapter_printed(seed_title)
    chapter = norm(shown) if shown is not None else ""
    if not chapter or fuzz.partial_ratio(chapter, ref_plain) >= CHAPTER_PRINTED:
        return None
    return (
        f"the seed is a chapter ('{shown}', in its volume) whose title this entry does not print: "
        "the entry cites the volume"
    )
