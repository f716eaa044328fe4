"""The command classes of ``reflong-build``: one vocabulary with old spellings kept for a release,
and a ``--help`` that shows the common options first.

Why old spellings are rewritten in the argument list rather than declared as hidden options: one
idea has one option (one destination, one default, one line in ``--help`` and docs/cli.md), and a
rename is one line in the command's ``renamed`` list. A hidden second option for the same value
would need its own default and a merge in every command body, and click picks between two options
of one destination differently from version to version.

Why ``--help`` is split: ``paper`` and ``refresh`` take about 60 options; a newcomer needs a dozen
of them (the window, the output, the sizes, the seed). The command names those (``common``); the
rest are listed after them under "Advanced options", each still with its default.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import click

#: The release after which old spellings stop working (they were renamed in 0.1 -> 0.2).
REMOVED_IN = "0.3"

log = logging.getLogger("reflong.cli")


@dataclass(frozen=True)
class Renamed:
    """An option's old spelling, or one old value of an option (``value`` set: ``--format text``).

    ``when`` limits a flag rename to values that have the old meaning: ``--build 3`` (a build id,
    now ``--build-id``) beside ``--build FOLDER`` (the new name of the build folder)."""

    old: str
    new: str
    value: str | None = None  # rename this value of option ``old`` to ``new`` (the flag stays)
    when: Callable[[str], bool] | None = None
    when_text: str = ""  # ``when`` in words, for docs/cli.md: "a build id"

    def describe(self) -> str:
        if self.value is not None:
            return f"`{self.old} {self.value}` is `{self.old} {self.new}`"
        if self.when is not None:
            return f"`{self.old}` with {self.when_text} is `{self.new}`"
        return f"`{self.old}` is `{self.new}`"


def _split(token: str) -> tuple[str, str | None]:
    """``--flag=value`` as (flag, value); any other token as (token, None)."""
    if token.startswith("--") and "=" in token:
        flag, _, value = token.partition("=")
        return flag, value
    return token, None


def rewrite_old_spellings(command: str, args: Sequence[str], renamed: Sequence[Renamed]) -> list[str]:
    """``args`` with every old spelling replaced by its new one, each replacement warned about in
    one line. Nothing after ``--`` is touched (``demo -- --lengths 30K`` hands ``paper`` its own
    options). Giving an option under both names is a usage error, not a silent last-one-wins."""
    flags = {r.old: r for r in renamed if r.value is None}
    values = {(r.old, r.value): r for r in renamed if r.value is not None}
    out: list[str] = []
    given_new: set[str] = set()
    given_old: dict[str, str] = {}
    i = 0
    while i < len(args):
        token = args[i]
        if token == "--":
            out.extend(args[i:])
            break
        flag, inline = _split(token)
        following = args[i + 1] if i + 1 < len(args) else None
        value = inline if inline is not None else following
        rule = flags.get(flag)
        if rule is not None and (rule.when is None or (value is not None and rule.when(value))):
            _warn(command, f"{rule.old} is now {rule.new}")
            given_old[rule.new] = rule.old
            flag = rule.new
        elif flag.startswith("--"):
            given_new.add(flag)
        value_rule = values.get((flag, value)) if value is not None else None
        if value_rule is not None:
            _warn(command, f"{flag} {value_rule.value} is now {flag} {value_rule.new}")
            value = value_rule.new
        if inline is not None:
            out.append(f"{flag}={value}")
        elif value_rule is not None:
            out.extend([flag, value])
            i += 1
        else:
            out.append(flag)
        i += 1
    both = sorted(set(given_old) & given_new)
    if both:
        new = both[0]
        raise click.UsageError(
            f"{given_old[new]} and {new} are one option ({given_old[new]} is its old spelling); give {new} only"
        )
    return out


def _warn(command: str, what: str) -> None:
    log.warning("reflong-build %s: %s; the old spelling works until %s", command, what, REMOVED_IN)


def _path_below_root(ctx: click.Context) -> str:
    """``audit export``, whatever the program is called (``reflong-build``, a test runner's name)."""
    names = []
    while ctx.parent is not None:
        names.append(ctx.info_name or "")
        ctx = ctx.parent
    return " ".join(reversed(names)) or (ctx.info_name or "")


class _Vocabulary:
    """What ``ReflongCommand`` and ``ReflongGroup`` share: ``renamed`` and ``common``."""

    renamed: tuple[Renamed, ...] = ()
    common: tuple[str, ...] = ()

    def _setup(self, renamed: Sequence[Renamed], common: Sequence[str]) -> None:
        self.renamed = tuple(renamed)
        self.common = tuple(common)

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if self.renamed:
            args = rewrite_old_spellings(_path_below_root(ctx), args, self.renamed)
        return super().parse_args(ctx, args)  # type: ignore[misc]

    def format_options(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        help_option = self.get_help_option(ctx)  # type: ignore[attr-defined]
        params = [(p, p.get_help_record(ctx)) for p in self.get_params(ctx)]  # type: ignore[attr-defined]
        shown = [(p, record) for p, record in params if record is not None]
        if not self.common:
            first, rest = [record for _, record in shown], []
        else:
            order = {name: i for i, name in enumerate(self.common)}
            chosen = sorted(
                ((p, r) for p, r in shown if p.name in order), key=lambda pair: order[pair[0].name]
            )
            first = [r for _, r in chosen] + [r for p, r in shown if p is help_option]
            rest = [r for p, r in shown if p.name not in order and p is not help_option]
        if first:
            with formatter.section("Options"):
                formatter.write_dl(first)
        if rest:
            with formatter.section("Advanced options"):
                formatter.write_dl(rest)


class ReflongCommand(_Vocabulary, click.Command):
    """A command with old spellings (``renamed``) and common options first in ``--help`` (``common``:
    parameter names in the order shown; empty: every option under "Options")."""

    def __init__(self, *args, renamed: Sequence[Renamed] = (), common: Sequence[str] = (), **kwargs):
        super().__init__(*args, **kwargs)
        self._setup(renamed, common)


class ReflongGroup(_Vocabulary, click.Group):
    """``ReflongCommand`` for a group (``audit``): its own options renamed and grouped; its
    sub-commands say their own."""

    def __init__(self, *args, renamed: Sequence[Renamed] = (), common: Sequence[str] = (), **kwargs):
        super().__init__(*args, **kwargs)
        self._setup(renamed, common)

    def format_options(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        super().format_options(ctx, formatter)
        self.format_commands(ctx, formatter)
