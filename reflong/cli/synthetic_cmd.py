"""``reflong-build a`` and ``reflong-build f``: the synthetic Ref-Long subsets.

Both read only their haystacks (essays, SummHay files). ``--preset reflong2025`` reproduces the
released files (FORMAT.md, "How the released tasks were generated"); without it documents are cut
to a token budget and lengths are free.
"""

from __future__ import annotations

import time
from pathlib import Path

import click

from reflong.cli.options import (
    SEED,
    baseline_sections,
    check_tokenizer,
    choice_list,
    lengths_option,
    no_baselines_option,
    usage_error,
)
from reflong.common.errors import ReflongError
from reflong.common.progress import tqdm_progress
from reflong.common.tokenizer import DEFAULT_TOKENIZER

PRESETS = ("reflong2025",)
A_LENGTHS = "8K,16K,24K"
F_LENGTHS = "8K,16K,24K,32K,40K,48K,56K"

A_DESCRIPTION = """
Ref-Long-A style tasks built by reflong-build: Paul Graham essays cut into candidate documents,
key sentences ("{sentence}") inserted at random word positions, M
documents per task; the answer is every document whose key sentences include the task's key.
Tasks grow cumulatively across lengths: the first M documents of a longer task are the shorter task.
"""
F_DESCRIPTION = """
Ref-Long-F style tasks built by reflong-build from SummHay news haystacks: the candidates are a
topic's documents, the key is an insight sentence present in the task's first 8 documents, and the
answer is every document whose `insights_included` holds that insight. Tasks grow cumulatively
across lengths.
"""


class _InputPath(click.Path):
    """``click.Path(exists=True)`` whose error for a missing relative path names the folder it was
    read from: an example copied from the docs into another folder fails with a hint, not a riddle."""

    def __init__(self, **kw) -> None:
        super().__init__(exists=True, **kw)

    def convert(self, value, param, ctx):
        try:
            return super().convert(value, param, ctx)
        except click.BadParameter as exc:
            if Path(value).is_absolute() or Path(value).exists():
                raise
            self.fail(f"{exc.message.rstrip('.')} (relative to the current folder, {Path.cwd()})", param, ctx)


def _common(func):
    options = [
        click.option(
            "--out",
            "out_dir",
            type=click.Path(file_okay=False),
            default=None,
            help="Output folder [default: ./Ref-Long-A or ./Ref-Long-F].",
        ),
        click.option(
            "--seed", type=SEED, default=None, help="Random seed [default: 0; 2024 with the preset]."
        ),
        click.option(
            "--preset",
            type=click.Choice(PRESETS),
            default=None,
            help="Reproduce a release exactly (reflong2025: the ACL 2025 files).",
        ),
        lengths_option(
            None,
            "Nominal lengths, comma-separated: 8K, 128k, 1M (= 1000K, the same setting), 1.5M or a "
            f"token count like 8000 [default: A {A_LENGTHS}; F {F_LENGTHS}].",
            _lengths_syntax,
        ),
        click.option(
            "--tasks",
            "n_tasks",
            type=click.IntRange(1),
            default=100,
            show_default=True,
            help="Tasks per configuration.",
        ),
        click.option(
            "--tokenizer",
            default=DEFAULT_TOKENIZER,
            show_default=True,
            callback=check_tokenizer,
            help="o200k_base, cl100k_base or a tokenizer.json path (token budgets and counts).",
        ),
        click.option(
            "--question-last",
            is_flag=True,
            help="Put the question after the documents (Ref-Long's ori/ layout).",
        ),
        click.option(
            "--no-dataset", is_flag=True, help="Skip the parquet dataset (JSON, card, manifest only)."
        ),
        no_baselines_option,
    ]
    for option in reversed(options):
        func = option(func)
    return func


def _check_preset(preset: str | None, seed: int | None, **fixed) -> int:
    if preset is None:
        return 0 if seed is None else seed
    if seed is not None and seed != 2024:
        raise ReflongError(f"--preset {preset} fixes the seed to 2024; drop --seed {seed}")
    given = [name for name, value in fixed.items() if value is not None]
    if given:
        raise ReflongError(f"--preset {preset} fixes {', '.join(given)}; drop the option or the preset")
    return 2024


