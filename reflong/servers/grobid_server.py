"""A local stand-in for a GROBID server that answers with recorded, real GROBID TEI files.

It speaks the REST endpoints ``grobid_client`` calls (GET /api/isalive, /api/version,
/api/health; multipart POST /api/processReferences, /api/processFulltextDocument,
/api/processHeaderDocument with the PDF in the ``input`` field) and picks the TEI by the *bytes*
of the uploaded PDF (SHA-256 of the corpus PDF named like the TEI file), so the real client call,
the TEI parsing and the resolution all run for real, offline. An unknown PDF gets GROBID's own
answer to bad input: HTTP 500 ``[BAD_INPUT_DATA]``.

Endpoints and answers follow GROBID's service documentation
(https://grobid.readthedocs.io/en/latest/Grobid-service/, doc/Grobid-service.md in
github.com/grobidOrg/grobid): the process services return TEI XML with 200, 503 when all engines
are busy, 500 when the PDF cannot be converted. Its "Service checks" section defines
``/api/isalive`` as a *liveness* probe: ``true`` with 200 once initialisation succeeded, 503 when
not initialised. It does not say the engines answer, so a GROBID whose processing hangs still
answers ``true``; the stand-in's ``hang`` mode does the same (the isalive probe passes, the
process calls hang).

Fault modes (``mode``, switchable while running) stand in for what a real deployment does when
something between us and GROBID goes wrong:

- ``html``: 200 with an HTML page (a reverse proxy's error or login page, a misrouted URL);
- ``hang``: the process call never answers (held ``hang_seconds``, then dropped); with
  ``hang_calls`` only those process calls (1-based, e.g. ``range(3, 10**9)``: a GROBID that
  stops answering after two PDFs) hang and the others are answered as in ``ok``;
- ``header-only``: 200 with a valid TEI that has no bibliography (GROBID's header-only output).

    python -m reflong.servers.grobid_server --corpus ../shared/corpus --port 8070
"""

from __future__ import annotations

import argparse
import contextlib
import json
import threading
from collections.abc import Container
from email.parser import BytesParser
from email.policy import default as default_policy
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from reflong.common.hashing import sha256_bytes, sha256_file

PROCESS_ENDPOINTS = ("processReferences", "processFulltextDocument", "processHeaderDocument")
MODES = ("ok", "html", "hang", "header-only")
HTML_PAGE = (
    b"<!DOCTYPE html>\n<html><head><title>Sign in</title></head>"
    b"<body><h1>Please sign in</h1><p>This service is behind a proxy.</p></body></html>\n"
)


def tei_by_pdf_hash(corpus_dir: Path) -> dict[str, Path]:
    """SHA-256 of each corpus PDF that has a recorded TEI (``grobid/<id>.tei.xml``) -> that TEI."""
    out: dict[str, Path] = {}
    for tei in sorted((corpus_dir / "grobid").glob("*.tei.xml")):
        pdf = corpus_dir / "pdf" / (tei.name.removesuffix(".tei.xml") + ".pdf")
        if pdf.is_file():
            out[sha256_file(pdf)] = tei
    return out


def _uploaded_pdf(content_type: str, body: bytes) -> bytes | None:
    message = BytesParser(policy=default_policy).parsebytes(
        f"Content-Type: {content_type}\r\n\r\n".encode() + body
    )
    if not message.is_multipart():
        return None
    for part in message.iter_parts():
        if part.get_param("name", header="content-disposition") == "input":
            return part.get_payload(decode=True)
    return None


