"""One source for every default: each CLI option that sets a stage's setting defaults to that
setting's own default (a settings dataclass field, or a keyword default of a stage function).

The options read those defaults (``reflong.cli.options.default_of``); this test reads them on its
own (``inspect.signature``) and fails when an option's default is written again and drifts, and
when a new option with a default is neither mapped to its setting nor listed as the CLI's own.
"""

from __future__ import annotations

import inspect
from pathlib import Path

import click
import pytest

from reflong.assemble.audit.queue import DEFAULT_CONFIDENCE, DEFAULT_NEAR_DUP
from reflong.assemble.paper.build import PaperSettings
from reflong.citations.fields.grobid import DEFAULT_TIMEOUT_S
from reflong.citations.resolve import Thresholds
from reflong.citations.stages.cite_stage import run_cite
from reflong.cli import main
from reflong.cli.ingest_options import plan_settings
from reflong.cli.paper_cmd import parse_lengths
from reflong.common.tokenizer import DEFAULT_TOKENIZER
from reflong.demo.catalog2024 import write_catalog
from reflong.demo.citation_graph import IndexConfig, write_world_index
from reflong.demo.rehearsal import RehearsalSettings
from reflong.demo.world import SynthConfig
from reflong.evaluate.baseline_run import score_baselines
from reflong.evaluate.contamination import view_for_results
from reflong.evaluate.export.write import export_build
from reflong.evaluate.human.session import open_session
from reflong.evaluate.runner import RunSettings, run_prompts
from reflong.evaluate.scoring import score_paths
from reflong.ingest.netpolicy import NetPolicy
from reflong.ingest.parse.settings import ParseSettings
from reflong.ingest.plan.pdf_plan import PlanSettings
from reflong.ingest.stage import IngestSettings

INGEST = {
    "since": (IngestSettings, "since"),
    "seed_months": (IngestSettings, "seed_months"),
    "pool_months": (IngestSettings, "pool_months"),
    "distractor_months": (IngestSettings, "distractor_months"),
    "categories": (IngestSettings, "categories"),
    "max_papers": (IngestSettings, "max_papers"),
    "cache_dir": (IngestSettings, "cache_dir"),
    "arxiv_url": (IngestSettings, "arxiv_url"),
    "oai_url": (IngestSettings, "oai_url"),
    "source_dir": (IngestSettings, "source_dir"),
    "metadata": (IngestSettings, "metadata"),
    "api_result_cap": (IngestSettings, "api_result_cap"),
    "api_page_size": (IngestSettings, "api_page_size"),
    "delay": (NetPolicy, "delay"),
    "timeout": (NetPolicy, "timeout"),
    "retries": (NetPolicy, "retries"),
    "throttle_minutes": (NetPolicy, "throttle_minutes"),
    "citation_index": (PlanSettings, "citation_index"),
    "index_delay": (PlanSettings, "index_delay"),
    "n_keys": (PlanSettings, "keys"),
    "citers_per_key": (PlanSettings, "citers_per_key"),
    "n_distractors": (PlanSettings, "distractors"),
    "n_controls": (PlanSettings, "controls"),
    "max_pdfs": (PlanSettings, "max_pdfs"),
}

