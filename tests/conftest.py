"""Shared fixtures: where ../shared is, and a fresh store per test.

Tests on the real corpus and data reach ../shared (or $REFLONG_SHARED) only through the
``shared_dir`` fixture and the two built on it (``corpus_dir``, ``data_dir``). A bare clone has no
../shared, so those tests skip, all with the one reason below, and every other test still runs.
CI must never skip them quietly: with REFLONG_REQUIRE_SHARED=1 (set by .ci/run) a missing
../shared stops the session at the start with a one-line usage error.

Every test that needs ../shared is also marked ``needs_shared`` (added here, from its fixtures),
so ``pytest -m "not needs_shared"`` selects the rest.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("REFLONG_SHARED", REPO.parent / "shared")).resolve()
REQUIRE_SHARED = os.environ.get("REFLONG_REQUIRE_SHARED", "") not in ("", "0")
# The reason names what is missing, never this machine's path: it is read on other machines too.
SKIP_REASON = (
    "needs ../shared (real corpus and data), not found beside the checkout; set REFLONG_SHARED to its path"
)
REQUIRED_BUT_MISSING = (
    f"REFLONG_REQUIRE_SHARED is set but ../shared (real corpus and data) is not at {SHARED}; "
    "set REFLONG_SHARED to its path"
)


def _shared_or_skip() -> Path:
    """The one place a missing ../shared becomes a skip, so ``-ra`` folds every such skip into one line."""
    if not SHARED.is_dir():
        pytest.skip(SKIP_REASON)
    return SHARED


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "needs_shared: uses the real corpus or data in ../shared")
    config.addinivalue_line(
        "markers",
        "slow: an end-to-end run, a labelled set's data checks or a fault trial that takes a second "
        "or more; left out of the fast command (-m 'not slow'), run by the full one",
    )


def pytest_sessionstart(session: pytest.Session) -> None:
    if REQUIRE_SHARED and not SHARED.is_dir():
        raise pytest.UsageError(REQUIRED_BUT_MISSING)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "shared_dir" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.needs_shared)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    # Before any fixture runs, so a module-scoped build on the corpus is never attempted.
    if item.get_closest_marker("needs_shared") is not None:
        _shared_or_skip()


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    return _shared_or_skip()


@pytest.fixture(scope="session")
def corpus_dir(shared_dir: Path) -> Path:
    return shared_dir / "corpus"


@pytest.fixture(scope="session")
def data_dir(shared_dir: Path) -> Path:
    return shared_dir / "data"


@pytest.fixture()
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "store.db"
