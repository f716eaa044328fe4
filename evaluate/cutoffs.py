"""Models' knowledge cutoffs: the small table shipped with the package, plus the user's own lines.

Why a table and not an option only: a benchmark that grows release by release is read against
many models, and a cutoff is a published fact about a model (its maker's model card), so it is
kept once, with its source, where anyone can check and correct it (``model_cutoffs.csv`` beside
this module). ``reflong-build eval score --cutoffs FILE`` adds lines of the same form (model,
cutoff, source) that win over the shipped ones; ``--cutoff YYYY-MM`` gives one directly.

A cutoff is a month ("2023-10"): the model's training data reaches into that month. A release is
*after* the cutoff when its month is later; the cutoff month itself counts as *before* (its papers
may have been seen), so the "after" side holds only what the model cannot have read.
"""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from reflong.common.errors import ReflongError
from reflong.common.textfiles import read_user_text

SHIPPED = "model_cutoffs.csv"
_MONTH = re.compile(r"^\d{4}-(0[1-9]|1[0-2])$")


@dataclass(frozen=True)
class Cutoff:
    """One model's knowledge cutoff and where it is published."""

    model: str
    month: str  # YYYY-MM
    source: str

    def as_json(self) -> dict:
        return {"model": self.model, "cutoff": self.month, "source": self.source}


def check_month(text: str, what: str) -> str:
    """``text`` if it is a YYYY-MM month, else one clear error naming ``what``."""
    value = text.strip()
    if not _MONTH.match(value):
        raise ReflongError(f"{what}: {text!r} is not a month YYYY-MM (e.g. 2023-10)")
    return value


def parse_table(text: str, where: str) -> dict[str, Cutoff]:
    """Rows of a cutoffs table, one CSV line each (``#`` lines are comments; a ``model,cutoff,
    source`` header is optional), keyed by the model name in lower case."""
    out: dict[str, Cutoff] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        cells = [c.strip() for c in next(csv.reader([line]))]
        if cells[:2] == ["model", "cutoff"]:
            continue
        if len(cells) < 2 or not cells[0]:
            raise ReflongError(f"{where}: line {number} {line.strip()!r} is not 'model,cutoff[,source]'")
        month = check_month(cells[1], f"{where}: line {number} ({cells[0]})")
        out[cells[0].lower()] = Cutoff(cells[0], month, cells[2] if len(cells) > 2 else "")
    return out


def shipped_table() -> dict[str, Cutoff]:
    """The table that comes with the package."""
    text = resources.files("reflong.evaluate").joinpath(SHIPPED).read_text(encoding="utf-8")
    return parse_table(text, SHIPPED)


def load_cutoffs(user_file: Path | None = None) -> dict[str, Cutoff]:
    """The shipped table with the user's lines (``--cutoffs FILE``) over it."""
    table = shipped_table()
    if user_file is not None:
        table.update(parse_table(read_user_text(user_file, "--cutoffs"), str(user_file)))
    return table


def find_cutoff(table: dict[str, Cutoff], model: str | None) -> Cutoff | None:
    """The row for ``model``: its exact name (any case), else a Hugging Face id's last part
    (``meta-llama/Llama-3.1-8B-Instruct`` served as ``Llama-3.1-8B-Instruct``, or the reverse)."""
    if not model:
        return None
    name = model.strip().lower()
    if name in table:
        return table[name]
    short = name.rsplit("/", 1)[-1]
    matches = [c for key, c in table.items() if key.rsplit("/", 1)[-1] == short]
    return matches[0] if len(matches) == 1 else None
