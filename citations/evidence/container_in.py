"""A title closed by a lower-case "in" and the capitalised title of its container (resolve-13).

Why: humanities styles print an article or chapter as "Title in Journal or Volume, vol., year"
with no punctuation before the "in" ("Rom und Venedig bis ins XII Iahrhundert in Quellen und
Forschungen aus Italienischen Archiven ..."). The title field then runs on into the container and
scores far below the seed's title, although the title is printed word for word. But "in" and a
capitalised word also occur inside titles ("Die Skulpturen von San Marco in Venedig"), so this
end is read only for a long seed title printed verbatim, and the edge is accepted on it only
with the seed's first author named and the seed's year printed (``SeedIndex.score_pair``).

Profile: runs with ``--profile books`` only; switched off, it changes no decision on any labelled
set but LinkedBooks' (docs/parse-and-citations.md, "Profiles").
"""

from __future__ import annotations

MIN_WORDS = 5  # a long title: a shorter one is too often the head of a longer title
NOTE = "'in' and a capitalised title after it (the container)"
NEEDS = "a title closed only by 'in' and a container, without the seed's first author and year"
_FUNCTION_TEXT = "a an the of for and or in on to with by at as from"
_FUNCTION = frozenset(_FUNCTION_TEXT.split())


def after(words: list[str], cased: list[str] | None, bounds: list[bool], last: int) -> str | None:
    """``NOTE`` when the run ending at word ``last`` is followed, in the same field, by a
    lower-case "in" and a capitalised word that is neither a function word nor a number; else
    None. Needs the printed case (``cased``)."""
    if cased is None or last + 2 >= len(words) or bounds[last] or bounds[last + 1]:
        return None
    if cased[last + 1] != "in":
        return None
    nxt = cased[last + 2]
    if not nxt[:1].isupper() or nxt.lower() in _FUNCTION or nxt.isupper():
        return None
    return NOTE
