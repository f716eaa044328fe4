"""``eval run``: send every prompt to an OpenAI-compatible chat endpoint, cached and resumable.

What is sent is what Ref-Long's release sends: a system message "You are a helpful assistant.",
the prompt as the user message, temperature 0 and top_p 1 (each can be changed; ``max_tokens`` and
``seed`` are sent only when given). Responses are written as ``{"i": [key, response]}``, the
release's predictions format, one file per prompts file, plus ``run_manifest.json``.

Why each piece:
- **Cache, per (model, prompt sha256, settings)**: one JSON file per response, written through a
  temporary file and ``os.replace``, so a run killed at any moment leaves only whole entries; a
  rerun sends only prompts without an entry, and a rerun of a finished run sends nothing. The
  base URL is not part of the key: the same model behind a new port or proxy is the same model.
  A prompt the endpoint rejects for length is cached as skipped (asking again gives the same no).
- **Retries are ours, the client's are off** (``max_retries=0``): the openai client retries 429/5xx
  and connection errors twice by default, invisibly; we retry ``--retries`` times, honouring
  ``retry-after-ms`` / ``Retry-After`` when the server sends them (OpenAI does on 429) and
  otherwise backing off exponentially from 0.5 s (capped at 30 s), and we count every retry in the
  manifest. A network failure that outlasts them stops the run with one line; whatever was
  answered stays cached.
- **Context check before sending**: the system and user messages are counted with the project's
  exact tokenizer (``reflong/common/tokenizer.py``; ``--tokenizer``, default ``o200k_base``); a prompt over
  ``--max-context`` is skipped with the reason in the manifest, never truncated (a truncated
  prompt would silently test another task). The endpoint's own ``context_length_exceeded`` is
  recorded the same way.
- **Concurrency**: a thread pool over one client (the openai client is thread-safe); identical
  prompts are sent once.
- **Reasoning models** (``evaluate/reasoning.py``): ``reasoning_effort`` and
  ``max_completion_tokens`` are sent when given, ``send_sampling=False`` leaves temperature and
  top_p out; a 400 refusing ``temperature``/``top_p``/``max_tokens`` drops (or renames) it, the
  request is sent once more and the change holds for the rest of the run (``adapted_this_run`` in
  the manifest). The cache key stays the settings asked for: a rerun asks the same and adapts the
  same; each entry records the parameters actually sent (``params_sent`` in the manifest). The
  answer is the reply's content without ``<think>`` reasoning; reasoning tokens are summed into
  ``usage.reasoning_tokens``.
"""

from __future__ import annotations

import email.utils
import json
import os
import random
import threading
import time
from collections import Counter
from concurrent.futures import FIRST_EXCEPTION, ThreadPoolExecutor, wait
from dataclasses import asdict, dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

from reflong.common.errors import NetworkError, ReflongError
from reflong.common.hashing import sha256_text
from reflong.common.progress import ProgressFactory, null_progress
from reflong.common.tokenizer import DEFAULT_TOKENIZER
from reflong.evaluate import files, reasoning

SYSTEM_PROMPT = "You are a helpful assistant."
RUN_MANIFEST = "run_manifest.json"
BACKOFF_BASE = 0.5
BACKOFF_CAP = 30.0


@dataclass(frozen=True)
class RunSettings:
    """Everything that shapes a response (and so the cache key), plus how to reach the endpoint."""

    model: str
    base_url: str
    temperature: float = 0.0
    top_p: float = 1.0
    max_tokens: int | None = None
    seed: int | None = None
    system: str = SYSTEM_PROMPT
    max_completion_tokens: int | None = None
    reasoning_effort: str | None = None
    send_sampling: bool = True

    def sampling(self) -> dict:
        """The request's parameters besides model and messages (unset ones are not sent)."""
        out = {"temperature": self.temperature, "top_p": self.top_p} if self.send_sampling else {}
        for name in ("max_tokens", "max_completion_tokens", "reasoning_effort", "seed"):
            if getattr(self, name) is not None:
                out[name] = getattr(self, name)
        return out

    def cache_key(self, prompt_sha256: str) -> str:
        fields = {
            "model": self.model,
            "prompt_sha256": prompt_sha256,
            "system": self.system,
            **self.sampling(),
        }
        return sha256_text(json.dumps(fields, sort_keys=True))


