"""The PDF size the plan's GB estimate assumes comes from the data the run will use (issue 38)."""

from __future__ import annotations

from reflong.ingest.plan.pdf_size import MIN_SAMPLE, TYPICAL_ARXIV_PDF_MB, pdf_size


def _pdfs(folder, sizes, prefix="p"):
    folder.mkdir(parents=True, exist_ok=True)
    for i, size in enumerate(sizes):
        (folder / f"{prefix}{i}.pdf").write_bytes(b"%PDF-1.7\n" + b"0" * (size - 9))


def test_the_order_of_bases_given_then_source_then_cache_then_the_constant(tmp_path):
    cache, source = tmp_path / "cache", tmp_path / "catalog"
    assert pdf_size(cache).mb == TYPICAL_ARXIV_PDF_MB  # no cache folder yet
    _pdfs(cache, [100_000] * (MIN_SAMPLE - 1))
    (cache / "notes.txt").write_bytes(b"x" * 10_000_000)  # not a PDF: not counted
    assert pdf_size(cache).mb == TYPICAL_ARXIV_PDF_MB
    _pdfs(cache, [400_000], prefix="q")
    size = pdf_size(cache)
    assert size.basis == f"mean of the {MIN_SAMPLE} PDFs in the cache"
    assert abs(size.mb - (100_000 * (MIN_SAMPLE - 1) + 400_000) / MIN_SAMPLE / 1e6) < 1e-12
    _pdfs(source / "pdf" / "2024", [8_000, 10_000])  # a catalog keeps PDFs in sub-folders
    size = pdf_size(cache, local_catalog=source)
    assert (size.mb, size.basis) == (0.009, "mean of the 2 PDFs in --source")
    assert pdf_size(cache, local_catalog=source, given_mb=3.0).text() == "3 MB a PDF (--pdf-mb)"


def test_a_source_without_pdfs_falls_back_to_the_cache(tmp_path):
    _pdfs(tmp_path / "cache", [50_000] * MIN_SAMPLE)
    (tmp_path / "empty").mkdir()
    size = pdf_size(tmp_path / "cache", local_catalog=tmp_path / "empty")
    assert (round(size.mb, 6), size.basis) == (0.05, f"mean of the {MIN_SAMPLE} PDFs in the cache")
