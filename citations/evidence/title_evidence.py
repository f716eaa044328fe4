"""Where a seed title sits in a raw reference string: evidence for styles that do not close it.

Why this exists
---------------
The resolver compares a seed title with the whole bibliographic *field* that holds it, a field
ending at a period, comma, bracket or quote (``resolve.py``). Many real styles print no period
after the title: physics (IOP: ``Kitaev A Y 2003 Fault-tolerant quantum computation by anyons
Ann. Phys. 303 2``), Vancouver-like biomedicine without stops (``Kim D, Salzberg SL HISAT: a fast
spliced aligner ... Nat Methods 2015 12 357-60``), and PDF text that glues fields
(``... lasers .Review of scientific instruments62``). There the field runs into the authors,
the journal or the volume, and its score falls although the seed title is printed verbatim.

So the raw string is used as evidence beside the field: the seed title found as a token-aligned
run of words (exact, or near-exact for a typo), and the words printed right before and after that
run, with their printed case, judged as *not title*. Before: a field boundary, a year, a number or
a person's initials ("Salzberg SL"). After: a boundary, a number (volume, pages), a venue word
("Phys", "J", "Proc", "In", "arXiv") or, after a sentence-case title, a capitalised word (the
journal's name). A longer title that merely contains the seed title ("On layer normalization in
the transformer architecture", "CMMLU: Measuring massive multitask ...") has title words there,
so it fails, and short generic titles are not tried at all.

The same layout tells two things the field cannot: whether the seed title is the *container* of
the entry (after "In", editors between: a chapter of an edited volume, not the volume), and
whether the entry names another *volume* of a series (``The Art of Computer Programming, Vol.
3``). Each finding comes back as a sentence the resolver stores on the edge.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable
from dataclasses import dataclass

from rapidfuzz import fuzz

from reflong.citations.thresholds import NEAR_VERBATIM

# Words that begin a venue, a publisher or a locator when printed right after a title.
# Words that begin a venue, a publisher or a locator when printed, capitalised, right after a
# title: abbreviations and names that are not ordinary title words ("Review", "Nature", "Science"
# are: they count only when a volume number follows them, see ``after_is_not_title``).
_VENUE_TEXT = """
    j journal jour phys rev lett proc proceedings conf conference trans transactions ann annu acta
    adv nucl astrophys astron chem biol med natl acad sci int comput appl opt quant grav mon bull
    commun rep univ lect z zh sov jetp pis nat plos bmc lancet bmj jama clin neurosci biochem mol
    genet res ieee acm siam aaai ijcai icml nips neurips iclr cvpr iccv eccv acl emnlp naacl coling
    sigir kdd vldb sigmod icde stoc focs soda lncs symp symposium workshop in arxiv preprint doi http
    https url eprint biorxiv medrxiv chemrxiv ssrn springer elsevier wiley pergamon prentice addison
    mcgraw kluwer birkhauser crc routledge dover london paris berlin boston washington chicago
    amsterdam heidelberg dordrecht princeton singapore tokyo leipzig stuttgart