@dataclass
class RunResult:
    out_dir: Path
    tasks: int = 0
    answered: int = 0
    sent: int = 0
    from_cache: int = 0
    retries: int = 0
    skipped: list[dict] = field(default_factory=list)
    failed: list[dict] = field(default_factory=list)
    usage: dict = field(
        default_factory=lambda: {
            "prompt_tokens": 0,
            "completion_tokens": 0,
            "total_tokens": 0,
            "reasoning_tokens": 0,
        }
    )
    adapted: dict = field(default_factory=dict)  # parameter -> change made this run (reasoning.py)
    params_sent: Counter = field(default_factory=Counter)  # "a,b" -> answers asked with those params
    reasoning_stripped: int = 0  # answers whose content carried <think> reasoning (removed)
    reasoning_returned: int = 0  # answers whose reply carried reasoning beside the content
    cut_at_cap: int = 0  # answers with finish_reason "length" (reasoning may have used the cap up)
    manifest: Path | None = None

    def line(self) -> str:
        reasoning = self.usage["reasoning_tokens"]
        return (
            f"eval run: {self.tasks} tasks, {self.answered} answered ({self.sent} sent now, {self.from_cache} "
            f"from cache, {self.retries} retries), {len(self.skipped)} skipped, {len(self.failed)} failed; "
            f"tokens in {self.usage['prompt_tokens']}, out {self.usage['completion_tokens']}"
            + (f" (reasoning {reasoning})" if reasoning else "")
            + f" -> {self.out_dir}"
        )


class ResponseCache:
    """One JSON file per cache key under ``root/<2 hex>/<key>.json``, written atomically."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)

    def path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.json"

    def get(self, key: str) -> dict | None:
        try:
            return json.loads(self.path(key).read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None
        except (json.JSONDecodeError, UnicodeDecodeError):
            return None  # cannot happen with atomic writes; treat as absent and ask again

    def put(self, key: str, entry: dict) -> None:
        path = self.path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f"{path.name}.{os.getpid()}.{threading.get_ident()}.part")
        tmp.write_text(json.dumps(entry, ensure_ascii=False), encoding="utf-8")
        os.replace(tmp, path)


@dataclass(frozen=True)
class _Job:
    key: str
    prompt: str
    prompt_sha256: str


def retry_delay(exc: Exception, attempt: int) -> float:
    """Seconds to wait before retry ``attempt`` (0-based): the server's word, else exponential."""
    response = getattr(exc, "response", None)
    headers = getattr(response, "headers", None) or {}
    ms = headers.get("retry-after-ms")
    if ms:
        try:
            return max(0.0, float(ms) / 1000)
        except ValueError:
            pass
    after = headers.get("retry-after")
    if after:
        try:
            return max(0.0, float(after))
        except ValueError:
            parsed = email.utils.parsedate_to_datetime(after) if after else None
            if parsed is not None:
                return max(0.0, parsed.timestamp() - time.time())
    return min(BACKOFF_CAP, BACKOFF_BASE * 2**attempt) * (0.75 + random.random() / 2)


def _host(url: str) -> str:
    parts = urlsplit(url)
    return parts.hostname + (f":{parts.port}" if parts.port else "") if parts.hostname else url


