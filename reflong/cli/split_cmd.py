"""Training splits: ``--split train --disjoint-from TEST`` on paper/a/f, and ``check-disjoint``.

Why a split is named by a test build's folder: the test build is what a user evaluates on (or
publishes), and its folder holds everything needed to stay apart from it (``assemble/split/``).
``check-disjoint TRAIN TEST`` proves it afterwards, on any two builds, wherever they came from.
"""

from __future__ import annotations

from pathlib import Path

import click

from reflong.common.errors import ReflongError

SPLITS = ("test", "train")


def split_options(func):
    """``--split`` and ``--disjoint-from``, shared by ``paper``, ``a`` and ``f``."""
    func = click.option(
        "--disjoint-from",
        "disjoint_from",
        type=click.Path(exists=True, file_okay=False),
        default=None,
        help="With --split train: the test build's folder; no key, paper (Paper), topic (F) or "
        "document/essay text (A, F) of it is used. Check later with `reflong-build check-disjoint`.",
    )(func)
    return click.option(
        "--split",
        type=click.Choice(SPLITS),
        default="test",
        show_default=True,
        help="train: a training split for fine-tuning, apart from the --disjoint-from build, also "
        "written as chat JSONL (chat/<config>.jsonl: system, user = the prompt, assistant = the gold answer).",
    )(func)


def held_out_for(split: str, disjoint_from: str | None, subset: str):
    """The test build a training split stays apart from (None for a test build)."""
    if split == "test":
        if disjoint_from:
            raise click.UsageError(
                "--disjoint-from names the test build of a training split: add --split train"
            )
        return None
    if not disjoint_from:
        raise click.UsageError(
            "--split train needs --disjoint-from TEST_BUILD_DIR (the build to stay apart from)"
        )
    from reflong.assemble.split.exclude import held_out

    return held_out(Path(disjoint_from), subset)


@click.command("check-disjoint")
@click.argument("train", type=click.Path(exists=True, file_okay=False))
@click.argument("test", type=click.Path(exists=True, file_okay=False))
@click.option(
    "--show", type=click.IntRange(min=0), default=20, show_default=True, help="Overlaps listed per kind."
)
def check_disjoint_command(train: str, test: str, show: int) -> None:
    """Prove that build TRAIN shares nothing with build TEST (exit 1 listing every overlap).

    \b
    Both are finished builds of one subset (their folders, with data/*.parquet):
      paper  no shared key (seed arXiv id) and no shared paper, as key or document, any version
      f      no shared topic, key (insight) or document
      a      no shared document or passage of 25 words (so no essay text in common); A's keys
             are star counts, shared by design, and only reported
    """
    from reflong.assemble.split.disjoint import check_disjoint

    report = check_disjoint(Path(train), Path(test))
    for line in report.lines(show):
        click.echo(line)
    if not report.disjoint:
        kinds = ", ".join(f"{len(v)} {k}" for k, v in report.overlaps.items() if v)
        raise ReflongError(f"{train} and {test} are not disjoint: shared {kinds}")
    click.echo(f"disjoint: {train} shares no {', '.join(report.compared)} with {test}")


COMMANDS = [check_disjoint_command]
