"""arXivRaw records (OAI-PMH ``metadataPrefix=arXivRaw``) read as ``ArxivRecord``s.

arXiv's OAI-PMH help page: "arXivRaw - arXiv specific metadata format which is very close the
internal format stored at arXiv. Includes version history." A record looks like::

    <record>
      <header>
        <identifier>oai:arXiv.org:2403.01234</identifier>
        <datestamp>2024-05-02</datestamp>          (last modification of the record, not v1's date)
        <setSpec>cs</setSpec>
      </header>
      <metadata>
        <arXivRaw xmlns="http://arxiv.org/OAI/arXivRaw/">
          <id>2403.01234</id>
          <version version="v1"><date>Mon, 4 Mar 2024 17:02:11 GMT</date><size>812kb</size>
            <source_type>D</source_type></version>
          <version version="v2">...</version>
          <title>...</title> <authors>A. One, B. Two and C. Three</authors>
          <categories>cs.CL cs.LG</categories>   (space separated, primary first)
          <comments>...</comments> <doi>...</doi> <abstract>...</abstract>
        </arXivRaw>
      </metadata>
    </record>

Withdrawals: arXiv withdraws a paper by announcing a new version that has no paper in it (a
withdrawal notice). arXiv's oaipmh (``serializers/create_records.py``) prints a version's
``<size>`` as ``source_size // 1024`` kb, or 0 when the size is missing, and its
``<source_type>`` from the source format and flags, where the format ``withdrawn`` becomes ``I``
("ignore": arxiv-base ``SourceFlag.ignore``, "Withdrawn ... No paper available"). So ``0kb``
alone proves nothing: a live paper with a tiny or missing source shows it too (2310.08262v1, 484
bytes of HTML, which arxiv-browse's ``db_abs.py`` names as not withdrawn; 2305.11452v1, no size),
while a withdrawal made before the ``withdrawn`` format existed has neither ``I`` nor a size above
0, only the author's comment (0906.3336v2: ``0kb``, "This paper has been withdrawn"). The rule,
right on every version of the 510 real records in tests/data/real/arxiv_oaipmh (arXiv's
``is_withdrawn`` column is the truth there):

* a version whose source type has ``I`` is a withdrawal notice;
* the newest version is one too when it is ``0kb`` and the comment (arXivRaw carries the newest
  version's) says "withdrawn";
* nothing else is: not ``0kb`` alone, not the word "withdrawn" in the comment of a paper whose
  newest version has a source.

A paper whose newest version is a withdrawal notice is withdrawn; an older version that was itself
withdrawn is never chosen as text.

Licences: ``<license>`` (after ``<doi>``) is the licence URL of the record's current metadata,
i.e. of its newest version (arXiv's oaipmh ``record_formats.xml`` prints
``record.current_meta.license``), and is absent when the paper has none (7 of the 501 recorded
records, all from before arXiv asked for one). arXiv changes a licence only with a new version,
and the older versions keep theirs, so the URL is recorded against the newest version only; an
older version's licence is known when an earlier harvest saw it as the newest.
"""

from __future__ import annotations

import re
import unicodedata
from datetime import date
from email.utils import parsedate_to_datetime

from lxml import etree

from reflong.ingest.metadata import (
    ArxivRecord,
    PaperVersion,
    clean_title,
    is_withdrawn,
    split_versioned_id,
)

OAI_NS = "http://www.openarchives.org/OAI/2.0/"
RAW_NS = "http://arxiv.org/OAI/arXivRaw/"
_O = f"{{{OAI_NS}}}"

_SIZE_RE = re.compile(r"^\s*(\d+)\s*kb\s*$", re.I)


def parse_version_date(text: str | None) -> str | None:
    """``Mon, 2 Apr 2007 19:18:42 GMT`` (arXivRaw) or ``2007-04-02`` -> ``2007-04-02`` (UTC)."""
    text = (text or "").strip()
    if not text:
        return None
    if re.match(r"^\d{4}-\d{2}-\d{2}", text):
        try:
            return date.fromisoformat(text[:10]).isoformat()
        except ValueError:
            return None
    try:
        return parsedate_to_datetime(text).date().isoformat()
    except (TypeError, ValueError, IndexError):
        return None