class _Sender:
    """Sends one job with retries; fatal conditions raise ReflongError (the run stops)."""

    def __init__(
        self, client, settings: RunSettings, retries: int, cache: ResponseCache, api_key_env: str
    ) -> None:
        self.client = client
        self.settings = settings
        self.retries = retries
        self.cache = cache
        self.api_key_env = api_key_env
        self.stop = threading.Event()
        self.lock = threading.Lock()
        self.sent = 0
        self.retried = 0
        self.failed: list[dict] = []
        self.adaptations = reasoning.Adaptations()

    def __call__(self, job: _Job) -> None:
        import openai

        s = self.settings
        messages = [{"role": "system", "content": s.system}, {"role": "user", "content": job.prompt}]
        attempt = 0  # network retries used
        requests = 0
        adapted_here: set[str] = set()  # each refused parameter is changed once per request
        while True:
            if self.stop.is_set():
                return
            params = self.adaptations.apply(s.sampling())
            try:
                with self.lock:
                    self.sent += 1
                requests += 1
                reply = self.client.chat.completions.create(model=s.model, messages=messages, **params)
            except (openai.RateLimitError, openai.InternalServerError, openai.APIConnectionError) as exc:
                if attempt == self.retries:
                    self.stop.set()
                    raise self._network_error(exc) from None
                with self.lock:
                    self.retried += 1
                time.sleep(retry_delay(exc, attempt))
                attempt += 1
                continue
            except openai.AuthenticationError:
                self.stop.set()
                raise ReflongError(
                    f"{_host(s.base_url)} refused the API key (401): set {self.api_key_env} "
                    "(or name another variable with --api-key-env)"
                ) from None
            except openai.NotFoundError as exc:
                self.stop.set()
                raise ReflongError(
                    f"{_host(s.base_url)}: {_message(exc)} (check --model and --base-url; "
                    "the base URL usually ends in /v1)"
                ) from None
            except openai.BadRequestError as exc:
                change = reasoning.adaptation(_code(exc), _param(exc))
                if change is not None and change.param in params and change.param not in adapted_here:
                    adapted_here.add(change.param)
                    self.adaptations.record(change, _message(exc))
                    continue  # once more without it; later requests leave it out from the start
                if _code(exc) == "context_length_exceeded":
                    self.cache.put(
                        job.key, {"skipped": f"endpoint: {_message(exc)}", "prompt_sha256": job.prompt_sha256}
                    )
                else:
                    with self.lock:
                        self.failed.append({"prompt_sha256": job.prompt_sha256, "error": _message(exc)})
                return
            choice = reply.choices[0]
            usage = reply.usage.model_dump() if reply.usage is not None else {}
            answer, stripped = reasoning.final_answer(choice.message.content)
            entry = {
                "response": answer,
                "finish_reason": choice.finish_reason,
                "usage": {
                    **{k: usage.get(k, 0) for k in ("prompt_tokens", "completion_tokens", "total_tokens")},
                    "reasoning_tokens": reasoning.reasoning_tokens(reply.usage),
                },
                "model_reported": reply.model,
                "attempts": requests,
                "prompt_sha256": job.prompt_sha256,
                "params_sent": sorted(params),
            }
            if stripped:
                entry["reasoning_chars_stripped"] = stripped
            beside = reasoning.reasoning_field_chars(choice.message)
            if beside:
                entry["reasoning_chars_returned"] = beside
            self.cache.put(job.key, entry)
            return

    def _network_error(self, exc: Exception) -> NetworkError:
        status = getattr(exc, "status_code", None)
        what = f"HTTP {status}" if status else type(exc).__name__.replace("API", "")
        return NetworkError(
            f"{_host(self.settings.base_url)} kept failing ({what}: {_message(exc)[:120]}) after "
            f"{self.retries} retries; answers so far are cached, rerun the same command to resume"
        )


def _message(exc: Exception) -> str:
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict) and inner.get("message"):
            return str(inner["message"])
    return str(getattr(exc, "message", None) or exc).splitlines()[0]


def _param(exc: Exception) -> str | None:
    """The ``param`` of an OpenAI error body (which request parameter it is about)."""
    param = getattr(exc, "param", None)
    if param:
        return param
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict):
            return inner.get("param")
    return None


def _code(exc: Exception) -> str | None:
    code = getattr(exc, "code", None)
    if code:
        return code
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict):
            return inner.get("code")
    return None


