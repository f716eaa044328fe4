"""Utilities every stage shares: errors, progress, exact tokenizer, atomic files, sha256 hashing,
user text files, DOI lists."""