"""
VENUE_WORDS = frozenset(_VENUE_TEXT.split())
_ALWAYS_VENUE = frozenset({"arxiv", "preprint", "doi", "http", "https", "www", "url", "eprint"})
_EDITOR_TEXT = "ed eds edd editor editors edited hrsg hrg hg dir dirs comp comps and by und cura di a gen"
EDITOR_WORDS = frozenset(_EDITOR_TEXT.split())
# Words that say "edited by" ("eds.", "Hrsg.", "a cura di"), next to an edited volume's title.
EDITOR_MARKS = frozenset({"ed", "eds", "edd", "editor", "editors", "hrsg", "hrg", "hg", "cura"})
# An abbreviated editor mark is closed by its period or a bracket ("(ed.)", "eds.,", "Hrsg."):
# "ed" run on into a name is a given name ("Ed H. Chi", "Ed Chi"), not an editor.
_ABBREVIATED_MARKS = frozenset({"ed", "eds", "edd", "hrsg", "hrg", "hg"})
CONTAINER_WINDOW = 24  # words between an "In" and the volume's title (editors, "gen. ed.")
VOLUME_WORDS = frozenset({"vol", "vols", "volume", "part", "pt", "book", "band", "bd", "tome", "tom"})
_NAME_PARTICLES = frozenset(
    {"and", "et", "al", "van", "von", "de", "der", "den", "da", "di", "la", "le", "du"}
)
_ROMAN = re.compile(r"^(?:i{1,3}|iv|v|vi{1,3}|ix|x)$")
_SEQUEL_MARK = re.compile(r"^(?:v?\d{1,2}(?:\.\d)?|[a-z]+-?\d{1,2}(?:\.\d)?)$")
_SEQUEL_ROMAN = frozenset({"ii", "iii", "iv"})
# Ordinals number an edition or a meeting: "Proceedings of the 13th ACM Symposium ..." is not the
# 15th, and the first workshop is not the fourth.
_ORDINAL = re.compile(r"^\d{1,3}(?:st|nd|rd|th)$")
_ORDINAL_WORDS = frozenset(
    [
        "first",
        "second",
        "third",
        "fourth",
        "fifth",
        "sixth",
        "seventh",
        "eighth",
        "ninth",
        "tenth",
        "eleventh",
        "twelfth",
        "thirteenth",
        "fourteenth",
        "fifteenth",
        "sixteenth",
        "seventeenth",
        "eighteenth",
        "nineteenth",
        "twentieth",
    ]
)
ABBREVIATION_CHARS = 5  # "Class.", "Mon.", "Grav.": a journal's abbreviated word, not a title's
MIN_VERBATIM_WORDS = 3  # "Deep learning", "Layer normalization": too generic to stand on layout
MIN_VERBATIM_CHARS = 15


@dataclass(frozen=True)
class Window:
    """Words ``first..last`` (inclusive) of the reference that carry the seed title."""

    first: int
    last: int
    score: float


def differing_marks(seed: set[str], ref: set[str]) -> set[str]:
    """Sequel, version or edition marks on one side only. An ordinal *word* ("fifth") counts only
    against another ordinal: one missing from a side is more often a typo ("FITFH") than another
    edition."""
    diff = seed ^ ref
    if diff and diff <= _ORDINAL_WORDS and not (seed & _ORDINAL_WORDS and ref & _ORDINAL_WORDS):
        return set()
    return diff


_NUMBER_THEN_LETTERS = re.compile(r"^(\d{1,2})[a-z]{2,}$")


def sequel_marks(words: list[str]) -> set[str]:
    """Short numbers and roman numerals that name a sequel or version ("2", "v3", "gpt4", "ii"),
    and ordinals that number an edition or a meeting ("13th", "eighth"); not years or pages."""
    return {
        w
        for w in words
        if _SEQUEL_MARK.match(w) or w in _SEQUEL_ROMAN or _ORDINAL.match(w) or w in _ORDINAL_WORDS
    }


def glued_numbers(marks: set[str], seed_words: list[str], ref_words: list[str]) -> set[str]:
    """Of the marks found on one side only, the numbers the other side prints glued to the word
    after them ("2 . 76 TeV" and "2 .76TeV", PDF spacing): the same number, not a sequel's. A
    name glued to its number ("GPT-4o" against "GPT-4") is not one of them."""
    glued = {m.group(1) for w in (*seed_words, *ref_words) if (m := _NUMBER_THEN_LETTERS.match(w))}
    return {m for m in marks if m.isdigit() and m in glued}


def windows(
    seed_plain: str,
    n_words: int,
    words: list[str],
    plain: str,
    starts: list[int],
    near: int,
    fuzzy: bool = True,
) -> list[Window]:
    """Every exact, word-aligned occurrence of the seed title; else (when ``fuzzy``) the best
    near-exact run of words around character ``near`` of ``plain`` (where the fuzzy alignment
    put it)."""
    out: list[Window] = []
    at = plain.find(seed_plain)
    while at >= 0:
        end = at + len(seed_plain)
        if (at == 0 or plain[at - 1] == " ") and (end == len(plain) or plain[end] == " "):
            first = starts.index(at)
            out.append(Window(first, first + n_words - 1, 100.0))
        at = plain.find(seed_plain, at + 1)
    if out or not words or not fuzzy:
        return out
    k = max(0, bisect.bisect_right(starts, near) - 1)
    best: Window | None = None
    for s in range(max(0, k - 1), min(len(words), k + 2)):
        for length in (n_words - 1, n_words, n_words + 1):
            if length < 1 or s + length > len(words):
                continue
            score = fuzz.ratio(seed_plain, " ".join(words[s : s + length]))
            if score >= NEAR_VERBATIM and (best is None or score > best.score):
                best = Window(s, s + length - 1, score)
    return [best] if best else []


# Capitalised function words are not initials ("A Scalable ...", "AND", "FOR").
_NOT_INITIALS_TEXT = (
    "A I AN AND AT BY FOR IN OF ON OR THE TO NOT ALL ARE CAN DO IS IT AS BE WE NO SO UP ITS OUR YOU "
    "HOW WHY NEW ONE TWO USE GET"
)
_NOT_INITIALS = frozenset(_NOT_INITIALS_TEXT.split())
_YEAR_TOKEN = re.compile(r"^(?:1[5-9]|20)\d\d$")
_FUNCTION_TEXT = "a an the of for and or in on to with by at as from into via vs is are be"
_FUNCTION_WORDS = frozenset(_FUNCTION_TEXT.split())


BOUNDARY_NOTE = "a field boundary"


def mostly_capitals(cased: list[str]) -> bool:
    """Whether words are printed in capitals (a title in caps): their case is no evidence then."""
    letters = [w for w in cased if w.isalpha() and len(w) > 3]
    return bool(letters) and sum(w.isupper() for w in letters) * 2 > len(letters)


def _is_initials(token: str) -> bool:
    if token in _NOT_INITIALS:
        return False
    return token.isalpha() and (len(token) == 1 or (token.isupper() and len(token) <= 3))


def _is_number(token: str) -> bool:
    return token.isdigit()


def before_is_not_title(
    words: list[str], cased: list[str] | None, colons: list[bool] | None, bounds: list[bool], first: int
) -> str | None:
    """What is printed right before the title run, if it cannot be part of a title; else None."""
    if first == 0 or bounds[first - 1]:
        return BOUNDARY_NOTE
    tok = (cased or words)[first - 1]
    colon = colons is not None and colons[first - 1]
    if (_is_number(tok) and not (colon and not _YEAR_TOKEN.match(tok))) or tok.lower() == "al":
        # A year ("2011: Zur Effizienz ..." too), a number, "et al."; not "Llama 3: The third ..."
        return f"'{tok}'"
    if (
        colons is not None
        and colons[first - 1]
        and not (cased is not None and _is_initials(tok) and len(tok) <= 2)
    ):
        return None  # "CMMLU: Measuring ...": the run is the subtitle of a longer title
    if cased is not None and _is_initials(tok):
        # Initials follow a surname or other initials ("Salzberg SL", "Maldacena J M"); an
        # acronym after a year, a boundary or a colon is a title word ("2022 GLM: General ...").
        prev = cased[first - 2] if first >= 2 and not bounds[first - 2] else ""
        prev_colon = colons is not None and first >= 2 and colons[first - 2]
        if (
            prev
            and prev[0].isupper()
            and not prev.isdigit()
            and prev.lower() not in VENUE_WORDS
            and not prev_colon
        ):
            return f"initials '{tok}'"
    return None


def _abbreviated(token: str, raw: str) -> bool:
    """A short capitalised word the reference prints closed by a period ("Class.", "Grav.")."""
    return (
        token[:1].isupper()
        and len(token) <= ABBREVIATION_CHARS
        and re.search(rf"\b{re.escape(token)}\.(?:\s|$)", raw) is not None
    )


def after_is_not_title(
    words: list[str],
    cased: list[str] | None,
    colons: list[bool] | None,
    bounds: list[bool],
    last: int,
    raw: str = "",
) -> str | None:
    """What is printed right after the title run, if it cannot continue a title; else None.
    ``raw`` (the reference as printed) lets a short capitalised word closed by a period read as
    an abbreviated journal name ("Advanced LIGO Class. Quantum Grav. 32")."""
    if colons is not None and colons[last]:
        return None  # "Title: subtitle": the run is the head of a longer title
    if last == len(words) - 1 or bounds[last]:
        return BOUNDARY_NOTE
    low = words[last + 1]
    if _is_number(low) or low in _ALWAYS_VENUE:
        return f"'{low}'"
    if cased is None:
        return None
    tok, end = cased[last + 1], cased[last]
    if not tok[:1].isupper():
        return None
    if low in VENUE_WORDS:
        return f"venue word '{tok}'"
    if last + 2 < len(words) and words[last + 2].isdigit() and not bounds[last + 1]:
        return f"'{tok}' and a volume number"  # "Nature 521", "Science 313"
    if bounds[last + 1] and _abbreviated(tok, raw):
        # "Advanced LIGO Class. Quantum Grav. 32": a journal abbreviated word by word. One word
        # closed by a period is the end of a longer title as often ("... LLM Bugs. IEEE ..."), so
        # a second abbreviation must follow within a few words.
        later = [w for w in cased[last + 2 : last + 5] if _abbreviated(w, raw)]
        if later:
            return f"abbreviated journal '{tok}. ... {later[0]}.'"
    if end[:1].islower() and end.lower() not in _FUNCTION_WORDS:
        # A sentence-case title ends in lower case; a capital after it starts the journal's name.
        return f"capitalised '{tok}' after a sentence-case title"
    return None


def author_block_before(
    words: list[str], bounds: list[bool], colons: list[bool] | None, first: int, surname: str
) -> bool:
    """Whether the words before the title run are the entry's author block closed by a colon
    ("He Huanhuan: On Dignaga's Names"): a short run of words from the entry's start (numbering
    aside), no field boundary inside, that names the seed's first author, with the colon right
    before the run. Without the seed's name the colon is read as a title's head ("CMMLU:
    Measuring ..."); after a closed author block it is one too ("P. Utgoff. ID5: An ...")."""
    if not surname or first == 0 or colons is None or not colons[first - 1]:
        return False
    lead = 1 if words[0].isdigit() else 0
    block = words[lead:first]
    closed_inside = any(bounds[lead : first - 1])
    return 0 < len(block) <= AUTHOR_BLOCK_WORDS and surname in block and not closed_inside


AUTHOR_BLOCK_WORDS = 4  # "He Huanhuan", "Sylvester Keil", "J. R. R. Tolkien": a name, not a list


def leading_sequel(words: list[str], bounds: list[bool], first: int) -> set[str]:
    """A sequel or version mark printed right before the title run in the same field ("R3:
    Reinforced mnemonic reader models", "Minference 1.0: Accelerating ..."): the run is the
    subtitle of another work's name."""
    if first == 0 or bounds[first - 1]:
        return set()
    prev = words[first - 1]
    if first >= 2 and words[first - 2] in VOLUME_WORDS and words[first - 2] not in _PART_WORDS:
        # "Of Revelation and Revolution, vol. 2: The Dialectics of Modernity ...": the number
        # places the run, the volume's own title, in a set; the seed names that volume. A part
        # stays a sequel ("Part 2: Probabilistic semantics of programs") (resolve-21).
        return set()
    return {prev} if _SEQUEL_MARK.match(prev) or prev in _SEQUEL_ROMAN else set()


def trailing_sequel(words: list[str], bounds: list[bool], last: int) -> set[str]:
    """A sequel number printed right after the title run ("Stable Diffusion 2"), as opposed to a
    volume or page numbers that follow an unpunctuated title ("... models Nucl Phys B 801 268 -95":
    they never touch the title, or come in a run of numbers)."""
    if last + 1 >= len(words) or bounds[last]:
        return set()
    nxt = words[last + 1]
    if not (_SEQUEL_MARK.match(nxt) or nxt in _SEQUEL_ROMAN):
        return set()
    # "Title 12 345": volume and page; "inequality 56 (9) 4668": volume and issue; "... 56 (2010)
    # 4668": volume, year and page. A year alone after a comma ("Llama 2, 2023") leaves the
    # number the title's own.
    after = words[last + 2 : last + 4]
    if after and after[0].isdigit():
        if not bounds[last + 1] or not _YEAR_TOKEN.match(after[0]):
            return set()
        if len(after) == 2 and (after[1].isdigit() or after[1] in _PAGE_MARKS):
            return set()  # "... Papers 6 (1951), pp. 5-80": volume, year, pages
    return {nxt}


_PAGE_MARKS = frozenset({"p", "pp", "pages", "page", "s", "col", "coll"})
_CLOSES_A_CONTAINER = frozenset({"pages", "pp", "doi", "http", "https", "url"})


def container_at(words: list[str], bounds: list[bool], first: int) -> int | None:
    """Where the "In" is when the title run is the container of the entry: printed after an "In"
    that opens a field, editors or anything else between ("... Chapter title. In: Smith J (ed.)
    Handbook of X", "In K. Brown (gen. ed.), Encyclopedia of ..."). None when it is not; an entry
    that opens with "In" is the volume itself. Pages, a DOI or a URL between the "In" and the title
    run end the search: they come after a container's title, never between its editors and it, so
    the "In" belongs to an entry already closed, one that the PDF text glued to the next ("... In
    Proceedings of COLING, pages 539-548. doi:... Varga, J. (2024). Title")."""
    for p in range(first - 1, max(1, first - CONTAINER_WINDOW) - 1, -1):
        if words[p] in _CLOSES_A_CONTAINER:
            return None
        if words[p] == "in" and bounds[p - 1]:
            return p
    return None


def editors_at(words: list[str], bounds: list[bool], first: int, last: int) -> int | None:
    """Where the editor block starts when the title run is printed as an edited volume: right
    after editors ("French, B.M. and Short, N.M., eds., Shock Metamorphism ...", "Minsky's (ed.)
    Semantic Information Processing") or right before an editor line ("Childhood in the English
    Renaissance. Ed. Anja Muller"). None when no editor word touches the run."""
    for q in range(first - 1, max(-1, first - 4), -1):
        if words[q] in EDITOR_MARKS and (bounds[q] or words[q] not in _ABBREVIATED_MARKS):
            p = q
            while p > 0 and (words[p - 1] in EDITOR_MARKS or len(words[p - 1]) <= 2 or not bounds[p - 1]):
                p -= 1
            return p
    nxt = words[last + 1 : last + 3]
    if nxt and (nxt[0] in EDITOR_MARKS or nxt[:2] == ["edited", "by"]):
        return first
    return None


def prose_between_names_and(cased: list[str] | None, p: int) -> bool:
    """Whether words before position ``p`` (the "In") include prose, i.e. a chapter title, not
    only names, initials, years and "et al." ("Georgeff M P 1987 Actions processes and causality
    In ..." vs "A Yoshida et al in ...")."""
    if cased is None:
        return True
    # Author-year styles print the entry's own title right after the year; a Title Case chapter
    # title ("1973 Monuments, Mobilization and Social Organization ...") has no lower-case prose
    # word, but any word between the year and the "In" is that title ("Smith J 2010 in: ..." has none).
    years = [i for i, w in enumerate(cased[:p]) if _YEAR_TOKEN.match(w.rstrip("abcdef"))]
    if years:
        after_year = []
        for w in cased[years[0] + 1 : p]:
            if w.lower() == "in":
                break  # "Folkner W M 2009, in IAU Symposium, ed. ...": the volume, no chapter
            after_year.append(w)
        if any(
            w[:1].isalpha() and w.lower() not in EDITOR_WORDS and w.lower() not in ("et", "al")
            for w in after_year
        ):
            return True
    lower = [
        w
        for w in cased[:p]
        if w[:1].islower()
        and w.isalpha()
        and w not in _NAME_PARTICLES
        and w not in EDITOR_WORDS
        and w not in _NAME_LINKS  # "Barozzi, N. e Berchet, G., a cura di": names, no prose
        and w != "in"
    ]
    return len(lower) >= 1


# Words that join names in an author or editor list in the languages bibliographies print.
_NAME_LINKS = frozenset({"e", "ed", "und", "y", "u", "alii", "altri"})

# A title that reads as a venue: proceedings, a conference, a series ("Lecture Notes in ...").
_VENUE_TITLE = re.compile(
    r"^(?:in |proc |proceedings |advances in |journal |transactions |annals |lecture notes )"
    r"|\bproceedings\b|\b(?:international|annual) (?:conference|symposium|workshop|meeting|congress)\b"
    r"|\b(?:conference|symposium|workshop|congress) on\b"
)


def venue_like(plain: str) -> bool:
    """Whether a (normalised) title reads as the name of a venue or a series."""
    return bool(_VENUE_TITLE.search(plain))


CONTAINER_NOTE = (
    "the seed title is printed after 'In' (the container of this entry: a chapter of the volume?)"
)


def earlier_title_field(
    cased: list[str] | None,
    bounds: list[bool],
    field_first: int,
    skip: Callable[[int, list[str]], bool] | None = None,
) -> str | None:
    """A field before the one holding the title run that reads as prose (a title of its own):
    the seed title then stands where a venue or a volume stands. ``skip(start, field)``: a field
    (its first word's index, its words) that is no title whatever it reads like; one walk over
    the fields serves its callers (``prose_remark`` skips a footnote's opening remark)."""
    if cased is None:
        return None
    start = 0
    for i in range(field_first):
        if bounds[i]:
            field = cased[start : i + 1]
            if skip is not None and skip(start, field):
                start = i + 1
                continue
            alpha = [w for w in field if w.isalpha()]
            # "(a cura di)", "(eds.)": an editor mark, not prose.
            lower = [
                w
                for w in alpha
                if w[0].islower() and w.lower() not in _NAME_PARTICLES and w.lower() not in EDITOR_WORDS
            ]
            if len(alpha) >= 3 and len(lower) >= 2:
                return f"another title-like field comes first ('{' '.join(field[:6])}')"
            start = i + 1
    return None


def _volume_of(words: list[str], i: int) -> str | None:
    if (
        i + 1 < len(words)
        and words[i] in VOLUME_WORDS
        and (words[i + 1].isdigit() or _ROMAN.match(words[i + 1]))
    ):
        if i + 2 < len(words) and words[i + 2] == "of":
            return None  # "vol. 4 of <series>": the title before it is the book itself
        return words[i + 1]
    return None


_PART_WORDS = frozenset({"part", "pt"})
_TITLED_VOLUME = re.compile(
    r"(?i)\b(?:vol|vols|volume|part|pt|book|band|bd|tome)\.?\s*(?:\d+|[ivx]+)\s*:\s*[A-Za-z]"
)


def series_note(seed_words: list[str], words: list[str], raw: str, last: int) -> str | None:
    """The entry names another volume of the series the seed title names: the seed's own volume
    differs, or the seed has none and the volume carries its own title after a colon
    ("The Art of Computer Programming, Vol. 3: Sorting and Searching"). A bare "vol. 16" or
    "Vol. 23 Doubleday" after a book title is the book's number in a series or a multi-volume
    set, not another work."""
    theirs = _volume_of(words, last + 1)
    if theirs is None:
        return None
    at = next((i for i in range(len(seed_words)) if _volume_of(seed_words, i)), None)
    ours = _volume_of(seed_words, at) if at is not None else None
    if ours == theirs:
        return None
    if at is not None and seed_words[at] not in _PART_WORDS and words[last + 1] in _PART_WORDS:
        # "Genera Orchidacearum. vol. 6, Epidendroideae (Part 3)" for a seed naming vol. 6: a
        # part of the seed's own volume, no other volume of the series (resolve-12).
        return None
    if ours is None and not _TITLED_VOLUME.search(raw):
        return None
    return f"the reference names volume {theirs} of this title (another volume of a series)"


def extended_tokens(seed_words: list[str], printed: list[str], raw: str = "") -> list[tuple[str, str]]:
    """Short tokens of the seed printed as another token that one extends ("Iub" printed "Iu",
    "ID3" printed "ID"): (seed's, printed). A one-letter difference is a typo in a long word but
    another name in a short one (an interface, a protocol, a gene), so it must not pass as a
    near-verbatim title. A plural "s" and stopwords are not counted, nor two conjunctions of one
    language ("ed" for "e") or a word abbreviated with a period in ``raw`` (the reference as
    printed: "sec." for "secolo", "ed." for "edition")."""
    from difflib import SequenceMatcher

    ours, theirs = set(seed_words), set(printed)
    if all(len(w) > SHORT_TOKEN or w in theirs for w in ours) and all(
        len(w) > SHORT_TOKEN or w in ours for w in theirs
    ):
        return []  # every short token is on both sides: nothing to align (the usual case)
    out = []
    ops = SequenceMatcher(None, seed_words, printed, autojunk=False).get_opcodes()
    for tag, i1, i2, j1, j2 in ops:
        if tag != "replace" or i2 - i1 != 1 or j2 - j1 != 1:
            continue
        a, b = seed_words[i1], printed[j1]
        short, long_ = sorted((a, b), key=len)
        if (
            len(short) <= SHORT_TOKEN
            and short not in _FUNCTION_WORDS
            and not (a in _CONJUNCTIONS and b in _CONJUNCTIONS)
            and long_.startswith(short)
            and long_[len(short) :] != "s"
            and not (short == b and len(long_) - len(short) >= 2 and _abbreviation_in(short, raw))
        ):
            out.append((a, b))
    return out


# Conjunctions and articles of the languages bibliographies print ("e"/"ed", "et", "und").
_CONJUNCTION_TEXT = "and e ed et und y i o od oder ou"
_CONJUNCTIONS = frozenset(_CONJUNCTION_TEXT.split())


def _abbreviation_in(token: str, raw: str) -> bool:
    """Whether ``raw`` prints ``token`` closed by a period ("sec.", "Ist."): an abbreviated word."""
    return bool(raw) and re.search(rf"(?i)(?<![^\W\d_]){re.escape(token)}\.", raw) is not None


SHORT_TOKEN = 4  # "Iub", "ID3", "RNA", "UMTS": names, not words a typo leaves recognisable


def name_block_before(cased: list[str] | None, bounds: list[bool], first: int, surname: str) -> str | None:
    """Whether the words from the entry's start (numbering aside) to the title run are an author
    block that no punctuation closes: names in initials-surname order ("M. Pazzani & D. Kibler
    The utility ...", "C. P.Baldé V.Forti V.Gray ... The global ...", "C.J. Joachain : Quantum
    ..."). Each surname must have initials right before it, so a title word after the last name
    ("... D. Kibler The utility") breaks the block; a block in surname-initials order ends in
    initials, which ``before_is_not_title`` already reads. The block must name the seed's first
    author or hold two names or more. Returns a note, or None."""
    if cased is None or first == 0:
        return None
    lead = 1 if cased[0].isdigit() else 0
    block = cased[lead:first]
    if len(block) < 2 or not _is_initials(block[0]):
        return None
    names, i = 0, 0
    while i < len(block):
        tok = block[i]
        if tok.lower() in ("and", "et", "al") or tok.lower() in _NAME_PARTICLES:
            i += 1
            continue
        if not _is_initials(tok):
            return None
        while i < len(block) and _is_initials(block[i]):
            i += 1
        while i < len(block) and block[i] in _SURNAME_PARTICLES:
            i += 1  # "J. van der Waals" (printed in lower case: "Du" is a surname)
        if i >= len(block) or not _is_surname(block[i]):
            return None  # initials not followed by a surname: not a name list
        names += 1
        i += 1
    named = bool(surname) and surname in {w.lower() for w in block}
    if names >= 2 or named:
        return "an author block with no closing punctuation"
    return None


_SURNAME_PARTICLES = _NAME_PARTICLES - {"and", "et", "al"}


def _is_surname(token: str) -> bool:
    return token[:1].isupper() and token.isalpha() and len(token) >= 2 and token not in _NOT_INITIALS


def name_prefix(
    words: list[str], cased: list[str] | None, colons: list[bool] | None, bounds: list[bool], first: int
) -> str | None:
    """A one-word name printed, with a colon, right before the title run at the start of its
    field ("ID5: An incremental ID3", "ID5R: An ..."): the name of a system the work introduces,
    which one printing of the title carries and another leaves out. Returns the name, or None.
    Not a numbered part ("Part 2:"), a bare number or a roman numeral: those are sequels."""
    if first == 0 or colons is None or not colons[first - 1]:
        return None
    p = first - 1
    if p > 0 and not bounds[p - 1] and not (words[p - 1].isdigit() and p - 1 == 0):
        return None  # more than one word before the colon ("NimFlow 2:", "Part 2:")
    name = words[p]
    if name.isdigit() or name in _SEQUEL_ROMAN or name in VOLUME_WORDS or not name[:1].isalpha():
        return None
    if cased is not None and (not cased[p][:1].isupper() or (_is_initials(cased[p]) and len(cased[p]) <= 2)):
        return None  # lower case, or initials closing an author block ("Perkowski, M.: A New ...")
    return (cased or words)[p]


def own_field_with_year(
    seed_plain: str,
    seed_year: int | None,
    words: list[str],
    bounds: list[bool],
    years: list[int],
    field: tuple[float, int, str],
) -> str | None:
    """Why a short seed title (1-2 words) of a seed without a first author (an anonymous work,
    a catalogue: no author evidence can exist either way) may still be accepted, or None: printed word for word as a complete field of its own (a boundary or the
    entry's start before it, a boundary or the end after it: "(1885), «Vecchie mura», Ateneo
    veneto.") with the seed's own year printed. A short title inside a longer one, or printed
    without the year, stays in review."""
    score, start, span = field
    if score < 100.0 or start < 0 or span != seed_plain or not seed_year or seed_year not in years:
        return None
    last = start + len(seed_plain.split()) - 1
    before = start == 0 or bounds[start - 1]
    after = last == len(words) - 1 or bounds[last]
    if not (before and after):
        return None
    return f"a short title printed verbatim as a field of its own and the seed's year {seed_year} printed"


def misread_numerals(seed_words: list[str], printed: list[str], marks: set[str]) -> set[str]:
    """Of the sequel marks found on one side only, roman numerals the printed title has where
    the seed title has the same word with "l" for "i" ("II tramonto" for "Il tramonto": OCR
    reads a capital I for an l): one word misread, not a second volume."""
    out = set()
    for w in marks:
        if (w in _SEQUEL_ROMAN or _ROMAN.match(w)) and w in printed and w not in seed_words:
            misread = [s for s in seed_words if s != w and "l" in s and s.replace("l", "i") == w]
            if any(s not in printed for s in misread):
                out.add(w)
    return out
