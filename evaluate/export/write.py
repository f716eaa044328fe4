"""Write an export folder whole: built beside its target, then renamed into place.

Why the whole folder at once: an export is read by another program, often much later; a folder
half from one export and half from another (a kill, a second run with other harnesses) would run
and give wrong figures. A finished export is replaced only by another finished one, and a folder
that is not an export is never written into.
"""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from reflong import __version__
from reflong.common.errors import ReflongError
from reflong.common.hashing import sha256_bytes, sha256_file
from reflong.evaluate.export.inspect_files import inspect_text
from reflong.evaluate.export.lm_eval_files import groups, lm_eval_files
from reflong.evaluate.export.readme import readme_text
from reflong.evaluate.export.samples import Config, jsonl_bytes, load_configs
from reflong.evaluate.export.standalone import utils_text

HARNESSES = ("lm-eval", "inspect")
EXPORT_JSON = "export.json"


@dataclass(frozen=True)
class ExportReport:
    out: Path
    configs: list[Config]
    groups: list[str]
    files: int


def _manifest(build: Path) -> dict:
    path = build / "manifest.json"
    if not path.is_file():
        raise ReflongError(
            f"{build} holds no build (no manifest.json); give the folder a build wrote (--out of paper, a, f)"
        )
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ReflongError(f"{path} is not valid JSON ({exc})") from None
    if not isinstance(data, dict):
        raise ReflongError(f"{path} is not a build manifest (expected a JSON object)")
    return data


def _check_target(build: Path, out: Path) -> None:
    if out.resolve() == build.resolve() or out.resolve().is_relative_to(build.resolve()):
        raise ReflongError(
            f"--out {out} is inside --build {build}: the export would be read as part of the build"
        )
    if out.exists() and (not out.is_dir() or (any(out.iterdir()) and not (out / EXPORT_JSON).is_file())):
        raise ReflongError(f"--out {out} exists and is not an export: give a new or empty folder")


def export_files(build: Path, harnesses: tuple[str, ...]) -> tuple[dict[str, bytes], list[Config]]:
    """Relative path -> bytes of every file of the export."""
    manifest = _manifest(build)
    configs = load_configs(build, manifest)
    if not configs:
        raise ReflongError(f"{build} has no configurations to export")
    out: dict[str, bytes] = {f"data/{c.name}.jsonl": jsonl_bytes(c) for c in configs}
    data_sha = {name: sha256_bytes(data) for name, data in out.items()}
    out["utils.py"] = utils_text(__version__).encode("utf-8")
    if "lm-eval" in harnesses:
        out.update({name: text.encode("utf-8") for name, text in lm_eval_files(configs, __version__).items()})
    if "inspect" in harnesses:
        out["reflong.py"] = inspect_text(configs, __version__).encode("utf-8")
    provenance = {
        "tool_version": __version__,
        "build": build.resolve().name,
        "manifest_sha256": sha256_file(build / "manifest.json"),
        "build_command": manifest.get("command"),
        "build_seed": (manifest.get("settings") or {}).get("seed"),
        "tokenizer": configs[0].samples[0]["metadata"]["tokenizer"] if configs[0].samples else None,
        "harnesses": ",".join(harnesses),
    }
    out["README.md"] = readme_text(configs, provenance, data_sha).encode("utf-8")
    record = {
        **provenance,
        "configs": {c.name: {"task": c.task, "tasks": len(c.samples)} for c in configs},
        "groups": groups(configs) if "lm-eval" in harnesses else {},
        "files": {name: sha256_bytes(data) for name, data in sorted(out.items())},
    }
    out[EXPORT_JSON] = (json.dumps(record, indent=1, sort_keys=True) + "\n").encode("utf-8")
    return out, configs


def export_build(build: Path, out: Path, harnesses: tuple[str, ...] = HARNESSES) -> ExportReport:
    """Write the export of ``build`` to ``out``; see the module doc."""
    build, out = Path(build), Path(out)
    unknown = [h for h in harnesses if h not in HARNESSES]
    if unknown:
        raise ReflongError(f"unknown harness {unknown[0]!r}; choose from {', '.join(HARNESSES)}")
    _check_target(build, out)
    contents, configs = export_files(build, harnesses)
    staging = out.parent / f".{out.name}.partial-{os.getpid()}"
    shutil.rmtree(staging, ignore_errors=True)
    for name, data in contents.items():
        path = staging / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    old = out.parent / f".{out.name}.old-{os.getpid()}"
    if out.exists():
        out.rename(old)
    staging.rename(out)
    shutil.rmtree(old, ignore_errors=True)
    return ExportReport(
        out, configs, sorted(groups(configs)) if "lm-eval" in harnesses else [], len(contents)
    )
