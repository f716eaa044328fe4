"""docs/cli.md is generated from the click definitions and must not drift from them."""

from __future__ import annotations

from pathlib import Path

import click

from reflong.cli import main
from reflong.cli.reference import cli_reference

REFERENCE = Path(__file__).resolve().parents[1] / "docs" / "cli.md"


def test_docs_cli_md_is_what_the_click_definitions_give():
    assert REFERENCE.read_text(encoding="utf-8") == cli_reference(main), (
        "docs/cli.md is out of date: run `python -m reflong.cli.reference > docs/cli.md`"
    )


def test_the_reference_has_every_command_and_every_visible_option():
    text = REFERENCE.read_text(encoding="utf-8")
    for name in ("paper", "refresh", "match", "eval score", "audit export", "demo"):
        assert f"## `reflong-build {name}`" in text, name
    paper = text.split("## `reflong-build paper`")[1].split("\n## ")[0]
    visible = [o for p in main.commands["paper"].params if not getattr(p, "hidden", False) for o in p.opts]
    assert visible and all(f"`{o}`" in paper for o in visible)
    assert "| `--since` | text | required |" in paper or "| `--since` |" in paper


def test_a_new_option_changes_the_reference():
    @click.group()
    def group() -> None:
        """A group."""

    @group.command()
    @click.option("--size", type=int, default=3, help="How big. More words here.")
    def one(size: int) -> None:
        """One command. It does one thing."""

    before = cli_reference(group)
    assert "| `--size` | integer | `3` | How big. |" in before and "One command." in before
    group.commands["one"].params.append(
        click.Option(["--colour"], type=click.Choice(["red", "blue"]), required=True)
    )
    after = cli_reference(group)
    assert after != before and "| `--colour` | red\\|blue | required |  |" in after
