"""How big the plan's PDFs will be: the GB estimate it prints and the disk check before fetching.

Why not one constant: arXiv's PDFs average about 1.7 MB, but a run against a local catalog or a
synthetic arXiv fetches other files (the demo's PDFs are ~9 KB: a 1.7 MB estimate refused it on a
30 MB disk). So the size comes from the data the run will use, in this order:

1. ``--pdf-mb`` when given (the user knows their source);
2. ``--source DIR``: the mean size of that catalog's PDFs, the very files the run copies;
3. the PDF cache, once it holds ``MIN_SAMPLE`` PDFs: what earlier runs here fetched;
4. ``TYPICAL_ARXIV_PDF_MB``, a documented constant (nothing outside the run is read).

The plan line names which one it used, so an estimate can always be traced to its basis.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

#: Mean size of 55 real arXiv PDFs (ML and NLP papers of 2015-2025): 1.67 MB, median 1.29 MB,
#: 0.17-3.9 MB, measured when this estimate was written. A constant: no run reads those files.
TYPICAL_ARXIV_PDF_MB = 1.7
#: Fewer PDFs than this in the cache say too little about the rest (one scanned thesis is 40 MB).
MIN_SAMPLE = 20


@dataclass(frozen=True)
class PdfSize:
    """The mean megabytes a PDF the estimate assumes, and where that figure comes from."""

    mb: float
    basis: str

    def text(self) -> str:
        return f"{self.mb:.3g} MB a PDF ({self.basis})"


TYPICAL = PdfSize(TYPICAL_ARXIV_PDF_MB, "arXiv's typical size; --pdf-mb sets another")


def _pdf_sizes(folder: Path, recursive: bool) -> list[int]:
    """Byte sizes of the ``*.pdf`` files in ``folder`` (stat only: nothing is opened)."""
    if not folder.is_dir():
        return []
    files = folder.rglob("*.pdf") if recursive else folder.glob("*.pdf")
    sizes = []
    for path in files:
        try:
            if path.is_file():
                sizes.append(os.stat(path).st_size)
        except OSError:  # gone or unreadable between listing and stat: not part of the estimate
            continue
    return sizes


def _mean_mb(sizes: list[int]) -> float:
    return sum(sizes) / len(sizes) / 1e6


def pdf_size(cache_dir: Path, local_catalog: Path | None = None, given_mb: float | None = None) -> PdfSize:
    """The size the plan's estimate assumes for each PDF still to fetch (module docstring)."""
    if given_mb is not None:
        return PdfSize(given_mb, "--pdf-mb")
    if local_catalog is not None:
        sizes = _pdf_sizes(Path(local_catalog), recursive=True)
        if sizes:
            return PdfSize(_mean_mb(sizes), f"mean of the {len(sizes)} PDFs in --source")
    sizes = _pdf_sizes(Path(cache_dir), recursive=False)
    if len(sizes) >= MIN_SAMPLE:
        return PdfSize(_mean_mb(sizes), f"mean of the {len(sizes)} PDFs in the cache")
    return TYPICAL
