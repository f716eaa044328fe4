"""A human annotator's answers: an append-only JSONL log, and predictions derived from it.

Why a log fsynced per answer: a person's minute of reading is the most expensive thing in this
project, so an answer is on disk (``os.fsync``) before the page is told "saved"; a closed browser,
a killed server or a power cut loses at most the answer being typed. Appending never rewrites what
was saved, so no crash can damage earlier answers; the only possible damage is a half-written last
line (a kill inside ``write``), which was never acknowledged and is cut off when the log is opened
again. A later answer to the same task replaces the earlier one (the log keeps both).

Derived, rewritten atomically after every answer (and on every start, so a kill between the log and
them costs nothing): ``<config>.json`` in ``eval run``'s format (``{"i": [key, "Documents: {1, 3}"]}``,
read alike by both parsers of ``eval score``) and ``run_manifest.json`` with the annotator as the
model (``human:NAME``), the build's files and digests, per-task seconds and the ``scope``: the task
ids this session covers, so ``eval score`` scores the annotator on those tasks and not on the whole
setting.
"""

from __future__ import annotations

import json
import os
import re
import statistics
import threading
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from reflong.common.errors import ReflongError
from reflong.evaluate.human.tasks import HumanSetting

LOG_NAME = "answers.jsonl"
MANIFEST_NAME = "run_manifest.json"  # the name `eval run` uses: one place to look for provenance
ANNOTATOR_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")


def model_name(annotator: str) -> str:
    """The name under which an annotator appears beside models (``human:alice``)."""
    return f"human:{annotator}"


def response_text(indexes: list[int]) -> str:
    """An answer as a model would give it. ``Documents:`` rather than Paper's ``Papers:`` because
    the release's own scoring (``--parser reflong2025``) only reads digits after "Document"."""
    return "Documents: {" + ", ".join(str(i) for i in sorted(set(indexes))) + "}"


@dataclass(frozen=True)
class Answer:
    config: str
    task_id: str
    indexes: tuple[int, ...]
    seconds: float


