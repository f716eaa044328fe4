"""Where a reference prints its first author, in the layouts of humanities bibliographies.

Why a module of its own: the resolver's first-author check (``SeedIndex._names``) reads the words
before the title as the author block and calls any name there that is not the seed's first
author a mismatch. Real bibliographies outside computer science print their authors in ways that
rule misreads, and every misreading costs a true citation (a mismatch takes 5 points off, or keeps a
short title out of accept), while the evidence it reads is no evidence at all:

- the title printed first, no author at all ("Politica ed economia di Venezia nel Trecento (Roma,
  1952)."): the old rule read the WHOLE string as the author block, so the place of publication
  was "another author"; now the author block of a title-first entry is only an editor, translator
  or "by" phrase after the title ("..., a cura di U. Tucci, ..."), and without one the author is
  unknown (not printed), never "another";
- an author block that names nobody: "Id." / "Idem" / "Ead." (the author of the entry before: a
  ditto in words, read as one by ``ditto``), "AA. VV." (various authors), a year heading the
  entry ("(1885), ..."): the author is unknown, or the editor printed after the title (an edited
  volume of various authors is catalogued under its editor);
- the author's name glued to the title by a dash ("Michael Greenhalgh-The discovery of ..."):
  normalising deletes hyphens, so "greenhalghthe" spoiled both the name and the title's first
  word; the dash is read as the field boundary it is (``unglue_name_dash``);
- editors heading the entry as its author block ("Brown, H. F., Brown, R. e Hinds, A. B., a cura
  di, Calendar of ...", "Elena Bassi et alii (a cura di), Trattati ..."): a volume cited as a
  whole, not a container after a chapter title of the entry's own (``editors_head_entry``);
- seed authors that are no names ("M", "di)", "ed": a parse of "V. M." or "(a cura di)"): such a
  key matched any initial and was no evidence either way (``author_keys``); "Du" or "Le" stay names.

Evidence stays where the author is printed: the seed's first-author surname must stand in the
author block (or, for an entry whose block names nobody, in the editor phrase after the title),
never anywhere in the string. Each verdict that differs from the old rule carries its reason
for the edge (``FirstAuthor.note``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from reflong.citations.evidence import author_position as ap
from reflong.citations.fields.entry_parse import ParsedEntry
from reflong.citations.fields.normalize import norm, words_with_boundaries

# Words a parse can leave as a "first author" that name nobody: editor phrases ("a cura di",
# "ed.", "hrsg."), "Id.", "AA. VV.", conjunctions. Not particles: "Du", "Le", "Da" are surnames too.
_NOT_NAMES_TEXT = "ed eds edd cura hrsg hg id idem ead eadem aa vv et al and und"
_NOT_NAMES = frozenset(_NOT_NAMES_TEXT.split())
# "Id." / "Idem" / "Ead." / "Eadem": the author of the entry before (not "Ibid.": the same work).
IDEM = frozenset({"id", "idem", "ead", "eadem"})
# "AA. VV." / "AA.VV." / "Aa. Vv." / "AA. W." / "AA. VY." (OCR, resolve-16) / "Autori vari": various authors.
_VARIOUS = frozenset(
    {
        ("aa", "vv"),
        ("aa", "w"),
        ("aa", "ww"),
        ("aa", "vy"),
        ("aavv",),
        ("autori", "vari"),
        ("various", "authors"),
    }
)
# An editor, translator or author phrase after a title ("a cura di X", "ed. X", "edited by X",
# "Trans. X", "hrsg. v. X", "by X"): the words after it, to the next field boundary, are names.
_AFTER_TITLE_PHRASES = (
    ("a", "cura", "di"),
    ("edited", "by"),
    ("translated", "by"),
    ("herausgegeben", "von"),
    ("hrsg", "v"),
    ("hrsg", "von"),
    ("hg", "v"),
)
# One-word markers count only closed by a period ("ed.", "Trans."): "ed" is also Italian "and".
_AFTER_TITLE_ABBREVIATED = frozenset({"ed", "eds", "edd", "trans", "tr", "transl", "hrsg", "hg"})
_CONJUNCTIONS = frozenset({"and", "e", "et", "und", "y", "&"})


def author_keys(name: str | None) -> tuple[str, str]:
    """The seed's first author as (normalised phrase, surname key), or ("", "") when it names
    nobody: one letter ("M" from "V. M."), only editor words or conjunctions ("ed", "cura"), or a
    bracketed word of two letters ("di)" from "(a cura di)"). Such a key matched any initial or
    particle in a string: no evidence either way. "Du", "Le" or "Da" alone stay surnames."""
    if not name:
        return "", ""
    phrase = norm(name)
    parts = phrase.split()
    # "di)" is what a parse of "(a cura di)" leaves: a bracket on a word of two letters.
    bracketed = len(phrase) <= 2 and any(c in name for c in "()[]")
    if not parts or bracketed or all(len(p) < 2 or p in _NOT_NAMES for p in parts):
        return "", ""
    if ap.is_group(parts):
        return phrase, ""  # "Gemini Team": the whole name is the key; "team" names any team
    return phrase, (parts[-1] if len(parts[-1]) >= 2 else "")


@dataclass(frozen=True)
class FirstAuthor:
    """The first-author verdict (match | mismatch | unknown) and, where it differs from reading
    every word before the title (or the whole string) as the author block, why."""

    verdict: str
    note: str = ""


def _named(phrase: str, last: str, words: list[str]) -> bool:
    """Whether these words name the author: the phrase, the surname as a word, or the phrase with
    its spaces squashed ("DeepSeek-AI", "van den Oord") inside the squashed words."""
    if not words:
        return False
    text = " " + " ".join(words) + " "
    if f" {phrase} " in text or (last and f" {last} " in text):
        return True
    squashed = phrase.replace(" ", "")
    return len(squashed) >= 4 and squashed in text.replace(" ", "")


def legacy_verdict(phrase: str, last: str, words: list[str], title_start: int) -> str:
    """The old rule: every word before the title (the whole string when the title starts the
    entry or was not found) is the author block; any other name there is a mismatch."""
    if not phrase:
        return "unknown"
    region = words[:title_start] if title_start > 0 else words
    if not region:
        return "unknown"
    if _named(phrase, last, region):
        return "match"
    return "mismatch" if any(w.isalpha() and len(w) > 1 for w in region) else "unknown"


def _names_after_title(words: list[str], bounds: list[bool], start: int) -> tuple[list[str], str] | None:
    """The names of the first editor, translator or "by" phrase after word ``start`` ("a cura di
    Bruno Bongiovanni e Nicola Tranfaglia," -> their words) and the phrase as printed, or None."""
    n = len(words)
    for i in range(start, n):
        w = words[i]
        if w == "in" and i > 0 and bounds[i - 1]:
            return None  # "..., in Volume, a cura di X": the container's editors, not the work's
        phrase = next(
            (p for p in _AFTER_TITLE_PHRASES if tuple(words[i : i + len(p)]) == p),
            None,
        )
        if phrase:
            j = i + len(phrase)
        elif (w in _AFTER_TITLE_ABBREVIATED and bounds[i]) or (w == "by" and i > 0 and bounds[i - 1]):
            j = i + 1
        else:
            continue
        names: list[str] = []
        while j < n and not words[j].isdigit():
            names.append(words[j])
            if bounds[j] and len(words[j]) > 1:
                break  # the field ends; an initial's period ("G. Raimondi") does not end it
            j += 1
        # "Trans. Richard Southern." / "ed. Susan Onega and ...": names, up to a number.
        if names:
            return names, " ".join(phrase or (w,))
    return None


def _nobody(block: list[str]) -> str | None:
    """Why an author block names nobody, or None: "Id." (the author before), "AA. VV." (various
    authors), or nothing but numbers (a list number, a year heading the entry)."""
    words = [w for w in block if not w.isdigit()]
    if not words:
        return "no name before the title" if block else None
    if len(words) == 1 and words[0] in IDEM:
        return f"'{words[0].capitalize()}.' (the author of the entry before) names nobody"
    if tuple(words) in _VARIOUS:
        return "'AA. VV.' (various authors) names nobody"
    return None


def _opens_with(words: list[str], title: list[str]) -> bool:
    """Whether the entry's first words (a list number aside) are the title's first words: the
    title is printed first. A field that merely starts at word 0 (an alignment that ran over an
    unclosed author block) is not enough."""
    lead = 1 if words and words[0].isdigit() and (not title or title[0] != words[0]) else 0
    head = title[: min(2, len(title))]
    return bool(head) and words[lead : lead + len(head)] == head


def first_author(
    phrase: str,
    last: str,
    words: list[str],
    bounds: list[bool],
    title_start: int,
    dash_at: int = -1,
    title: str = "",
) -> FirstAuthor:
    """Whether the reference's author block names the seed's first author.

    ``title_start``: the word where the title is printed (0: where the entry opens; -1: not
    found, when the whole string is read as before). ``dash_at``: the word after an author name
    glued to the title by a dash (``unglue_name_dash``), -1 if none. ``title``: the seed title
    (normalised): only an entry that opens with its first words prints its title first."""
    old = legacy_verdict(phrase, last, words, title_start)
    if not phrase or title_start < 0 or not words:
        return FirstAuthor(old)
    if title_start == 0 and not _opens_with(words, title.split()):
        return FirstAuthor(old)
    dash = (
        "; the author's name run into the title (a dash, an opening quote) read as a field boundary"
        if dash_at == title_start and dash_at > 0
        else ""
    )
    if title_start > 0:
        block = words[:title_start]
        by_position = _by_position(phrase, last, block, bounds[:title_start], old)
        if by_position is not None:
            return by_position
        why = _nobody(block)
        if why is None:
            return FirstAuthor(
                old, f"first author in the author block{dash}" if dash and old == "match" else ""
            )
    elif old == "match":
        # A title printed first prints its author, if at all, after it ("The Peptides, Vol. 1.
        # Schröder and Lubke, ...", "Protecting Groups (Philip J. Kocienski, ...)").
        return FirstAuthor(old)
    else:
        why = "the title printed first, no author block before it"
    # The block names nobody: an editor (translator, "by") phrase after the title is the name
    # the work is known under; without one the author is not printed at all.
    after = _names_after_title(words, bounds, max(title_start, 1))
    if after is not None:
        names, marker = after
        if _named(phrase, last, names):
            verdict = FirstAuthor(
                "match", f"{why}; the seed's first author printed after the title ('{marker}')"
            )
        else:
            verdict = FirstAuthor("mismatch", f"{why}; '{marker}' names another")
    else:
        verdict = FirstAuthor("unknown", f"{why}: first author unknown")
    return verdict if verdict.verdict != old else FirstAuthor(old)


def _by_position(
    phrase: str, last: str, block: list[str], bounds: list[bool], old: str
) -> FirstAuthor | None:
    """The verdict a group author block or the seed's first author in a co-author's slot gives
    (``author_position``), or None when neither applies."""
    group = ap.group_name(block, bounds)
    if group is not None:
        if ap.group_named(phrase, group):
            return FirstAuthor("match", "" if old == "match" else ap.GROUP_MATCH_NOTE.format(group=group))
        if old != "match":
            return FirstAuthor("unknown", ap.GROUP_NOTE.format(group=group))
    if old == "match" and ap.named_after_another(phrase, last, block):
        return FirstAuthor("unknown", ap.MIDDLE_NOTE)
    return None


def no_author_short_title(words: list[str], title_start: int, year: int | None) -> str | None:
    """The reason a short title (1-3 words, ``SeedIndex._ditto_short_title`` checked the layout:
    printed word for word as a complete field of its own, the seed's own year printed) of a seed
    that names no first author is accepted, or None: only when the entry prints an author
    statement before the title (a name, "Id.", "AA. VV."). Then the missing author is the
    seed's (a catalogue that dropped "ANGELI, D." for "Venera intabarrata", 1911), not the
    entry's: an entry that prints no author at all ("Stephen Hero. London: Cape, 1956.") keeps
    the resolve-10 rule, review."""
    block = words[:title_start] if title_start > 0 else []
    if not any(w.isalpha() and len(w) > 1 for w in block):
        return None
    return (
        "the seed names no first author, the entry does; the short title printed verbatim as a "
        f"field of its own and the seed's year {year} printed"
    )


# --- a name glued to the title by a dash ------------------------------------------------------

_PARTICLE = r"(?:di|da|de|del|della|dal|van|von|der|den|le|la|du)"
_NAME_WORD = rf"(?:[A-ZÀ-Þ][^\W\d_]*|{_PARTICLE})"
# From the entry's start (an optional list number): two to five name words, the last glued by a
# dash to a capitalised word (or an opening quote) that two more words of a title follow before
# any field boundary. Not "Tim Berners-Lee, Robert ..." (a comma after the dash word), not
# "Perocco-A. Salvador" (initials: co-authors), not "Becerra-Fernandez and David" (a list).
_NAME_DASH = re.compile(
    rf"^(\s*(?:\[\d{{1,4}}\]\s*|\d{{1,4}}\.\s+)?(?:{_NAME_WORD}\s+){{1,4}}[A-ZÀ-Þa-zß-ÿ][^\W\d_]+)"
    r"[-\u2010\u2013](?=[\"«“‘]?\s?[A-ZÀ-Þ][^\s,;.]+\s+(?!(?:and|e|et|und|y)\s)[^\s,;.]+\s+[^\s,;.]+)"
)


# "Toumay, Petra ‘Challenging Shakespeare’.": "Surname, Given" with no period before a title in
# single quotes (normalising deletes the quote, so nothing else separates the name from the title).
_NAME_QUOTE = re.compile(
    r"^(\s*(?:\[\d{1,4}\]\s*|\d{1,4}\.\s+)?[A-ZÀ-Þ][^\W\d_]+(?:-[A-ZÀ-Þ][^\W\d_]+)?,"
    r"(?:\s+[A-ZÀ-Þ][^\W\d_]*\.?){0,2}\s+[A-ZÀ-Þ][^\W\d_]+)\s+(?=[‘'][A-ZÀ-Þ])"
)


def unglue_name_dash(entry: ParsedEntry) -> tuple[ParsedEntry, int]:
    """The entry with an author name glued to its title by a dash ("Michael Greenhalgh-The
    discovery of ...") read as "Michael Greenhalgh, The discovery of ...", or run into a title in
    single quotes ("Toumay, Petra ‘Challenging ...") read as "Toumay, Petra, ‘Challenging ...",
    and the word where the title then starts; the entry unchanged and -1 when it has neither."""
    found = _NAME_DASH.match(entry.raw) or _NAME_QUOTE.match(entry.raw)
    if found is None:
        return entry, -1
    head = found.group(1)
    raw = f"{head}, {entry.raw[found.end() :].lstrip()}"
    return replace(entry, raw=raw), len(words_with_boundaries(head)[0])


# --- the entry's own author block, read from its start -----------------------------------------

_EDITOR_MARKS = frozenset(
    {"ed", "eds", "edd", "editor", "editors", "hrsg", "hrg", "hg", "cura", "dir", "dirs"}
)
_EDITOR_PHRASE_WORDS = _EDITOR_MARKS | {"a", "di", "by", "edited", "v", "von"}
EDITORS_NOTE = "editors heading the entry (its own author block)"
INITIALS_NOTE = "an author block in surname-initials order closed by a colon or a comma"
_MAX_INITIALS = 3
_MAX_SURNAME_WORDS = 3


def _name_words(words: list[str], cased: list[str], lo: int, hi: int) -> bool:
    """Whether words ``lo:hi`` are only names: capitalised words, initials, particles,
    conjunctions of the sets' languages and "et alii" (any word after "et": OCR prints "et ahi").
    A short block with an initial may be printed in lower case ("rossi a.", "de lotto e.")."""
    if hi <= lo:
        return False
    lower_ok = hi - lo <= 4 and any(len(w) == 1 for w in words[lo:hi])
    for i in range(lo, hi):
        w, c = words[i], cased[i]
        if w.isdigit():
            return False
        if c[:1].isupper() or w in _CONJUNCTIONS or len(w) == 1 or lower_ok:
            continue
        if re.fullmatch(_PARTICLE, w) or (i > lo and words[i - 1] == "et"):
            continue
        return False
    return True


def own_block_end(
    words: list[str], cased: list[str] | None, colons: list[bool] | None, bounds: list[bool], limit: int
) -> tuple[int, str] | None:
    """Where the entry's own author block, read from its start (a list number or a year heading
    it aside), ends (at or before word ``limit``), and what it is; None when it cannot be read:

    - editors heading the entry, closed by a boundary ("Brown, H. F., Brown, R. e Hinds, A. B., a
      cura di, Calendar ...", "R. PO-LACCO (a cura di), Storia ...", "Elena Bassi et alii (a cura
      di), Trattati ..."): a volume cited as a whole, so neither "the editors of a container after
      a title of the entry's own" nor "another title-like field";
    - surnames then initials closed by a colon or a boundary ("GASPARETTO A.: Il vetro ...",
      "CORONELLI V. M.: Isolario ...", "della port a G. B.: Magiae ...", "de monacis l., Veneti
      ..."): "A" is also the English article and a colon also opens a subtitle, so the title-side
      readers need the seed's surname there; one to three name words from the entry's start,
      then initials, are a name whoever the seed's author is."""
    if cased is None or limit <= 0:
        return None
    limit = min(limit, len(words))
    lead = 0
    while lead < limit and words[lead].isdigit():
        lead += 1
    # Editors: names, then the editor phrase (with a marker) closed by a boundary.
    for m in range(lead + 1, min(limit, lead + 16)):
        if words[m] not in _EDITOR_MARKS:
            continue
        lo = m
        while lo > lead and words[lo - 1] in _EDITOR_PHRASE_WORDS and not bounds[lo - 1]:
            lo -= 1
        hi = m + 1
        while hi < limit and words[hi] in _EDITOR_PHRASE_WORDS and not bounds[hi - 1]:
            hi += 1
        if bounds[hi - 1] and _name_words(words, cased, lead, lo):
            return hi, EDITORS_NOTE
        break
    # Surname(s), then initials, closed by a colon or a boundary.
    i = lead
    while i < limit and i - lead < _MAX_SURNAME_WORDS and len(words[i]) >= 2 and words[i].isalpha():
        if bounds[i] and i + 1 < limit and len(words[i + 1]) > 1:
            return None  # a field closed before any initial: not this layout
        i += 1
    if i == lead:
        return None
    j = i
    while j < limit and j - i < _MAX_INITIALS and len(words[j]) == 1 and words[j].isalpha():
        j += 1
    closed = j > i and (bounds[j - 1] or (colons is not None and colons[j - 1]))
    if not closed:
        return None
    return j, INITIALS_NOTE


def own_block_before(
    words: list[str], cased: list[str] | None, colons: list[bool] | None, bounds: list[bool], first: int
) -> str | None:
    """``own_block_end`` when the block runs up to word ``first`` (the title's run or field)."""
    found = own_block_end(words, cased, colons, bounds, first)
    return found[1] if found and found[0] == first else None
