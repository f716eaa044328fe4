"""The parse stage: PDF -> clean text, sections and ~1K-token chunks (PyMuPDF, exact tokens)."""
