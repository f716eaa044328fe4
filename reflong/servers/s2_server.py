"""A local server that speaks the Semantic Scholar Graph API protocol, serving a world's index view.

It answers what ``ingest/index/semantic_scholar.py`` asks of api.semanticscholar.org, on 127.0.0.1, from
a catalog folder (every paper in it is known by ``ARXIV:<id>``) and an index file
(``s2_index.jsonl`` from ``reflong.demo.citation_graph``: who cites whom, as the index sees it):

- ``POST /graph/v1/paper/batch?fields=...`` with ``{"ids": [...]}``: a list in the order asked,
  ``null`` for unknown ids; more than 500 ids, a body without ``ids``, an id of no known form
  (``ARXIV:``, ``DOI:``, ``CorpusId:``, a 40-hex paperId) or an unsupported field: HTTP 400,
  as https://api.semanticscholar.org/api-docs/graph documents;
- ``GET /graph/v1/paper/{id}/citations?fields=&offset=&limit=``: ``{"offset", "next"?, "data":
  [{"citingPaper": {...}}]}``; ``limit`` above 1000 or ``offset + limit`` of 10,000 or more: 400;
  an unknown paper: 404;
- citing rows without an id: a seeded ``unnamed_share`` of citation rows (default 8/1,881, the
  share in a recorded answer: danielnsilva/semanticscholar, tests/data/test_get_paper_citations.yaml,
  kept in tests/data/real/) come as ``{"citingPaper": {"paperId": null, "title": ...}}``: S2 lists
  citing records it has no paper for. They do not count in ``citationCount`` (only papers do);
- rate limits: requests without ``x-api-key`` share one pool (``shared_limit`` requests per
  ``shared_window`` seconds, default 100 per 300 s, S2's historical unauthenticated limit), a key
  gets 1 request per second; an unknown key (when ``api_keys`` is given): 403. Over the limit: 429
  with S2's own body, ``{"message": "Too Many Requests. Please wait and try again or apply for a
  key for higher rate limits. https://www.semanticscholar.org/product/api#api-key-form", "code":
  "429"}`` (as users record it: SakanaAI/AI-Scientist issue #84, 2024) and **no** ``Retry-After``
  (users see none: allenai/s2-folks issue #218, "it doesn't tell me how long to wait");
  ``retry_after=True`` adds one (seconds until a slot frees), as this stand-in used to;
- the unkeyed pool is shared by everyone, so it refuses below the published rate (allenai/s2-folks
  issue #84: "too many requests" under the limit, "a known problem with our implementation of the
  rate limiting"; NLeSC/litstudy pull request #105: "Since this is a shared global limit, requests
  are often rejected with 429s"). Off by default; ``pool_busy`` P refuses that seeded share of
  unkeyed requests, ``busy_spell`` S refuses every unkeyed request during the first S seconds
  (others filling the pool);
- ``GET /_stats``: requests by kind and status (the request counter; not part of S2's protocol).

Run it:  python -m reflong.servers.s2_server --catalog DIR [--index DIR/s2_index.jsonl] --port 8766
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import re
import threading
import time
from collections import Counter, defaultdict, deque
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlsplit

from reflong.demo.citation_graph import INDEX_FILE, paper_id
from reflong.ingest.catalog.reader import read_catalog
from reflong.servers.background import BackgroundServer, send_json

MAX_BATCH = 500
MAX_LIMIT = 1000
MAX_REACH = 10_000
PAPER_FIELDS = {"paperId", "title", "citationCount", "externalIds", "publicationDate", "year", "url"}
UNNAMED_SHARE = 8 / 1881  # citing rows with a null paperId in the recorded answer (tests/data/real)
TOO_MANY = {
    "message": "Too Many Requests. Please wait and try again or apply for a key for higher rate limits. "
    "https://www.semanticscholar.org/product/api#api-key-form",
    "code": "429",
}
_ID_RE = re.compile(r"^(?:ARXIV:\S+|DOI:\S+|CorpusId:\d+|[0-9a-f]{40})$")


def _share(key: str) -> float:
    return int(hashlib.sha1(f"reflong-s2-unnamed:{key}".encode()).hexdigest()[:8], 16) / 16**8


class _World:
    def __init__(self, catalog_dir: Path, index_file: Path, unnamed_share: float = UNNAMED_SHARE) -> None:
        catalog = read_catalog(catalog_dir)
        self.papers = {
            a: {"title": p.title, "date": p.first_published} for a, p in sorted(catalog.papers.items())
        }
        self.by_key = {paper_id(a): a for a in self.papers}
        self.citers: dict[str, list[dict]] = defaultdict(list)
        for line in index_file.read_text(encoding="utf-8").splitlines():
            if line:
                row = json.loads(line)
                self.citers[row["cited"]].append(row)
        for rows in self.citers.values():
            rows.sort(key=lambda r: r["citing_key"])
        # Rows S2 lists with no paper behind them (``paperId`` null): placed after a seeded share
        # of the real rows, so they land on any page; not part of ``citationCount``.
        self.rows: dict[str, list[dict]] = {}
        for cited, rows in self.citers.items():
            listed: list[dict] = []
            for row in rows:
                listed.append(row)
                if _share(f"{cited}:{row['citing_key']}") < unnamed_share:
                    listed.append({"citing_key": None, "title": f"Unmatched citing record of {cited}"})
            self.rows[cited] = listed

    def resolve(self, ident: str) -> str | None:
        """The arXiv id an S2 id names (ARXIV:... or a paperId), None when unknown."""
        if ident.startswith("ARXIV:"):
            arxiv_id = re.sub(r"v\d+$", "", ident[6:])
            return arxiv_id if arxiv_id in self.papers else None
        return self.by_key.get(ident)

    def paper(self, arxiv_id: str, fields: set[str]) -> dict:
        info = self.papers[arxiv_id]
        full = {
            "paperId": paper_id(arxiv_id),
            "title": info["title"],
            "citationCount": len(self.citers.get(arxiv_id, [])),  # papers only, not null rows
            "externalIds": {"ArXiv": arxiv_id},
            "publicationDate": info["date"],
            "year": int(info["date"][:4]) if info["date"] else None,
            "url": f"https://www.semanticscholar.org/paper/{paper_id(arxiv_id)}",
        }
        return {k: v for k, v in full.items() if k == "paperId" or k in fields}


class _Limiter:
    """Sliding-window limits: one shared pool without a key, 1 request/second per key."""

    def __init__(self, shared_limit: int, shared_window: float, keyed_per_second: float) -> None:
        self.shared = (shared_limit, shared_window)
        self.keyed = keyed_per_second
        self.times: dict[str, deque] = defaultdict(deque)
        self.lock = threading.Lock()

    def check(self, key: str | None) -> float | None:
        """None when allowed (and counted), else seconds until a slot frees."""
        limit, window = self.shared if key is None else (1, 1.0 / self.keyed)
        now = time.monotonic()
        with self.lock:
            q = self.times[key or ""]
            while q and now - q[0] >= window:
                q.popleft()
            if len(q) >= limit:
                return max(0.0, window - (now - q[0]))
            q.append(now)
            return None


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    owner: S2Server


class _Handler(BaseHTTPRequestHandler):
    server: _HTTPServer

    def log_message(self, *args) -> None:  # quiet
        pass

    def _send(self, status: int, payload, headers: dict | None = None) -> None:
        send_json(self, status, payload, headers)
        self.server.owner.counts[f"status:{status}"] += 1

    def _gate(self, kind: str) -> bool:
        owner = self.server.owner
        owner.counts[kind] += 1
        if owner.latency:
            time.sleep(owner.latency)  # a slow index (a far host, a loaded API)
        key = self.headers.get("x-api-key")
        if key is not None and owner.api_keys is not None and key not in owner.api_keys:
            self._send(403, {"message": "Forbidden"})
            return False
        # Others filling the shared pool refuse us under our own rate (before our slot is counted).
        wait = 1.0 if key is None and owner.pool_refuses() else owner.limiter.check(key)
        if wait is not None:
            headers = {"Retry-After": str(max(1, int(wait + 0.999)))} if owner.retry_after else None
            self._send(429, TOO_MANY, headers)
            return False
        return True

    def _fields(self, query: dict) -> set[str] | None:
        fields = {f for f in (query.get("fields", [""])[0]).split(",") if f}
        bad = sorted(fields - PAPER_FIELDS)
        if bad:
            self._send(400, {"error": f"Unrecognized or unsupported fields: {bad}"})
            return None
        return fields

    def do_POST(self) -> None:
        parts = urlsplit(self.path)
        if parts.path != "/graph/v1/paper/batch":
            self._send(404, {"error": "Not found"})
            return
        if not self._gate("batch"):
            return
        fields = self._fields(parse_qs(parts.query))
        if fields is None:
            return
        length = int(self.headers.get("Content-Length") or 0)
        try:
            ids = json.loads(self.rfile.read(length) or b"{}").get("ids")
        except (ValueError, AttributeError):
            ids = None
        if not isinstance(ids, list):
            self._send(400, {"error": 'Body must be a JSON object with a list "ids"'})
            return
        if len(ids) > MAX_BATCH:
            self._send(400, {"error": f"Cannot process more than {MAX_BATCH} ids"})
            return
        bad = [i for i in ids if not isinstance(i, str) or not _ID_RE.match(i)]
        if bad:
            self._send(400, {"error": f"Unacceptable id(s): {bad[:5]}"})
            return
        world = self.server.owner.world
        out = []
        for ident in ids:
            arxiv_id = world.resolve(ident)
            out.append(world.paper(arxiv_id, fields) if arxiv_id else None)
        self._send(200, out)

    def do_GET(self) -> None:
        parts = urlsplit(self.path)
        owner = self.server.owner
        if parts.path == "/_stats":
            self._send(200, dict(owner.counts))
            return
        m = re.fullmatch(r"/graph/v1/paper/([^/]+)/citations", parts.path)
        if not m:
            self._send(404, {"error": "Not found"})
            return
        if not self._gate("citations"):
            return
        query = parse_qs(parts.query)
        try:
            offset = int(query.get("offset", ["0"])[0])
            limit = int(query.get("limit", ["100"])[0])
        except ValueError:
            self._send(400, {"error": "offset and limit must be integers"})
            return
        if limit > MAX_LIMIT or limit < 1 or offset < 0:
            self._send(400, {"error": f"Limit must be between 1 and {MAX_LIMIT}"})
            return
        if offset + limit >= MAX_REACH:
            self._send(400, {"error": f"offset + limit must be < {MAX_REACH}"})
            return
        requested = {f for f in (query.get("fields", [""])[0]).split(",") if f}
        arxiv_id = owner.world.resolve(unquote(m.group(1)))
        if arxiv_id is None:
            self._send(404, {"error": "Paper not found"})
            return
        rows = owner.world.rows.get(arxiv_id, [])
        page = rows[offset : offset + limit]
        data = []
        for row in page:
            citing = {"paperId": row["citing_key"]}
            if row["citing_key"] is None:  # a citing record without a paper: its title only
                citing["title"] = row["title"]
                data.append({"citingPaper": citing})
                continue
            if "title" in requested:
                citing["title"] = row["title"]
            if "publicationDate" in requested:
                citing["publicationDate"] = row["date"]
            if "externalIds" in requested:
                citing["externalIds"] = (
                    {"ArXiv": row["citing_arxiv"]}
                    if row["citing_arxiv"]
                    else {"DOI": f"10.9999/{row['citing_key'][:12]}"}
                )
            data.append({"citingPaper": citing})
        payload = {"offset": offset, "data": data}
        if offset + limit < len(rows):
            payload["next"] = offset + limit
        self._send(200, payload)


class S2Server(BackgroundServer):
    """The server in a background thread: ``with S2Server(catalog_dir) as srv: srv.url``."""

    thread_name = "s2-server"

    def __init__(
        self,
        catalog_dir: str | Path,
        index_file: str | Path | None = None,
        host: str = "127.0.0.1",
        port: int = 0,
        shared_limit: int = 100,
        shared_window: float = 300.0,
        keyed_per_second: float = 1.0,
        api_keys: set[str] | None = None,
        latency: float = 0.0,
        retry_after: bool = False,
        pool_busy: float = 0.0,
        busy_spell: float = 0.0,
        unnamed_share: float = UNNAMED_SHARE,
        seed: int = 0,
    ) -> None:
        catalog_dir = Path(catalog_dir)
        self.latency = latency  # seconds every answer is held back
        self.world = _World(
            catalog_dir, Path(index_file) if index_file else catalog_dir / INDEX_FILE, unnamed_share
        )
        self.limiter = _Limiter(shared_limit, shared_window, keyed_per_second)
        self.api_keys = api_keys
        self.retry_after = retry_after
        self.pool_busy = pool_busy
        self.busy_until = time.monotonic() + busy_spell
        self._rng = random.Random(seed)
        self._rng_lock = threading.Lock()
        self.counts: Counter = Counter()
        self._httpd = _HTTPServer((host, port), _Handler)
        self._httpd.owner = self
        self._thread: threading.Thread | None = None

    def pool_refuses(self) -> bool:
        """Other callers have the shared pool: a spell at the start, or a seeded share of requests."""
        if time.monotonic() < self.busy_until:
            return True
        with self._rng_lock:
            return self.pool_busy > 0 and self._rng.random() < self.pool_busy


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(
        prog="python -m reflong.servers.s2_server", description=__doc__.split("\n")[0]
    )
    ap.add_argument("--catalog", required=True, help="catalog folder (papers.jsonl)")
    ap.add_argument("--index", default=None, help=f"index view file [default: CATALOG/{INDEX_FILE}]")
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=8766, help="0: any free port")
    ap.add_argument("--shared-limit", type=int, default=100, help="requests without a key per window")
    ap.add_argument("--shared-window", type=float, default=300.0, help="seconds")
    ap.add_argument(
        "--pool-busy", type=float, default=0.0, help="share of unkeyed requests refused (others use the pool)"
    )
    ap.add_argument(
        "--busy-spell", type=float, default=0.0, help="seconds from start refusing unkeyed requests"
    )
    ap.add_argument("--retry-after", action="store_true", help="send Retry-After with 429 (S2 does not)")
    ap.add_argument(
        "--unnamed-share", type=float, default=UNNAMED_SHARE, help="citing rows with a null paperId"
    )
    ap.add_argument("--latency", type=float, default=0.0, help="seconds every answer is held back")
    args = ap.parse_args(argv)
    server = S2Server(
        args.catalog,
        args.index,
        args.host,
        args.port,
        args.shared_limit,
        args.shared_window,
        latency=args.latency,
        retry_after=args.retry_after,
        pool_busy=args.pool_busy,
        busy_spell=args.busy_spell,
        unnamed_share=args.unnamed_share,
    )
    print(f"Semantic Scholar-protocol server for {args.catalog} at {server.url}", flush=True)
    server.serve_until_interrupted()


if __name__ == "__main__":
    main()
