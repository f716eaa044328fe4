"""A local stand-in for an OpenAI-compatible chat endpoint, whose "model" answers from known answers.

It serves, on 127.0.0.1, the two endpoints ``reflong-build eval run`` uses, shaped as OpenAI's API
reference describes them (https://platform.openai.com/docs/api-reference/chat/create and
.../models/list):

- ``POST /v1/chat/completions`` with ``{"model", "messages": [{"role", "content"}], "temperature",
  "top_p", "max_tokens"?}`` -> ``{"id": "chatcmpl-...", "object": "chat.completion", "created",
  "model", "choices": [{"index": 0, "message": {"role": "assistant", "content"}, "finish_reason":
  "stop", "logprobs": null}], "usage": {"prompt_tokens", "completion_tokens", "total_tokens"}}``.
- ``GET /v1/models`` -> ``{"object": "list", "data": [{"id", "object": "model", "created",
  "owned_by"}]}``.

Errors use OpenAI's error shape ``{"error": {"message", "type", "param", "code"}}`` with the status
codes of OpenAI's error-code guide (https://platform.openai.com/docs/guides/error-codes): 401
``invalid_api_key`` when a key is configured and the ``Authorization: Bearer`` header lacks it;
404 ``model_not_found``; 400 ``context_length_exceeded`` (``param: "messages"``, "This model's
maximum context length is N tokens. However, your messages resulted in M tokens...") when the
messages' tokens (``o200k_base``, exact) exceed ``max_context``; 429 ``rate_limit_exceeded`` and
500/503 injectable per request number, with a ``Retry-After`` header (seconds) and
``retry-after-ms``, which OpenAI's rate-limit guide asks clients to honour.

The model: given task folders (answers files ``<config>_answers.json`` and their prompt files
``<config>.json``), it recognises a prompt by its sha256 and answers with the task's answer in the
format the prompt asks for (``Papers: {1, 3}`` for Paper prompts, ``Documents: 1, 3`` otherwise),
after planting misses and extras: per task, seeded by ``(seed, config, task)``, one correct
document is dropped with probability ``miss_rate`` and one wrong document added with probability
``extra_rate``. ``planted`` says what was done to each task before any request, so tests know the
Type I/II/III counts in advance. An unknown prompt gets a 400 ``unknown_prompt`` that says so: a
harness that changed the prompt on the way (a template, a chat format, a cut) must fail loudly,
not score 0. The one prompt it knows besides its builds' is the harness export's stand-in for a
task over the context limit (``harness_glue.OVER_CONTEXT_PROMPT``), answered with no documents.

A contaminated model (``knows_until="2024-02"``): it has "read" every paper up to that month, so
tasks whose release (``evaluate/releases.py``: the dataset row's ``release``, else the key paper's
month) is at or before it are answered exactly right, and only the later ones get the planted
misses and extras; ``eval score``'s contamination view should then show the drop after the cutoff.

Counting, for "no request is sent twice" proofs: ``received`` (every chat request), ``answered``
(per prompt sha256, responses produced), ``abandoned`` (the client hung up before its answer was
ready; like vLLM, which aborts a request whose client disconnects), ``waiting`` (requests held
right now). ``pause_after=N`` holds every answer after the N-th until ``resume()``, so a test can
kill a client at a known point: when ``waiting`` equals the client's concurrency, every request it
has out is held and none is on its way back. A client that died before ``resume()`` is never
answered after it (``_wait_turn``).

Reasoning mode (``reasoning="hidden"|"field"|"tags"``, ``--reasoning``): the same answers, taken
the way OpenAI's reasoning models take requests (400 on ``temperature``/``top_p``/``max_tokens``,
``max_completion_tokens`` as the cap, reasoning tokens in ``usage``, reasoning text hidden, in
``reasoning_content`` or in ``<think>`` tags); ``refused`` and ``reasoning_tokens_given`` count it.
The behaviour and its sources are in ``openai_reasoning``.

Run it by hand:
    python -m reflong.servers.openai_server --tasks reflong-demo/paper --port 8000 --miss-rate 0.2
and point ``eval run --base-url http://127.0.0.1:8000/v1`` at it.
"""