# --- authors ------------------------------------------------------------------------------------
# arXivRaw's <authors> is the string the submitter typed (arXiv's oaipmh serves the database's
# ``authors`` column as is: templates/record_formats.xml), in arXiv's documented form "First Last,
# First Last and First Last" with affiliations in brackets after a name or, numbered, at the end:
# "C. Neri (Lloyds Banking Group, London, UK) and L. Schneider (...)", "A (1), B (2) ((1) U1, (2)
# U2)", collaborations ("HESS Collaboration: A, B", "..., and MUCHFUSS collaboration"), "et al",
# suffixes ("A. A. Abdumalikov Jr.", "John Smith, Jr.") and TeX accents ("Fr\\'ed\\'eric",
# "Stanis{\\l}awa"). arXiv reads it the same way in arxiv-base's ``arxiv/authors``
# (``split_authors``: bracketed blocks at depth 0 are affiliations, names are split at "," ":" "and"
# "&"; "et al" dropped; "Jr"/"Sr" rejoined) and turns TeX into Unicode with ``tex2utf``. The rules
# below are ours, written for the same forms and checked on 510 real records
# (tests/test_arxivraw_real.py).

_MARKERS = re.compile(
    r"\$[^$]*\$"  # $^{1,2}$, $^*$: affiliation and footnote marks in math
    r"|\\(?:inst|thanks|footnote|footnotemark|affil|affiliation)\s*(?:\{[^{}]*\})?"
    r"|(?<!\\)\^(?:\{[^{}]*\}|\w)"  # ^1, ^{a,b}; not the circumflex of \^e
    r"|[\u00b9\u00b2\u00b3\u2070-\u2079*\u2020\u2021\u00a7\u00b6]"
)
_SEPARATORS = re.compile(r"\s*(?:[,;:&]|\band\b|\\and\b)\s*")
_GROUP_WORDS = r"(?:collaboration|collaborations|consortium|team|group|collab\.)"
_GROUP = re.compile(rf"^(?:the\s+)?(\S.*\s{_GROUP_WORDS})$", re.I)
# "A. Smith for the ATLAS Collaboration", "... on behalf of the LIGO Scientific Collaboration".
_ON_BEHALF = re.compile(rf"\s+(?:for|on behalf of)\s+(?:the\s+)?(?=\S.*\s{_GROUP_WORDS}$)", re.I)
_NOT_A_NAME = re.compile(r"^(?:et\.?\s*al\.?|others|and others|eds?\.?|editors?)$", re.I)
_SUFFIX = re.compile(r"^(?:Jr|Sr)\.?$|^(?:II|III|IV)$")
_INITIALS = re.compile(r"^(?:[A-Z][a-z]?\.[\s-]*)+$")  # "J.", "J. R.", "J.-P.", "Yu." (dots: "Wu" is a name)

# TeX's accents and special letters, as arXiv's tex2utf maps them (our own table).
_ACCENTS = {
    "'": "\u0301",
    "`": "\u0300",
    "^": "\u0302",
    '"': "\u0308",
    "~": "\u0303",
    "=": "\u0304",
    ".": "\u0307",
    "u": "\u0306",
    "v": "\u030c",
    "H": "\u030b",
    "c": "\u0327",
    "k": "\u0328",
    "r": "\u030a",
    "d": "\u0323",
    "b": "\u0331",
}
_LETTERS = {
    "ss": "ß",
    "ae": "æ",
    "AE": "Æ",
    "oe": "œ",
    "OE": "Œ",
    "aa": "å",
    "AA": "Å",
    "dh": "ð",
    "DH": "Ð",
    "th": "þ",
    "TH": "Þ",
    "ng": "ŋ",
    "NG": "Ŋ",
    "l": "ł",
    "L": "Ł",
    "o": "ø",
    "O": "Ø",
    "i": "i",
    "j": "j",
}
_TEX_LETTER = re.compile(r"\\(ss|ae|AE|oe|OE|aa|AA|dh|DH|th|TH|ng|NG|l|L|o|O|i|j)(?![A-Za-z])\s*")
_TEX_ACCENT = re.compile(
    r"\\([\'`^\"~=.])\s*(?:\{\s*([^\W\d_])\s*\}|([^\W\d_]))"  # \'e \'{e}
    r"|\\([uvHckrdb])(?:\s*\{\s*([^\W\d_])\s*\}|\s+([^\W\d_]))"  # \c{c} \v s
)


