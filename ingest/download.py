"""Version-pinned PDFs in a cache: atomic, verified, resumable.

A PDF lands in the cache as ``<id>v<N>.pdf`` only once it is complete and looks like a PDF
(``%PDF-`` header, ``%%EOF`` trailer, size > 0): bytes arrive in ``.partial/<name>.part`` and are
renamed into place. A killed run leaves at most a ``.part`` file, which the next run resumes with
an HTTP Range request (or restarts, if the server ignores Range). So a cache file is always whole,
and a rerun downloads nothing that is already there.

arXiv makes some PDFs from the TeX source when they are first asked for; until the PDF exists its
``/pdf/<id>vN`` answers HTTP 200 with an HTML page saying so (arXiv's own fulltext service: "Classic
PDF route will return 200 even if PDF is not yet generated. But at least it will be honest about
the Content-Type"; sources in ``reflong/servers/arxiv_server.py``, ``FaultPlan``). Such an answer is
``pdf-not-ready``, not ``not-a-pdf``: nothing is written (a ``.part`` file stays as it was) and the
ingest asks for that PDF again later in the same run (``ingest/stage.py``); one still not ready
after ``pdf_not_ready_tries`` is recorded as ``pdf-not-ready``, which a rerun asks for again.
"""

from __future__ import annotations

import logging
import os
import shutil
from dataclasses import dataclass
from pathlib import Path

import requests

from reflong.common.errors import NetworkError, ServiceBusyError
from reflong.common.hashing import sha256_file
from reflong.ingest.netpolicy import (
    BUSY_STATUS,
    ArxivConnection,
    busy_message,
    connection_reason,
    retry_after_seconds,
    throttle_reason,
)

log = logging.getLogger(__name__)

RETRY_STATUS = {429, 500, 502, 503, 504}
_CHUNK = 1 << 16


@dataclass(frozen=True)
class FetchOutcome:
    """What happened to one PDF: ``fetched`` now, already ``cached``, or ``failed`` with a reason."""

    status: str  # fetched | cached | failed
    path: Path | None = None
    sha256: str | None = None
    size: int = 0
    # for failed: no-pdf | http-NNN | empty | not-a-pdf | truncated-pdf | network | pdf-not-ready
    reason: str | None = None
    message: str = ""


def generating_page(resp: requests.Response) -> bool:
    """A 200 whose body is an HTML page, not the PDF: arXiv is still generating the PDF."""
    ctype = resp.headers.get("Content-Type", "").split(";")[0].strip().lower()
    return resp.status_code == 200 and ctype in ("text/html", "application/xhtml+xml")


def cache_name(arxiv_id: str, version: int) -> str:
    """``2403.01234v2.pdf``; old-style ids lose their slash (``hep-th_9901001v1.pdf``)."""
    safe = arxiv_id.replace("/", "_")
    return f"{safe}v{version}.pdf" if version else f"{safe}.pdf"


def partial_path(final: Path) -> Path:
    return final.parent / ".partial" / (final.name + ".part")


def pdf_problem(path: Path) -> tuple[str, str] | None:
    """Why ``path`` is not a whole PDF (reason, message), or None if it is one."""
    size = path.stat().st_size
    if size == 0:
        return "empty", "the file is empty"
    with path.open("rb") as fh:
        head = fh.read(1024)
        fh.seek(max(0, size - 2048))
        tail = fh.read()
    if b"%PDF-" not in head:
        return "not-a-pdf", f"no %PDF- header (starts with {head[:16]!r})"
    if b"%%EOF" not in tail:
        return "truncated-pdf", f"no %%EOF trailer: the file ({size} bytes) is cut short"
    return None


def cached(final: Path) -> FetchOutcome | None:
    """The cache entry if it is there and whole; a damaged one is removed (and refetched)."""
    if not final.is_file():
        return None
    if pdf_problem(final) is None:
        return FetchOutcome("cached", final, sha256_file(final), final.stat().st_size)
    log.warning("removing damaged cache file %s", final)
    final.unlink()
    return None


def _commit(part: Path, final: Path, status: str) -> FetchOutcome:
    """Verify the finished ``.part`` and rename it into place (atomic on one filesystem)."""
    problem = pdf_problem(part)
    if problem is not None:
        part.unlink()
        return FetchOutcome("failed", reason=problem[0], message=problem[1])
    with part.open("rb") as fh:
        os.fsync(fh.fileno())
    os.replace(part, final)
    return FetchOutcome(status, final, sha256_file(final), final.stat().st_size)


def copy_local(src: Path, final: Path) -> FetchOutcome:
    """A PDF from a local catalog into the cache, with the same guarantees as a download."""
    hit = cached(final)
    if hit is not None:
        return hit
    if not src.is_file():
        return FetchOutcome("failed", reason="no-pdf", message=f"{src} does not exist")
    part = partial_path(final)
    part.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(src, part)
    return _commit(part, final, "fetched")


