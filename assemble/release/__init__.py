"""Releases: one build window per release under one dataset folder (issue 21, ``reflong-build refresh``)."""