from __future__ import annotations

import argparse
import json
import random
import select
import socket
import sys
import threading
import time
from collections import Counter
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from reflong.common.hashing import sha256_text
from reflong.evaluate.export.harness_glue import OVER_CONTEXT_PROMPT
from reflong.servers import openai_reasoning
from reflong.servers.background import BackgroundServer, send_json

DEFAULT_MODEL = "reflong-standin"


@dataclass(frozen=True)
class Planted:
    """What the stand-in model answers for one task, and how it differs from the truth."""

    config: str
    task_id: str
    key: object
    gold: tuple[int, ...]
    answer: tuple[int, ...]
    missed: tuple[int, ...]
    extra: tuple[int, ...]
    paper_format: bool
    n_documents: int = 0

    @property
    def error_type(self) -> str | None:
        return "III" if self.missed and self.extra else "I" if self.missed else "II" if self.extra else None

    def response(self) -> str:
        inner = ", ".join(map(str, self.answer))
        return f"Papers: {{{inner}}}" if self.paper_format else f"Documents: {inner}"


def load_tasks(
    folders: list[Path],
    miss_rate: float = 0.0,
    extra_rate: float = 0.0,
    seed: int = 0,
    knows_until: str | None = None,
) -> dict[str, Planted]:
    """Planted answers for every task in ``folders``, keyed by the prompt's sha256; with
    ``knows_until``, tasks released up to that month are answered right (see the module doc)."""
    from reflong.evaluate import files
    from reflong.evaluate.releases import task_releases

    out: dict[str, Planted] = {}
    for folder in folders:
        for answers_path in files.answers_files(Path(folder)):
            config = files.config_name(answers_path)
            prompts_path = files.find_partner(Path(folder), config, ("{config}.json",))
            if prompts_path is None:
                continue
            answers = files.load_mapping(answers_path)
            prompts = files.load_mapping(prompts_path)
            releases = task_releases(answers_path, config) if knows_until else {}
            for tid in files.task_order(answers):
                key, gold = answers[tid]
                prompt = prompts[tid][1]
                m = len(files.prompt_documents(prompt).documents)
                rng = random.Random(f"{seed}/{config}/{tid}")
                gold_set = sorted(set(gold))
                known = knows_until is not None and releases.get(tid, "9999-99") <= knows_until
                missed = (rng.choice(gold_set),) if gold_set and rng.random() < miss_rate else ()
                others = [i for i in range(m) if i not in gold_set]
                extra = (rng.choice(others),) if others and rng.random() < extra_rate else ()
                if known:  # the same draws are made, so the later tasks' errors do not move
                    missed = extra = ()
                answer = tuple(sorted((set(gold_set) - set(missed)) | set(extra)))
                out[sha256_text(prompt)] = Planted(
                    config, tid, key, tuple(gold_set), answer, missed, extra, "Papers: {}" in prompt, m
                )
    return out


def _error(message: str, kind: str, code: str | None, param: str | None = None) -> dict:
    return {"error": {"message": message, "type": kind, "param": param, "code": code}}


