"""Utilities every stage shares: errors, progress, exact tokenizer, atomic files, user text files."""
