"""The label audit of tests/data/real/citation_styles: mechanical rules and hand errata.

The set's gold labels come from the source projects' annotations, and some annotations are not
what the set takes them for: a meeting or proceedings name in the title field ("Meeting #105",
three different meetings made one "work"), two titles run together, a cut title. Scoring a
resolver against those labels mixes its faults with the labels' faults. The audit corrects the
labels EQUALLY for both splits and both systems: the rules look only at the annotation (never at
what a resolver decided), and every hand correction (``errata.jsonl``) says why from the string
itself. The raw labels stay as they are in the entries files; the audit is a separate list of
changes (``audit.jsonl``), so the bench prints figures both as labelled and audited.

An audit row changes one field of one entry:
- ``gold``: the seed the entry cites (``new`` a seed id, or null: it cites no seed of the list);
- ``scored``: ``true`` -> ``false``, the entry is left out of the audited scores (what it cites
  cannot be told from its labels, e.g. its annotated "title" is a venue, or its work has two seeds).

Categories (``category`` of a row):
- ``venue_as_title``: the annotated title is a meeting, conference, proceedings, journal or series
  designation (rule, on the title text);
- ``titles_run_together``: the annotation has two or more title fields, joined into one "title"
  (rule, on the source markup);
- ``not_a_title``: the annotated title is a person, publisher, topic phrase or a label such as
  "Extended abstract" (rule for a title ending in a dangling "of"/"the"/..., else errata);
- ``seed_title_corrupt``: the work's seed title is cut or glued where the string prints the whole
  title ("... renormalization group m", a journal name appended, "ID5:" dropped);
- ``work_split``: the entry cites a work that has a seed (or two seeds) under another annotated
  title form;
- ``cluster_merges_works``: the entry's work (a CORA cluster) is another work than the one the
  string cites;
- ``not_one_reference``: the string is no single reference (a footnote's remark, two references
  glued by PDF extraction);
- ``container_as_title``: the annotated title is the book, dictionary or Festschrift the cited
  piece appeared in ("New Grove" for an article "voce Vivaldi" in it), so its work is another one.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from reflong.citations.quality.labelled_sets import apply_audit  # noqa: F401  (the builders' import)

CATEGORIES = (
    "venue_as_title",
    "titles_run_together",
    "not_a_title",
    "seed_title_corrupt",
    "work_split",
    "cluster_merges_works",
    "not_one_reference",
    "container_as_title",
)
FIELDS = ("gold", "scored")

# A meeting, conference, proceedings, journal or series designation (not a work's title):
# "Proc. 29th ICRC", "Proceedings of the ...", "SPE Western Regional Meeting", "Meeting #105",
# "5th Symp. (Int.) on Combustion", "Congrès Commun ...", "Oxford Mathematical Monographs",
# "APNOMS 2009", "CODES/ISSS'10". A law ("... 112th Congress") is a work, so "congress" is not here.
_VENUE = re.compile(
    r"(?i)^(?:the\s+)?(?:\d{4}\s+)?(?:proc\b|proceedings\b)"
    r"|\b(?:meeting|conference|symposium|workshop|colloquium|exhibition|convention)\b"
    r"(?:\s*(?:#\s*\d+\S*|\d{4}|['\u2019]?\d\d))?$"
    r"|^meeting\s*#"
    r"|^\d+\s*(?:st|nd|rd|th)\.?\s*symp\b"
    r"|^congr[e\u00e8]s\b"
    r"|\bmono-?graphs$"
)
_ACRONYM_YEAR = re.compile(r"^[A-Z][A-Z0-9/&]{2,}\s*['\u2019-]?\s*\d{2,4}$")
# A title that stops on a word no title ends with ("The University of"): a cut annotation.
_DANGLING = re.compile(r"\s(?:of|the|and|a|an)$")


def venue_designation(title: str) -> bool:
    """Whether an annotated title is a venue (meeting, proceedings, journal, series) name."""
    return bool(_VENUE.search(title) or _ACRONYM_YEAR.match(title))


def rule_category(title: str, title_fields: int) -> str | None:
    """The audit rule an annotated title falls under (None: no rule), from the title's text and
    the number of title fields the source annotated (two or more were joined into one)."""
    if title_fields >= 2:
        return "titles_run_together"
    if venue_designation(title):
        return "venue_as_title"
    if _DANGLING.search(title):
        return "not_a_title"
    return None


RULE_NOTES = {
    "titles_run_together": "the source annotates two or more title fields here, joined into one title",
    "venue_as_title": "the annotated title is a meeting/proceedings/journal/series designation",
    "not_a_title": "the annotated title stops on a dangling function word (a cut annotation)",
}


def read_errata(path: Path) -> list[dict]:
    """The hand errata, checked: known field and category, a justification on every row, one
    row per entry."""
    rows = []
    seen: set[str] = set()
    if not path.is_file():
        return rows
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        where = f"{path.name}:{n}"
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ValueError(f"{where}: not a JSON object ({exc.msg})") from None
        if row.get("field") not in FIELDS:
            raise ValueError(f"{where}: field must be one of {FIELDS}")
        if row.get("category") not in CATEGORIES:
            raise ValueError(f"{where}: category must be one of {CATEGORIES}")
        if not str(row.get("note", "")).strip():
            raise ValueError(f"{where}: every erratum needs a one-line justification (note)")
        if row["id"] in seen:
            raise ValueError(f"{where}: a second erratum for {row['id']}")
        seen.add(row["id"])
        rows.append(row)
    return rows


def audit_rows(
    entries: list[dict], rule_of: dict[str, str], errata: list[dict], seeds_of: dict[str, set[str]]
) -> list[dict]:
    """The audit: one row per changed entry, an erratum replacing a rule's row for its entry.
    ``rule_of`` maps entry id -> rule category (from the builder, which sees the markup);
    ``seeds_of`` maps split -> its seed ids (a new gold must be a seed of the entry's split)."""
    by_id = {e["id"]: e for e in entries}
    rows: dict[str, dict] = {}
    for eid, category in rule_of.items():
        e = by_id[eid]
        rows[eid] = {
            "id": eid,
            "split": e["split"],
            "field": "scored",
            "old": True,
            "new": False,
            "category": category,
            "by": "rule",
            "note": RULE_NOTES[category],
        }
    for row in errata:
        e = by_id.get(row["id"])
        if e is None:
            raise ValueError(f"errata: no entry {row['id']}")
        old = e["gold"] if row["field"] == "gold" else True
        if row["old"] != old:
            raise ValueError(
                f"errata: {row['id']} {row['field']} is {old!r}, the erratum says {row['old']!r}"
            )
        if row["field"] == "gold" and row["new"] is not None and row["new"] not in seeds_of[e["split"]]:
            raise ValueError(f"errata: {row['id']}: {row['new']} is no seed of the {e['split']} split")
        rows[row["id"]] = {
            "id": row["id"],
            "split": e["split"],
            "field": row["field"],
            "old": row["old"],
            "new": row["new"],
            "category": row["category"],
            "by": "errata",
            "note": row["note"],
        }
    return [rows[k] for k in sorted(rows)]
