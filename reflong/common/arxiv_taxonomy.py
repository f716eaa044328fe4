"""arXiv's active taxonomy, as its OAI-PMH server validates a ``set``: groups, archives, categories.

Who reads it: the arXiv stand-in (``servers/oai.py``), to answer a set as arXiv does, and
``--categories`` (``category_error``), to refuse a subject class that does not exist before any
request: the harvest asks for the archive's set (``cs``) and filters by category itself, so arXiv
never sees ``cs.XX`` and a misspelt one would give an empty window with no word.

Why the stand-in needs it: arXiv answers a set it does not know (retired, misspelt: ``cmp-lg``,
``cs:cs:XX``) with ``badArgument`` "Set does not exist", never with an empty list; a stand-in that
answered ``noRecordsMatch`` let a harvester mark a set that does not exist as covered.

Source: github.com/arXiv/arxiv-base at commit 0f94fa03 (MIT, Copyright Cornell University),
``arxiv/taxonomy/definitions.py``: ``GROUPS`` with ``is_active``, ``ARCHIVES_ACTIVE`` with their
``in_group``, ``CATEGORIES_ACTIVE`` (the test group and archive left out, as the server refuses
them with "Invalid set request"). The rules are arXiv/oaipmh's ``requests/data_queries.py``
``_parse_set`` at commit 27ad99e3 (MIT); ``set_exists`` follows them.
"""

from __future__ import annotations

GROUPS = frozenset(("cs", "econ", "eess", "math", "physics", "q-bio", "q-fin", "stat"))
# archive -> its group
ARCHIVES = {
    "astro-ph": "physics",
    "cond-mat": "physics",
    "cs": "cs",
    "econ": "econ",
    "eess": "eess",
    "gr-qc": "physics",
    "hep-ex": "physics",
    "hep-lat": "physics",
    "hep-ph": "physics",
    "hep-th": "physics",
    "math": "math",
    "math-ph": "physics",
    "nlin": "physics",
    "nucl-ex": "physics",
    "nucl-th": "physics",
    "physics": "physics",
    "q-bio": "q-bio",
    "q-fin": "q-fin",
    "quant-ph": "physics",
    "stat": "stat",
}


def _classes(names: str) -> frozenset[str]:
    return frozenset(names.split())


# archive -> its subject classes (an archive without any, e.g. hep-th, is a category itself)
SUBJECTS = {
    "astro-ph": _classes("CO EP GA HE IM SR"),
    "cond-mat": _classes("dis-nn mes-hall mtrl-sci other quant-gas soft stat-mech str-el supr-con"),
    "cs": _classes(
        "AI AR CC CE CG CL CR CV CY DB DC DL DM DS ET FL GL GR GT HC IR IT LG LO MA MM MS NA NE NI OH OS PF PL RO SC SD SE SI SY"
    ),
    "econ": _classes("EM GN TH"),
    "eess": _classes("AS IV SP SY"),
    "math": _classes(
        "AC AG AP AT CA CO CT CV DG DS FA GM GN GR GT HO IT KT LO MG MP NA NT OA OC PR QA RA RT SG SP ST"
    ),
    "nlin": _classes("AO CD CG PS SI"),
    "physics": _classes(
        "acc-ph ao-ph app-ph atm-clus atom-ph bio-ph chem-ph class-ph comp-ph data-an ed-ph flu-dyn gen-ph geo-ph hist-ph ins-det med-ph optics plasm-ph pop-ph soc-ph space-ph"
    ),
    "q-bio": _classes("BM CB GN MN NC OT PE QM SC TO"),
    "q-fin": _classes("CP EC GN MF PM PR RM ST TR"),
    "stat": _classes("AP CO ME ML OT TH"),
}


def set_exists(spec: str) -> bool:
    """Whether arXiv's server knows the set ``spec``: a group (``cs``), ``group:archive``
    (``physics:hep-th``, ``cs:cs``) or ``group:archive:subject`` (``cs:cs:CL``). More than three
    parts is refused too ("Set has too many levels"), which ``set_error`` tells apart."""
    return set_error(spec) is None


def set_error(spec: str) -> str | None:
    """arXiv's badArgument text for ``spec``, or None when the set exists."""
    parts = spec.split(":")
    if len(parts) > 3:
        return "Set has too many levels"
    group = parts[0]
    if len(parts) == 1:
        return None if group in GROUPS else "Set does not exist"
    archive = parts[1]
    if ARCHIVES.get(archive) != group:
        return "Set does not exist"
    if len(parts) == 3 and parts[2] not in SUBJECTS.get(archive, ()):
        return "Set does not exist"
    return None


def category_error(category: str) -> str | None:
    """Why ``category`` (``cs.CL``, ``cs.*``, ``hep-th``) names no subject class of a known archive,
    or None. An unknown *archive* is left to the server, which answers for its sets (``set_error``);
    a retired one such as ``cmp-lg`` is still a set arXiv can refuse in its own words."""
    name = category.strip()
    archive, _, subject = name.partition(".")
    if archive not in ARCHIVES or subject in ("", "*"):
        return None
    known = SUBJECTS.get(archive, frozenset())
    if subject in known:
        return None
    import difflib

    every = {f"{a}.{s}".lower(): f"{a}.{s}" for a in sorted(SUBJECTS) for s in sorted(SUBJECTS[a])}
    close = [every[c] for c in difflib.get_close_matches(name.lower(), list(every), n=3, cutoff=0.6)]
    hint = f"; did you mean {', '.join(close)}?" if close else ""
    if not known:
        return f"arXiv's archive {archive} has no subject classes: give {archive} itself, not {name}{hint}"
    return (
        f"arXiv has no category {name} (its archive {archive} has {', '.join(sorted(known))}; "
        f"taxonomy of arxiv-base 0f94fa03){hint}"
    )
