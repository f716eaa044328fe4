"""The form of a seed title that is compared with references (resolve-13).

Why: a catalogue that records a long title often cuts it with "etc." ("Delle iscrizioni
veneziane, ecc"). The mark is the cataloguer's, not the title's: a citer prints the title without
it ("Dalle iscrizioni Veneziane. Venezia 1924."), and with it the seed's last word is one no
reference prints, which costs the short title both its field score and its candidate key.

Profile: runs with ``--profile books`` only; switched off, it changes no decision on any labelled
set but LinkedBooks' (docs/parse-and-citations.md, "Profiles").
"""

from __future__ import annotations

# "etc." as English, Latin, French, Spanish and Portuguese print it, Italian "ecc.", German "usw."
# (not "&c.": its "c" is also a title's last letter, "Part C").
_ETC_WORDS = frozenset({"etc", "ecc", "usw"})


def without_etc(plain: str) -> str:
    """The normalised title without a trailing "etc." mark (any number of them: "ecc ecc"); a
    title that is nothing but the mark keeps it. ``plain`` is ``normalize.norm``'s form."""
    words = plain.split()
    n = len(words)
    while n > 1 and words[n - 1] in _ETC_WORDS:
        n -= 1
    return plain if n == len(words) else " ".join(words[:n])
