"""What `refresh` carries from one release to the next, and which windows the store can build.

Why here and fast: the end-to-end refresh tests (tests/test_refresh.py) build several releases and
are marked slow; these two modules decide what every refresh does first (the settings it reuses,
whether the window is buildable yet), so the fast run checks them on their own, on a real store.
"""

from __future__ import annotations

from datetime import date

from reflong.cli import main
from reflong.cli.release_options import CARRIED, _flag, carry, options_json, recorded_options
from reflong.db import open_store
from reflong.db.papers import Paper
from reflong.ingest.plan.horizon import data_through, last_pool_month, newest_buildable, reaches


def test_every_carried_option_names_a_flag_that_paper_and_refresh_take():
    for command in ("paper", "refresh"):
        flags = {opt for p in main.commands[command].params for opt in getattr(p, "opts", ())}
        missing = sorted(_flag(name) for name in CARRIED if _flag(name) not in flags)
        assert missing == [], (command, missing)


def test_options_round_trip_through_release_json_and_old_settings_still_read():
    opts = {"seed": 3, "categories": ("cs.CL", "cs.LG"), "n_tasks": 20, "not_carried": 1}
    recorded = options_json(opts)
    assert recorded == {"categories": ["cs.CL", "cs.LG"], "n_tasks": 20, "seed": 3}
    assert recorded_options({"options": recorded}) == {
        "categories": ("cs.CL", "cs.LG"),
        "n_tasks": 20,
        "seed": 3,
    }
    # a release from before options were recorded: its build settings say what it used
    old = recorded_options({"settings": {"lengths": ["30K", "45K"], "n_tasks": "7", "other": 1}})
    assert old == {"lengths": "30K,45K", "n_tasks": 7, "licenses": None}


def test_carry_takes_the_recorded_value_unless_given_and_counts_defaults():
    opts = {"seed": 0, "n_tasks": 100, "lengths": "30K", "categories": ("cs.CL",)}
    recorded = {"seed": 5, "n_tasks": 100, "lengths": "45K", "categories": ("cs.AI",)}
    origin = carry(opts, recorded, given={"lengths"}, defaults={"n_tasks": 100}, source="release 2024-03's release.json")
    assert opts == {"seed": 5, "n_tasks": 100, "lengths": "30K", "categories": ("cs.AI",)}
    assert origin.carried == {"seed": 5, "categories": ("cs.AI",)} and origin.given == {"lengths": "30K"}
    assert origin.same_as_default == 1
    assert origin.line("2024-04") == (
        "settings for release 2024-04: from release 2024-03's release.json: --categories cs.AI, --seed 5 "
        "(and 1 at their defaults); given here: --lengths 30K"
    )


def test_a_window_is_buildable_once_the_data_reaches_its_pools_last_month(tmp_path):
    since = date(2024, 3, 1)
    assert last_pool_month(since, seed_months=1, pool_months=6) == date(2024, 9, 1)
    assert last_pool_month(since, seed_months=1, pool_months=0) == date(2024, 3, 1)
    assert not reaches(date(2024, 8, 31), since, 1, 6)
    assert reaches(date(2024, 9, 2), since, 1, 6)
    assert not reaches(None, since, 1, 6)
    assert newest_buildable(date(2024, 11, 5), 1, 6) == date(2024, 5, 1)
    engine = open_store(tmp_path / "store.db")
    assert data_through(engine) is None  # an empty store builds nothing
    with engine.begin() as conn:  # a local catalog stores papers only: their first versions count
        conn.execute(
            Paper.__table__.insert(),
            [{"arxiv_id": "2409.00001", "version": "v1", "title": "T", "first_published": "2024-09-17"}],
        )
    assert data_through(engine) == date(2024, 9, 17)
