"""What setup.py hands setuptools: every folder of the stages is a package, data folders included.

setuptools warns (``BuildBackendWarning``: "Package would be ignored") when a folder holding package
data is not itself in ``packages``, and says it will stop shipping such files; the human page
(``evaluate/human/static/``) was such a folder. Building a wheel here would fetch setuptools from an
index, so this reads the arguments setup.py passes instead of building."""

from __future__ import annotations

import runpy
from pathlib import Path

import pytest
import setuptools

# The standard library reads TOML from Python 3.11 on; pyproject.toml allows 3.10.
tomllib = pytest.importorskip("tomllib", reason="reading pyproject.toml needs Python 3.11's tomllib")

REPO = Path(__file__).resolve().parents[1]


def _setup_arguments(monkeypatch) -> dict:
    seen: dict = {}
    monkeypatch.setattr(setuptools, "setup", lambda **kw: seen.update(kw))
    runpy.run_path(str(REPO / "setup.py"))
    return seen


def test_every_stage_folder_is_a_package_and_no_cache_folder_is(monkeypatch):
    args = _setup_arguments(monkeypatch)
    packages, package_dir = set(args["packages"]), args["package_dir"]
    expected = set()
    for name, folder in package_dir.items():
        root = REPO / folder
        for d in [root, *(p for p in root.rglob("*") if p.is_dir())]:
            rel = d.relative_to(root).parts
            if "__pycache__" in rel:
                continue
            expected.add(".".join((name, *rel)))
    assert packages == expected
    assert "reflong.evaluate.human.static" in packages
    assert package_dir["reflong.citations"] == "citations" and package_dir["reflong.db"] == "db"


def test_package_data_names_packages_and_matches_files(monkeypatch):
    packages = set(_setup_arguments(monkeypatch)["packages"])
    config = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    package_data = config["tool"]["setuptools"]["package-data"]
    for package, patterns in package_data.items():
        assert package in packages, package  # else setuptools warns it "would be ignored"
        folder = REPO / package.removeprefix("reflong.").replace(".", "/")
        for pattern in patterns:
            assert list(folder.glob(pattern)), (package, pattern)  # a pattern that ships nothing
    shipped = {p.name for p in (REPO / "evaluate" / "human" / "static").iterdir()}
    assert shipped == {"page.html", "page.css", "page.js"}