class GrobidStandIn:
    """Serve recorded TEI on 127.0.0.1; ``alive=False`` makes /api/isalive fail (503)."""

    def __init__(
        self,
        corpus_dir: str | Path,
        port: int = 0,
        alive: bool = True,
        mode: str = "ok",
        hang_seconds: float = 30.0,
        hang_calls: Container[int] | None = None,
    ) -> None:
        if mode not in MODES:
            raise ValueError(f"mode {mode!r} is not one of {MODES}")
        self.teis = tei_by_pdf_hash(Path(corpus_dir))
        header_only = sorted((Path(corpus_dir) / "grobid").glob("*.header-only.tei.xml"))
        self.header_only_tei = header_only[0].read_bytes() if header_only else b""
        self.alive = alive
        self.mode = mode
        self.hang_seconds = hang_seconds
        self.hang_calls = hang_calls  # in hang mode: the process calls that hang (None: all)
        self.process_calls = 0
        self.stopping = threading.Event()
        self.requests: list[tuple[str, str]] = []  # (method, path) log, for tests
        stand_in = self
        lock = threading.Lock()

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args) -> None:  # keep test output clean
                return

            def _send(self, status: int, body: bytes, ctype: str = "text/plain") -> None:
                self.send_response(status)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_GET(self) -> None:
                path = self.path.split("?", 1)[0]
                stand_in.requests.append(("GET", path))
                if path == "/api/isalive":
                    if stand_in.alive:
                        self._send(200, b"true")
                    else:
                        self._send(503, b"false")
                elif path == "/api/version":
                    self._send(200, b"0.7.2")
                elif path == "/api/health":
                    self._send(
                        200,
                        json.dumps({"ready": True, "pool": {"maxActive": 1}}).encode(),
                        "application/json",
                    )
                else:
                    self._send(404, b"not found")

            def do_POST(self) -> None:
                path = self.path.split("?", 1)[0]
                stand_in.requests.append(("POST", path))
                service = path.removeprefix("/api/")
                length = int(self.headers.get("Content-Length", "0"))
                body = self.rfile.read(length)
                if service not in PROCESS_ENDPOINTS:
                    self._send(404, b"not found")
                    return
                with lock:
                    stand_in.process_calls += 1
                    call = stand_in.process_calls
                if stand_in.mode == "hang" and (stand_in.hang_calls is None or call in stand_in.hang_calls):
                    stand_in.stopping.wait(stand_in.hang_seconds)
                    self.close_connection = True
                    return
                if stand_in.mode == "html":
                    self._send(200, HTML_PAGE, "text/html; charset=utf-8")
                    return
                if stand_in.mode == "header-only":
                    self._send(200, stand_in.header_only_tei, "application/xml")
                    return
                pdf = _uploaded_pdf(self.headers.get("Content-Type", ""), body)
                if not pdf:
                    self._send(400, b"[BAD_INPUT_DATA] no input file")
                    return
                tei = stand_in.teis.get(sha256_bytes(pdf))
                if tei is None:
                    self._send(500, b"[BAD_INPUT_DATA] PDF to XML conversion failed")
                    return
                self._send(200, tei.read_bytes(), "application/xml")

        self.server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self.server.daemon_threads = True  # a hung request must not keep stop() waiting
        self.thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        host, port = self.server.server_address[:2]
        return f"http://{host}:{port}"

    def start(self) -> GrobidStandIn:
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        return self

    def stop(self) -> None:
        self.stopping.set()
        self.server.shutdown()
        self.server.server_close()

    def __enter__(self) -> GrobidStandIn:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", default="../shared/corpus", help="folder with pdf/ and grobid/")
    parser.add_argument("--port", type=int, default=8070)
    parser.add_argument("--mode", choices=MODES, default="ok", help="a fault to stand in for (default: none)")
    parser.add_argument("--hang-seconds", type=float, default=30.0, help="how long a hung call is held")
    parser.add_argument(
        "--hang-after", type=int, default=0, help="with --mode hang: answer the first N PDFs, then hang"
    )
    args = parser.parse_args()
    server = GrobidStandIn(
        args.corpus,
        port=args.port,
        mode=args.mode,
        hang_seconds=args.hang_seconds,
        hang_calls=range(args.hang_after + 1, 2**62) if args.hang_after else None,
    )
    print(f"GROBID stand-in on {server.url} with {len(server.teis)} recorded TEI files", flush=True)
    with contextlib.suppress(KeyboardInterrupt):
        server.server.serve_forever()


if __name__ == "__main__":
    main()
