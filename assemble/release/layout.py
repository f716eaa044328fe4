"""Where the releases live in a dataset folder, which are finished, and which window comes next.

Layout (``RELEASES`` is the folder a ``refresh`` writes to, one `datasets` dataset)::

    RELEASES/README.md            the dataset card over every release (configs per setting)
    RELEASES/releases.json        the list of finished releases
    RELEASES/2024-03/             one ``paper`` build (its own card, manifest, parquet, JSON)
    RELEASES/2024-03/release.json the release manifest, written last: a release is finished iff
                                  it is there (a killed refresh leaves a folder without it)
    RELEASES/2024-03/RELEASE_NOTES.md
    RELEASES/2024-04/release.started.json  the options a refresh started 2024-04 with, written
                                  before its first request and removed once release.json is:
                                  a rerun of a killed refresh finishes it with exactly those

Why a sub-folder per release rather than one build for all windows: a release, once published,
must not change when the next one is added, so each is its own finished build with its own
manifest and hashes, and the top-level card only points at them.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from reflong.common.errors import ReflongError

RELEASE_FILE = "release.json"
NOTES_FILE = "RELEASE_NOTES.md"
INDEX_FILE = "releases.json"
RELEASE_FORMAT = "reflong-release/1"
START_FILE = "release.started.json"
START_FORMAT = "reflong-release-start/1"
_LABEL = re.compile(r"^\d{4}-\d{2}$")


@dataclass(frozen=True)
class Release:
    label: str  # the seed month, YYYY-MM
    folder: Path
    manifest: dict | None  # release.json; None while unfinished

    @property
    def finished(self) -> bool:
        return self.manifest is not None


def read_release_manifest(folder: Path) -> dict | None:
    """``release.json`` of a release folder, or None when absent (unfinished) or not ours."""
    try:
        data = json.loads((Path(folder) / RELEASE_FILE).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        raise ReflongError(
            f"{Path(folder) / RELEASE_FILE} cannot be read ({exc}): restore it or remove the folder"
        ) from None
    if not isinstance(data, dict) or data.get("format") != RELEASE_FORMAT:
        raise ReflongError(f"{Path(folder) / RELEASE_FILE} is not a reflong-build release manifest")
    return data


def read_start_record(folder: Path) -> dict | None:
    """``release.started.json`` of an unfinished release (what its refresh was started with), or
    None when absent. Read strictly: a record that is not ours is an error, never ignored, since
    the rerun would then build the release with other options than the run it finishes."""
    path = Path(folder) / START_FILE
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        raise ReflongError(f"{path} cannot be read ({exc}): restore it or remove the folder") from None
    if not isinstance(data, dict) or data.get("format") != START_FORMAT:
        raise ReflongError(
            f"{path} is not a reflong-build release start record: restore it or remove the folder"
        )
    return data


def write_start_record(folder: Path, label: str, options: dict, tool_version: str) -> None:
    """Record the options a refresh builds ``label`` with, atomically, before it asks for anything."""
    from reflong.common.atomic_files import write_atomic

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    record = {"format": START_FORMAT, "release": label, "options": options, "tool_version": tool_version}
    write_atomic(folder / START_FILE, (json.dumps(record, indent=2, sort_keys=True) + "\n").encode("utf-8"))


def drop_start_record(folder: Path) -> None:
    """Remove the start record (the release is published, or was not built at all), and the
    folder when nothing else is in it."""
    folder = Path(folder)
    (folder / START_FILE).unlink(missing_ok=True)
    if folder.is_dir() and not any(folder.iterdir()):
        folder.rmdir()


def list_releases(root: Path) -> list[Release]:
    """Every ``YYYY-MM`` sub-folder of ``root``, oldest first, finished or not."""
    root = Path(root)
    if not root.is_dir():
        return []
    out = []
    for child in sorted(root.iterdir()):
        if child.is_dir() and _LABEL.match(child.name):
            out.append(Release(child.name, child, read_release_manifest(child)))
    return out


def finished_releases(root: Path) -> list[Release]:
    return [r for r in list_releases(root) if r.finished]


def previous_release(root: Path, label: str) -> Release | None:
    """The newest finished release older than ``label`` (what ``label``'s notes compare with)."""
    older = [r for r in finished_releases(root) if r.label < label]
    return older[-1] if older else None


def next_label(root: Path) -> str | None:
    """The window a refresh builds when no ``--since`` is given.

    An unfinished release (a refresh killed half-way) comes first: the rerun resumes it. Otherwise
    the month after the newest finished release; None when the folder holds no release yet."""
    from reflong.ingest.plan.windows import add_months, parse_month

    releases = list_releases(root)
    newest = max((r.label for r in releases if r.finished), default=None)
    unfinished = [r.label for r in releases if not r.finished and (newest is None or r.label > newest)]
    if unfinished:
        return unfinished[0]
    if newest is None:
        return None
    return f"{add_months(parse_month(newest), 1):%Y-%m}"