class _Handler(BaseHTTPRequestHandler):
    server: _HTTPServer
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args) -> None:  # quiet; the counters keep the record
        pass

    def _json(self, status: int, obj: dict, headers: dict[str, str] | None = None) -> None:
        send_json(self, status, obj, headers)

    def _authorised(self) -> bool:
        key = self.server.owner.api_key
        if key is None or self.headers.get("Authorization", "") == f"Bearer {key}":
            return True
        self._json(
            401,
            _error(
                "Incorrect API key provided. You can find your API key at https://platform.openai.com/account/api-keys.",
                "invalid_request_error",
                "invalid_api_key",
            ),
        )
        return False

    def do_GET(self) -> None:
        if not self._authorised():
            return
        if self.path.rstrip("/") != "/v1/models":
            self._json(
                404, _error(f"Unknown request URL: GET {self.path}.", "invalid_request_error", "unknown_url")
            )
            return
        owner = self.server.owner
        self._json(
            200,
            {
                "object": "list",
                "data": [{"id": owner.model, "object": "model", "created": 0, "owned_by": "reflong"}],
            },
        )

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length)
        owner = self.server.owner
        number = owner._count_received()
        if not self._authorised():
            return
        if self.path.rstrip("/") != "/v1/chat/completions":
            self._json(
                404, _error(f"Unknown request URL: POST {self.path}.", "invalid_request_error", "unknown_url")
            )
            return
        try:
            body = json.loads(raw)
            messages = body["messages"]
            model = body["model"]
            user = next(m["content"] for m in reversed(messages) if m.get("role") == "user")
        except (ValueError, KeyError, TypeError, StopIteration):
            self._json(
                400,
                _error("We could not parse the JSON body of your request.", "invalid_request_error", None),
            )
            return
        if model != owner.model:
            self._json(
                404,
                _error(
                    f"The model `{model}` does not exist or you do not have access to it.",
                    "invalid_request_error",
                    "model_not_found",
                ),
            )
            return
        fault = owner.faults.get(number)
        if fault is not None:
            headers = {
                "Retry-After": str(max(1, round(owner.retry_after))),
                "retry-after-ms": str(int(owner.retry_after * 1000)),
            }
            if fault == 429:
                self._json(
                    429,
                    _error("Rate limit reached for requests.", "requests", "rate_limit_exceeded"),
                    headers,
                )
            else:
                self._json(
                    fault,
                    _error("The server had an error while processing your request.", "server_error", None),
                    headers,
                )
            return
        if owner.reasoning is not None and not self._reasoning_accepts(body):
            return
        prompt_tokens = sum(owner.count_tokens(str(m.get("content", ""))) for m in messages)
        if owner.max_context is not None and prompt_tokens > owner.max_context:
            self._json(
                400,
                _error(
                    f"This model's maximum context length is {owner.max_context} tokens. However, your messages "
                    f"resulted in {prompt_tokens} tokens. Please reduce the length of the messages.",
                    "invalid_request_error",
                    "context_length_exceeded",
                    "messages",
                ),
            )
            return
        sha = sha256_text(user)
        if not owner._wait_turn(self.connection, sha):
            return  # the client hung up while its answer was held: nothing was answered
        planted = owner.tasks.get(sha)
        if planted is None and user != OVER_CONTEXT_PROMPT:
            self._json(
                400,
                _error(
                    f"Unknown prompt (sha256 {sha[:16]}, {len(user)} characters): this stand-in answers "
                    "only its builds' prompts, byte for byte. Was the prompt changed on the way (a "
                    "template, a chat format, a cut)?",
                    "invalid_request_error",
                    "unknown_prompt",
                    "messages",
                ),
            )
            return
        content = planted.response() if planted else "Papers: {}"
        message: dict = {"role": "assistant", "content": content}
        finish_reason = "stop"
        completion_tokens = owner.count_tokens(content)
        usage_details: dict = {}
        if owner.reasoning is not None:
            r = openai_reasoning.reply(
                owner.reasoning,
                content,
                planted.n_documents if planted else 1,
                body.get("reasoning_effort") or openai_reasoning.DEFAULT_EFFORT,
                body.get("max_completion_tokens"),
                owner.count_tokens,
            )
            message["content"] = r.content
            if r.reasoning_content is not None:
                message["reasoning_content"] = r.reasoning_content
            finish_reason = r.finish_reason
            completion_tokens = r.completion_tokens
            usage_details = {"completion_tokens_details": {"reasoning_tokens": r.reasoning_tokens}}
            owner._count_reasoning(r.reasoning_tokens)
        self._json(
            200,
            {
                "id": f"chatcmpl-{sha[:24]}",
                "object": "chat.completion",
                "created": int(time.time()),
                "model": owner.model,
                "choices": [
                    {
                        "index": 0,
                        "message": message,
                        "finish_reason": finish_reason,
                        "logprobs": None,
                    }
                ],
                "usage": {
                    "prompt_tokens": prompt_tokens,
                    "completion_tokens": completion_tokens,
                    "total_tokens": prompt_tokens + completion_tokens,
                    **usage_details,
                },
            },
        )

    def _reasoning_accepts(self, body: dict) -> bool:
        """Reasoning mode: refuse sampling parameters and ``max_tokens`` as OpenAI's reasoning
        models do (``openai_reasoning``), counting each refusal; check ``reasoning_effort`` (the
        message as github.com/Kilo-Org/cloud/pull/3807 recorded it from OpenAI; param and code by
        analogy with the unsupported-parameter bodies)."""
        owner = self.server.owner
        param = openai_reasoning.refused_param(body)
        if param is not None:
            owner._count_refused(param)
            self._json(400, openai_reasoning.unsupported(param))
            return False
        effort = body.get("reasoning_effort")
        if effort is not None and effort not in openai_reasoning.EFFORTS:
            self._json(
                400,
                _error(
                    f"Unsupported value: 'reasoning_effort' does not support '{effort}' with this "
                    "model. Supported values are: 'low', 'medium', and 'high'.",
                    "invalid_request_error",
                    "unsupported_value",
                    "reasoning_effort",
                ),
            )
            return False
        return True


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    # socketserver's default backlog is 5: a harness's default concurrency (Inspect: 10 to 40
    # connections) then meets refused connects and retries. Real endpoints queue far more.
    request_queue_size = 128
    owner: OpenAIServer


