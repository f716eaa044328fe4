"""The annotation page's server: the standard library's ``http.server``, bound to 127.0.0.1.

Why no web framework: the page needs four routes (the page, its two static files, and a small JSON
API), one user, and nothing a framework adds; ``ThreadingHTTPServer`` keeps the dependency list as
it is. Why the checks below, on a server that only listens on loopback:

- the ``Host`` header must name loopback (when bound there), so a web site the annotator visits
  cannot reach the page through DNS rebinding;
- answers are posted as ``application/json``, which a foreign page cannot send without a CORS
  preflight that this server never grants.

API (all JSON): ``GET /api/state`` (session, progress, the first unanswered task);
``GET /api/task/<position>`` (1-based: key, instructions, numbered documents, any earlier answer);
``POST /api/answer`` ``{"task": id, "indexes": [..], "seconds": s}``, answered only after the
answer is fsynced (``store.AnswerStore.record``).
"""

from __future__ import annotations

import json
import logging
import threading
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from urllib.parse import urlsplit

from reflong.evaluate.human.store import AnswerStore, model_name
from reflong.evaluate.human.tasks import HumanSetting

log = logging.getLogger("reflong.human")

STATIC = {
    "/": ("page.html", "text/html; charset=utf-8"),
    "/static/page.css": ("page.css", "text/css; charset=utf-8"),
    "/static/page.js": ("page.js", "text/javascript; charset=utf-8"),
}
LOOPBACK_NAMES = {"127.0.0.1", "localhost", "::1", "[::1]"}
MAX_BODY = 1 << 16


class AnnotationSession:
    """What the handlers share: the setting's tasks, the store, and progress lines."""

    def __init__(self, setting: HumanSetting, store: AnswerStore) -> None:
        self.setting = setting
        self.store = store
        store.check_setting(setting)
        store.write_outputs(setting)  # a kill between log and predictions: rebuilt here

    def answered(self) -> dict[str, dict]:
        return self.store.answers(self.setting.config)

    def first_unanswered(self) -> int | None:
        done = self.answered()
        for i, task in enumerate(self.setting.tasks, 1):
            if task.task_id not in done:
                return i
        return None

    def state(self) -> dict:
        done = self.answered()
        answered = sum(t.task_id in done for t in self.setting.tasks)
        return {
            "annotator": self.store.annotator,
            "model": model_name(self.store.annotator),
            "setting": self.setting.config,
            "total": len(self.setting.tasks),
            "answered": answered,
            "next": self.first_unanswered(),
        }

    def task(self, position: int) -> dict | None:
        if not 1 <= position <= len(self.setting.tasks):
            return None
        task = self.setting.tasks[position - 1]
        earlier = self.answered().get(task.task_id)
        return {
            "position": position,
            "total": len(self.setting.tasks),
            "task": task.task_id,
            "key": task.key,
            "instructions": task.instructions,
            "documents": list(task.documents),
            "answer": None
            if earlier is None
            else {"indexes": earlier["indexes"], "seconds": earlier["seconds"]},
        }

    def answer(self, body: object) -> tuple[HTTPStatus, dict]:
        """Validate and save one answer; the error messages are shown on the page as they are."""
        if not isinstance(body, dict):
            return HTTPStatus.BAD_REQUEST, {"error": "expected a JSON object"}
        tid, indexes, seconds = body.get("task"), body.get("indexes"), body.get("seconds", 0)
        try:
            position = self.setting.position(str(tid))
        except KeyError:
            return HTTPStatus.BAD_REQUEST, {"error": f"task {tid!r} is not in this session"}
        m = len(self.setting.tasks[position - 1].documents)
        if not isinstance(indexes, list) or not all(
            isinstance(i, int) and not isinstance(i, bool) for i in indexes
        ):
            return HTTPStatus.BAD_REQUEST, {"error": "indexes must be a list of whole numbers"}
        outside = sorted({i for i in indexes if not 0 <= i < m})
        if outside:
            return HTTPStatus.BAD_REQUEST, {
                "error": f"this task has documents 0 to {m - 1}; there is no document {outside[0]}"
            }
        if not isinstance(seconds, (int, float)) or isinstance(seconds, bool) or not 0 <= seconds < 1e7:
            seconds = 0.0  # the page's timer is advisory: a nonsense value (NaN, negative) is not kept
        self.store.record(self.setting, str(tid), indexes, float(seconds))
        state = self.state()
        log.info(
            f"human {self.store.annotator}: task {position} of {state['total']} saved "
            f"({len(set(indexes))} documents, {float(seconds):.0f} s); {state['answered']} answered"
        )
        return HTTPStatus.OK, {"saved": True, **state}


