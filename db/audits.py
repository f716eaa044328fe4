"""Human verdicts on citation edges: stored with who/when/why, and winning over the automatic band.

A verdict is keyed by a *stable* edge key, (citing arXiv id, citing version, seed arXiv id), and
never by a row id of the citation table: re-running ``resolve`` (new parser, new thresholds, new
papers) may delete and re-insert edge rows, and the verdict must still find its edge afterwards.
The citing version is part of the key because another version is another text, which a person has
not looked at.

The table is append-only: every verdict is a row, and the latest row of a key is the one in force,
so the store keeps the history of who changed their mind and why. Recording the same verdict again
(e.g. importing the same sheet twice) adds nothing.

``effective_band`` / ``apply_verdicts`` are the small pure functions every build uses (docs/architecture.md,
invariant 4): a rejected edge is never a positive, a confirmed one always is.
"""

from __future__ import annotations

import getpass
import re
import subprocess
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from sqlmodel import Field, Session, SQLModel, select

from reflong.common.errors import ReflongError
from reflong.db.papers import utcnow

VERDICTS = ("confirm", "reject")
_KEY_RE = re.compile(r"^\s*(?P<citing>\S+?)v(?P<version>\d+)\s*->\s*(?P<seed>\S+?)(?:v\d+)?\s*$")


class Audit(SQLModel, table=True):
    """One human verdict on one edge (latest row per ``edge_key`` is in force)."""

    __tablename__ = "audit"

    id: int | None = Field(default=None, primary_key=True)
    edge_key: str = Field(index=True, description='stable key, e.g. "2405.01234v2->2403.00001"')
    citing_arxiv_id: str = Field(index=True)
    citing_version: int
    seed_arxiv_id: str = Field(index=True)
    verdict: str = Field(description="confirm | reject")
    who: str
    created_at: str = Field(default_factory=utcnow, description="UTC, ISO 8601")
    why: str = ""
    source: str = Field(default="cli", description="cli | sheet:<file name>")


@dataclass(frozen=True, order=True)
class EdgeKey:
    """The stable identity of a citation edge: which version of which paper cites which seed."""

    citing_arxiv_id: str
    citing_version: int
    seed_arxiv_id: str

    def __str__(self) -> str:
        return f"{self.citing_arxiv_id}v{self.citing_version}->{self.seed_arxiv_id}"

    @classmethod
    def parse(cls, text: str) -> EdgeKey:
        """``"2405.01234v2->2403.00001"`` (old-style ids such as ``hep-th/9901001v1`` work too)."""
        match = _KEY_RE.match(text or "")
        if match is None:
            raise ReflongError(
                f"edge key {text!r} is not CITINGvN->SEED, e.g. 2405.01234v2->2403.00001 "
                "(see `reflong-build audit` for the keys)"
            )
        return cls(match["citing"], int(match["version"]), match["seed"])

    @classmethod
    def of(cls, edge: Any) -> EdgeKey:
        """The key of an edge given as an object or a mapping with the three key fields."""
        get = edge.get if isinstance(edge, Mapping) else lambda name: getattr(edge, name)
        return cls(str(get("citing_arxiv_id")), int(get("citing_version")), str(get("seed_arxiv_id")))


@dataclass(frozen=True)
class Verdict:
    verdict: str
    who: str
    at: str
    why: str


def default_who() -> str:
    """Who is auditing: git's user.name when set (what a reviewer signs commits with), else the OS user."""
    try:
        name = subprocess.run(
            ["git", "config", "user.name"], capture_output=True, text=True, timeout=5, check=False
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        name = ""
    if name:
        return name
    try:
        return getpass.getuser()
    except Exception:  # no passwd entry (containers): still record something honest
        return "unknown"


def check_verdict(value: str) -> str:
    """The normalised verdict, or a ReflongError naming the allowed values."""
    v = (value or "").strip().lower()
    if v not in VERDICTS:
        raise ReflongError(f"verdict {value!r} is not one of {', '.join(VERDICTS)}")
    return v


def record_verdict(
    session: Session,
    key: EdgeKey | str,
    verdict: str,
    why: str = "",
    who: str | None = None,
    source: str = "cli",
) -> bool:
    """Store a verdict on ``key``; False (nothing stored) when it repeats the verdict in force.

    The caller commits, so a whole sheet lands in one transaction or not at all.
    """
    key = EdgeKey.parse(key) if isinstance(key, str) else key
    verdict = check_verdict(verdict)
    who = who or default_who()
    current = _latest_row(session, key)
    if current is not None and (current.verdict, current.why, current.who) == (verdict, why, who):
        return False
    session.add(
        Audit(
            edge_key=str(key),
            citing_arxiv_id=key.citing_arxiv_id,
            citing_version=key.citing_version,
            seed_arxiv_id=key.seed_arxiv_id,
            verdict=verdict,
            who=who,
            why=why,
            source=source,
        )
    )
    session.flush()
    return True


def _latest_row(session: Session, key: EdgeKey) -> Audit | None:
    return session.exec(select(Audit).where(Audit.edge_key == str(key)).order_by(Audit.id.desc())).first()


def verdicts_for(session: Session, keys: Iterable[EdgeKey] | None = None) -> dict[EdgeKey, Verdict]:
    """The verdict in force (latest) for every audited edge, or only for ``keys``."""
    wanted = None if keys is None else {str(k) for k in keys}
    out: dict[EdgeKey, Verdict] = {}
    for row in session.exec(select(Audit).order_by(Audit.id)).all():  # later rows overwrite
        if wanted is not None and row.edge_key not in wanted:
            continue
        key = EdgeKey(row.citing_arxiv_id, row.citing_version, row.seed_arxiv_id)
        out[key] = Verdict(row.verdict, row.who, row.created_at, row.why)
    return out


def verdict_history(session: Session, key: EdgeKey) -> list[Verdict]:
    rows = session.exec(select(Audit).where(Audit.edge_key == str(key)).order_by(Audit.id)).all()
    return [Verdict(r.verdict, r.who, r.created_at, r.why) for r in rows]


def effective_band(auto_band: str, verdict: Verdict | str | None) -> str:
    """The band a build uses: a human verdict wins over the resolver's band."""
    value = verdict.verdict if isinstance(verdict, Verdict) else verdict
    if value == "confirm":
        return "accept"
    if value == "reject":
        return "reject"
    return auto_band


@dataclass(frozen=True)
class DecidedEdge:
    """An edge with the band a build must use, and the verdict (if any) that set it."""

    edge: Any
    key: EdgeKey
    auto_band: str
    band: str
    verdict: Verdict | None

    @property
    def positive(self) -> bool:
        return self.band == "accept"


def apply_verdicts(edges: Iterable[Any], verdicts: Mapping[EdgeKey, Verdict]) -> list[DecidedEdge]:
    """Every edge with its effective band (edges are objects or mappings with the key fields + band)."""
    out = []
    for edge in edges:
        key = EdgeKey.of(edge)
        auto = edge["band"] if isinstance(edge, Mapping) else edge.band
        verdict = verdicts.get(key)
        out.append(DecidedEdge(edge, key, auto, effective_band(auto, verdict), verdict))
    return out


def confirmed_without_edge(edges: Iterable[Any], verdicts: Mapping[EdgeKey, Verdict]) -> list[EdgeKey]:
    """Confirmed keys with no edge row at all: a person added a citation the resolver missed."""
    present = {EdgeKey.of(e) for e in edges}
    return sorted(k for k, v in verdicts.items() if v.verdict == "confirm" and k not in present)
