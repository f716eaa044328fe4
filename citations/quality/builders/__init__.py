"""The labelled-set builders: each rebuilds one committed set under tests/data/real byte for byte
from a pinned public snapshot, plus the samplers that pick entries for a set's label audit.

Why here and not in bench/: they are not benchmarks, and the data tests check their rules
(``from reflong.citations.quality.builders import pmc``) as ordinary imports. Run one as
``python -m reflong.citations.quality.builders.pmc --glutton GIT_DIR --out DIR``; each set's
SOURCES.md names its command and snapshot.
"""
