"""The dataset card's Licences section: what the dataset holds, under which licences, and what may
be republished.

Why in the card: whoever downloads a Paper build gets the text of other people's papers. Before
this, the card could only tell them to check every paper by hand; now each document carries its
licence (``documents.license``) and the card counts them, says which licences allow republishing
the cut texts (``reflong/common/licenses.py``), and what ``--licenses`` kept.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence

from reflong.common.licenses import KINDS, REDISTRIBUTABLE, kind_of, label_of

_REPUBLISH = {
    "yes": "yes (attribution: each document's arXiv id and version are in `documents`)",
    "non-commercial": "only for non-commercial use, under the same licence",
    "no": "no",
}


def _rank(url: str | None) -> int:
    names = [k.name for k in KINDS]
    kind = kind_of(url).name
    return names.index(kind) if kind in names else len(names)


def licence_section(papers: Sequence[Mapping], key_licenses: Sequence[str | None], kept: Mapping) -> str:
    """Markdown: documents and keys per licence, republishable or not, and the build's filter."""
    counts: Counter[str] = Counter()
    url_of: dict[str, str | None] = {}  # one URL per label (3.0 and 4.0 are labelled apart)
    for paper in papers:
        url = paper.get("license") or None
        label = label_of(url)
        url_of.setdefault(label, url)
        counts[label] += 1
    rows = sorted(counts.items(), key=lambda item: (_rank(url_of[item[0]]), item[0]))
    lines = [
        "",
        "## Licences of the documents",
        "",
        "Every document is an arXiv paper at one version under the licence its authors chose; "
        "`documents.license` gives it (the URL arXiv lists for that version; empty when not known: "
        "arXiv's record names only the newest version's licence, so an older version's is known only "
        "if the store harvested the paper before it was revised). No licence known counts as not republishable.",
        "",
        "| licence | documents | may be republished |",
        "|---|---|---|",
    ]
    for label, n in rows:
        lines.append(f"| {label} | {n} | {_REPUBLISH[kind_of(url_of[label]).republish]} |")
    total = sum(counts.values())
    free = sum(n for label, n in rows if kind_of(url_of[label]).republish == "yes")
    keys = Counter(label_of(u) for u in key_licenses)
    lines += [
        "",
        f"Documents that may be republished: {free} of {total}. Keys (seed titles) by the seed paper's "
        "licence: " + (", ".join(f"{label} {n}" for label, n in sorted(keys.items())) or "none") + ".",
    ]
    if kept:
        left = kept.get("documents_left_out", {})
        left_keys = kept.get("keys_left_out", {})
        lines += [
            "",
            f"This build kept only papers under: {', '.join(kept.get('kept', []))} (`--licenses`); it "
            f"left out {sum(left.values())} documents and {sum(left_keys.values())} keys under other "
            "licences or none known.",
        ]
    elif free < total:
        lines += [
            "",
            f"This build kept papers under every licence: {total - free} documents may not be republished "
            f"as they are. To build a dataset you can publish, rebuild with `--licenses "
            f"{','.join(REDISTRIBUTABLE)}` (or `--licenses redistributable`).",
        ]
    return "\n".join(lines) + "\n"
