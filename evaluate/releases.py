"""Which release (month, "YYYY-MM") each task of an answers file belongs to.

Why from the build's parquet rows: the Ref-Long JSON files hold only keys and answers, while the
dataset rows (``data/<config>.parquet`` beside the answers, as every subset writes them) carry a
task's provenance. A task's release is its row's ``release`` column where the build wrote one;
otherwise the month of its key (seed) paper, read from the row's ``key_arxiv_id``: an arXiv id
names the month it was assigned (``2403.01234`` -> 2024-03, ``hep-th/9901002`` -> 1999-01), the
month of the paper's first version, which is what decides whether a model can have read it. So
today's builds, which have no ``release`` column, are split by their keys' months.

Only the columns needed are read (never the documents' text), so this is cheap on big builds.
Tasks without either (A/F haystacks, a file with no parquet beside it) have no release.
"""

from __future__ import annotations

import re
from pathlib import Path

_NEW_ID = re.compile(r"^(\d{2})(\d{2})\.\d{4,5}(v\d+)?$")
_OLD_ID = re.compile(r"^[a-z][a-z.-]*/(\d{2})(\d{2})\d{3}(v\d+)?$", re.I)
_RELEASE = re.compile(r"^\d{4}-(0[1-9]|1[0-2])$")


def month_of_arxiv_id(arxiv_id: str | None) -> str | None:
    """The month an arXiv id was assigned, "YYYY-MM"; None for anything else."""
    text = (arxiv_id or "").strip()
    m = _NEW_ID.match(text)
    if m:  # new-style ids began in April 2007
        return f"20{m.group(1)}-{m.group(2)}" if 1 <= int(m.group(2)) <= 12 else None
    m = _OLD_ID.match(text)
    if m and 1 <= int(m.group(2)) <= 12:
        century = "19" if int(m.group(1)) >= 91 else "20"  # arXiv began in August 1991
        return f"{century}{m.group(1)}-{m.group(2)}"
    return None


def dataset_file(answers_path: Path, config: str) -> Path | None:
    """The parquet file of ``config`` for an answers file: ``data/`` beside it (Paper) or beside
    its folder (A/F keep answers in ``answers/``)."""
    answers_path = Path(answers_path)
    for folder in (answers_path.parent, answers_path.parent.parent):
        path = folder / "data" / f"{config}.parquet"
        if path.is_file():
            return path
    return None


def task_releases(answers_path: Path, config: str) -> dict[str, str]:
    """``{task id: "YYYY-MM"}`` for the tasks of ``config`` whose release is known."""
    import pyarrow.parquet as pq

    path = dataset_file(answers_path, config)
    if path is None:
        return {}
    names = set(pq.read_schema(path).names)
    wanted = [c for c in ("task_id", "release", "key_arxiv_id") if c in names]
    if "task_id" not in wanted or len(wanted) == 1:
        return {}
    out: dict[str, str] = {}
    for row in pq.read_table(path, columns=wanted).to_pylist():
        release = str(row.get("release") or "").strip()
        if not _RELEASE.match(release):
            release = month_of_arxiv_id(row.get("key_arxiv_id")) or ""
        if release:
            out[str(row["task_id"])] = release
    return out
