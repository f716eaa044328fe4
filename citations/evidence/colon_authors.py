"""An author list closed by a colon ("Ellis RJ, van der Vies SM: Molecular chaperones.") (resolve-14).

Why this exists
---------------
BioMed Central's journals (and the PMC papers that copy their style) print references as
"Surname AB, Surname CD: Title. Journal Year, Vol:Pages.". Colons are no field boundary elsewhere
("CMMLU: Measuring massive multitask ...", "Oral vaccination: where we are?" keeps its subtitle),
so the title's field ran back into the authors ("hamza a occupational injuries in bahrain" scored
88.9 against the seed "Occupational injuries in Bahrain"), and the built-in parser, which reads
such a block only when every name is "Surname Initials", took the journal for the title where a
name printed a particle, a suffix or a team ("van der Vies SM", "O'Brien JM Jr", "ALSPAC Study
Team": PMC set).

What counts: two or more comma-separated names from the entry's start (a list number aside),
each one to four name words (lower-case particles such as "van der" first) then initials in
capitals and an optional "Jr"/"Sr"; the last may instead be "et al" or a team ("ALSPAC Study
Team", "... Collaborative Group", and since resolve-15 an organisation: "Alzheimer's Disease
International", "American College of Chest Physicians"), and the colon closes the last. Since
resolve-15 initials glued to a given name by the PDF's extraction ("Schwingl JPamela") count as
initials, and the list is read to its colon however long (a genome paper's hundreds of names). Initials that spell English
words ("Hamza A:", "Iqbal I:", "Bourinbaiar AS:") count here, since a name word stands before
them and another name before that. A single name ("Vitamin D:", "Hepatitis A:" open titles too)
is left to the readers that need the seed's own surname (``author_evidence.own_block_end``).
"""

from __future__ import annotations

import re

NOTE = "an author list closed by a colon ends before the title"
_PARTICLE_TEXT = "van von der den de da di la le du del della dos das ten ter el"
_PARTICLES = frozenset(_PARTICLE_TEXT.split())
_SUFFIXES = frozenset({"Jr", "Sr", "II", "III", "IV"})
_TEAM_TEXT = """
    team group groups consortium investigators collaboration collaborators collaborative network
    committee trialists participants study
    """
_TEAM_WORDS = frozenset(_TEAM_TEXT.split())
# An organisation closing the list as its author (resolve-15): "Alzheimer's Disease
# International:", "American College of Chest Physicians:".
_ORG_TEXT = """
    international association society college institute foundation council federation academy
    organization organisation
    """
_ORG_WORDS = frozenset(_ORG_TEXT.split())
_ORG_LINKS = frozenset({"of", "for", "and", "on", "the", "in"})
_INITIALS = re.compile(r"^[A-Z]{1,4}$")
# Initials glued to the given name by the PDF's extraction ("Schwingl JPamela, Guess AHarry:",
# capitals, then a capitalised given name.
_GLUED_GIVEN = re.compile(r"^[A-Z]{1,2}[A-Z][a-z]{3,}$")
MAX_NAME_WORDS = 4  # "van der Vies", "Ruiz van Haperen": particles and a double surname
MIN_NAMES = 2


# A particle glued to its surname ("deDombal FT", resolve-17).
_GLUED_PARTICLE = re.compile(r"^(?:de|di|da|du|van|von|le|la|del|della)[A-Z][a-z]+$")


def _surname_word(token: str) -> bool:
    """A capitalised surname word as printed ("Hamza", "McCallister", "AlArrayed", and a particle
    glued to it: "deDombal"), not initials."""
    if _GLUED_PARTICLE.match(token):
        return True
    return len(token) >= 2 and token.isalpha() and token[0].isupper() and not token.isupper()


def note(raw: str) -> str:
    """The edge's evidence: the rule and the name the colon closes, as printed ("'Hamza A:'")."""
    head = raw.split(":", 1)[0].rsplit(",", 1)[-1].strip()
    return f"{NOTE} ('{head}:')"


