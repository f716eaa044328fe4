"""The old references a month's new seeds can touch, found by a query instead of a full pass.

Why: a refresh adds a month of seeds. Resolving every stored reference list again against them
made each release cost more than the last (docs/paper.md: the resolve stage grew from 49 s to
324 s over 12 releases at scale 0.02, all of it the re-reading of old lists). A reference's result
changes only where a new seed can reach it, and every way of reaching it is a word, an id or a
DOI printed in the reference:

* a title candidate shares 60% of the seed's title words (``SeedIndex.candidates``), so it holds
  two of the seed's ``n - least + 2`` rarest words (one, for a one-word title);
* a main title (``title_heads``) is reached only with all its words;
* a glued word of the seed ("quantumfield") splits into two words of the reference and can make
  another seed a candidate;
* an arXiv id or DOI names the seed;
* an edge already stored for the seed (its twins changed: it is judged again).

Each resolved reference's words (``Reference.wordset``, before the index's glued split) are kept
in an FTS5 table (``db/views.py``: ``reference_words``) as short hashes, so that a word of any
script or punctuation is one ASCII token; a hash collision only adds a reference to re-read,
never leaves one out. A word a glued form of the index splits into is looked up as that glued
form too. The result is a superset of the references whose decisions can change: re-reading
them against every seed gives what a full re-resolve gives (tests/test_resolve_incremental.py).
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Collection, Iterable, Iterator
from dataclasses import dataclass, field
from itertools import combinations

from sqlmodel import Session

from reflong.citations.records import Reference
from reflong.citations.resolve import SeedIndex, glued_pairs
from reflong.db.views import WORDS_TABLE

# SQLite's default limit of bound parameters is 999 before 3.32; stay under it everywhere.
_CHUNK = 500

ListKey = tuple[str, int]  # (citing arXiv id, version)


def token(word: str) -> str:
    """A word as one ASCII token of the FTS index (12 hex digits of its BLAKE2b hash)."""
    return "w" + hashlib.blake2b(word.encode("utf-8"), digest_size=6).hexdigest()


def words_text(ref: Reference) -> str:
    """The stored form of a reference's words: their tokens, sorted, one space apart."""
    return " ".join(sorted({token(w) for w in ref.wordset}))


def write_words(session: Session, rows: Iterable[tuple[int, str]]) -> None:
    """Store resolved references' ``words_text``, keyed by ``reference.id``. The table keeps no
    content, so earlier words of the same id stay (see ``db/views.py``): a superset."""
    rows = list(rows)
    if rows:
        session.connection().exec_driver_sql(
            f"INSERT INTO {WORDS_TABLE} (rowid, words) VALUES (?, ?)",
            rows,
        )


class _Queries:
    """FTS5 queries for the seeds of one index: a word stands for itself and its glued forms.

    ``frequency`` (a token -> the stored references holding it) picks each title's query words:
    the pigeonhole holds for *any* n - least + 2 of a seed's n words, so the ones rarest among
    the stored references give the fewest references to re-read (rarest among the seeds, the
    index's own order, left pairs such as "language" AND "models")."""

    def __init__(self, index: SeedIndex, frequency: dict[str, int] | None = None) -> None:
        self.index = index
        self.frequency = frequency or {}
        self.glued_with: dict[str, list[str]] = defaultdict(list)
        for glued, parts in index.glued.items():
            for part in set(parts):
                self.glued_with[part].append(glued)

    def forms(self, word: str) -> list[str]:
        return sorted({word, *self.glued_with.get(word, ())})

    def term(self, word: str) -> str:
        return "(" + " OR ".join(f'"{token(f)}"' for f in self.forms(word)) + ")"

    def references_with(self, word: str) -> int:
        return sum(self.frequency.get(token(f), 0) for f in self.forms(word))

    def title(self, i: int) -> str:
        """References holding ``least`` of the seed's n words hold two of any n - least + 2 of
        them (pigeonhole), or its one word: the ones fewest stored references hold."""
        index = self.index
        ranked = sorted(index.ranked[i], key=lambda w: (self.references_with(w), index.ranked[i].index(w)))
        if len(ranked) == 1:
            return self.term(ranked[0])
        rarest = ranked[: min(len(ranked), len(ranked) - index.least[i] + 2)]
        return " OR ".join(f"({self.term(a)} AND {self.term(b)})" for a, b in combinations(rarest, 2))

    def head(self, i: int) -> str | None:
        words = self.index.heads.words.get(i)
        return " AND ".join(self.term(w) for w in sorted(words)) if words else None

    def glued_forms(self, i: int) -> set[str]:
        """The seed's own glued forms (as ``SeedIndex.glued`` makes them)."""
        return {a + b for a, b in glued_pairs(self.index.seeds[i].plain)}

    def glued(self, i: int) -> str | None:
        """A reference printing one of the seed's glued forms reads it as two words."""
        return " OR ".join(f'"{token(f)}"' for f in sorted(self.glued_forms(i))) or None


