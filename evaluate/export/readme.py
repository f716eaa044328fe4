"""The export's README.md: the commands for both harnesses and what the folder was made from."""

from __future__ import annotations

from reflong.evaluate.export.harness_glue import SYSTEM_PROMPT
from reflong.evaluate.export.lm_eval_files import MAX_GEN_TOKS, groups
from reflong.evaluate.export.samples import Config


def readme_text(configs: list[Config], provenance: dict, data_sha256: dict[str, str]) -> str:
    subset = configs[0].subset if configs else "paper"
    example = configs[0].task if configs else "reflong_paper_easy_30K"
    group_names = sorted(groups(configs))
    lines = [
        f"# Ref-Long {subset} for lm-evaluation-harness and Inspect",
        "",
        f"Exported by reflong-build {provenance['tool_version']} from the build `{provenance['build']}`",
        f"(manifest sha256 `{provenance['manifest_sha256']}`). {sum(len(c.samples) for c in configs)} tasks in "
        f"{len(configs)} configurations. Scores equal `reflong-build eval run` + `eval score` on the build:",
        "the same prompts (byte for byte), the same answer parser and metrics (copied into `utils.py`,",
        "which needs only the standard library; the lm-eval loader also uses `datasets`).",
        "",
        "## lm-evaluation-harness (0.4.13 or newer, `pip install 'lm-eval[api]'`)",
        "",
        "```",
        "lm_eval --model local-chat-completions \\",
        "  --model_args model=MODEL,base_url=http://HOST:PORT/v1/chat/completions,num_concurrent=4,max_retries=3 \\",
        f"  --apply_chat_template --system_instruction '{SYSTEM_PROMPT}' \\",
        f"  --include_path THIS_FOLDER --tasks reflong_{subset} --output_path results --log_samples",
        "```",
        "",
        "- `base_url` is the full `/v1/chat/completions` address (lm-eval posts to it as given; `.../v1` gives 404).",
        "- Any working directory: `utils.py` finds `data/` beside itself.",
        "- Context limit: `--metadata '{\"max_context\": 30000}'`. Tasks over it (system + prompt tokens, the",
        "  build's tokenizer) are sent as a short stand-in prompt, score 0 and count in `over_context`; `exacc_fit`",
        "  and `f1_fit` are over the tasks that fit (per task only: groups weight by all their tasks).",
        f"- Generation: temperature 0, no stop sequence, {MAX_GEN_TOKS} new tokens. For a reasoning model give a",
        "  large budget and strip its thinking: `--gen_kwargs max_gen_toks=16384` and",
        "  `think_end_token=</think>` in `--model_args`.",
        "- Do not combine a task with a group that holds it (`--tasks reflong_paper,reflong_paper_easy_30K`,",
        "  or two groups that share tasks): lm-eval refuses or counts the task twice. Run one group or a list",
        "  of tasks.",
        "- Back into reflong-build: `reflong-build eval score --from-lm-eval results --build BUILD`.",
        "",
        "Groups (each weighted by size, so a group's figure is the pooled one of `eval score`):",
        "",
    ]
    lines += [f"- `{g}`" for g in group_names]
    lines += [
        "",
        "## Inspect (`pip install inspect-ai openai`)",
        "",
        "```",
        "export REFLONG_BASE_URL=http://HOST:PORT/v1 REFLONG_API_KEY=...",
        f"inspect eval THIS_FOLDER/reflong.py@reflong_{subset} --model openai-api/reflong/MODEL --log-dir logs",
        f"inspect eval THIS_FOLDER/reflong.py@{example} -T max_context=30000 --model openai-api/reflong/MODEL",
        "```",
        "",
        "- Use the `openai-api/<service>/<model>` provider for an OpenAI-compatible endpoint: `openai/` posts",
        "  to the Responses API, which such endpoints lack (404, no sample completed, exit 0).",
        f"- `-T max_tokens=N` sets the new tokens (default {MAX_GEN_TOKS}); over-context samples are not sent.",
        f"- `reflong_{subset}` reports each metric per configuration and pooled (`all`).",
        "- Back into reflong-build: `reflong-build eval score --from-inspect logs --build BUILD`.",
        "",
        "## Files",
        "",
        "| file | sha256 | tasks |",
        "|---|---|---:|",
    ]
    for c in configs:
        name = f"data/{c.name}.jsonl"
        lines.append(f"| `{name}` | `{data_sha256[name]}` | {len(c.samples)} |")
    lines += [
        "",
        "Provenance (also in `export.json`): " + ", ".join(f"{k} {v}" for k, v in provenance.items()),
        "",
    ]
    return "\n".join(lines)
