"""The shared SQLite store every stage reads and writes through (SQLModel).

Each table group lives in its own module; importing this package registers all of them so that
``open_store`` creates every table. Stages import the table classes they need from here.
"""

from reflong.db.audits import Audit as Audit  # verdicts on edges (registers the table)
from reflong.db.builds import Build, BuildTask
from reflong.db.citations import Citation, Reference, ReferenceList, Seed
from reflong.db.engine import DEFAULT_DB_PATH, open_store, session_for
from reflong.db.harvest import ArxivRecordRow, HarvestState  # harvested records, harvest progress
from reflong.db.index import IndexCitation as IndexCitation  # citation-index cache, plan
from reflong.db.papers import Failure, Paper, PaperRole, record_failure
from reflong.db.text import Chunk, ParsedDoc
from reflong.db.views import ensure_views as ensure_views  # browsing views + FTS (after all tables)

__all__ = [
    "DEFAULT_DB_PATH",
    "ArxivRecordRow",
    "Build",
    "BuildTask",
    "Chunk",
    "Citation",
    "Failure",
    "HarvestState",
    "Paper",
    "PaperRole",
    "ParsedDoc",
    "Reference",
    "ReferenceList",
    "Seed",
    "open_store",
    "record_failure",
    "session_for",
]