def tex_to_unicode(text: str) -> str:
    """TeX accents and letters in a name as Unicode: ``Fran\\c{c}ois P\\'etr\\'elis`` -> François
    Pétrélis, ``Stanis{\\l}awa`` -> Stanisława. A doubled backslash before an accent (``\\\\'e``,
    as rows of arXiv's own test database hold them) is read as one."""
    if "\\" not in text and "{" not in text and "~" not in text:
        return text
    text = re.sub(r"\\{2,}(?=[A-Za-z\'`^\"~=.])", r"\\", text)
    text = _TEX_LETTER.sub(lambda m: _LETTERS[m.group(1)], text)

    def accent(m: re.Match) -> str:
        mark = _ACCENTS[m.group(1) or m.group(4)]
        return (m.group(2) or m.group(3) or m.group(5) or m.group(6)) + mark

    text = _TEX_ACCENT.sub(accent, text)
    text = text.replace("{", "").replace("}", "").replace("~", " ")
    return unicodedata.normalize("NFC", " ".join(text.split()))


def _cut_brackets(text: str) -> str:
    """``text`` without its parenthesised parts, nested ones too; an unclosed "(" runs to the end
    (arXiv's ``split_authors`` treats a bracket block the same way), a stray ")" is dropped."""
    out, depth = [], 0
    for ch in text:
        if ch == "(":
            depth += 1
            out.append(" ")
        elif ch == ")":
            depth = max(0, depth - 1)
        elif depth == 0:
            out.append(ch)
    return "".join(out)


def split_authors(text: str | None) -> list[str]:
    """arXivRaw's one author string as a list of names, affiliations and markers left out.

    ``C. Neri (Lloyds Banking Group, London, UK) and L. Schneider (EMLYON, Lyon)`` -> [C. Neri,
    L. Schneider]; ``The D0 Collaboration: V.M. Abazov, et al`` -> [D0 Collaboration, V. M.
    Abazov]; ``John Smith, Jr. and Ann Lee`` -> [John Smith Jr., Ann Lee]; ``Smith, J., Doe, A.``
    -> [J. Smith, A. Doe]. Names are returned as written, TeX accents as letters, initials spaced ("L.Zamick" -> "L. Zamick").
    """
    text = _MARKERS.sub(" ", _cut_brackets(" ".join((text or "").split())))
    pieces: list[str] = []
    for chunk in _SEPARATORS.split(text):
        pieces += _ON_BEHALF.split(chunk)
    names: list[str] = []
    for piece in pieces:
        piece = " ".join(piece.split())
        piece = re.sub(r"\s+et\.?\s*al\.?$", "", piece, flags=re.I)  # "A. One et al."
        piece = re.sub(r"(?<=[^\W\d_])\d+$", "", piece)  # "G. Pedaletti1": a glued affiliation number
        if not re.search(r"[^\W\d_]", piece) or _NOT_A_NAME.match(piece):
            continue
        group = _GROUP.match(piece)
        if group:
            names.append(group.group(1))
        elif _SUFFIX.match(piece) and names:
            names[-1] = f"{names[-1]} {piece}"
        elif _INITIALS.match(piece) and names and len(names[-1].split()) == 1:
            names[-1] = f"{piece} {names[-1]}"  # "Smith, J." -> "J. Smith"
        else:
            names.append(piece)
    # "L.Zamick" -> "L. Zamick" (arXiv's _tidy_name does the same), so the surname is a word.
    return [re.sub(r"\.(?=[^\W\d_])", ". ", tex_to_unicode(n)) for n in names]