def download(conn: ArxivConnection, url: str, final: Path) -> FetchOutcome:
    """Download ``url`` to ``final`` unless cached; retries with backoff, resumes partial files.

    Goes through the run's one ``ArxivConnection`` (same gate and session as the metadata).
    Raises NetworkError when the run must stop: the host cannot be reached at all (every other
    download would fail the same way), a 403 (``BlockedError``: arXiv blocks robots, going on
    would be an attack), a throttling spell (429s, no answers) beyond ``throttle_minutes`` or a
    503 spell beyond the retries (``ServiceBusyError``). Any other failure is returned as
    ``failed`` and the run goes on; a PDF still being generated is ``failed`` with reason
    ``pdf-not-ready`` at once (the caller asks again later, see the module's docstring).
    """
    policy = conn.policy
    hit = cached(final)
    if hit is not None:
        return hit
    part = partial_path(final)
    part.parent.mkdir(parents=True, exist_ok=True)
    attempt, connect_failures = 0, 0
    while True:
        have = part.stat().st_size if part.exists() else 0
        headers = {"Range": f"bytes={have}-"} if have else {}
        problem, retry_after, busy, throttled = None, None, False, None
        try:
            with conn.send(url, "pdf", headers=headers, stream=True) as resp:
                throttled = throttle_reason(resp)
                if throttled is not None:
                    retry_after = retry_after_seconds(resp)  # waited out below, once this answer is closed
                elif generating_page(resp):
                    return FetchOutcome(
                        "failed",
                        reason="pdf-not-ready",
                        message=f"arXiv answered an HTML page (HTTP 200) for {url}: the PDF is still "
                        "being generated from the source",
                    )
                elif resp.status_code == 416:  # our partial file is no prefix of theirs: start over
                    part.unlink(missing_ok=True)
                    problem = "HTTP 416"
                elif resp.status_code in RETRY_STATUS:
                    problem, retry_after = f"HTTP {resp.status_code}", retry_after_seconds(resp)
                    busy = resp.status_code in BUSY_STATUS
                elif resp.status_code == 404:
                    part.unlink(missing_ok=True)
                    return FetchOutcome("failed", reason="no-pdf", message=f"HTTP 404 for {url}")
                elif resp.status_code not in (200, 206):
                    part.unlink(missing_ok=True)
                    return FetchOutcome(
                        "failed",
                        reason=f"http-{resp.status_code}",
                        message=f"HTTP {resp.status_code} for {url}",
                    )
                elif resp.status_code == 206 and _range_start(resp) != have:
                    part.unlink(missing_ok=True)  # not the range we asked for: start over
                    problem = "unexpected Content-Range"
                else:
                    resumed = resp.status_code == 206
                    with part.open("ab" if resumed else "wb") as fh:
                        for block in resp.iter_content(_CHUNK):
                            fh.write(block)
                    return _commit(part, final, "fetched")
        except requests.ReadTimeout:  # perhaps a 429 still on its way: arXiv's can take 2 minutes
            throttled = f"no answer within {policy.timeout:g} s"
        except requests.ConnectionError as exc:  # refused, no route, DNS, connect timeout, broken body
            # Either the host is unreachable or the body broke off (a hang, a reset): the bytes
            # received so far stay in the .part file and the next try resumes from there.
            reason = connection_reason(exc)
            if (
                "Read timed out" in str(exc)
                or "IncompleteRead" in str(exc)
                or "Connection broken" in str(exc)
            ):
                problem = f"download broke off ({reason})"
            else:
                connect_failures += 1
                if connect_failures > policy.connect_retries:
                    raise NetworkError(
                        f"cannot download {url} ({reason}); check the network connection, then rerun "
                        "the same command to resume"
                    ) from None
                problem = f"connection failed ({reason})"
        except requests.RequestException as exc:
            problem = f"download failed ({type(exc).__name__})"
        if throttled is not None:
            conn.wait_throttled("pdf", url, throttled, retry_after)
            continue
        attempt += 1
        if attempt > policy.retries and busy:
            raise ServiceBusyError(busy_message(url, problem, attempt))
        if attempt > policy.retries:
            reason = problem.split()[1].lower() if problem.startswith("HTTP") else "network"
            return FetchOutcome(
                "failed",
                reason=f"http-{reason}" if problem.startswith("HTTP") else reason,
                message=f"{problem} after {attempt} tries for {url}",
            )
        conn.backoff("pdf", attempt, problem, url, retry_after)


def _range_start(resp: requests.Response) -> int | None:
    value = resp.headers.get("Content-Range", "")  # "bytes 1000-1999/2000"
    try:
        return int(value.split()[1].split("-")[0])
    except (IndexError, ValueError):
        return None
