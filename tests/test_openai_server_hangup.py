"""The OpenAI stand-in never answers a held request whose client hung up before ``resume()``.

Why this matters: ``test_eval_run``'s kill-and-rerun proof counts answers per prompt on the
stand-in. A handler thread that checked its client, was descheduled, and took the answering lock
only after the test's ``resume()`` answered a SIGKILLed client; the rerun then asked that prompt
again and the proof saw it "answered twice" although the runner sent it once per live client.
The descheduling is made certain here by holding the thread right after its check.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from pathlib import Path

import pytest
from test_eval_run import _world

from reflong.servers import openai_server
from reflong.servers.openai_server import DEFAULT_MODEL, OpenAIServer


def _raw_request(url: str, prompt: str) -> socket.socket:
    """Send one chat request over a plain socket the test can close at will."""
    host, port = url.split("//")[1].split("/")[0].split(":")
    body = json.dumps({"model": DEFAULT_MODEL, "messages": [{"role": "user", "content": prompt}]}).encode()
    conn = socket.create_connection((host, int(port)))
    conn.sendall(
        b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        + f"Content-Length: {len(body)}\r\n\r\n".encode()
        + body
    )
    return conn


def _wait_for(condition, what: str, seconds: float = 10.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.005)


def test_client_dead_before_resume_is_abandoned_even_if_its_thread_was_descheduled(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tasks = _world(tmp_path / "tasks", per_config=1)
    prompt = json.loads((tasks / "easy_30K.json").read_text())["0"][1]
    checked, go_on = threading.Event(), threading.Event()
    real_gone = openai_server._client_gone
    calls = []

    def descheduled_after_first_check(conn: socket.socket) -> bool:
        gone = real_gone(conn)
        calls.append(gone)
        if len(calls) == 1:  # the client is alive here; the thread then loses the CPU
            checked.set()
            assert go_on.wait(10)
        return gone

    monkeypatch.setattr(openai_server, "_client_gone", descheduled_after_first_check)
    with OpenAIServer([tasks], pause_after=0) as server:
        conn = _raw_request(server.url, prompt)
        assert checked.wait(10), "the request never reached the held state"
        assert calls == [False]
        conn.close()  # the client dies while its request is held ...
        server.resume()  # ... and only then does the test let answers through
        go_on.set()
        _wait_for(lambda: server.abandoned + server.total_answered == 1, "the held request never ended")
        assert server.total_answered == 0 and server.abandoned == 1
        assert server.received == 1


def test_waiting_counts_held_requests_until_each_ends(tmp_path: Path) -> None:
    tasks = _world(tmp_path / "tasks", per_config=3)
    prompts = [v[1] for v in json.loads((tasks / "easy_30K.json").read_text()).values()]
    with OpenAIServer([tasks], pause_after=1) as server:
        conns = [_raw_request(server.url, p) for p in prompts]
        _wait_for(lambda: server.total_answered == 1 and server.waiting == 2, "two requests held")
        for conn in conns:  # the answered one has its reply already; the held two hang up
            conn.close()
        _wait_for(lambda: server.waiting == 0, "the hung-up requests are still held")
        assert server.abandoned == 2 and server.total_answered == 1
        server.resume()
        time.sleep(0.05)
        assert server.total_answered == 1 and server.received == 3  # nobody was left to answer