# --- versions -------------------------------------------------------------------------------------
def _size_kb(size: str | None) -> int | None:
    m = _SIZE_RE.match(size or "")
    return int(m.group(1)) if m else None


def _withdrawal_flags(
    sizes: list[int | None], source_types: list[str | None], comment: str | None
) -> list[bool]:
    """Which versions (oldest first) are withdrawal notices: the rule in the module docstring."""
    flags = ["I" in (t or "").upper() for t in source_types]
    if flags and not flags[-1] and sizes[-1] == 0 and is_withdrawn(comment):
        flags[-1] = True
    return flags


def _text(el: etree._Element | None) -> str | None:
    if el is None or el.text is None:
        return None
    value = " ".join(el.text.split())
    return value or None


def parse_record(record: etree._Element) -> ArxivRecord:
    """One OAI-PMH ``<record>`` with arXivRaw metadata; ValueError when it is not usable."""
    header = record.find(f"{_O}header")
    if header is None:
        raise ValueError("record without header")
    identifier = _text(header.find(f"{_O}identifier")) or ""
    raw_id = identifier.rsplit(":", 1)[-1] if identifier.startswith("oai:") else identifier
    datestamp = _text(header.find(f"{_O}datestamp"))
    datestamp = datestamp[:10] if datestamp else None
    deleted = header.get("status") == "deleted"
    meta = record.find(f"{_O}metadata")
    raw = None
    if meta is not None:
        raw = next((child for child in meta if isinstance(child.tag, str)), None)
    if raw is None:
        if not deleted:
            raise ValueError(f"{identifier}: record without arXivRaw metadata")
        arxiv_id = split_versioned_id(raw_id)[0]
        return ArxivRecord(arxiv_id, "", datestamp=datestamp, deleted=True)
    ns = raw.tag.split("}")[0] + "}" if raw.tag.startswith("{") else ""

    def field_text(name: str) -> str | None:
        return _text(raw.find(f"{ns}{name}"))

    arxiv_id = split_versioned_id(field_text("id") or raw_id)[0]
    listed = []
    for el in raw.findall(f"{ns}version"):
        label = (el.get("version") or "").strip()
        if re.fullmatch(r"v\d+", label):
            listed.append((int(label[1:]), el))
    listed.sort(key=lambda item: item[0])
    comment = field_text("comments")
    flags = _withdrawal_flags(
        [_size_kb(_text(el.find(f"{ns}size"))) for _, el in listed],
        [_text(el.find(f"{ns}source_type")) for _, el in listed],
        comment,
    )
    license = field_text("license")  # the newest version's (module doc: Licences)
    versions = [
        PaperVersion(
            number,
            parse_version_date(_text(el.find(f"{ns}date"))),
            flag,
            license if i == len(listed) - 1 else None,
        )
        for i, ((number, el), flag) in enumerate(zip(listed, flags, strict=True))
    ]
    return ArxivRecord(
        arxiv_id=arxiv_id,
        title=clean_title(field_text("title")),
        authors=split_authors(field_text("authors")),
        categories=(field_text("categories") or "").split(),
        versions=versions,
        comment=comment,
        doi=field_text("doi"),
        datestamp=datestamp,
        deleted=deleted,
    )


def parse_page(root: etree._Element) -> tuple[list[ArxivRecord], list[tuple[str, str]]]:
    """Every record of one ListRecords page, and (identifier, reason) for those that are unusable."""
    records, bad = [], []
    for el in root.iterfind(f".//{_O}record"):
        try:
            records.append(parse_record(el))
        except ValueError as exc:
            ident = el.findtext(f"{_O}header/{_O}identifier") or "?"
            bad.append((ident.strip(), str(exc)))
    return records, bad
