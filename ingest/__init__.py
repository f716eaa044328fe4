"""Ingest stage: arXiv or local metadata and PDFs into the store, then clean text and chunks."""
