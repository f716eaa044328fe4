"""Metadata harvest: arXiv's OAI-PMH (arXivRaw) and API routes into ``arxiv_record`` rows."""
