"""What a finished build holds, as far as disjointness is concerned: its keys, papers, documents.

Why read the build's files and not the store: the build a training split must stay apart from is
the one a user publishes or evaluates on, and its folder is what they have (it may come from
another store, another machine, an earlier version of the tool). The dataset files
(``data/*.parquet``) hold every task's key and documents; the manifest says which command made
the build (Paper, A or F) and, for F, which SummHay topics it read.

Identity per subset:
- Paper: a key is the seed's arXiv id (``key_arxiv_id``); a paper is any arXiv id the build shows,
  as a key or as a document (versions ignored: v1 and v2 of one paper are one paper).
- A and F: a document is its text (whitespace and case ignored, A's inserted key sentences
  removed). A's documents are cut from essays, so two A texts share essay text when they share a
  run of ``SHINGLE_WORDS`` words (a passage); F's documents are whole SummHay texts. F's keys are its insight
  sentences and its topics the SummHay haystacks; A's keys are star counts (or fruit names), a
  fixed alphabet every A build shares by design (the answer depends on the documents, not on the
  number), so they are reported, not required to differ.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from reflong.assemble.manifest import MANIFEST_NAME
from reflong.common.errors import ReflongError

#: A passage as the check compares them: long enough that essays' shared boilerplate ("Thanks to
#: ... for reading drafts of this. Want to start a startup? Get funded by Y Combinator.") is not one,
#: short enough that any reused stretch of essay text is.
SHINGLE_WORDS = 25
#: The finer passage the A training split leaves essays out by (only passages found in one essay).
EXCLUDE_WORDS = 12
_KEY_SENTENCE = re.compile(r"The little penguin (?:counted \d+ \u2605|collected the fruit \w+)")
_COMMANDS = {"reflong-build paper": "paper", "a": "A", "f": "F"}


@dataclass
class HeldOutBuild:
    """The identities one build shows (see the module doc)."""

    folder: Path
    subset: str  # paper | A | F
    manifest_sha256: str
    tasks: int = 0
    keys: set[str] = field(default_factory=set)
    papers: set[str] = field(default_factory=set)  # Paper: keys and documents, arXiv ids
    documents: set[str] = field(default_factory=set)  # A/F: sha256 of each normalised text
    topics: set[str] = field(default_factory=set)  # F: SummHay topics
    shingles: dict[int, str] = field(default_factory=dict)  # A/F: passage hash -> its words

    def summary(self) -> str:
        if self.subset == "paper":
            return f"{self.tasks} tasks, {len(self.keys)} keys, {len(self.papers)} papers"
        extra = f", {len(self.topics)} topics" if self.subset == "F" else ""
        return f"{self.tasks} tasks, {len(self.keys)} keys, {len(self.documents)} documents{extra}"


def subset_of(folder: Path) -> tuple[str, dict, str]:
    """The build's subset, its manifest and the manifest's sha256; a clear error if it is no build."""
    path = Path(folder) / MANIFEST_NAME
    try:
        raw = path.read_bytes()
        manifest = json.loads(raw)
    except FileNotFoundError:
        raise ReflongError(f"{folder} is not a finished build: no {MANIFEST_NAME}") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ReflongError(f"{path} is not a build manifest ({exc})") from None
    subset = _COMMANDS.get(str(manifest.get("command", "")))
    if subset is None:
        raise ReflongError(f"{path}: made by {manifest.get('command')!r}, not by a paper, a or f build")
    return subset, manifest, hashlib.sha256(raw).hexdigest()


def normalised_words(text: str) -> list[str]:
    return _KEY_SENTENCE.sub(" ", text).casefold().split()


def shingles(text: str, size: int = SHINGLE_WORDS) -> dict[int, str]:
    """Every run of ``size`` words of ``text`` (normalised), by a stable 64-bit hash."""
    words = normalised_words(text)
    out = {}
    for i in range(max(0, len(words) - size + 1)):
        run = " ".join(words[i : i + size])
        out[int.from_bytes(hashlib.blake2b(run.encode(), digest_size=8).digest(), "big")] = run
    return out


def load_build(folder: Path, with_shingles: bool = True, shingle_words: int = SHINGLE_WORDS) -> HeldOutBuild:
    """Read a finished build's identities from its manifest and ``data/*.parquet`` (passages of
    ``shingle_words`` words for A)."""
    import pyarrow.parquet as pq

    folder = Path(folder)
    subset, manifest, digest = subset_of(folder)
    build = HeldOutBuild(folder, subset, digest)
    if subset == "F":
        build.topics = set((manifest.get("settings", {}).get("topics") or {}).values())
    files = sorted((folder / "data").glob("*.parquet"))
    if not files:
        raise ReflongError(
            f"{folder} has no dataset (data/*.parquet), which holds every task's key and documents: "
            "rebuild it without --no-dataset"
        )
    seen_texts: set[str] = set()
    for path in files:
        columns = ["key", "documents"] + (["key_arxiv_id"] if subset == "paper" else [])
        for row in pq.read_table(path, columns=columns).to_pylist():
            build.tasks += 1
            if subset == "paper":
                build.keys.add(row["key_arxiv_id"])
                build.papers.add(row["key_arxiv_id"])
                build.papers.update(doc["arxiv_id"] for doc in row["documents"])
                continue
            build.keys.add(row["key"])
            for doc in row["documents"]:
                digest = hashlib.sha256(" ".join(normalised_words(doc["text"])).encode()).hexdigest()
                build.documents.add(digest)
                if with_shingles and subset == "A" and digest not in seen_texts:
                    build.shingles.update(shingles(doc["text"], shingle_words))
                seen_texts.add(digest)
    return build
