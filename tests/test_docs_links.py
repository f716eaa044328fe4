"""Every relative link in README.md and docs/*.md points at a file (and heading) in the repository.

Why a test: the README sends a newcomer to docs/ pages, and those pages link to each other and to
the build report image; a page renamed or a heading reworded would otherwise leave a dead link
that nobody notices until a reader clicks it. Web links are not followed (tests never touch the
internet).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PAGES = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
FENCE = re.compile(r"^```.*?^```", re.S | re.M)
HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*$", re.M)


def _prose(page: Path) -> str:
    """The page without fenced code blocks (a ``](`` inside code is not a link)."""
    return FENCE.sub("", page.read_text(encoding="utf-8"))


def _anchor(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def _links(page: Path) -> list[str]:
    return [target for target in LINK.findall(_prose(page)) if not re.match(r"[a-z][a-z0-9+.-]*:", target)]


def test_there_are_pages_and_links() -> None:
    assert (REPO / "docs" / "architecture.md").is_file()
    assert sum(len(_links(page)) for page in PAGES) >= 10


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(REPO).as_posix())
def test_relative_links_resolve(page: Path) -> None:
    dead = []
    for target in _links(page):
        path_part, _, fragment = target.partition("#")
        file = (page.parent / path_part).resolve() if path_part else page
        if not file.is_file() or not file.is_relative_to(REPO):
            dead.append(f"{target}: no file {file}")
            continue
        if fragment and file.suffix == ".md":
            anchors = {_anchor(h) for h in HEADING.findall(_prose(file))}
            if fragment not in anchors:
                dead.append(f"{target}: no heading #{fragment} in {file.relative_to(REPO)}")
    assert dead == [], f"dead links in {page.relative_to(REPO)}:\n" + "\n".join(dead)
