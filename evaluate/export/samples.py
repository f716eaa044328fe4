"""A build's tasks as harness samples: ``data/<config>.jsonl``, one sample per line.

The prompt is the one ``eval run`` sends (the build's Ref-Long prompts file, byte for byte), the
target the answers file's index list. Metadata comes from the build's dataset rows
(``data/<config>.parquet``) where they exist, else from the configuration's name. Document texts
and evidence stay in the build: a harness needs the prompt, not the parts it was made of.

``context_tokens`` is what ``eval run --max-context`` compares: the system message and the prompt,
each counted with the build's tokenizer (the dataset's exact ``prompt_tokens`` where they were
counted with it), so a harness's context limit marks exactly the tasks the runner skips.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from reflong.common.errors import ReflongError
from reflong.common.tokenizer import DEFAULT_TOKENIZER, get_tokenizer
from reflong.evaluate import files
from reflong.evaluate.export.harness_glue import SYSTEM_PROMPT

META_COLUMNS = (
    "subset",
    "setting",
    "length",
    "layout",
    "n_documents",
    "prompt_tokens",
    "release",
    "key_arxiv_id",
)


@dataclass(frozen=True)
class Config:
    """One configuration of a build, as the harnesses name it."""

    name: str  # easy_30K, multi_stars_hard_8K
    subset: str  # paper, a, f
    setting: str  # easy, hard, multi_stars_hard
    length: str  # 30K
    samples: tuple[dict, ...]

    @property
    def task(self) -> str:
        """The harness task name: ``reflong_paper_hard_30K``."""
        return f"reflong_{self.subset}_{self.name}"


def _identifier(text: str) -> str:
    return re.sub(r"[^0-9A-Za-z_]+", "_", text).strip("_").lower()


def _dataset_rows(build: Path, config: str) -> dict[str, dict]:
    """Task id -> the dataset row's metadata columns; {} without a dataset (``--no-dataset``).
    Read with pyarrow (the engine under ``datasets``) and only these columns: the documents
    column is most of the file, and the export never needs it."""
    path = build / "data" / f"{config}.parquet"
    if not path.is_file():
        return {}
    import pyarrow.parquet as pq

    names = set(pq.read_schema(path).names)
    table = pq.read_table(path, columns=["task_id", *[c for c in META_COLUMNS if c in names]])
    return {str(row.pop("task_id")): row for row in table.to_pylist()}


def _subset_of(config: str, manifest: dict) -> str:
    command = str(manifest.get("command", ""))
    for subset in ("paper", "a", "f"):
        if command.endswith(f" {subset}"):
            return subset
    return "paper" if config.startswith(("easy_", "hard_")) else "reflong"


def load_configs(build: Path, manifest: dict) -> list[Config]:
    """Every configuration of ``build`` with its samples, in file-name order."""
    tokenizer_name = (manifest.get("settings") or {}).get("tokenizer") or DEFAULT_TOKENIZER
    count = get_tokenizer(tokenizer_name).count
    system_tokens = count(SYSTEM_PROMPT)
    configs = []
    for answers_path in files.answers_files(build):
        name = files.config_name(answers_path)
        prompts_path = files.find_partner(build, name, ("{config}.json",))
        if prompts_path is None or prompts_path == answers_path:
            raise ReflongError(f"{answers_path.name} has no prompts file {name}.json under {build}")
        answers, prompts = files.load_mapping(answers_path), files.load_mapping(prompts_path)
        rows = _dataset_rows(build, name)
        subset = _subset_of(name, manifest)
        samples = []
        for tid in files.task_order(answers):
            key, gold = answers[tid]
            if tid not in prompts or prompts[tid][0] != key:
                raise ReflongError(f"{prompts_path.name} and {answers_path.name} disagree on task {tid}")
            prompt = prompts[tid][1]
            row = rows.get(tid, {})
            n_docs = row.get("n_documents") or len(files.prompt_documents(prompt).documents)
            prompt_tokens = row.get("prompt_tokens") if rows else None
            if prompt_tokens is None:
                prompt_tokens = count(prompt)
            meta = {
                "config": name,
                "task_id": tid,
                "subset": row.get("subset") or subset,
                "setting": row.get("setting") or re.sub(r"_\d+K$", "", name),
                "length": row.get("length") or files.length_label(answers_path),
                "layout": row.get("layout"),
                "n_documents": int(n_docs),
                "key": key,
                "prompt_tokens": int(prompt_tokens),
                "context_tokens": int(prompt_tokens) + system_tokens,
                "tokenizer": tokenizer_name,
                "release": row.get("release"),
                "key_arxiv_id": row.get("key_arxiv_id"),
            }
            samples.append({"id": f"{name}/{tid}", "input": prompt, "target": sorted(gold), "metadata": meta})
        first = samples[0]["metadata"] if samples else {"subset": subset, "setting": name, "length": ""}
        configs.append(
            Config(
                name, _identifier(first["subset"]), first["setting"], first["length"] or "", tuple(samples)
            )
        )
    return configs


def jsonl_bytes(config: Config) -> bytes:
    """One sample per line, keys sorted, UTF-8: the same build gives the same bytes."""
    lines = [json.dumps(s, ensure_ascii=False, sort_keys=True) for s in config.samples]
    return ("\n".join(lines) + "\n").encode("utf-8")
