"""Where in the author list the seed's first author stands, and author blocks that are groups.

Why a module of its own: the first-author check asked only whether the seed's first-author
surname stands anywhere in the author block. A co-author with that surname then vouched for
another paper: "Kevin Lin, Dianqi Li, ... Adversarial ranking for language generation" was
accepted for Jiwei Li's "Adversarial learning for neural dialogue generation" on a title printed
differently plus "first author agrees". A name in a later slot of the list says the seed's first
author is a co-author of the cited work, which is no evidence that it is the seed: the verdict is
then "unknown", never "match" (nor "mismatch": an author block the parse over-read, an archive
shelfmark or an institution before the name, must not cost a true citation).

Group authors are the other side of the same question. Modern ML cites large collaborations by
the group's name ("BIG-bench authors", "Gemini Team", "ATLAS Collaboration"), while the seed's
arXiv record names its first person, or the group itself. A block that is only a group name says
nothing against the seed's first author: "unknown"; and it names the seed's first author when
that author is the same group (``group_named``).
"""

from __future__ import annotations

# Words that make an author block a group, not a person ("Gemini Team", "BIG-bench authors",
# "The ATLAS Collaboration", "Open X-Embodiment Collaboration", "LLaMA contributors").
_GROUP_WORDS = frozenset(
    [
        "team",
        "teams",
        "authors",
        "contributors",
        "collaboration",
        "collaborations",
        "consortium",
        "group",
        "groups",
        "community",
        "project",
        "initiative",
        "committee",
    ]
)
_LIST_JOINS = frozenset({"and", "&", "et", "e", "und", "y"})
_MAX_PERSON_WORDS = 4  # "Aäron van den Oord", "Jean-Baptiste Alayrac": a person is 2-4 words
_NOT_A_PERSON = frozenset(
    [
        "al",
        "ed",
        "eds",
        "edd",
        "cura",
        "hrsg",
        "hg",
        "id",
        "idem",
        "in",
        "see",
        "cf",
        "cfr",
        "vgl",
        "nota",
        "note",
        "by",
        "edited",
    ]
)
# Words of an institution's name before a person ("NIST Mass Spec Data Center, Stein, S. E."):
# the person is then the first author named, not a co-author.
_BODY_WORDS = frozenset(
    [
        "center",
        "centre",
        "institute",
        "institut",
        "laboratory",
        "laboratories",
        "university",
        "department",
        "agency",
        "office",
        "ministry",
        "bureau",
        "council",
        "society",
        "association",
        "foundation",
    ]
)
_PARTICLES = frozenset({"van", "von", "der", "den", "de", "del", "della", "da", "di", "du", "la", "le"})

MIDDLE_NOTE = (
    "the seed's first author is printed after another author (a co-author): no first-author evidence"
)
GROUP_NOTE = "the author block is a group ('{group}'): it names no person against the seed's first author"
GROUP_MATCH_NOTE = "the author block is the seed's first author, a group ('{group}')"


def _segments(words: list[str], bounds: list[bool]) -> list[list[str]]:
    """The block cut at field boundaries (commas, periods) and list joins ("and", "&"); a
    segment of initials only joins the name it belongs to ("Lin, K.," -> "lin k"; "B. van der
    Pol" -> "b van der pol")."""
    raw: list[list[str]] = [[]]
    for w, b in zip(words, bounds, strict=True):
        if w in _LIST_JOINS:
            raw.append([])
            continue
        raw[-1].append(w)
        if b:
            raw.append([])
    merged: list[list[str]] = []
    for seg in (s for s in raw if s):
        if merged and all(len(w) == 1 for w in seg) and not all(len(w) == 1 for w in merged[-1]):
            merged[-1] = merged[-1] + seg  # initials after a surname
        elif merged and all(len(w) == 1 for w in merged[-1]):
            merged[-1] = merged[-1] + seg  # initials before a surname
        else:
            merged.append(seg)
    return merged