def _summary(subset: str, result, out_dir: Path, seconds: float) -> None:
    from reflong.assemble.outputs_ownership import removed_line

    if result.removed:
        click.echo(removed_line(out_dir, result.removed))
    tasks = sum(s.tasks for s in result.stats)
    click.echo(
        f"Ref-Long-{subset}: {len(result.stats)} configurations, {tasks} tasks "
        f"in {seconds:.1f} s -> {out_dir}"
    )
    width = max(len(s.config) for s in result.stats)
    click.echo(
        f"{'config':<{width}}  tasks   M  keys  mean answer  answer sizes{'':<22}prompt tokens min/mean/max"
    )
    for s in result.stats:
        sizes = ", ".join(f"{k}:{v}" for k, v in s.answer_sizes.items())
        if len(sizes) > 32:
            sizes = sizes[:31] + "\u2026"
        p = s.prompt_tokens
        click.echo(
            f"{s.config:<{width}}  {s.tasks:>5} {s.n_documents:>3} {s.distinct_keys:>5} "
            f"{s.mean_answer_size:>12.2f}"
            f"  {sizes:<34}{p[0]} / {p[1]} / {p[2]}"
        )
    click.echo(f"card: {out_dir / 'README.md'}   manifest: {result.manifest}")


def _lengths_syntax(value: str) -> None:
    """The shape of --lengths (the document budget, given later, decides M)."""
    from reflong.assemble.synthetic.build import parse_lengths

    if not value.replace(",", "").strip():
        raise ReflongError("no length given; use e.g. 8K,16K (or leave the option out)")
    parse_lengths(value, 1)


def _lengths(value: str, budget: int):
    from reflong.assemble.synthetic.build import parse_lengths

    try:
        return parse_lengths(value, budget)
    except ReflongError as exc:
        raise usage_error("--lengths", exc) from None


@click.command("a")
@click.option(
    "--haystack",
    type=_InputPath(file_okay=False),
    required=True,
    help="Folder of Paul Graham essays (*.txt).",
)
@click.option(
    "--modes", default="single,multi", show_default=True, help="single (1 key sentence) and/or multi (5)."
)
@click.option(
    "--levels",
    default="easy,medium,hard",
    show_default=True,
    help="Key ranges: easy [0,100), medium [0,60), hard [0,20).",
)
@click.option(
    "--doc-tokens",
    type=click.IntRange(50),
    default=None,
    help="Token budget per document, key sentences included [default: 1000; not with the preset].",
)
@click.option(
    "--candidates",
    "n_candidates",
    type=click.IntRange(1),
    default=None,
    help="Candidate documents per setting [default: max(100, 2 x largest M), as the essays allow].",
)
@click.option(
    "--key-style",
    type=click.Choice(["stars", "fruit"]),
    default="stars",
    show_default=True,
    help="Numbers of stars (Ref-Long-A) or fruit names (the paper's ablation).",
)
@click.option(
    "--strategy-prompt",
    is_flag=True,
    help="Ask the model to build a dictionary while reading (the paper's human-strategy prompt).",
)
@_common
def a_command(
    haystack,
    modes,
    levels,
    doc_tokens,
    n_candidates,
    key_style,
    strategy_prompt,
    out_dir,
    seed,
    preset,
    lengths,
    n_tasks,
    tokenizer,
    question_last,
    no_dataset,
    no_baselines,
) -> None:
    """Build Ref-Long-A: essay haystack, star-count keys, 2 modes x 3 levels x lengths."""
    from reflong.assemble.prompts import FRUIT_SENTENCE, STAR_SENTENCE, a_template
    from reflong.assemble.synthetic import a as synthetic_a
    from reflong.assemble.synthetic.build import run_build
    from reflong.common.tokenizer import get_tokenizer

    seed = _check_preset(
        preset, seed, **{"--lengths": lengths, "--doc-tokens": doc_tokens, "--candidates": n_candidates}
    )
    out = Path(out_dir or "Ref-Long-A")
    mode_list = choice_list("--modes", modes, tuple(synthetic_a.MODES))
    level_list = choice_list("--levels", levels, tuple(synthetic_a.LEVELS))
    tok = get_tokenizer(tokenizer)
    budget = doc_tokens or 1000
    length_list = _lengths(lengths or A_LENGTHS, budget)
    start = time.perf_counter()
    if preset:
        specs = synthetic_a.preset_specs(Path(haystack), mode_list, level_list, key_style)
        files = synthetic_a.release_input_files(Path(haystack))
    else:
        essays = synthetic_a.readable_essays(Path(haystack), warn=lambda msg: click.echo(msg, err=True))
        specs = synthetic_a.default_specs(
            Path(haystack),
            mode_list,
            level_list,
            seed,
            tok,
            budget,
            length_list[-1].n_documents,
            key_style,
            n_candidates,
            essays,
        )
        files = [path for path, _ in essays]
    settings = {
        "subset": "A",
        "preset": preset,
        "seed": seed,
        "lengths": [x.label for x in length_list],
        "documents_per_task": [x.n_documents for x in length_list],
        "tasks": n_tasks,
        "modes": mode_list,
        "levels": level_list,
        "key_style": key_style,
        "strategy_prompt": strategy_prompt,
        "question_last": question_last,
        "tokenizer": tok.name,
        "doc_tokens": None if preset else budget,
        "candidates": {spec.setting: len(spec.candidates) for spec in specs},
    }
    result = run_build(
        out,
        "a",
        "Ref-Long-A (reflong-build)",
        A_DESCRIPTION.replace("{sentence}", STAR_SENTENCE if key_style == "stars" else FRUIT_SENTENCE),
        specs,
        length_list,
        a_template(question_last, key_style, strategy_prompt),
        n_tasks,
        reseed_each_length=bool(preset),
        tokenizer=tok,
        settings=settings,
        inputs=_inputs(files, "haystack"),
        progress=tqdm_progress,
        write_dataset=not no_dataset,
        meta=_card_meta("A"),
        card_sections=baseline_sections(seed, no_baselines),
    )
    _summary("A", result, out, time.perf_counter() - start)


