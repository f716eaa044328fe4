"""Candidates: the seeds a reference is scored against, named by a printed id or reached by
blocking on rare title words, and the seed lists they come from."""
