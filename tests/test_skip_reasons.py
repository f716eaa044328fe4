"""Skip reasons are read on other machines (CI logs, a newcomer's bare clone): they name what is
missing and how to point at it, never the absolute path of the machine that wrote them."""

from __future__ import annotations

from _labelled_sets import Builder
from conftest import SHARED, SKIP_REASON


def test_the_shared_skip_names_what_is_missing_not_this_machines_path():
    assert str(SHARED) not in SKIP_REASON and "/work" not in SKIP_REASON
    assert (
        SKIP_REASON.startswith("needs ../shared (real corpus and data)") and "REFLONG_SHARED" in SKIP_REASON
    )


def test_a_missing_snapshot_skip_names_the_repository_and_its_variable_not_a_path(monkeypatch, tmp_path):
    missing = tmp_path / "nowhere" / "repo"
    monkeypatch.setenv("REFLONG_TEST_SNAPSHOT_GIT", str(missing))
    builder = Builder("build_x", "--x", "REFLONG_TEST_SNAPSHOT_GIT", str(missing), "owner/name")
    mark = builder.needs_snapshot()
    assert mark.args == (True,)  # the snapshot is absent: the test skips
    reason = mark.kwargs["reason"]
    assert str(missing) not in reason and str(tmp_path) not in reason
    assert (
        reason
        == "needs the owner/name snapshot, not on this machine (set REFLONG_TEST_SNAPSHOT_GIT to its git directory)"
    )


def test_no_skip_reason_prints_a_commands_output_or_a_temporary_path():
    """A reason built from a command's stderr (mount: "...: /tmp/pytest-of-root/...") or a tmp
    path differs on every machine and run; the two small-disk skips did, before issue 38."""
    import ast
    from pathlib import Path

    leaks = []
    for path in sorted(Path(__file__).parent.glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            is_skip = (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "skip"
                and node.args
                and isinstance(node.args[0], ast.JoinedStr)
            )
            if not is_skip:
                continue
            for part in node.args[0].values:
                if isinstance(part, ast.FormattedValue):
                    text = ast.unparse(part.value)
                    if any(word in text for word in ("stderr", "stdout", "tmp", "mount_point", "probe")):
                        leaks.append(f"{path.name}:{node.lineno}: {text}")
    assert leaks == []
