"""Progress reporting that stages can use without knowing about terminals.

Stages take a ``Progress`` factory; the CLI passes ``tqdm_progress`` and tests pass nothing
(``null_progress``). This keeps display concerns in the CLI, as DESIGN.md asks.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Protocol


class ProgressBar(Protocol):
    def update(self, n: int = 1) -> None: ...
    def set_postfix_str(self, s: str) -> None: ...


class _NullBar:
    def update(self, n: int = 1) -> None:
        pass

    def set_postfix_str(self, s: str) -> None:
        pass

    def __enter__(self) -> _NullBar:
        return self

    def __exit__(self, *exc: object) -> None:
        return None


ProgressFactory = Callable[..., AbstractContextManager[ProgressBar]]


def null_progress(total: int | None = None, desc: str = "", unit: str = "it") -> _NullBar:
    """A progress bar that shows nothing (library use, tests)."""
    return _NullBar()


def tqdm_progress(total: int | None = None, desc: str = "", unit: str = "it"):
    """A tqdm bar on stderr; silent when stderr is not a terminal unless REFLONG_PROGRESS=1."""
    import os
    import sys

    from tqdm import tqdm

    disable = not (sys.stderr.isatty() or os.environ.get("REFLONG_PROGRESS") == "1")
    return tqdm(total=total, desc=desc, unit=unit, disable=disable, leave=False, dynamic_ncols=True)
