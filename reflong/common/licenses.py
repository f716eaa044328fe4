"""The licences arXiv papers carry, by the URL arXivRaw gives, and which allow republishing text.

arXivRaw's ``<license>`` is a URL (tests/data/real/arxiv_oaipmh: ``http://arxiv.org/licenses/
nonexclusive-distrib/1.0/``, ``http://creativecommons.org/licenses/by/4.0/``, ...); papers from
before arXiv asked for one have none. arXiv's licence page (https://info.arxiv.org/help/license/
index.html) lists what a submitter can choose: CC BY 4.0, CC BY-SA 4.0, CC BY-NC-SA 4.0, CC BY-NC-ND
4.0, the arXiv perpetual non-exclusive licence 1.0 (which licenses arXiv to distribute, nobody
else) and CC0 1.0; older papers carry the 3.0 versions or the old CC public-domain dedication.

A benchmark document is a paper's text cut to the setting's budget, put beside other papers: an
adaptation that others will download. So "may be republished" (``REPUBLISH``) is:

- ``yes``: CC BY and CC BY-SA (with attribution: the dataset lists every document's arXiv id and
  version; BY-SA asks that the dataset carry the same licence), CC0, public domain;
- ``non-commercial``: CC BY-NC-SA (only for non-commercial use, under the same licence);
- ``no``: CC BY-NC-ND (no adaptations: a cut text is one), arXiv's non-exclusive licence (it
  grants arXiv alone), the licence arXiv assumed for 1991-2003 papers, and no licence at all.

``--licenses`` takes short names (``cc-by,cc-by-sa,cc0``) or the URLs themselves; a name covers
every version of a licence (``cc-by`` is CC BY 3.0 and 4.0).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from reflong.common.errors import ReflongError


@dataclass(frozen=True)
class LicenseKind:
    name: str  # short name for --licenses
    title: str  # as people write it
    republish: str  # yes | non-commercial | no


KINDS = (
    LicenseKind("cc-by", "CC BY", "yes"),
    LicenseKind("cc-by-sa", "CC BY-SA", "yes"),
    LicenseKind("cc0", "CC0", "yes"),
    LicenseKind("public-domain", "Public domain (CC)", "yes"),
    LicenseKind("cc-by-nc-sa", "CC BY-NC-SA", "non-commercial"),
    LicenseKind("cc-by-nc-nd", "CC BY-NC-ND", "no"),
    LicenseKind("cc-by-nc", "CC BY-NC", "non-commercial"),
    LicenseKind("cc-by-nd", "CC BY-ND", "no"),
    LicenseKind("arxiv-nonexclusive", "arXiv non-exclusive distribution", "no"),
    LicenseKind("arxiv-assumed", "arXiv assumed (1991-2003)", "no"),
)
BY_NAME = {k.name: k for k in KINDS}
UNKNOWN = LicenseKind("unknown", "no licence known", "no")
#: What ``--licenses redistributable`` means: every licence that lets anyone republish adapted text.
REDISTRIBUTABLE = tuple(k.name for k in KINDS if k.republish == "yes")

_CC = re.compile(r"^creativecommons\.org/licenses/(by(?:-nc)?(?:-sa|-nd)?)/(\d\.\d)$")


def _bare(url: str) -> str:
    text = url.strip().lower()
    text = re.sub(r"^https?://", "", text)
    text = re.sub(r"^www\.", "", text)
    return text.rstrip("/")


def kind_of(url: str | None) -> LicenseKind:
    """The kind of a licence URL as arXiv gives it (http or https, with or without "/")."""
    if not url or not url.strip():
        return UNKNOWN
    bare = _bare(url)
    m = _CC.match(bare)
    if m:
        return BY_NAME["cc-" + m.group(1)]
    if bare.startswith("creativecommons.org/publicdomain/zero/"):
        return BY_NAME["cc0"]
    if bare in ("creativecommons.org/licenses/publicdomain", "creativecommons.org/publicdomain/mark/1.0"):
        return BY_NAME["public-domain"]
    if bare.startswith("arxiv.org/licenses/nonexclusive-distrib/"):
        return BY_NAME["arxiv-nonexclusive"]
    if bare.startswith("arxiv.org/licenses/assumed-1991-2003"):
        return BY_NAME["arxiv-assumed"]
    return LicenseKind(bare, url.strip(), "no")  # a licence we do not know: never assumed open


def label_of(url: str | None) -> str:
    """``CC BY 4.0`` for a URL, the version when it has one."""
    kind = kind_of(url)
    m = _CC.match(_bare(url or "")) or re.match(
        r"^creativecommons\.org/publicdomain/zero/(\d\.\d)$", _bare(url or "")
    )
    return f"{kind.title} {m.group(m.lastindex)}" if m else kind.title


def parse_allowed(text: str) -> frozenset[str]:
    """``--licenses``: short names, URLs, or ``redistributable``, comma separated -> kind names."""
    names: set[str] = set()
    for item in (part.strip() for part in text.split(",")):
        if not item:
            continue
        low = item.lower()
        if low == "redistributable":
            names.update(REDISTRIBUTABLE)
        elif low in BY_NAME:
            names.add(low)
        elif "/" in low and kind_of(item).name in BY_NAME:
            names.add(kind_of(item).name)
        else:
            known = ", ".join(k.name for k in KINDS)
            raise ReflongError(
                f"--licenses: {item!r} is not a licence arXiv uses; give short names ({known}), "
                "their URLs (e.g. http://creativecommons.org/licenses/by/4.0/) or redistributable"
            )
    if not names:
        raise ReflongError("--licenses: give at least one licence (e.g. cc-by,cc-by-sa,cc0)")
    return frozenset(names)


def allowed(url: str | None, names: Iterable[str] | None) -> bool:
    """Whether a paper under ``url`` may be used when a build keeps only ``names`` (None: all)."""
    return names is None or kind_of(url).name in set(names)
