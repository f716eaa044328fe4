"""An institution printed where a reference prints its authors.

Why this exists
---------------
Reports, yearbooks, laws and manuals are authored by institutions, and bibliographies print the
institution where a person's name stands: "NBS – National Bureau of Statistics of China. China
Labour Statistical Yearbook", "Instituto Brasileiro do Meio Ambiente ... (IBAMA) & Ministério do
Meio Ambiente (MMA). 2004. Plano de Manejo ...", "IBGE. 2012. Fundação Instituto Brasileiro de
geografia e Estatística. Manual técnico ...". Such seeds carry no first author, and the resolver
holds an authorless seed back when "another title-like field comes first" (a chapter or another
work printed before the seed's title, which then stands where a container stands). An
institution's name has lower-case words ("of", "do Meio", "de geografia e") and passed for such a
field: 11 of the 18 misses of the SciELO set after resolve-11.

A field reads as an institution only when it stands where the authors stand (the entry's first
fields, a year aside) and reads as a name, not prose: an acronym or an institution word in it, at
most one lower-case word besides the particles names use. A chapter or another title printed
after the institution is still read as a title of the entry's own.
"""

from __future__ import annotations

import re

# Words that name an institution, folded ("Ministério" -> "ministerio"), in the languages SciELO
# and most bibliographies print.
_INSTITUTION_WORDS_TEXT = """
    ministerio ministry ministere ministero instituto institute institut istituto bureau national
    nacional nationale nazionale presidencia presidency fundacao fundacion foundation fondazione
    secretaria secretariat department departamento agency agencia organizacao organization
    organisation organizacion conselho council consejo commission comissao comision office
    associacao association asociacion sociedade society sociedad universidade university
    universidad governo government gobierno brasil brazil republica republic prefeitura camara
    senado congresso tribunal banco bank statistics estatistica estadistica
    """
_INSTITUTION_WORDS = frozenset(_INSTITUTION_WORDS_TEXT.split())
# Words that qualify an institution but do not name one: "National Bureau of Statistics" is an
# institution by its "Bureau"; "National Income Accounts", "Wages in the National Economy" are
# titles (resolve-13: a title-case field holding only such a word is no author block).
_QUALIFIER_WORDS = frozenset(
    {"national", "nacional", "nationale", "nazionale", "statistics", "estatistica", "estadistica"}
)
_BODY_WORDS = _INSTITUTION_WORDS - _QUALIFIER_WORDS
# Lower-case words a name of an institution carries ("of", "do", "e", "dos"): no prose.
_NAME_LINKS_TEXT = """
    of the for and on de do da dos das e y del della delle di des du la le et und fur van von em
    no na nos en
    """
_NAME_LINKS = frozenset(_NAME_LINKS_TEXT.split())
_ACRONYM = re.compile(r"^[A-Z]{2,8}$")
_ROMAN = re.compile(r"^[IVXLC]+$")
_YEAR = re.compile(r"^\d{4}[a-z]?$")
MAX_PROSE_WORDS = 1  # "Fundação Instituto Brasileiro de geografia e Estatística": one slip of case


def institution_field(field: list[str]) -> str | None:
    """The field (its printed words, case kept) as an institution's name, or None when it reads
    as prose or as no institution: an acronym ("NBS", "IBAMA", "BRASIL") or a word naming a body
    ("Ministry", "Instituto", "Bureau"; a qualifier such as "National" alone is no body), and no
    more than ``MAX_PROSE_WORDS`` lower-case words besides the links names use."""
    alpha = [w for w in field if w.isalpha()]
    if not alpha or not alpha[0][0].isupper():
        return None
    acronym = any(_ACRONYM.match(w) and not _ROMAN.match(w) for w in alpha)
    named = any(w.lower() in _BODY_WORDS for w in alpha)
    prose = [w for w in alpha if w[0].islower() and w.lower() not in _NAME_LINKS]
    if not (acronym or named) or len(prose) > MAX_PROSE_WORDS:
        return None
    return " ".join(field)


def institution_block(cased: list[str], bounds: list[bool], limit: int) -> tuple[int, str] | None:
    """The institutional author block that opens the entry: (the first word after it, the
    institution as printed), or None. Fields are read from the entry's start (a list number
    aside) up to word ``limit`` (where the seed's title field starts); a year of its own between
    them ("IBGE. 2012. Fundação Instituto ...") belongs to the block."""
    i = 0
    while i < limit and cased[i].isdigit() and not _YEAR.match(cased[i]):
        i += 1  # "[12]" numbering
    start, end, names = i, None, []
    for j in range(i, limit):
        if not bounds[j]:
            continue
        field = cased[start : j + 1]
        if all(_YEAR.match(w) for w in field):
            pass
        elif institution_field(field):
            names.append(" ".join(field))
            end = j + 1
        else:
            break
        start = j + 1
    if end is None:
        return None
    return end, names[0]
