"""Which window a bare `refresh` builds: an unfinished release first (a killed refresh resumes),
else the month after the newest finished one; a broken release manifest is one clear error."""

from __future__ import annotations

import json

import pytest

from reflong.assemble.release.layout import RELEASE_FORMAT, next_label, previous_release
from reflong.common.errors import ReflongError


def _release(root, label, finished=True):
    folder = root / label
    folder.mkdir(parents=True)
    if finished:
        (folder / "release.json").write_text(json.dumps({"format": RELEASE_FORMAT, "release": label}))


def test_next_window_resumes_an_unfinished_release_first(tmp_path):
    assert next_label(tmp_path / "none") is None
    _release(tmp_path, "2024-03")
    (tmp_path / "notes").mkdir()  # not a release folder
    assert next_label(tmp_path) == "2024-04"
    _release(tmp_path, "2024-12")
    assert next_label(tmp_path) == "2025-01"  # across the year
    _release(tmp_path, "2025-01", finished=False)  # killed before its release.json
    assert next_label(tmp_path) == "2025-01"
    assert previous_release(tmp_path, "2025-01").label == "2024-12"
    assert previous_release(tmp_path, "2024-03") is None


def test_a_broken_release_manifest_is_one_clear_error(tmp_path):
    _release(tmp_path, "2024-03", finished=False)
    (tmp_path / "2024-03" / "release.json").write_text("{not json")
    with pytest.raises(ReflongError, match=r"2024-03/release.json cannot be read"):
        next_label(tmp_path)