@click.command("f")
@click.option(
    "--summhay",
    "summhay_paths",
    type=_InputPath(),
    multiple=True,
    required=True,
    help="SummHay topic_news*.json file, or a folder of them (repeat the option for several).",
)
@_common
def f_command(
    summhay_paths, out_dir, seed, preset, lengths, n_tasks, tokenizer, question_last, no_dataset, no_baselines
) -> None:
    """Build Ref-Long-F: SummHay news haystacks, insight keys, lengths 8K-56K per topic."""
    from reflong.assemble.prompts import f_template
    from reflong.assemble.synthetic.build import run_build
    from reflong.assemble.synthetic.f import RELEASE_TOPICS, f_spec, load_summhay
    from reflong.common.tokenizer import get_tokenizer

    seed = _check_preset(preset, seed, **{"--lengths": lengths})
    out = Path(out_dir or "Ref-Long-F")
    tok = get_tokenizer(tokenizer)
    length_list = _lengths(lengths or F_LENGTHS, 1000)
    files = sorted({f for p in summhay_paths for f in _json_files(Path(p))})
    start = time.perf_counter()
    haystacks, used = [], []
    for path in files:
        try:
            hay = load_summhay(path)
        except ReflongError as exc:
            click.echo(f"skipped: {exc}", err=True)
            continue
        if preset and hay.topic not in RELEASE_TOPICS:
            continue  # the release used three topics only
        if any(h.name == hay.name for h in haystacks):
            raise ReflongError(f"two SummHay files give the topic name {hay.name!r}: pass each topic once")
        haystacks.append(hay)
        used.append(path)
    if not haystacks:
        raise ReflongError(
            "no usable SummHay haystack among --summhay"
            + (" (the preset needs topic_news3/4/5.json)" if preset else "")
        )
    haystacks.sort(key=lambda h: h.name)
    specs = [f_spec(h, 2024 if preset else f"{seed}/{h.name}/tasks") for h in haystacks]
    settings = {
        "subset": "F",
        "preset": preset,
        "seed": seed,
        "lengths": [x.label for x in length_list],
        "documents_per_task": [x.n_documents for x in length_list],
        "tasks": n_tasks,
        "topics": {h.name: h.topic for h in haystacks},
        "question_last": question_last,
        "tokenizer": tok.name,
    }
    result = run_build(
        out,
        "f",
        "Ref-Long-F (reflong-build)",
        F_DESCRIPTION,
        specs,
        length_list,
        f_template(question_last),
        n_tasks,
        reseed_each_length=bool(preset),
        tokenizer=tok,
        settings=settings,
        inputs=_inputs(used, "summhay"),
        progress=tqdm_progress,
        write_dataset=not no_dataset,
        meta=_card_meta("F"),
        card_sections=baseline_sections(seed, no_baselines),
    )
    _summary("F", result, out, time.perf_counter() - start)


def _card_meta(subset: str):
    """Card metadata of A and F: where the texts come from and under which terms."""
    from reflong.assemble.dataset_card import CardMeta

    if subset == "A":
        return CardMeta(
            source_datasets=("extended|other-paul-graham-essays",),
            license_note="The documents are cut from Paul Graham's essays (paulgraham.com), as in Ref-Long-A "
            "and needle-in-a-haystack benchmarks; the essays are not openly licensed, so check their terms "
            "before redistributing these files. The task files and card are produced by reflong-build (MIT).",
        )
    return CardMeta(
        source_datasets=("extended|other-summhay",),
        license_note="The documents are SummHay news haystacks (Salesforce, Summary of a Haystack), as in "
        "Ref-Long-F; they keep SummHay's license. The task files and card are produced by reflong-build (MIT).",
    )


def _json_files(path: Path) -> list[Path]:
    return sorted(path.glob("*.json")) if path.is_dir() else [path]


def _inputs(files, prefix: str) -> list[dict]:
    from reflong.common.hashing import file_entry

    return [file_entry(f, f"{prefix}/{Path(f).name}") for f in sorted(files)]


COMMANDS = [a_command, f_command]