@dataclass
class Touched:
    """The old references that the seeds at ``positions`` of an index can reach: ``certain``
    ones (an id, a DOI or a stored edge names such a seed) and ``maybe`` ones (their words hold
    what a candidate needs; ``reaches`` tells once the reference is read)."""

    positions: frozenset[int]
    glued: frozenset[str]  # the glued forms of those seeds' titles
    certain: dict[ListKey, set[int]] = field(default_factory=dict)
    maybe: dict[ListKey, set[int]] = field(default_factory=dict)
    _citable: dict[str | None, set[int]] = field(default_factory=dict, repr=False)

    def orders(self, key: ListKey) -> set[int]:
        return self.certain.get(key, set()) | self.maybe.get(key, set())

    def reaches(self, index: SeedIndex, ref: Reference, written_on: str | None = None) -> bool:
        """Whether one of the seeds that a text of ``written_on`` can cite is a candidate of the
        prepared ``ref`` (by title or main title, after the glued split), or a glued form of one
        is printed in it."""
        if self.glued.intersection(ref.words):
            return True
        if written_on not in self._citable:  # a few dates per run: cached
            self._citable[written_on] = {i for i in self.positions if index.allowed(i, (), written_on)}
        positions = self._citable[written_on]
        split = [part for w in ref.words if w in index.glued for part in index.glued[w]]
        wordset = ref.wordset.union(split) if split else ref.wordset
        words, least = index.tokens, index.least
        hits = {i for w in wordset for i in index.postings.get(w, ()) if i in positions}
        if any(len(words[i] & wordset) >= least[i] for i in hits):
            return True
        return any(i in positions for i in index.heads.candidates(wordset))


def touched_references(session: Session, index: SeedIndex, touched: Collection[str]) -> Touched:
    """The stored references that a seed of ``touched`` can reach (see the module docstring);
    ``index`` holds every seed of the run."""
    positions = sorted(index.by_id[sid] for sid in touched if sid in index.by_id)
    ids = sorted(index.seeds[i].info.arxiv_id for i in positions)
    wanted = set(positions)
    dois = sorted(doi for doi, i in index.by_doi.items() if i in wanted)
    conn = session.connection()
    queries = _Queries(index)
    queries.frequency = _frequencies(
        conn, {token(f) for i in positions for w in index.ranked[i] for f in queries.forms(w)}
    )
    out = Touched(frozenset(positions), frozenset(g for i in positions for g in queries.glued_forms(i)))
    certain: set[int] = set()
    for column, values in (("ref_arxiv_id", ids), ("doi", dois)):
        for part in _chunks(values):
            marks = ",".join("?" * len(part))
            sql = f"SELECT id FROM reference WHERE {column} IN ({marks})"
            certain.update(r for (r,) in conn.exec_driver_sql(sql, tuple(part)))
    maybe: set[int] = set()
    cursor = conn.connection.driver_connection.cursor()  # millions of rowids: no per-row layer
    for i in positions:
        for query in (queries.title(i), queries.head(i), queries.glued(i)):
            if query:
                cursor.execute(f"SELECT rowid FROM {WORDS_TABLE} WHERE {WORDS_TABLE} MATCH ?", (query,))
                maybe.update(r for (r,) in cursor.fetchall())
    for part in _chunks(ids):
        marks = ",".join("?" * len(part))
        for citing, version, order in conn.exec_driver_sql(
            f"SELECT citing_arxiv_id, citing_version, ref_order FROM citation WHERE seed_arxiv_id IN ({marks})",
            tuple(part),
        ):
            out.certain.setdefault((citing, version), set()).add(order)
    for found, into in ((certain, out.certain), (maybe - certain, out.maybe)):
        for part in _chunks(sorted(found)):
            marks = ",".join("?" * len(part))
            for citing, version, order in conn.exec_driver_sql(
                f'SELECT arxiv_id, version, "order" FROM reference WHERE id IN ({marks})', tuple(part)
            ):
                into.setdefault((citing, version), set()).add(order)
    return out


def _frequencies(conn, tokens: set[str]) -> dict[str, int]:
    """Token -> how many stored references hold it (FTS5's own vocabulary table; a contentless
    index never forgets a word, so these may be over: they only rank the query words)."""
    conn.exec_driver_sql(
        f"CREATE VIRTUAL TABLE IF NOT EXISTS temp.{WORDS_TABLE}_vocab USING fts5vocab(main, {WORDS_TABLE}, 'row')"
    )
    out: dict[str, int] = {}
    for part in _chunks(sorted(tokens)):
        marks = ",".join("?" * len(part))
        sql = f"SELECT term, doc FROM temp.{WORDS_TABLE}_vocab WHERE term IN ({marks})"
        out.update(conn.exec_driver_sql(sql, tuple(part)).all())
    return out


def clear_words(session: Session) -> None:
    """Empty the word index (before every list is resolved whole again, which refills it)."""
    session.connection().exec_driver_sql(f"INSERT INTO {WORDS_TABLE} ({WORDS_TABLE}) VALUES ('delete-all')")


def _chunks(values: list) -> Iterator[list]:
    for start in range(0, len(values), _CHUNK):
        yield values[start : start + _CHUNK]
