"""The Paper subset (arXiv papers): keys, positives and date-safe negatives, documents fitted to the
setting, re-verification on the final text, outputs."""
