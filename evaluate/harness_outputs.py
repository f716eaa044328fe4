"""Harness outputs back into Ref-Long predictions: ``eval score --from-lm-eval`` / ``--from-inspect``.

An export's samples carry their configuration and task id (``id`` = ``<config>/<task id>``) and
key, so a harness's per-sample log maps back to the release's predictions format
``{"i": [key, response]}`` per configuration, and ``eval score`` gives what it gives any run: the
error types, the release and knowledge-cutoff split, the report's plots.

A sample over the run's context limit (``fits`` false) is left out of the predictions, so it is
scored as missing, exactly as a task ``eval run --max-context`` skipped. The run is scored on the
tasks it ran (``run_manifest.json``'s ``scope``, as for a human annotator's run): a harness run
with ``--limit`` covers the first N tasks of each configuration, not the build.

- lm-eval: ``--log_samples`` writes ``samples_<task>_<timestamp>.jsonl`` under ``--output_path``
  (one line per document: ``doc``, ``filtered_resps``). Two files for one task (two runs into one
  folder) are refused: which one is meant is not ours to guess.
- Inspect: ``.eval`` logs, read with ``inspect_ai.log.read_eval_log`` (Inspect's own reader; its
  format is versioned by Inspect), one log or a folder of them.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from reflong.common.errors import ReflongError

Predictions = dict[str, dict[str, list]]  # config -> task id -> [key, response]


@dataclass
class HarnessRun:
    harness: str  # lm-eval, inspect
    predictions: Predictions = field(default_factory=dict)
    scope: dict[str, list[str]] = field(default_factory=dict)  # config -> task ids the run holds


_SAMPLES_FILE = re.compile(r"^samples_(?P<task>.+)_(?P<stamp>\d{4}-\d\d-\d\dT[\d\-.]+)\.jsonl$")


def _add(run: HarnessRun, sample_id: str, key: str, response: object, fits: object, source: str) -> None:
    config, _, tid = str(sample_id).rpartition("/")
    if not config or not tid:
        raise ReflongError(
            f"{source}: sample id {sample_id!r} is not <config>/<task id>: not a reflong export's sample"
        )
    scope = run.scope.setdefault(config, [])
    if tid in scope:
        raise ReflongError(f"{source}: task {sample_id} appears twice; give one run's output")
    scope.append(tid)
    tasks = run.predictions.setdefault(config, {})
    if fits not in (False, "False", "false"):  # over the context limit: missing, as eval run leaves it
        tasks[tid] = [key, "" if response is None else str(response)]


def from_lm_eval(folder: Path) -> HarnessRun:
    """Predictions from lm-eval's ``--log_samples`` files under ``folder`` (searched recursively)."""
    found: dict[str, Path] = {}
    for path in sorted(Path(folder).rglob("samples_*.jsonl")):
        m = _SAMPLES_FILE.match(path.name)
        if not m:
            continue
        task = m.group("task")
        if task in found:
            raise ReflongError(
                f"{folder} holds two runs of {task} ({found[task].name}, {path.name}); give one run's folder"
            )
        found[task] = path
    if not found:
        raise ReflongError(
            f"no lm-eval samples files (samples_<task>_<time>.jsonl) under {folder}; run lm_eval with --log_samples"
        )
    out = HarnessRun("lm-eval")
    for _task, path in sorted(found.items()):
        with open(path, encoding="utf-8") as handle:
            for n, line in enumerate(handle, 1):
                if not line.strip():
                    continue
                try:
                    row = json.loads(line)
                    doc, resps = row["doc"], row["filtered_resps"]
                    _add(
                        out,
                        doc["id"],
                        doc["key"],
                        resps[0] if resps else None,
                        doc.get("fits"),
                        f"{path.name}:{n}",
                    )
                except (json.JSONDecodeError, KeyError, TypeError) as exc:
                    raise ReflongError(
                        f"{path}:{n} is not an lm-eval sample of a reflong export ({exc})"
                    ) from None
    return out


def from_inspect(log: Path) -> HarnessRun:
    """Predictions from Inspect ``.eval`` logs: one file, or every log in a folder."""
    try:
        from inspect_ai.log import read_eval_log
    except ImportError:
        raise ReflongError(
            "reading Inspect logs needs inspect-ai: pip install 'reflong-build[harness]'"
        ) from None
    paths = sorted(Path(log).rglob("*.eval")) if Path(log).is_dir() else [Path(log)]
    if not paths:
        raise ReflongError(f"no Inspect logs (*.eval) under {log}")
    out = HarnessRun("inspect")
    for path in paths:
        try:
            record = read_eval_log(str(path))
        except Exception as exc:  # Inspect raises its own types for an unreadable or foreign file
            raise ReflongError(f"{path} is not an Inspect log ({str(exc).splitlines()[0][:200]})") from None
        if record.status != "success":
            raise ReflongError(f"{path}: the Inspect run did not finish (status {record.status}); rerun it")
        for sample in record.samples or []:
            meta = sample.metadata or {}
            if "key" not in meta:
                raise ReflongError(f"{path}: sample {sample.id} has no key: not a reflong export's sample")
            _add(out, sample.id, meta["key"], sample.output.completion, meta.get("fits"), path.name)
    return out


def write_predictions(run: HarnessRun, folder: Path) -> Path:
    """The run as ``<config>.json`` files in ``folder``, the format ``eval score`` reads, with a
    ``run_manifest.json`` whose ``scope`` names the tasks the run holds."""
    from reflong.assemble.writers.reflong_json import reflong_json_bytes
    from reflong.common.atomic_files import write_atomic

    folder.mkdir(parents=True, exist_ok=True)
    for config, tasks in sorted(run.predictions.items()):
        write_atomic(folder / f"{config}.json", reflong_json_bytes(tasks))
    manifest = {"command": "harness", "harness": run.harness, "scope": run.scope}
    write_atomic(folder / "run_manifest.json", json.dumps(manifest, sort_keys=True).encode("utf-8"))
    return folder
