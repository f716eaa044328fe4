"""The settings a release is built with, carried from one release to the next (``refresh``).

Why carry them: a living benchmark is one dataset, so its releases must be comparable. A cron line
``refresh --db store.db --out releases`` written once must build every next window the way the
first release was built (``--lengths 128K,1M --tasks 50 --licenses redistributable``), not with the
tool's defaults. So a refresh takes every option below from the previous release's
``release.json`` (``options``) unless the option is given on its command line; a given option
wins and is recorded in the new release, so the releases after it carry it on.

A finished release rebuilt (``refresh --since`` of its month) takes its own recorded options, so the
rebuild is byte-identical without repeating them. Releases made before options were recorded
have only the build's ``settings`` (``PaperSettings.to_json``): the assembly options are read
from those (``_FROM_SETTINGS``); the plan options then keep their defaults, as they had then.

Only what shapes the release's content is carried: the window's shape, the plan's sizes, the
assembly's settings. Where the data comes from (URLs, ``--cache``, ``--source``), politeness
(``--delay``) and how the run behaves (``--dry-run``, ``--workers``) belong to the machine and the
run, not the release.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from reflong.common.errors import ReflongError

#: Options carried from release to release, by the name click gives them in ``opts``.
CARRIED = (
    "seed_months",
    "pool_months",
    "distractor_months",
    "categories",
    "max_papers",
    "citation_index",
    "n_keys",
    "citers_per_key",
    "n_distractors",
    "n_controls",
    "max_pdfs",
    "lengths",
    "difficulty",
    "n_tasks",
    "seed",
    "min_positives",
    "doc_policy",
    "max_doc_tokens",
    "trim",
    "ref_share",
    "many_citers",
    "question_last",
    "strategy_prompt",
    "key_form",
    "tokenizer",
    "licenses",
    "no_baselines",
)
_TUPLES = {"categories", "licenses"}  # click hands these over as tuples; JSON keeps lists

# Older releases (no ``options``): the build settings' name -> (option, value as the option has it).
_FROM_SETTINGS = {
    "lengths": ("lengths", ",".join),
    "difficulties": ("difficulty", ",".join),
    "n_tasks": ("n_tasks", int),
    "seed": ("seed", int),
    "min_positives": ("min_positives", int),
    "doc_policy": ("doc_policy", str),
    "max_doc_tokens": ("max_doc_tokens", lambda v: v),
    "ref_share": ("ref_share", float),
    "many_citers": ("many_citers", str),
    "question_last": ("question_last", bool),
    "strategy_prompt": ("strategy_prompt", bool),
    "key_form": ("key_form", str),
    "tokenizer": ("tokenizer", str),
    "licenses": ("licenses", tuple),
}


def options_json(opts: Mapping[str, object]) -> dict:
    """The carried options of a run as ``release.json`` records them (lists for tuples)."""
    return {
        name: list(value) if isinstance(value, tuple) else value
        for name, value in sorted(opts.items())
        if name in CARRIED
    }


def recorded_options(manifest: Mapping, where: str = "release.json") -> dict:
    """The options a release was built with, as ``opts`` values: its ``options``, else what its
    build ``settings`` say (a release from before options were recorded).

    Read strictly (``where`` names the file in the error): ``options`` that is not an object, or
    an option of the wrong type, is a ``ReflongError``. A silent default here would build the next
    release unlike the ones before it, which is what carrying options exists to prevent."""
    if "options" in manifest and manifest["options"] is not None:
        options = manifest["options"]
        if not isinstance(options, Mapping):
            raise ReflongError(
                f"{where}: 'options' is {_json_kind(options)}, expected an object of option values; "
                "restore the file or remove the release folder"
            )
        out = {}
        for name, value in options.items():
            if name in CARRIED:
                check_option_value(name, value, where)
                out[name] = tuple(value) if name in _TUPLES and isinstance(value, list) else value
        return out
    out = {}
    for key, value in (manifest.get("settings") or {}).items():
        if key in _FROM_SETTINGS:
            name, convert = _FROM_SETTINGS[key]
            out[name] = convert(value)
    if "licenses" not in out and manifest.get("settings"):
        out["licenses"] = None  # recorded only when set: absent means every paper
    return out


# What each carried option holds in release.json (JSON types); None is allowed where noted.
_INTS = {
    "seed_months", "pool_months", "distractor_months", "max_papers", "n_keys", "citers_per_key",
    "n_distractors", "n_controls", "max_pdfs", "n_tasks", "seed", "min_positives", "max_doc_tokens",
}  # fmt: skip
_BOOLS = {"trim", "question_last", "strategy_prompt", "no_baselines"}
_NUMBERS = {"ref_share"}
_MAY_BE_NONE = {"max_papers", "max_doc_tokens", "licenses"}


def _json_kind(value: object) -> str:
    """How JSON spells a value's type, for an error message."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return f"a string ({value!r})" if len(value) <= 40 else "a string"
    return "a list" if isinstance(value, list) else "an object"


