"""reflong-build: corpus builder for long-context referencing benchmarks (Ref-Long style).

The stage packages live in top-level folders of the repository (ingest/, citations/, assemble/,
db/) and are installed as ``reflong.ingest`` and so on; this package holds what is shared by all
of them (version, errors, progress reporting) and the CLI that wires them together.
"""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("reflong-build")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0.0.0+unknown"

__all__ = ["__version__"]
