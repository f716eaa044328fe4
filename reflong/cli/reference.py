"""docs/cli.md, generated from the click definitions: one table of every command's options.

Why generated: a hand-kept option table drifts from the code the day an option is added or its
default changes; this one is rewritten with ``python -m reflong.cli.reference > docs/cli.md`` and
tests/test_cli_reference.py fails when the committed file differs from what the code gives.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import click

from reflong.cli.command import REMOVED_IN

HEADER = (
    "# Command-line reference\n\n"
    "Generated from the click definitions by `python -m reflong.cli.reference > docs/cli.md`; "
    "`tests/test_cli_reference.py` fails when this file and the code differ. "
    "`reflong-build COMMAND --help` says the same with more words.\n"
)


def _commands(group: click.Group, prefix: str) -> Iterator[tuple[str, click.Command]]:
    """Every command under ``group``, sub-commands of nested groups included, in name order."""
    for name in sorted(group.commands):
        command = group.commands[name]
        path = f"{prefix} {name}".strip()
        yield path, command
        if isinstance(command, click.Group):
            yield from _commands(command, path)


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def _first_sentence(text: str | None) -> str:
    """Up to the first full stop that ends a sentence (not the one of "e.g." or "i.e.")."""
    text = " ".join((text or "").strip().split("\n\n")[0].replace("\b", "").split())
    end = re.search(r"(?<!\be\.g)(?<!\bi\.e)\. (?=[A-Z`(\[])", text)
    return text if end is None else text[: end.start() + 1]


def _default(param: click.Parameter) -> str:
    if getattr(param, "is_flag", False) and not getattr(param, "secondary_opts", None):
        return ""
    if param.required:
        return "required"
    value = param.default
    if type(value).__name__ == "Sentinel":  # click 8.2+'s "no default" marker
        return ""
    if value is None or callable(value) or value == () or value is False:
        return ""
    if isinstance(value, (tuple, list)):
        value = ",".join(str(v) for v in value)
    return f"`{value}`"


def _param_row(param: click.Parameter) -> str:
    if isinstance(param, click.Argument):
        names = f"`{param.human_readable_name}` (argument)"
    else:
        names = ", ".join(f"`{o}`" for o in [*param.opts, *param.secondary_opts])
    kind = param.type.name if not isinstance(param.type, click.Choice) else "|".join(param.type.choices)
    if getattr(param, "is_flag", False):
        kind = "flag"
    help_text = _first_sentence(getattr(param, "help", None))
    return f"| {names} | {_cell(kind)} | {_cell(_default(param))} | {_cell(help_text)} |"


def cli_reference(main: click.Group) -> str:
    """The whole reference as Markdown: a section a command, a row an option."""
    parts = [HEADER]
    for path, command in _commands(main, ""):
        parts.append(f"\n## `reflong-build {path}`\n\n{_cell(_first_sentence(command.help))}\n")
        params = [p for p in command.params if not getattr(p, "hidden", False) and p.name != "help"]
        if isinstance(command, click.Group):
            parts.append(f"\nSub-commands: {', '.join(f'`{n}`' for n in sorted(command.commands))}.\n")
        if params:
            parts.append("\n| option | takes | default | what it does |\n|---|---|---|---|\n")
            parts.append("\n".join(_param_row(p) for p in params) + "\n")
        if renamed := getattr(command, "renamed", ()):
            old = "; ".join(r.describe() for r in renamed)
            parts.append(f"\nOld spellings, kept until {REMOVED_IN} with a one-line warning: {old}.\n")
    return "".join(parts)


if __name__ == "__main__":
    from reflong.cli import main as _main

    click.echo(cli_reference(_main), nl=False)
