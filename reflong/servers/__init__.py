"""Local stand-ins for remote services (arXiv API, GROBID) that speak their real protocols.

They serve recorded or generated data on 127.0.0.1 so that the real clients can be exercised
offline: by the tests, by ``reflong-build demo`` and by the benchmarks.
"""