# command -> {click parameter name: (settings class or stage function, field) or the constant itself}
SETTINGS = {
    "ingest": INGEST,
    "paper": INGEST
    | {
        "lengths": (PaperSettings, "lengths"),
        "difficulty": (PaperSettings, "difficulties"),
        "n_tasks": (PaperSettings, "n_tasks"),
        "seed": (PaperSettings, "seed"),
        "min_positives": (PaperSettings, "min_positives"),
        "doc_policy": (PaperSettings, "doc_policy"),
        "max_doc_tokens": (PaperSettings, "max_doc_tokens"),
        "ref_share": (PaperSettings, "ref_share"),
        "many_citers": (PaperSettings, "many_citers"),
        "question_last": (PaperSettings, "question_last"),
        "key_form": (PaperSettings, "key_form"),
        "split": (PaperSettings, "split"),
        "tokenizer": (PaperSettings, "tokenizer"),
        "workers": (ParseSettings, "workers"),
    },
    "parse": {
        "workers": (ParseSettings, "workers"),
        "chunk_tokens": (ParseSettings, "chunk_tokens"),
        "tokenizer": (ParseSettings, "tokenizer"),
        "timeout_s": (ParseSettings, "timeout_s"),
        "memory_mb": (ParseSettings, "memory_mb"),
        "retry_failed": (ParseSettings, "retry_failed"),
    },
    "resolve": {"profile": (Thresholds, "profile")},
    "match": {"profile": (Thresholds, "profile")},
    "cite": {
        "grobid_service": (run_cite, "grobid_service"),
        "grobid_fallback": (run_cite, "grobid_fallback"),
        "retry_failed": (run_cite, "retry_failed"),
        "grobid_timeout": DEFAULT_TIMEOUT_S,
    },
    "a": {"tokenizer": DEFAULT_TOKENIZER},
    "f": {"tokenizer": DEFAULT_TOKENIZER},
    "eval score": {
        "parser": (score_paths, "parser"),
        "bootstrap": (view_for_results, "resamples"),
        "seed": (view_for_results, "seed"),
    },
    "eval baseline": {"seed": (score_baselines, "seed"), "threshold": (score_baselines, "threshold")},
    "eval run": {
        "temperature": (RunSettings, "temperature"),
        "top_p": (RunSettings, "top_p"),
        "max_tokens": (RunSettings, "max_tokens"),
        "max_completion_tokens": (RunSettings, "max_completion_tokens"),
        "reasoning_effort": (RunSettings, "reasoning_effort"),
        "send_sampling": (RunSettings, "send_sampling"),
        "seed": (RunSettings, "seed"),
        "concurrency": (run_prompts, "concurrency"),
        "max_context": (run_prompts, "max_context"),
        "tokenizer": (run_prompts, "tokenizer"),
        "cache_dir": (run_prompts, "cache_dir"),
        "retries": (run_prompts, "retries"),
        "api_key_env": (run_prompts, "api_key_env"),
        "timeout": (run_prompts, "timeout"),
    },
    "synth-arxiv": {
        **{
            name: (SynthConfig, name)
            for name in ("papers", "seed", "since", "seed_months", "distractor_months", "pool_months")
        },
        "paper_lengths": (SynthConfig, "lengths"),
    },
    "synth-index": {
        "since": (write_world_index, "since"),
        **{name: (IndexConfig, name) for name in ("seed", "missing", "spurious", "off_arxiv")},
    },
    "synth-catalog": {name: (write_catalog, name) for name in ("scale", "seed", "until")},
    "demo": {
        **{name: (RehearsalSettings, name) for name in ("scale", "index")},
        "paper_lengths": (RehearsalSettings, "lengths"),
    },
    "human": {name: (open_session, name) for name in ("n_tasks", "host", "port")},
    "export": {"harnesses": (export_build, "harnesses")},
}

# Defaults only the CLI holds (no stage setting behind them), each with its reason.
CLI_ONLY = {
    "db_path": "the store's path, shared by every command (reflong.db.engine.DEFAULT_DB_PATH)",
    "wait_lock": "how long the CLI waits for the writer lock",
    "fmt": "how the CLI prints",
    "verbose": "how much the CLI logs",
    "out_dir": "where a command writes (paper, demo)",
    "a/modes": "A and F have no settings dataclass: their command is their one source",
    "a/levels": "A and F have no settings dataclass",
    "a/key_style": "A and F have no settings dataclass",
    "a/n_tasks": "A and F have no settings dataclass",
    "f/n_tasks": "A and F have no settings dataclass",
    "demo/papers": "the demo's own size, smaller than synth-arxiv's",
    "demo/seed": "passed to both the world and the build",
    "eval run/base_url": "RunSettings takes the endpoint without a default",
    "audit verdict/why": "an empty reason",
    "a/split": "A and F have no settings dataclass (a training split records itself in the manifest)",
    "f/split": "A and F have no settings dataclass",
    "check-disjoint/show": "how many overlaps the CLI prints",
}

