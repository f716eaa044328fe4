"""The resolver keeps the shape issue 37 gave it: small functions, one decision, one registry,
no labelled-set entry ids in the code.

These read the code (its AST and text), not its output: a change that grows a 100-line function
back, moves a score outside the decision or tunes a rule to one entry of a labelled set fails here.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from reflong.citations.evidence import registry

CITATIONS = Path(__file__).resolve().parents[1] / "citations"
SOURCES = sorted(p for p in CITATIONS.rglob("*.py") if "__pycache__" not in p.parts)
MAX_FUNCTION_LINES = 80


def test_no_function_in_citations_is_longer_than_80_lines():
    long = []
    for path in SOURCES:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                lines = node.end_lineno - node.lineno + 1
                if lines > MAX_FUNCTION_LINES:
                    long.append(f"{path.relative_to(CITATIONS)}:{node.name} ({lines} lines)")
    assert long == []


def test_no_labelled_set_entry_id_is_cited_in_the_code():
    # Entry ids of tests/data/real's sets: a letter and five digits ("e04222", "t00792").
    entry_id = re.compile(r"\b[a-z]\d{5}\b")
    cited = [f"{p.relative_to(CITATIONS)}: {m}" for p in SOURCES for m in entry_id.findall(p.read_text("utf-8"))]
    assert cited == []


def test_only_the_decision_moves_a_score():
    moves = re.compile(r"\bscore\s*=\s*(?:min|max)\(|\bscore\s*[-+]=")
    found = [
        str(p.relative_to(CITATIONS))
        for p in SOURCES
        if moves.search(p.read_text("utf-8")) and p.relative_to(CITATIONS).as_posix() != "decision/decide.py"
    ]
    assert found == []


def test_every_evidence_reader_is_in_the_registry_once():
    listed = [r.kind for r in registry.READERS]
    assert len(listed) == len(set(listed))
    readers = {
        p.stem
        for p in (CITATIONS / "evidence").glob("*.py")
        if re.search(r"^def read\(pair: Pair", p.read_text("utf-8"), re.M)
    }
    assert readers == set(listed)
