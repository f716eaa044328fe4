"""``reflong-build human``: a person answers built tasks on a local web page (the human baseline)."""

from __future__ import annotations

from pathlib import Path

import click

from reflong.cli.command import ReflongCommand, Renamed
from reflong.cli.options import default_of, refuse_unfinished
from reflong.evaluate.human.session import open_session


@click.command(
    "human",
    cls=ReflongCommand,
    # --tasks is how many tasks a build makes (paper, a, f); how many of them to answer is --limit,
    # as lm-evaluation-harness and Inspect name it.
    renamed=(Renamed("--tasks", "--limit"),),
)
@click.option(
    "--build",
    type=click.Path(exists=True, path_type=Path),
    required=True,
    help="The built tasks: a build's folder (prompts and *_answers.json) or one prompts file.",
)
@click.option(
    "--setting",
    default=None,
    help="Which configuration, as eval score names it (hard_30K, multi_stars_hard_8K; "
    "ori/NAME where a build holds both prompt placements) [default: the build's only one].",
)
@click.option(
    "--out",
    "out_dir",
    type=click.Path(file_okay=False, path_type=Path),
    required=True,
    help="This annotator's folder: answers.jsonl (every answer, fsynced), <config>.json predictions "
    "and run_manifest.json. Outside --build.",
)
@click.option(
    "--annotator", required=True, help="Who answers (letters, digits, . _ -); scored as human:NAME."
)
@click.option(
    "--limit",
    "n_tasks",
    type=click.IntRange(1),
    default=default_of(open_session, "n_tasks"),
    show_default=True,
    help="Answer the first N tasks of the setting (the same N tasks for every annotator; Ref-Long's study: 50).",
)
@click.option(
    "--host",
    default=default_of(open_session, "host"),
    show_default=True,
    help="Address to listen on; keep 127.0.0.1 unless others must reach the page.",
)
@click.option(
    "--port",
    type=click.IntRange(0, 65535),
    default=default_of(open_session, "port"),
    show_default=True,
    help="Port (0: any free one; the URL is printed).",
)
def human(build: Path, setting, out_dir: Path, annotator: str, n_tasks: int, host: str, port: int) -> None:
    """Serve a page on which a person answers tasks, one at a time, as a model would (the human baseline).

    \b
    The page shows the key, the numbered documents, search within the page with highlights, a field
    for the indexes and "task 3 of 50"; it times each task (while the page is visible). Every answer
    is written to OUT/answers.jsonl and fsynced before the page says "saved": a closed browser or a
    killed server loses nothing, and the same command resumes at the first unanswered task.
    Predictions are in eval run's format, scored on the tasks this session covers:
      reflong-build eval score --build BUILD --predictions OUT --save BUILD/eval/human-NAME.json
    Two annotators' agreement (same answer; Cohen's kappa per document):
      reflong-build eval score --build BUILD --predictions OUT_A --agreement-with OUT_B
    Stop with Ctrl-C.
    """
    import logging

    refuse_unfinished(build)
    server = open_session(build, out_dir, annotator, setting, n_tasks, host, port)
    session = server.session
    state = session.state()
    if not (host in ("127.0.0.1", "localhost", "::1") or host.startswith("127.")):
        logging.getLogger("reflong.human").warning(
            f"listening on {host}: anyone who can reach this machine can read the tasks and answer them"
        )
    click.echo(
        f"human: {state['model']} on {state['setting']}, {state['answered']} of {state['total']} tasks answered; "
        f"open {server.url} (Ctrl-C stops; every answer is saved as it is given)"
    )
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        state = session.state()
        click.echo(
            f"human: stopped with {state['answered']} of {state['total']} answered in {out_dir}; "
            "rerun the same command to go on",
            err=True,
        )
    finally:
        server.close()


COMMANDS = [human]