# Values a command turns into the setting's type after click reads them (text -> tuple, Path).
AS_SETTING = {
    ("ingest", "cache_dir"): Path,
    ("paper", "cache_dir"): Path,
    ("paper", "lengths"): parse_lengths,
    ("paper", "difficulty"): lambda v: tuple(d.strip() for d in v.split(",") if d.strip()),
    ("export", "harnesses"): lambda v: tuple(h.strip() for h in v.split(",") if h.strip()),
}
# `refresh` takes every `paper` option (the same objects): the same settings and conversions.
SETTINGS["refresh"] = SETTINGS["paper"]
AS_SETTING.update(
    {("refresh", name): convert for (cmd, name), convert in list(AS_SETTING.items()) if cmd == "paper"}
)

UNSET = getattr(click.core, "UNSET", None)


def _commands():
    def walk(cmd: click.Command, path: list[str]):
        yield " ".join(path), cmd
        if isinstance(cmd, click.Group):
            for name, sub in sorted(cmd.commands.items()):
                yield from walk(sub, [*path, name])

    return dict(walk(main, []))


def _expected(source):
    if not isinstance(source, tuple):
        return source
    settings, name = source
    return inspect.signature(settings).parameters[name].default


def _cli_value(path: str, name: str):
    """What the command at ``path`` works with for ``name`` when the option is not given."""
    command = _commands()[path]
    param = next(p for p in command.params if p.name == name)
    ctx = click.Context(command)
    value = param.get_default(ctx)
    value = None if value is UNSET else param.type_cast_value(ctx, value)
    if param.callback is not None:
        value = param.callback(ctx, param, value)
    return AS_SETTING.get((path, name), lambda v: v)(value)


@pytest.mark.parametrize(
    ("command", "name"),
    [(c, n) for c, options in SETTINGS.items() for n in options],
    ids=[f"{c}/{n}" for c, options in SETTINGS.items() for n in options],
)
def test_a_cli_default_is_its_settings_default(command, name):
    expected = _expected(SETTINGS[command][name])
    assert expected is not inspect.Parameter.empty, f"{SETTINGS[command][name]} has no default"
    got = _cli_value(command, name)
    assert got == expected and type(got) is type(expected), f"{command} --{name}: {got!r} != {expected!r}"


def test_every_option_with_a_default_is_mapped_to_its_setting_or_the_clis_own():
    unaccounted = []
    for path, command in _commands().items():
        ctx = click.Context(command)
        for param in command.params:
            default = param.get_default(ctx)
            flag = getattr(param, "is_flag", False) and not default
            if default is None or default is UNSET or flag or param.name == "help":
                continue
            if param.name in SETTINGS.get(path, {}):
                continue
            if param.name in CLI_ONLY or f"{path}/{param.name}" in CLI_ONLY:
                continue
            unaccounted.append(f"{path or 'main'} --{param.name}={default!r}")
    assert unaccounted == []


def test_defaults_named_in_help_texts_are_the_settings():
    commands = _commands()
    ctx = click.Context(main)

    def help_of(path: str) -> str:
        return " ".join(commands[path].get_help(ctx).split())

    assert f"Score for the accept band (default {Thresholds().accept:g})." in help_of("resolve")
    assert f"Score for the review band (default {Thresholds().review:g})." in help_of("resolve")
    for path in ("audit", "audit export"):
        assert f"[default: {DEFAULT_CONFIDENCE:g}]" in help_of(path)
        assert f"[default: {DEFAULT_NEAR_DUP:g}; over 100: off]" in help_of(path)


def test_the_plan_settings_of_no_options_are_the_defaults():
    assert plan_settings({}) == PlanSettings()
    assert plan_settings({"n_keys": 5, "s2_url": "http://x"}).keys == 5
    assert plan_settings({"s2_url": "http://x"}).index_options["s2_url"] == "http://x"