def run_prompts(
    prompts: Path,
    out_dir: Path,
    settings: RunSettings,
    concurrency: int = 4,
    cache_dir: Path | None = None,
    max_context: int | None = None,
    tokenizer: str = DEFAULT_TOKENIZER,
    retries: int = 4,
    api_key_env: str = "OPENAI_API_KEY",
    timeout: float = 600.0,
    progress: ProgressFactory = null_progress,
) -> RunResult:
    """Answer every prompt under ``prompts``; see the module doc."""
    import openai

    from reflong.assemble.writers.reflong_json import reflong_json_bytes
    from reflong.common.atomic_files import write_atomic
    from reflong.common.hashing import file_entry
    from reflong.common.tokenizer import get_tokenizer

    out_dir = Path(out_dir)
    if Path(prompts).is_dir() and out_dir.resolve().is_relative_to(Path(prompts).resolve()):
        raise ReflongError(
            f"--out {out_dir} is inside --prompts {prompts}: predictions would be read as prompts"
        )
    cache = ResponseCache(Path(cache_dir) if cache_dir else out_dir / ".cache")
    prompt_paths = files.prompt_files(prompts)
    root = Path(prompts) if Path(prompts).is_dir() else Path(prompts).parent
    count = get_tokenizer(tokenizer).count if max_context is not None else None
    system_tokens = count(settings.system) if count else 0

    loaded: list[tuple[Path, dict]] = []
    jobs: dict[str, _Job] = {}
    result = RunResult(out_dir)
    for path in prompt_paths:
        mapping = files.load_mapping(path)
        if not all(isinstance(v[1], str) for v in mapping.values()):
            raise ReflongError(f"{path} is not a prompts file: its values must be [key, prompt text]")
        loaded.append((path, mapping))
        for tid in files.task_order(mapping):
            prompt = mapping[tid][1]
            result.tasks += 1
            if count is not None:
                n = system_tokens + count(prompt)
                if n > max_context:
                    result.skipped.append(
                        {
                            "file": path.name,
                            "task": tid,
                            "reason": f"{n} tokens > --max-context {max_context}",
                        }
                    )
                    continue
            sha = sha256_text(prompt)
            key = settings.cache_key(sha)
            if key not in jobs and cache.get(key) is None:
                jobs[key] = _Job(key, prompt, sha)

    api_key = os.environ.get(api_key_env)
    if not api_key and _host(settings.base_url).startswith("api.openai.com"):
        raise ReflongError(f"no API key: set {api_key_env} (or name another variable with --api-key-env)")
    client = openai.OpenAI(
        base_url=settings.base_url, api_key=api_key or "no-key", max_retries=0, timeout=timeout
    )
    sender = _Sender(client, settings, retries, cache, api_key_env)
    try:
        with (
            progress(total=len(jobs), desc="eval run", unit="prompt") as bar,
            ThreadPoolExecutor(concurrency) as pool,
        ):
            futures = [pool.submit(sender, job) for job in jobs.values()]
            for fut in futures:
                fut.add_done_callback(lambda _f: bar.update(1))
            done, _ = wait(futures, return_when=FIRST_EXCEPTION)
            for fut in done:
                if fut.exception() is not None:
                    sender.stop.set()
                    for other in futures:
                        other.cancel()
                    raise fut.exception()
    finally:
        client.close()
    result.sent = sender.sent
    result.retries = sender.retried
    result.failed = sender.failed
    result.adapted = sender.adaptations.summary()

    out_dir.mkdir(parents=True, exist_ok=True)
    inputs = []
    for path, mapping in loaded:
        predictions: dict[str, list] = {}
        for tid in files.task_order(mapping):
            key_value, prompt = mapping[tid]
            sha = sha256_text(prompt)
            entry = cache.get(settings.cache_key(sha))
            if entry is None:
                continue  # skipped by --max-context, or failed (listed in the manifest)
            if entry.get("skipped"):
                result.skipped.append({"file": path.name, "task": tid, "reason": entry["skipped"]})
                continue
            predictions[tid] = [key_value, entry["response"]]
            result.answered += 1
            result.from_cache += settings.cache_key(sha) not in jobs
            for k in result.usage:
                result.usage[k] += int(entry.get("usage", {}).get(k, 0))
            if "params_sent" in entry:
                result.params_sent[",".join(entry["params_sent"]) or "(none)"] += 1
            result.reasoning_stripped += "reasoning_chars_stripped" in entry
            result.reasoning_returned += "reasoning_chars_returned" in entry
            result.cut_at_cap += entry.get("finish_reason") == "length"
        rel = path.relative_to(root) if path.is_relative_to(root) else Path(path.name)
        write_atomic(out_dir / rel, reflong_json_bytes(predictions))
        inputs.append({**file_entry(path, rel.as_posix()), "tasks": len(mapping)})
    result.manifest = _write_manifest(
        out_dir, settings, inputs, result, concurrency, max_context, tokenizer, retries
    )
    return result


def _write_manifest(
    out_dir, settings, inputs, result: RunResult, concurrency, max_context, tokenizer, retries
) -> Path:
    from reflong import __version__
    from reflong.common.atomic_files import write_atomic

    manifest = {
        "tool": "reflong-build",
        "version": __version__,
        "command": "eval run",
        "model": settings.model,
        "base_url_host": _host(settings.base_url),
        "settings": {
            **{k: v for k, v in asdict(settings).items() if k != "base_url"},
            "concurrency": concurrency,
            "max_context": max_context,
            "tokenizer": tokenizer,
            "retries": retries,
        },
        "prompt_files": inputs,
        "counts": {
            "tasks": result.tasks,
            "answered": result.answered,
            "sent_this_run": result.sent,
            "retries_this_run": result.retries,
            "from_cache": result.from_cache,
            "skipped": len(result.skipped),
            "failed": len(result.failed),
            "reasoning_stripped": result.reasoning_stripped,
            "reasoning_returned": result.reasoning_returned,
            "cut_at_token_cap": result.cut_at_cap,
        },
        "usage": result.usage,
        "adapted_this_run": result.adapted,
        "params_sent": dict(sorted(result.params_sent.items())),
        "skipped": result.skipped,
        "failed": result.failed,
    }
    path = Path(out_dir) / RUN_MANIFEST
    write_atomic(path, (json.dumps(manifest, indent=2, ensure_ascii=False) + "\n").encode("utf-8"))
    return path
