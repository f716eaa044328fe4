"""The records that flow through Paper-subset assembly, independent of the store.

Assembly reads the store once into these small dataclasses, then works on plain data: sampling,
trimming and re-verification are pure functions that tests can drive with hand-made inputs.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Evidence:
    """Why a document counts as citing the key (from the citation edge)."""

    reference: str
    method: str
    score: float
    band: str


@dataclass(frozen=True)
class PaperDoc:
    """One paper at one version, as it will be shown to the model."""

    arxiv_id: str
    version: int
    version_date: str | None
    first_published: str | None
    pdf_sha256: str | None
    body: str
    references: str
    n_tokens: int = 0
    license: str | None = None  # this version's licence URL as arXiv gives it (None: not known)

    @property
    def ref(self) -> str:
        """Stable printable id, e.g. ``2403.01234v2`` (``v0``: version unknown)."""
        return f"{self.arxiv_id}v{self.version}"

    @property
    def text(self) -> str:
        """The whole paper: body, then the references section (as in Ref-Long)."""
        if not self.references:
            return self.body
        return f"{self.body}\n\n{self.references}" if self.body else self.references


@dataclass(frozen=True)
class KeyCandidate:
    """A seed paper whose title is a possible key, with every document that cites it."""

    arxiv_id: str
    title: str
    first_published: str
    positives: tuple[str, ...]  # PaperDoc.ref of each citing document
    evidence: dict[str, Evidence] = field(default_factory=dict)  # PaperDoc.ref -> evidence
    license: str | None = None  # the seed paper's licence (its newest stored version's)
