"""The lifecycle every stand-in shares: serve on a daemon thread, stop cleanly, use as a context.

Why one piece: the arXiv, Semantic Scholar and OpenAI stand-ins differ in what they answer, not in
how they run; tests and benches start them with ``with Server(...) as s:`` and read ``s.url``.
"""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import TypeVar

_S = TypeVar("_S", bound="BackgroundServer")


def send_json(
    handler: BaseHTTPRequestHandler, status: int, payload, headers: dict[str, str] | None = None
) -> None:
    """One JSON answer with its length, as the S2, OpenAlex and OpenAI stand-ins all answer."""
    body = json.dumps(payload).encode("utf-8")
    handler.send_response(status)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(len(body)))
    for k, v in (headers or {}).items():
        handler.send_header(k, v)
    handler.end_headers()
    handler.wfile.write(body)


class BackgroundServer:
    """Mixin: the subclass sets ``self._httpd`` (a bound ThreadingHTTPServer) in its ``__init__``."""

    _httpd: ThreadingHTTPServer
    thread_name = "stand-in"
    url_path = ""  # appended to the base URL, e.g. "/v1" for the OpenAI-compatible API

    @property
    def base_url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}"

    @property
    def url(self) -> str:
        return self.base_url + self.url_path

    def start(self: _S) -> _S:
        self._thread = threading.Thread(
            target=self._httpd.serve_forever,
            kwargs={"poll_interval": 0.05},
            name=self.thread_name,
            daemon=True,
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def serve_until_interrupted(self) -> None:
        """``python -m reflong.servers.<name>``: serve in the foreground until Ctrl-C."""
        self.start()
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            self.stop()

    def __enter__(self: _S) -> _S:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