class AnswerStore:
    """One annotator's answers in ``out_dir`` (see the module doc). Thread-safe: the page's server
    handles requests on several threads."""

    def __init__(self, out_dir: Path, annotator: str) -> None:
        if not ANNOTATOR_RE.match(annotator):
            raise ReflongError(
                f"--annotator {annotator!r}: use letters, digits, '.', '_' or '-' (up to 64), starting "
                "with a letter or digit"
            )
        self.out_dir = Path(out_dir)
        self.annotator = annotator
        self.log_path = self.out_dir / LOG_NAME
        self.lock = threading.RLock()  # re-entered by write_outputs -> answers
        self.entries: list[dict] = []
        self.out_dir.mkdir(parents=True, exist_ok=True)
        self._load()

    # -- reading -----------------------------------------------------------------------------

    def _load(self) -> None:
        if not self.log_path.exists():
            return
        data = self.log_path.read_bytes()
        if data and not data.endswith(b"\n"):
            # A kill inside a write: that answer was never acknowledged to the page. Cut it off
            # so the next answer starts on its own line.
            keep = data.rfind(b"\n") + 1
            with open(self.log_path, "r+b") as fh:
                fh.truncate(keep)
                os.fsync(fh.fileno())
            data = data[:keep]
        for number, line in enumerate(data.decode("utf-8").splitlines(), 1):
            if not line.strip():
                continue
            try:
                entry = json.loads(line)
            except json.JSONDecodeError:
                raise ReflongError(
                    f"{self.log_path} line {number} is not JSON (was the log edited?); fix or remove that "
                    "line, the other answers are intact"
                ) from None
            if not (
                isinstance(entry, dict)
                and isinstance(entry.get("config"), str)
                and isinstance(entry.get("task"), str)
                and isinstance(entry.get("response"), str)
            ):
                raise ReflongError(
                    f"{self.log_path} line {number} is not an answer (was the log edited?); fix or remove "
                    "that line, the other answers are intact"
                )
            if entry.get("annotator") != self.annotator:
                raise ReflongError(
                    f"{self.out_dir} holds answers of annotator {entry.get('annotator')!r}, not "
                    f"{self.annotator!r}: give each annotator an --out of their own"
                )
            self.entries.append(entry)

    def answers(self, config: str) -> dict[str, dict]:
        """The latest answer per task id of ``config``."""
        with self.lock:
            return {e["task"]: e for e in self.entries if e["config"] == config}

    def check_setting(self, setting: HumanSetting) -> None:
        """Refuse answers given on other tasks: a rebuilt setting has the same name but other keys."""
        for entry in self.answers(setting.config).values():
            if entry.get("prompts_sha256") != setting.prompts_sha256:
                raise ReflongError(
                    f"{self.log_path} holds answers to {setting.config} tasks that were built differently "
                    f"(the prompts' sha256 was {str(entry.get('prompts_sha256'))[:12]}, "
                    f"{setting.prompts_path} has {setting.prompts_sha256[:12]}): use another --out"
                )

    # -- writing -----------------------------------------------------------------------------

    def record(self, setting: HumanSetting, task_id: str, indexes: list[int], seconds: float) -> dict:
        """Append one answer, fsync it, then refresh the derived files. Returns the log entry."""
        task = setting.tasks[setting.position(task_id) - 1]
        entry = {
            "annotator": self.annotator,
            "config": setting.config,
            "task": task_id,
            "key": task.key,
            "indexes": sorted(set(indexes)),
            "response": response_text(indexes),
            "seconds": round(float(seconds), 3),
            "answered_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "prompts_sha256": setting.prompts_sha256,
        }
        line = (json.dumps(entry, ensure_ascii=False) + "\n").encode("utf-8")
        with self.lock:
            new = not self.log_path.exists()
            fd = os.open(self.log_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            try:
                os.write(fd, line)
                os.fsync(fd)
            finally:
                os.close(fd)
            if new:  # the file's name in its folder must be durable too
                _fsync_dir(self.out_dir)
            self.entries.append(entry)
        self.write_outputs(setting)
        return entry

    def write_outputs(self, setting: HumanSetting) -> None:
        """Predictions and manifest from the log (atomic renames; see the module doc)."""
        from reflong.assemble.writers.reflong_json import reflong_json_bytes
        from reflong.common.atomic_files import write_atomic

        with self.lock:  # one snapshot per write: two answers saved at once cannot reorder the files
            answers = self.answers(setting.config)
            predictions = {
                t.task_id: [t.key, answers[t.task_id]["response"]]
                for t in setting.tasks
                if t.task_id in answers
            }
            write_atomic(self.out_dir / f"{setting.config}.json", reflong_json_bytes(predictions))
            manifest = self._manifest(setting, answers)
            write_atomic(
                self.out_dir / MANIFEST_NAME,
                (json.dumps(manifest, indent=2, ensure_ascii=False) + "\n").encode("utf-8"),
            )

    def _manifest(self, setting: HumanSetting, answers: dict[str, dict]) -> dict:
        from reflong import __version__

        path = self.out_dir / MANIFEST_NAME
        try:
            old = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError):
            old = {}
        seconds = [float(answers[t.task_id]["seconds"]) for t in setting.tasks if t.task_id in answers]
        settings = dict(old.get("settings") or {})
        settings[setting.config] = {
            "prompts": {"path": setting.prompts_path.name, "sha256": setting.prompts_sha256},
            "answers": {"path": setting.answers_path.name, "sha256": setting.answers_sha256},
            "tasks_in_setting": setting.available,
            "tasks": len(setting.tasks),
            "answered": len(seconds),
            "seconds_mean": round(statistics.fmean(seconds), 1) if seconds else None,
            "seconds_median": round(statistics.median(seconds), 1) if seconds else None,
            "seconds_total": round(sum(seconds), 1),
        }
        scope = dict(old.get("scope") or {})
        scope[setting.config] = [t.task_id for t in setting.tasks]
        return {
            "tool": "reflong-build",
            "version": __version__,
            "command": "human",
            "model": model_name(self.annotator),
            "annotator": self.annotator,
            "log": LOG_NAME,
            "settings": settings,
            "scope": scope,
        }


def _fsync_dir(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
