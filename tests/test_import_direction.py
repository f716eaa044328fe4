"""Data flows one way: ingest -> citations -> assemble -> evaluate, with db/ and reflong.common shared.

Every module of every stage folder (sub-folders included) is parsed, and each of its imports of a
``reflong`` package is checked against what its stage may use: the stages before it, the store and
the shared utilities. The CLI, the stand-in servers and the demo sit on top and may import
anything; no stage imports them. A layout change that breaks the direction fails here with the
module and the import named.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
# Folder -> installed package, in the order data flows.
STAGES = {"ingest": "reflong.ingest", "citations": "reflong.citations", "assemble": "reflong.assemble", "evaluate": "reflong.evaluate"}  # fmt: skip
SHARED = ("reflong.db", "reflong.common")
ON_TOP = ("reflong.cli", "reflong.servers", "reflong.demo")


def reflong_imports(path: Path) -> list[str]:
    """Every ``reflong...`` module a file imports, at any depth of the file (lazy imports too)."""
    names: list[str] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names += [node.module]
    return [n for n in names if n == "reflong" or n.startswith("reflong.")]


def allowed_for(folder: str) -> tuple[str, ...]:
    """What a folder's modules may import: itself, earlier stages, the store and common utilities."""
    if folder == "db":
        return ("reflong.db", "reflong.common")
    order = list(STAGES)
    return (*(STAGES[f] for f in order[: order.index(folder) + 1]), *SHARED)


def under(name: str, packages: tuple[str, ...]) -> bool:
    return any(name == p or name.startswith(p + ".") for p in packages)


@pytest.mark.parametrize("folder", [*STAGES, "db"])
def test_stage_imports_only_earlier_stages(folder: str) -> None:
    modules = sorted((REPO / folder).rglob("*.py"))
    assert len(modules) >= 5, f"{folder}/ should hold the stage's modules"
    wrong = [
        f"{path.relative_to(REPO)} imports {name}"
        for path in modules
        for name in reflong_imports(path)
        # ``from reflong import __version__`` names the package itself, not a stage.
        if name != "reflong" and not under(name, allowed_for(folder))
    ]
    assert wrong == []


def test_common_utilities_import_no_stage() -> None:
    modules = sorted((REPO / "reflong" / "common").rglob("*.py"))
    assert len(modules) >= 4
    wrong = [
        f"{path.relative_to(REPO)} imports {name}"
        for path in modules
        for name in reflong_imports(path)
        if name != "reflong" and not under(name, ("reflong.common",))
    ]
    assert wrong == []


def test_a_later_import_would_be_caught(tmp_path: Path) -> None:
    """The scan sees lazy imports inside functions (how a back-edge would most likely sneak in)."""
    module = tmp_path / "m.py"
    module.write_text("def f():\n    from reflong.assemble.paper.build import PaperSettings\n")
    names = reflong_imports(module)
    assert names == ["reflong.assemble.paper.build"]
    assert not under(names[0], allowed_for("citations"))
    assert under(names[0], allowed_for("evaluate"))
