"""DOIs as arXiv's ``doi`` field gives them: one, or several in one string.

arXiv's metadata keeps the submitter's ``doi`` field as typed, and arXiv's OAI-PMH server prints it
as is (github.com/arXiv/arxiv-oaipmh, ``templates/record_formats.xml``: ``<doi>{{ ...doi }}</doi>``).
A paper published twice, or with an erratum, lists both: real records hold
``10.1007/JHEP12(2010)070 10.1007/JHEP02(2011)044`` (1011.0730) and
``10.1002/andp.201000099; 10.1002/andp.201200739`` (1006.4407) (tests/data/real/arxiv_oaipmh).
Compared as one string such a field never equals a reference's DOI; ``split_dois`` gives the list
every consumer matches against (the resolver: each DOI of a seed names it).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

_DOI = re.compile(r"^10\.\d+(?:\.\d+)*/\S+$")
_PREFIX = re.compile(r"^(?:doi:\s*|https?://(?:dx\.)?doi\.org/)", re.IGNORECASE)
# Between DOIs: white space, or a "," / ";" that a DOI follows. A ";" inside a DOI (the SICI form
# "...3.0.CO;2-O") is followed by no "10.", so it is kept.
_BETWEEN = re.compile(r"\s+|[;,]\s*(?=(?:doi:\s*|https?://(?:dx\.)?doi\.org/)?10\.)", re.IGNORECASE)


def split_dois(value: str | Iterable[str] | None) -> list[str]:
    """Every DOI in ``value`` (a field as given, or a list of them), in order, each once; what is
    not a DOI (``and``, an empty field) is left out. Case is kept (DOIs compare case-insensitively)."""
    if not value:
        return []
    texts = [value] if isinstance(value, str) else [str(v) for v in value if v]
    out: list[str] = []
    for text in texts:
        for token in _BETWEEN.split(text.strip()):
            token = _PREFIX.sub("", token.strip().rstrip(",;."))
            if _DOI.match(token) and token.lower() not in {d.lower() for d in out}:
                out.append(token)
    return out