def _person(segment: list[str]) -> bool:
    """Whether a segment reads as one person's name: 2-4 alphabetic words, at least one of two
    letters or more, no number, no group or footnote word."""
    if not 2 <= len(segment) <= _MAX_PERSON_WORDS:
        return False
    if any(not w.isalpha() or w in _NOT_A_PERSON or w in _GROUP_WORDS for w in segment):
        return False
    return any(len(w) > 1 for w in segment)


def named_after_another(phrase: str, last: str, words: list[str]) -> bool:
    """Whether the author block ``words`` names the seed's first author (phrase, surname) only
    after another author's name: three name words or more before it that are not the seed
    author's own ("Kevin Lin, Dianqi Li"), or two and a list join ("Lin, Kevin and Li, Dianqi").

    Counted in words, not list slots: a period closes an initial as it closes a name ("Micheal
    J. Pazzani"), and a surname printed first ("LEICHT Pier Silverio", "Lodovico Vittorio Sai.
    viou", "A. Bambaci-St. J. Shaw") puts up to two words before the key; so a co-author printed
    first with a one-word name ("Lin K, Li D") is not caught, and is left as it was."""
    own = set(phrase.split())
    keys = {last} if last else set()
    at = next((i for i, w in enumerate(words) if w in keys), None)
    if at is None and phrase:
        text = " ".join(words)
        found = f" {text} ".find(f" {phrase} ")
        at = None if found < 0 else text[:found].count(" ")
    if not at:
        return False
    before = words[:at]
    numbers = [i for i, w in enumerate(before) if w.isdigit()]
    if numbers:
        before = before[numbers[-1] + 1 :]  # "Cod. Cic. 2550, [Domenico Malipiero,]": a shelfmark
    if last in _BODY_WORDS or any(w in _BODY_WORDS for w in before):
        return False  # "NIST Mass Spec Data Center, Stein, S. E.": an institution, no co-author
    others = [i for i, w in enumerate(before) if _other_name_word(w, own)]
    joins = [i for i, w in enumerate(before) if w in _LIST_JOINS]
    # "Lin, Kevin and Li": a whole name before the join; not "Marcantonio e Alvise Michiel".
    joined = bool(joins) and sum(i < joins[0] for i in others) >= 2
    return len(others) >= 3 or joined


def _other_name_word(word: str, own: set[str]) -> bool:
    return (
        word.isalpha()
        and len(word) > 1
        and word not in own
        and word not in _NOT_A_PERSON
        and word not in _PARTICLES
        and word not in _LIST_JOINS
    )


def group_name(words: list[str], bounds: list[bool]) -> str | None:
    """The group an author block names when it names a group and nobody else ("BIG-bench
    authors", "Gemini Team", "The ATLAS Collaboration"), or None. A list with persons beside the
    group ("Gemini Team, Rohan Anil, ...") is a list of persons: None."""
    if _GROUP_WORDS.isdisjoint(words):
        return None  # most blocks: no group word at all
    segments = [s for s in _segments(words, bounds) if any(w.isalpha() for w in s)]
    if not segments:
        return None
    group = segments[0]
    if not any(w in _GROUP_WORDS for w in group) or len(group) > 6:
        return None
    if any(_person(s) for s in segments[1:]):
        return None
    return " ".join(group)


def is_group(words: list[str]) -> bool:
    """Whether a name's words are a group's ("gemini team", "atlas collaboration")."""
    return bool(words) and words[-1] in _GROUP_WORDS


def group_named(phrase: str, group: str) -> bool:
    """Whether the seed's first author is this group: its words, the group word aside, are the
    group's ("Gemini Team" / "Gemini Team"; "ATLAS Collaboration" / "The ATLAS Collaboration")."""
    core = [w for w in phrase.split() if w not in _GROUP_WORDS and w != "the"]
    printed = [w for w in group.split() if w not in _GROUP_WORDS and w != "the"]
    return bool(core) and "".join(core) == "".join(printed)
