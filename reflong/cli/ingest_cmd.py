"""``reflong-build ingest``: metadata and PDFs into the store (filled in by the ingest work)."""

COMMANDS: list = []
