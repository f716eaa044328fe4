"""Raw reference strings -> one decision each (accept / review / none), outside the store.

Why a module of its own: auditors check a bibliography, and benchmarks measure the resolver on a
labelled set, with the *pipeline's* decisions, not a re-implementation. So this is the pipeline's
path with the store taken out: the built-in parser (``entry_parse.parse_entry``, what the cite
stage stores for each entry when it splits a references section itself) gives the fields, and
``SeedIndex.resolve`` (what ``resolve_stage`` calls for every stored entry) scores them against
seeds indexed in id order, with the same thresholds. What the store adds and this cannot:
title twins (other stored arXiv papers with a seed's title), and the one-accept-per-reference
rule across runs (within one run ``SeedIndex.resolve`` already keeps one accept).
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import groupby
from pathlib import Path

from reflong.citations.candidates.seeds import load_seed_file
from reflong.citations.fields.ditto import inherited_authors
from reflong.citations.fields.entry_parse import ParsedEntry, parse_entry
from reflong.citations.resolve import Match, SeedIndex, SeedTitle, Thresholds
from reflong.common.dois import split_dois
from reflong.common.errors import ReflongError
from reflong.common.textfiles import read_user_text

# CSV headers accepted for each seed field (spreadsheets name columns many ways).
_CSV_COLUMNS = {
    "arxiv_id": ("arxiv_id", "arxiv", "id"),
    "title": ("title",),
    "first_author": ("first_author", "author", "first author"),
    "published": ("published", "date", "year"),
    "doi": ("doi", "dois"),
}


@dataclass
class RawEntry:
    """One line of an entries file: a raw reference string and where it was cited."""

    id: str
    citing: str
    raw: str
    line: int = 0


@dataclass
class EntryDecision:
    """What the resolver decided for one raw reference: the best seed and every kept candidate."""

    entry: RawEntry
    parsed: ParsedEntry
    matches: list[Match]

    @property
    def decision(self) -> str:
        """accept / review when the best candidate is in that band, else none."""
        if self.matches and self.matches[0].band in ("accept", "review"):
            return self.matches[0].band
        return "none"

    @property
    def seed(self) -> str | None:
        return self.matches[0].seed_id if self.decision != "none" else None

    def to_dict(self) -> dict:
        best = self.matches[0] if self.matches else None
        return {
            "id": self.entry.id,
            "citing": self.entry.citing,
            "decision": self.decision,
            "seed": self.seed,
            "method": best.method if best and self.decision != "none" else None,
            "score": best.score if best else None,
            "title_score": best.title_score if best else None,
            "author": best.author if best else None,
            "reason": best.reason if best else "no seed scored at least the keep threshold",
            "parsed_title": self.parsed.title,
            "candidates": [
                {"seed": m.seed_id, "band": m.band, "score": m.score, "reason": m.reason}
                for m in self.matches[1:]
            ],
        }


def build_index(seeds: Iterable[SeedTitle], thresholds: Thresholds | None = None) -> SeedIndex:
    """The seed index as ``resolve_stage`` builds it: seeds in id order, the same thresholds."""
    return SeedIndex(sorted(seeds, key=lambda s: s.arxiv_id), thresholds or Thresholds())


def match_raw(index: SeedIndex, entry: RawEntry, inherited: Sequence[str] | None = None) -> EntryDecision:
    """The pipeline's decision for one raw string: built-in parse, then ``SeedIndex.resolve``.
    ``inherited``: for a ditto entry ("———. Title"), the authors of the entry before it."""
    parsed = parse_entry(entry.raw)
    return EntryDecision(entry, parsed, index.resolve(parsed, inherited))


def inherited_in_order(entries: Sequence[RawEntry]) -> list[tuple[str, ...] | None]:
    """For each entry of a file, what ``ditto.inherited_authors`` gives it within its reference
    list: a run of consecutive entries with the same (non-empty) citing paper, as the pipeline
    resolves one stored list in order. An entry with no citing paper is a list of its own."""
    out: list[tuple[str, ...] | None] = []
    for _citing, run in groupby(entries, key=lambda e: e.citing or object()):
        out.extend(inherited_authors([e.raw for e in run]))
    return out


def match_in_order(
    entries: Sequence[RawEntry], index_for: Callable[[RawEntry], SeedIndex]
) -> Iterator[EntryDecision]:
    """``match_raw`` for every entry of a file, in order: consecutive entries of one citing paper
    are one reference list, so a ditto dash inherits the authors of the entry before it."""
    for entry, inherited in zip(entries, inherited_in_order(entries), strict=True):
        yield match_raw(index_for(entry), entry, inherited)


def load_seeds(path: str | Path) -> list[SeedTitle]:
    """Seeds from JSON lines (the ``resolve --seeds`` format) or, for a .csv file, a header row
    with arxiv_id and title columns (first_author, published/date/year and doi optional)."""
    path = Path(path)
    if path.suffix.lower() != ".csv":
        return load_seed_file(path)
    if not path.is_file():
        raise ReflongError(f"--seeds {path}: no such file")
    reader = csv.DictReader(io.StringIO(read_user_text(path, "--seeds")))
    header = {(h or "").strip().lower(): h for h in reader.fieldnames or []}
    cols = {k: next((header[a] for a in names if a in header), None) for k, names in _CSV_COLUMNS.items()}
    if cols["arxiv_id"] is None or cols["title"] is None:
        raise ReflongError(f"--seeds {path}: the CSV header needs arxiv_id and title columns")
    seeds: dict[str, SeedTitle] = {}
    for n, row in enumerate(reader, start=2):
        values = {key: (row.get(col) or "").strip() if col else "" for key, col in cols.items()}
        arxiv_id, title = values["arxiv_id"], values["title"]
        if not arxiv_id or not title:
            raise ReflongError(f"--seeds {path}, line {n}: empty arxiv_id or title")
        published = values["published"] or None
        if published and len(published) == 4 and published.isdigit():
            published = f"{published}-01-01"
        doi = " ".join(split_dois(values["doi"])) or None
        seeds[arxiv_id] = SeedTitle(arxiv_id, title, published, values["first_author"] or None, doi)
    if not seeds:
        raise ReflongError(f"--seeds {path} lists no seeds")
    return list(seeds.values())


#: The longest reference string ``match`` reads. Real entries are a few hundred characters (the
#: longest in the labelled sets of tests/data/real under 3,000); a string past this is a joined page
#: or a whole file on one line, and resolving it costs minutes and hundreds of MB for nothing
#: (a 50 MB string took 264 s and 744 MB).
MAX_ENTRY_CHARS = 20_000


def read_entries(path: str | Path) -> Iterator[RawEntry]:
    """Entries from JSON lines ({"id", "citing", "raw"}); a bad line is one error naming it."""
    path = Path(path)
    if not path.is_file():
        raise ReflongError(f"--entries {path}: no such file")
    for n, line in enumerate(read_user_text(path, "--entries").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ReflongError(f"--entries {path}, line {n}: not JSON ({exc.msg})") from None
        if not isinstance(row, dict):
            raise ReflongError(f"--entries {path}, line {n}: expected a JSON object")
        raw = row.get("raw")
        if not isinstance(raw, str) or not raw.strip():
            raise ReflongError(f'--entries {path}, line {n}: no "raw" reference string')
        if len(raw) > MAX_ENTRY_CHARS:
            raise ReflongError(
                f'--entries {path}, line {n}: a "raw" string of {len(raw):,} characters, over the '
                f"{MAX_ENTRY_CHARS:,} one reference can hold (a joined page?); split it into entries"
            )
        ident = row.get("id", n)
        citing = row.get("citing", "")
        if not isinstance(ident, (str, int)) or not isinstance(citing, (str, int)):
            raise ReflongError(f'--entries {path}, line {n}: "id" and "citing" must be strings')
        yield RawEntry(str(ident), str(citing), raw, n)
