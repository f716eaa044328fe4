"""``reflong-build human`` as a library call: load the setting, open the store, serve the page.

Kept apart from the CLI so the defaults live in one signature (``default_of`` reads them) and the
checks that protect a build (answers never written inside it) run before anything is served.
"""

from __future__ import annotations

import errno
from pathlib import Path

from reflong.common.errors import ReflongError
from reflong.evaluate.human.server import AnnotationServer, AnnotationSession
from reflong.evaluate.human.store import AnswerStore
from reflong.evaluate.human.tasks import load_setting


def open_session(
    build: Path,
    out_dir: Path,
    annotator: str,
    setting: str | None = None,
    n_tasks: int = 50,
    host: str = "127.0.0.1",
    port: int = 8765,
) -> AnnotationServer:
    """A server (not yet serving) for ``annotator`` on the first ``n_tasks`` tasks of ``setting``.

    50 tasks by default, as Ref-Long's human study (two annotators, 50 tasks each). Port 0 picks
    any free port (``server.url`` says which)."""
    build, out_dir = Path(build), Path(out_dir)
    build_root = build if build.is_dir() else build.parent
    if out_dir.resolve().is_relative_to(build_root.resolve()):
        raise ReflongError(
            f"--out {out_dir} is inside --build {build}: the answers would be read as prompts by later "
            "commands; give a folder outside the build"
        )
    loaded = load_setting(build, setting, n_tasks)
    store = AnswerStore(out_dir, annotator)
    session = AnnotationSession(loaded, store)
    try:
        return AnnotationServer(session, host, port)
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            raise ReflongError(
                f"port {port} on {host} is taken (another program, or this command already running); "
                "give another --port (0: any free one)"
            ) from None
        # EADDRNOTAVAIL, an unknown host name (socket.gaierror), ...: all about --host
        raise ReflongError(f"cannot listen on {host}:{port} ({exc.strerror or exc}); check --host") from None
