"""One raw reference string -> the fields the resolver can use.

The built-in parser is deliberately shallow: it pulls out what can be found reliably with patterns
(arXiv ids in old and new style with their version, DOIs, years) and makes a *guess* at the author
block and the title. The resolver never trusts the title guess alone: it searches the seed title
in the whole string and uses the guess only as a cross-check (e.g. an arXiv id whose title
disagrees).
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field

from reflong.citations.evidence import colon_authors
from reflong.citations.fields.normalize import clean_unicode, fold

# New-style ids (0704.0001 onwards: YYMM.NNNN, from 1501 YYMM.NNNNN), anchored on an arXiv marker,
# because bare "1234.5678" also occurs as page ranges or volume numbers.
_ARXIV_ANCHOR = re.compile(
    r"(?i)(?:arxiv(?:\s*preprint)?\s*(?:e-prints)?\s*[:.]?\s*|abs/|arxiv\.org/(?:abs|pdf)/)"
)
_NEW_ID = re.compile(r"^(\d{4})\.(\d{4,5})(?:v(\d+))?")
_OLD_ID = re.compile(
    r"(?i)\b((?:astro-ph|cond-mat|gr-qc|hep-ex|hep-lat|hep-ph|hep-th|math-ph|nlin|nucl-ex|nucl-th|physics|"
    r"quant-ph|math|cs|q-bio|q-fin|stat|eess|econ|chao-dyn|solv-int|patt-sol|adap-org|alg-geom|"
    r"funct-an|dg-ga|q-alg|chem-ph|comp-gas|mtrl-th|supr-con|bayes-an|plasm-ph|ao-sci|atom-ph|acc-phys)"
    r"(?:\.[A-Z]{2})?/\d{7})(?:v(\d+))?"
)
_DOI = re.compile(r"(?i)\b(10\.\d{4,9}/[^\s\"<>]+)")
_ARXIV_DOI = re.compile(r"(?i)^10\.48550/arxiv\.(\d{4}\.\d{4,5})(?:v(\d+))?")
_YEAR = re.compile(r"(?<![\d./])((?:19|20)\d\d)[a-z]?(?!\d|\.\d)")
_NUMBER_PREFIX = re.compile(r"^\s*(?:\[\s*\d{1,4}\s*\]|\(\s*\d{1,4}\s*\)|\d{1,4}\s*[.)]\s)\s*")
_INITIAL = re.compile(r"^(?:[A-Z]|[A-Z][a-z]?\.?-[A-Z]|Jr|Sr|St|Ph|Th|Ch|Mc|Dr|al|et al)$")


@dataclass
class ParsedEntry:
    """What one bibliography entry says, as far as the parser could tell."""

    raw: str
    title: str | None = None
    authors: list[str] = field(default_factory=list)
    year: int | None = None
    arxiv_id: str | None = None
    arxiv_version: int | None = None
    doi: str | None = None

    def to_dict(self) -> dict:
        return asdict(self)


def _squeeze_digits(text: str) -> str:
    """Remove spaces a line break left inside an id ("2307. 09288", "230 2.13971")."""
    return re.sub(r"(?<=[\d.])\s+(?=[\d.])", "", text)


def valid_new_id(yymm: str, number: str) -> bool:
    """arXiv's new scheme: YYMM from 0704, month 01-12, 4 digits until 1412 and 5 from 1501.
    Placeholders such as "abs/2022.99999" in real bibliographies fail this and are ignored."""
    if not 1 <= int(yymm[2:]) <= 12 or int(yymm) < 704:
        return False
    return len(number) == (5 if int(yymm) >= 1501 else 4)


def find_arxiv_id(text: str) -> tuple[str | None, int | None]:
    """First arXiv id in the string: new style ("2302.13971v2") or old style ("hep-th/9901001")."""
    for match in _ARXIV_ANCHOR.finditer(text):
        tail = _squeeze_digits(text[match.end() : match.end() + 24].lstrip())
        found = _NEW_ID.match(tail)
        if found and valid_new_id(found.group(1), found.group(2)):
            version = int(found.group(3)) if found.group(3) else None
            return f"{found.group(1)}.{found.group(2)}", version
    old = _OLD_ID.search(text)
    if old:
        return old.group(1).lower().replace(" ", ""), int(old.group(2)) if old.group(2) else None
    doi = find_doi(text)
    if doi:
        arx = _ARXIV_DOI.match(doi)
        if arx:
            return arx.group(1), int(arx.group(2)) if arx.group(2) else None
    return None, None


def find_doi(text: str) -> str | None:
    match = _DOI.search(_squeeze_digits(text.replace("doi: ", "doi:")))
    if not match:
        return None
    return match.group(1).rstrip(".,;)]}").lower()


def find_years(text: str) -> list[int]:
    return [int(y) for y in _YEAR.findall(text)]


def _split_fields(text: str) -> list[str]:
    """Split at ". " / "? " boundaries (a field ends there), keeping the delimiter on the left, and
    before a period PDF text glued to the next field ("... lasers .Review of ...")."""
    parts = re.split(r"(?<=[.?!])\s+|\s+(?=\.[A-Z])", text)
    return [p for p in parts if p.strip()]


def _is_author_piece(piece: str) -> bool:
    """Does this ". "-delimited piece end inside an author list ("S. Ioffe and C." / "J.-P.")?"""
    last = piece.rstrip(".").split()[-1] if piece.rstrip(".").split() else ""
    if piece.rstrip().endswith("et al."):
        return False  # "et al." closes an author list
    return bool(_INITIAL.match(last))


_NAME_WORDS = frozenset(
    [
        "and",
        "et",
        "al",
        "van",
        "von",
        "de",
        "der",
        "den",
        "da",
        "di",
        "la",
        "le",
        "du",
        "del",
        "dos",
        "ten",
        "ter",
        "bin",
    ]
)


_TITLE_OPENERS = frozenset(
    {"The", "A", "An", "On", "Towards", "Toward", "How", "What", "Why", "When", "Beyond"}
)


def _looks_like_title(piece: str) -> bool:
    """Several words, at least two of them lower case and not name particles: prose, not names
    ("Training language models to follow ..." vs "L., Mishkin, P., Zhang, C."); or, in title case,
    three words or more opened by an article or the like ("The Commercial Paper Market")."""
    words = re.findall(r"[^\W\d_][\w'-]*", piece)
    lower = [w for w in words if w[0].islower() and w not in _NAME_WORDS]
    if len(words) >= 3 and words[0] in _TITLE_OPENERS and "," not in piece:
        return True
    return len(words) >= 3 and len(lower) >= 2


def _surnames(block: str) -> list[str]:
    """Author surnames from an author block in "F. Last, F. Last, and F. Last" or "Last, F." forms."""
    block = re.sub(r"\bet al\.?", "", block)
    names = [n.strip() for n in re.split(r",\s*|\s+and\s+|\s*&\s*|;\s*", block) if n.strip()]
    out: list[str] = []
    for name in names:
        tokens = [t for t in re.split(r"\s+", name) if t and not re.fullmatch(r"[A-Z]\.?(-[A-Z]\.?)?", t)]
        tokens = [t for t in tokens if not re.fullmatch(r"\d{4}[a-z]?\.?", t)]
        if tokens:
            out.append(fold(tokens[-1].strip(".")))
    return out[:60]


# A title in quotes that opens a field (IEEE, Chicago, MLA: 'Last, "Title," Venue').
_QUOTED = re.compile(
    r"(?:^|[,.:;)]\s*)(?:\u201c|\"|``|\u2018|\u00ab\s?)(?P<t>[^\u201c\u201d\"\u2018\u2019\u00ab\u00bb]{8,}?)(?:\u201d|\"|''|\u2019|\s?\u00bb)"
)
# Physics (IOP) style: "Kitaev A Y 2003 Fault-tolerant quantum computation by anyons Ann. Phys. 303 2":
# surnames with bare initials, the year, then a title the journal follows without a period.
_IOP_HEAD = re.compile(
    r"^(?P<a>(?:[A-Z][\w'\u2019-]+(?:\s[A-Z]{1,2}\.?)+,?\s(?:and\s|&\s)?)+(?:et al\.?\s)?)"
    r"\(?(?P<y>(?:19|20)\d\d)[a-z]?\)?\s+(?P<rest>\S.*)$"
)
# One comma-separated name: "Seel", "D.", "A. Klumper", "and A. Seel", "Abdallah et al.".
_NAME_SEGMENT = re.compile(
    r"^(?:(?:and|&)\s+)?(?:[A-Z][\w'\u2019-]*|(?:[A-Z]\.\s?(?:-[A-Z]\.)?\s?)+(?:[A-Z][\w'\u2019-]+)?)"
    r"(?:\s(?:[A-Z]\.(?:-[A-Z]\.)?|[A-Z]{1,2}|et al\.?))*$"
)
# A year, then a capital or a number, inside a title guess: the venue of an unpunctuated style.
_YEAR_THEN_VENUE = re.compile(r"\s\(?(?:19|20)\d\d[a-z]?\)?[;:,]?\s+(?=[A-Z\d])")


def _venue_tail(title: str) -> str:
    """Drop a journal abbreviation an unpunctuated title ran into ("... by anyons Ann" before
    "Phys."), and a year-then-venue tail ("... data structure 2006 Neural Networks 900")."""
    from reflong.citations.evidence.title_evidence import VENUE_WORDS

    cut = _YEAR_THEN_VENUE.search(title)
    if cut and len(title[: cut.start()].split()) >= 3:
        title = title[: cut.start()]
    words = title.split()
    while len(words) > 3 and words[-1][:1].isupper() and words[-1].rstrip(".").lower() in VENUE_WORDS:
        words.pop()
    return " ".join(words)


def _is_names(segment: str) -> bool:
    """Whether a comma field is one or more names ("S.E. Fahlman and C. Lebiere", "et al.")."""
    parts = [p for p in re.split(r"\s+(?:and|&)\s+|^(?:and|&)\s+", segment.strip()) if p]
    return bool(parts) and all(p == "et al." or p == "et al" or _NAME_SEGMENT.match(p) for p in parts)


def _comma_title(text: str) -> str | None:
    """The title of a comma-separated entry ("F. Last, F. Last, and F. Last, Title ,Venue"): the
    first comma field that is not a name, when at least one name came before it."""
    segments = [s.strip() for s in re.split(r"\s*,\s*|\s*;\s*", text)]
    names = 0
    for seg in segments:
        if not seg:
            continue
        if _is_names(seg):
            names += 1
            continue
        if not names:
            return None
        seg = re.split(r"\s\((?!\d)", _split_fields(seg)[0])[0]  # "Title (Publisher, 2010)"
        return seg.rstrip(".").strip() if len(seg.split()) >= 2 else None
    return None


# "Affleck, I.: Exact results ...", "Duester G: Families of ...": an author block closed by a colon.
# Up to MAX_ENTRY_CHARS: a genome paper's list of hundreds of names runs to its colon (resolve-15);
# the pieces must all be names (``colon_authors``), so a title's colon far in is not read as one.
_COLON_AUTHORS = re.compile(r"^(?P<a>[^:]{2,4000}?):\s+(?P<rest>\S.*)$")


def _layout_title(body: str, title: str | None) -> str | None:
    """A better title than the ". "-field guess where the layout says so: a quoted title, the
    physics (IOP) order "Authors Year Title Journal", a comma-separated author list."""
    quoted = _QUOTED.search(body)
    if quoted and len(quoted.group("t").split()) >= 2:
        return quoted.group("t").strip().rstrip(",.").strip()
    iop = _IOP_HEAD.match(body)
    if iop:
        first = _split_fields(iop.group("rest"))[0].rstrip(".").strip()
        return _venue_tail(first) or title
    colon = _COLON_AUTHORS.match(body)
    segments = [seg for seg in re.split(r"\s*[,;]\s*", colon.group("a").strip()) if seg] if colon else []
    # "Ellis RJ, van der Vies SM:", "O'Brien JM Jr:", "ALSPAC Study Team:" (``colon_authors``).
    if segments and (all(_is_names(seg) for seg in segments) or colon_authors.printed_list(segments)):
        first = _split_fields(colon.group("rest"))[0].rstrip(".").strip()
        if len(first.split()) >= 2:
            return _venue_tail(first)
    if title is not None and _is_names(title):
        title = None  # the ". " split stopped inside the author list ("S.E. Fahlman and C")
    if title is None or re.match(r"^[^,]{1,40},\s", title):
        candidate = _comma_title(title or body)
        if candidate:
            return _venue_tail(candidate)
    return _venue_tail(title) if title else None


def parse_entry(raw: str) -> ParsedEntry:
    """Fields of one reference string (the string itself is kept verbatim as ``raw``)."""
    text = clean_unicode(raw)
    text = re.sub(r"\s+", " ", text).strip()
    entry = ParsedEntry(raw=raw)
    entry.arxiv_id, entry.arxiv_version = find_arxiv_id(text)
    entry.doi = find_doi(text)
    years = find_years(text)
    body = _NUMBER_PREFIX.sub("", text)
    pieces = _split_fields(body)
    # Author block: pieces up to the first one that does not end in an initial.
    i = 0
    author_parts: list[str] = []
    while i < len(pieces):
        if author_parts and _is_author_piece(author_parts[-1]) and _looks_like_title(pieces[i]):
            break  # "..., and Lowe, R." ended the authors ("Last, F." style): this is the title
        author_parts.append(pieces[i])
        i += 1
        if not _is_author_piece(pieces[i - 1]):
            break
    # Author-year styles put "2018a." right after the authors.
    year_here = None
    if i < len(pieces):
        m = re.fullmatch(r"\(?((?:1[5-9]|20)\d\d)[a-z]?\)?\.?", pieces[i].strip())
        if m:
            year_here = int(m.group(1))
            i += 1
    author_block = " ".join(author_parts)
    m = re.search(r"\(?((?:19|20)\d\d)[a-z]?\)?\.?\s*$", author_block)
    if m and year_here is None:
        year_here = int(m.group(1))
        author_block = author_block[: m.start()]
    if len(pieces) > 1:
        entry.authors = _surnames(author_block)
    if i < len(pieces):
        title = pieces[i].strip()
        # A title that ends in "?" may continue ("... question answering? try arc, ...").
        entry.title = title.rstrip(".").strip() or None
    entry.title = _layout_title(body, entry.title) or None
    colon = _COLON_AUTHORS.match(body)
    segments = [seg for seg in re.split(r"\s*[,;]\s*", colon.group("a").strip()) if seg] if colon else []
    if segments and colon_authors.printed_list(segments):
        # The ". " pieces read "Ellis RJ, van der Vies SM: Molecular chaperones." as one author
        # piece ("rj", "chaperones"); the colon closes the names.
        entry.authors = [fold(name) for name in colon_authors.printed_surnames(segments)]
    entry.year = year_here if year_here is not None else (years[-1] if years else None)
    return entry