class _Handler(BaseHTTPRequestHandler):
    server_version = "reflong-human"
    session: AnnotationSession  # set on the subclass made per server
    loopback_only: bool

    def log_message(self, format: str, *args) -> None:
        log.debug("human page: " + format % args)

    def _host_ok(self) -> bool:
        if not self.loopback_only:
            return True
        host = (self.headers.get("Host") or "").strip()
        name = urlsplit(f"//{host}").hostname or ""
        return name in LOOPBACK_NAMES or f"[{name}]" in LOOPBACK_NAMES

    def _send(self, status: HTTPStatus, body: bytes, content_type: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        self.end_headers()
        self.wfile.write(body)

    def _json(self, status: HTTPStatus, data: dict) -> None:
        self._send(status, json.dumps(data, ensure_ascii=False).encode("utf-8"), "application/json")

    def do_GET(self) -> None:
        if not self._host_ok():
            self._json(HTTPStatus.FORBIDDEN, {"error": "this page answers on 127.0.0.1 only"})
            return
        path = urlsplit(self.path).path
        if path in STATIC:
            name, content_type = STATIC[path]
            body = resources.files("reflong.evaluate.human").joinpath("static", name).read_bytes()
            self._send(HTTPStatus.OK, body, content_type)
        elif path == "/api/state":
            self._json(HTTPStatus.OK, self.session.state())
        elif path.startswith("/api/task/") and path.removeprefix("/api/task/").isdigit():
            task = self.session.task(int(path.removeprefix("/api/task/")))
            if task is None:
                self._json(HTTPStatus.NOT_FOUND, {"error": "no such task in this session"})
            else:
                self._json(HTTPStatus.OK, task)
        else:
            self._json(HTTPStatus.NOT_FOUND, {"error": f"no page {path}"})

    def do_POST(self) -> None:
        if not self._host_ok():
            self._json(HTTPStatus.FORBIDDEN, {"error": "this page answers on 127.0.0.1 only"})
            return
        if urlsplit(self.path).path != "/api/answer":
            self._json(HTTPStatus.NOT_FOUND, {"error": "no such endpoint"})
            return
        if (self.headers.get("Content-Type") or "").split(";")[0].strip() != "application/json":
            self._json(HTTPStatus.UNSUPPORTED_MEDIA_TYPE, {"error": "send application/json"})
            return
        try:
            length = int(self.headers.get("Content-Length") or 0)
        except ValueError:
            length = -1
        if not 0 < length <= MAX_BODY:
            self._json(HTTPStatus.BAD_REQUEST, {"error": "missing or oversized body"})
            return
        try:
            body = json.loads(self.rfile.read(length))
        except (json.JSONDecodeError, UnicodeDecodeError):
            self._json(HTTPStatus.BAD_REQUEST, {"error": "the body is not JSON"})
            return
        status, data = self.session.answer(body)
        self._json(status, data)


class AnnotationServer:
    """The page on ``host:port`` (port 0: any free one) in a background thread, or in the
    foreground with ``serve_forever``."""

    def __init__(self, session: AnnotationSession, host: str = "127.0.0.1", port: int = 0) -> None:
        handler = type(
            "Handler",
            (_Handler,),
            {"session": session, "loopback_only": host in LOOPBACK_NAMES or host.startswith("127.")},
        )
        self.session = session
        self.httpd = ThreadingHTTPServer((host, port), handler)
        self.httpd.daemon_threads = True
        self.host = host
        self.port = self.httpd.server_address[1]
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}/"

    def serve_forever(self) -> None:
        self.httpd.serve_forever(poll_interval=0.2)

    def __enter__(self) -> AnnotationServer:
        self._thread = threading.Thread(target=self.serve_forever, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        if self._thread is not None:
            self.httpd.shutdown()
            self._thread.join()
            self._thread = None
        self.httpd.server_close()