def segment_kind(tokens: list[str]) -> str | None:
    """What one comma-separated piece of an author list is, from its printed words: "name"
    ("Ellis RJ", "van der Vies SM", "OBrien JM Jr"), "et al", "team" ("ALSPAC Study Team"); None
    when it is none of them (a title's words)."""
    if [t.lower() for t in tokens] == ["et", "al"]:
        return "et al"
    if 2 <= len(tokens) <= 5 and tokens[-1].lower() in _TEAM_WORDS and all(t[:1].isupper() for t in tokens):
        return "team"
    if _organisation(tokens):
        return "team"
    body = tokens[:-1] if tokens and tokens[-1] in _SUFFIXES else tokens
    if len(body) < 2 or not (_INITIALS.match(body[-1]) or _GLUED_GIVEN.match(body[-1])):
        return None
    names = body[:-1]
    # Particles open a name in either case ("van der Vies SM", "De la Fe T", resolve-17).
    while len(names) > 1 and names[0].lower() in _PARTICLES:
        names = names[1:]
    if not names or len(body) - 1 > MAX_NAME_WORDS or not all(_surname_word(t) for t in names):
        return None
    return "name"


def _organisation(tokens: list[str]) -> bool:
    """An organisation's name printed as an author: two to seven words, capitalised but for
    linking words inside it ("of", "for"), one of them an organisation word ("International",
    "College", "Society")."""
    if not 2 <= len(tokens) <= 7 or not tokens[0][:1].isupper() or not tokens[-1][:1].isupper():
        return False
    if not all(t[:1].isupper() or t in _ORG_LINKS for t in tokens):
        return False
    return any(t.lower() in _ORG_WORDS for t in tokens)


def list_kinds(segments: list[list[str]]) -> bool:
    """Whether these pieces, in order, make an author list: ``MIN_NAMES`` or more, every one a
    name but the last, which may be "et al" or a team."""
    if len(segments) < MIN_NAMES:
        return False
    kinds = [segment_kind(s) for s in segments]
    return all(k == "name" for k in kinds[:-1]) and kinds[-1] is not None


def printed_list(segments: list[str]) -> bool:
    """``list_kinds`` for the comma-separated pieces of a printed string (the built-in parser's
    view): apostrophes, hyphens and periods inside names dropped as the resolver's words drop
    them ("O'Brien" -> "OBrien", "Al-Arrayed" -> "AlArrayed")."""
    return list_kinds([_UNPRINTED.sub("", seg).split() for seg in segments])


_UNPRINTED = re.compile(r"['\u2019.-]")


def printed_surnames(segments: list[str]) -> list[str]:
    """The surname of each name of a ``printed_list`` as printed ("Vies" of "van der Vies SM",
    "O'Brien" of "O'Brien JM Jr"); "et al" and a team name none."""
    out = []
    for seg in segments:
        words = seg.split()
        if segment_kind(_UNPRINTED.sub("", seg).split()) == "name":
            body = words[:-1] if _UNPRINTED.sub("", words[-1]) in _SUFFIXES else words
            out.append(body[-2])
    return out


# What can stand right before the colon that closes a list: initials, a suffix, "et al", a team.
_MAY_CLOSE = re.compile(
    r"(?:\b[A-Z]{1,4}|\b[A-Z]{2,3}[a-z]{2,}|\b(?:Jr|Sr)|\bal|\b(?i:"
    + "|".join(sorted(_TEAM_WORDS | _ORG_WORDS))
    + r"))\.?\s*:"
)


def may_close_a_list(raw: str) -> bool:
    """A cheap look at the raw string before ``list_end`` reads its words: a colon after initials,
    a suffix, "et al" or a team word."""
    return ":" in raw and _MAY_CLOSE.search(raw) is not None


def list_end(cased: list[str] | None, bounds: list[bool], colons: list[bool] | None) -> int | None:
    """The last word of an author list closed by a colon at the entry's start (its words as
    printed, ``normalize.cased_words``), or None. Each name ends at a field boundary (the comma),
    the last at the colon."""
    if cased is None or colons is None:
        return None
    lead = 0
    while lead < len(cased) and cased[lead].isdigit():
        lead += 1  # "12. Ellis RJ, ..."
    segments: list[list[str]] = []
    lo = lead
    # The whole entry, not a window: a genome paper's list runs to hundreds of names before the
    # colon (531 words); each piece must be a name, so a title stops it early.
    for i in range(lead, len(cased)):
        if colons[i] and not bounds[i]:
            segments.append(cased[lo : i + 1])
            return i if list_kinds(segments) else None
        if bounds[i]:
            segments.append(cased[lo : i + 1])
            if segment_kind(segments[-1]) != "name":
                return None
            lo = i + 1
    return None
