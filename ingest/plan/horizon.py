"""How far the store's data reaches, and so which build windows it can already build (``refresh``).

Why the data and not today's date: a window is worth building once its citing pool's papers are
all in the store, and the calendar does not say that. A cron job on a store whose source is behind
(arXiv's OAI-PMH lagging a day, a local catalog updated monthly) would build a window with half
its pool; a world of the past (the stand-ins serving 2024, a test) is "complete" for the calendar
whatever months it holds. The store knows: the newest datestamp it harvested (OAI-PMH datestamps
are modification dates; a harvest with no ``until`` reaches the repository's present), or for a
local catalog the newest first-version date of its papers.

The rule is by month: a window can be built once the data reaches into the last month of its pool
(``last_pool_month``). Why not "past the pool's last day": a repository's newest record is
whatever day the last paper came, often days before the month ends (a weekend, a small world);
the calendar check (the pool's months are over) runs first and keeps a store harvested mid-month
from building that month's window.
"""

from __future__ import annotations

from datetime import date

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from reflong.db.harvest import ArxivRecordRow
from reflong.db.papers import Paper
from reflong.ingest.plan.windows import add_months


def data_through(engine: Engine) -> date | None:
    """The newest day the store's metadata reaches (None: the store holds no paper yet)."""
    with engine.connect() as conn:
        newest = conn.execute(sa.select(sa.func.max(ArxivRecordRow.datestamp))).scalar()
        first = conn.execute(sa.select(sa.func.max(ArxivRecordRow.first_published))).scalar()
        if newest is None and first is None:  # a local catalog (--source) stores no arxiv_record rows
            first = conn.execute(sa.select(sa.func.max(Paper.first_published))).scalar()
    days = [d[:10] for d in (newest, first) if d]
    return date.fromisoformat(max(days)) if days else None


def last_pool_month(since: date, seed_months: int, pool_months: int) -> date:
    """The first day of the last month of the citing pool of the window starting at ``since`` (of
    its seed window when the pool is empty, ``--pool-months 0``)."""
    return add_months(since, seed_months + pool_months - 1)


def newest_buildable(through: date, seed_months: int, pool_months: int) -> date:
    """The newest window start (a month) whose pool's last month ``through`` reaches."""
    return add_months(through.replace(day=1), -(seed_months + pool_months - 1))


def reaches(through: date | None, since: date, seed_months: int, pool_months: int) -> bool:
    """Whether data through ``through`` reaches the last month of the pool of ``since``'s window."""
    return through is not None and through >= last_pool_month(since, seed_months, pool_months)