def _client_gone(conn: socket.socket) -> bool:
    """True when the client closed its side (EOF or reset) while we held its request."""
    try:
        readable, _, _ = select.select([conn], [], [], 0)
        if not readable:
            return False
        return conn.recv(1, socket.MSG_PEEK) == b""
    except OSError:
        return True


class OpenAIServer(BackgroundServer):
    """``with OpenAIServer([tasks_dir], miss_rate=0.2) as srv: srv.url`` (ends in ``/v1``)."""

    thread_name = "openai-server"
    url_path = "/v1"

    def __init__(
        self,
        task_folders: list[str | Path] = (),
        host: str = "127.0.0.1",
        port: int = 0,
        model: str = DEFAULT_MODEL,
        api_key: str | None = None,
        miss_rate: float = 0.0,
        extra_rate: float = 0.0,
        seed: int = 0,
        max_context: int | None = None,
        faults: dict[int, int] | None = None,
        retry_after: float = 1.0,
        delay: float = 0.0,
        pause_after: int | None = None,
        knows_until: str | None = None,
        reasoning: str | None = None,
    ) -> None:
        from reflong.common.tokenizer import get_tokenizer

        self.tasks = load_tasks([Path(f) for f in task_folders], miss_rate, extra_rate, seed, knows_until)
        self.model = model
        self.api_key = api_key
        self.max_context = max_context
        self.faults = dict(faults or {})
        self.retry_after = retry_after
        self.delay = delay
        self.pause_after = pause_after
        if reasoning is not None and reasoning not in openai_reasoning.MODES:
            raise ValueError(f"reasoning must be one of {openai_reasoning.MODES}, not {reasoning!r}")
        self.reasoning = reasoning
        self.refused: Counter[str] = Counter()  # reasoning mode: 400s per refused parameter
        self.reasoning_tokens_given = 0  # reasoning mode: reasoning tokens over every answer
        self.count_tokens = get_tokenizer("o200k_base").count
        self.received = 0
        self.answered: Counter[str] = Counter()
        self.abandoned = 0
        self.waiting = 0  # requests held right now (delay or pause_after), not yet answered
        self._lock = threading.Lock()
        self._open = threading.Event()
        self._open.set()
        self._httpd = _HTTPServer((host, port), _Handler)
        self._httpd.owner = self
        self._thread: threading.Thread | None = None

    @property
    def planted(self) -> dict[tuple[str, str], Planted]:
        return {(p.config, p.task_id): p for p in self.tasks.values()}

    @property
    def total_answered(self) -> int:
        with self._lock:
            return sum(self.answered.values())

    def _count_received(self) -> int:
        with self._lock:
            self.received += 1
            return self.received

    def _count_refused(self, param: str) -> None:
        with self._lock:
            self.refused[param] += 1

    def _count_reasoning(self, tokens: int) -> None:
        with self._lock:
            self.reasoning_tokens_given += tokens

    def _wait_turn(self, conn: socket.socket, sha: str) -> bool:
        """Hold the answer while paused or during ``delay``; give up if the client hangs up.

        The answer is counted in the same locked step that decides to give it, so ``pause_after``
        is exact under concurrency. That step also looks at the client once more: ``resume()``
        takes the same lock, so a request whose client died before ``resume()`` is abandoned,
        never answered. With only the check at the top of the loop, a thread descheduled between
        that check and the lock (a loaded machine) answered a killed client after ``resume()``,
        and a rerun asking the same prompt was counted as answered twice."""
        deadline = time.monotonic() + self.delay
        with self._lock:
            self.waiting += 1
        try:
            while True:
                if _client_gone(conn):  # noticed while held: stop holding at once
                    with self._lock:
                        self.abandoned += 1
                    return False
                if time.monotonic() >= deadline:
                    with self._lock:
                        if self.pause_after is None or sum(self.answered.values()) < self.pause_after:
                            if _client_gone(conn):
                                self.abandoned += 1
                                return False
                            self.answered[sha] += 1
                            return True
                time.sleep(0.005)
        finally:
            with self._lock:
                self.waiting -= 1

    def resume(self) -> None:
        """Stop holding answers (``pause_after``)."""
        with self._lock:
            self.pause_after = None


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description="OpenAI-compatible stand-in that answers from answers files."
    )
    parser.add_argument(
        "--build", action="append", default=[], help="A build's folder: prompts + answers (repeatable)."
    )
    # Its name in every reflong-build command; --tasks until 0.3.
    parser.add_argument("--tasks", action="append", default=[], dest="old_tasks", help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--model", default=DEFAULT_MODEL)
    parser.add_argument("--api-key", default=None, help="Require this bearer key (401 otherwise).")
    parser.add_argument("--miss-rate", type=float, default=0.0)
    parser.add_argument("--extra-rate", type=float, default=0.0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--max-context", type=int, default=None)
    parser.add_argument(
        "--knows-until",
        default=None,
        metavar="YYYY-MM",
        help="A contaminated model: tasks released up to this month answered right, the others with the planted errors.",
    )
    parser.add_argument(
        "--reasoning",
        choices=openai_reasoning.MODES,
        default=None,
        help="Behave like a reasoning model (refuse temperature/top_p/max_tokens, count reasoning "
        "tokens); hidden: OpenAI, field: reasoning_content, tags: <think> in the content.",
    )
    args = parser.parse_args(argv)
    if args.old_tasks:
        print("warning: --tasks is now --build; the old spelling works until 0.3", file=sys.stderr)
    if not args.build + args.old_tasks:
        parser.error("give at least one --build FOLDER (prompts + answers)")
    server = OpenAIServer(
        args.build + args.old_tasks,
        port=args.port,
        model=args.model,
        api_key=args.api_key,
        miss_rate=args.miss_rate,
        extra_rate=args.extra_rate,
        seed=args.seed,
        max_context=args.max_context,
        knows_until=args.knows_until,
        reasoning=args.reasoning,
    )
    print(f"serving {len(server.tasks)} prompts as model {args.model!r} at {server.url}", flush=True)
    server.serve_until_interrupted()


if __name__ == "__main__":
    main()