def check_option_value(name: str, value: object, where: str) -> None:
    """Raise ``ReflongError`` unless ``value`` has the JSON type option ``name`` is recorded with."""
    if value is None and name in _MAY_BE_NONE:
        return
    if name in _BOOLS:
        ok, want = isinstance(value, bool), "true or false"
    elif name in _INTS:
        ok, want = isinstance(value, int) and not isinstance(value, bool), "a whole number"
    elif name in _NUMBERS:
        ok, want = isinstance(value, (int, float)) and not isinstance(value, bool), "a number"
    elif name in _TUPLES:
        ok, want = isinstance(value, list) and all(isinstance(v, str) for v in value), "a list of strings"
    else:
        ok, want = isinstance(value, str), "a string"
    if not ok:
        raise ReflongError(
            f"{where}: option {_flag(name)} is {_json_kind(value)}, expected {want}; "
            "restore the file or remove the release folder"
        )


def differing_options(recorded: Mapping[str, object], given: Mapping[str, object]) -> list[str]:
    """``--flag recorded (given: value)`` for each given option whose value is not the recorded one."""
    return [
        f"{_flag(name)} {_text(recorded[name])} (given: {_text(value)})"
        for name, value in sorted(given.items(), key=lambda kv: CARRIED.index(kv[0]) if kv[0] in CARRIED else -1)
        if name in recorded and _same(recorded[name]) != _same(value)
    ]  # in CARRIED's order: the same message on every run


def _same(value: object) -> object:
    return tuple(value) if isinstance(value, list) else value


@dataclass
class SettingsOrigin:
    """Where each carried option's value came from, for the line ``refresh`` prints first."""

    source: str | None  # "release 2024-03's release.json", or None when nothing was carried
    carried: dict[str, object] = field(default_factory=dict)  # taken from ``source``, unlike defaults
    given: dict[str, object] = field(default_factory=dict)  # on the command line (or environment)
    same_as_default: int = 0  # carried but equal to the tool's default

    def line(self, label: str) -> str:
        def show(values: Mapping[str, object]) -> str:
            return ", ".join(f"{_flag(k)} {_text(v)}" for k, v in values.items())

        parts = []
        if self.source is None:
            parts.append("no earlier release to carry settings from: defaults and the options given")
        else:
            parts.append(
                f"from {self.source}: "
                + (show(self.carried) if self.carried else "nothing but defaults")
                + (f" (and {self.same_as_default} at their defaults)" if self.same_as_default else "")
            )
        parts.append("given here: " + (show(self.given) if self.given else "none"))
        return f"settings for release {label}: " + "; ".join(parts)


def _flag(name: str) -> str:
    special = {
        "n_keys": "--keys",
        "n_distractors": "--distractors",
        "n_controls": "--controls",
        "n_tasks": "--tasks",
    }
    return special.get(name, "--" + name.replace("_", "-"))


def _text(value: object) -> str:
    if isinstance(value, (tuple, list)):
        return ",".join(str(v) for v in value) or "''"
    return str(value)


def carry(
    opts: dict,
    recorded: Mapping[str, object],
    given: set[str],
    defaults: Mapping[str, object],
    source: str | None,
) -> SettingsOrigin:
    """Fill ``opts`` with ``recorded`` values for every carried option not in ``given``."""
    origin = SettingsOrigin(source)
    for name in CARRIED:
        if name not in opts:
            continue
        if name in given:
            origin.given[name] = opts[name]
        elif name in recorded:
            opts[name] = recorded[name]
            if recorded[name] == defaults.get(name):
                origin.same_as_default += 1
            else:
                origin.carried[name] = recorded[name]
    return origin
