"""A rehearsal of the real run: the default ``reflong-build paper --since 2024-03`` against a
2024-sized synthetic arXiv served on 127.0.0.1, measured against the world's truth.

``reflong-build demo --world 2024 [--scale S]`` (and ``bench/real_scale.py``) call ``rehearse``:

1. the world (``world-<scale>/`` under the output folder, written once and reused): the
   metadata-only catalog of ``synth-catalog`` (2024's volume x scale), its citation truth and the
   imperfect index view of ``synth-index``;
2. the stand-ins: the arXiv one (OAI-PMH, API, PDFs rendered on request from the truth by
   ``reflong.demo.on_demand``, at real paper lengths by default) and a citation index (Semantic
   Scholar's protocol at its keyed rate, 1 request/s, or OpenAlex's);
3. ``paper --since 2024-03 --dry-run`` then ``paper --since 2024-03``, each in a child process
   with defaults everywhere except the stand-ins' URLs, ``--delay 0`` and the folders
   (``run-<scale>-<lengths>[-<index>][-<options hash>]/``: ``store.db``, ``cache/``, ``out/``,
   ``dry_run.log`` and ``run.log``); options given after ``--`` are passed on to both;
4. the figures: requests by kind (counted by the stand-ins), PDFs fetched against the plan, what
   the same requests cost at arXiv's 3 s rule and the index's published rate, the final answers'
   precision and recall against the world's truth, wall time and peak RSS here.

Kill-safe like the rest: the world's files are written whole or not at all, the runs resume from
their store, and the figures so far are kept in ``rehearsal.json`` in the run folder (checkpointed
every few seconds and at every line of the run's output), so a rerun after Ctrl-C or a kill goes
on where it stopped and adds up its sessions (a SIGKILLed session's last seconds of requests are not
counted, and the figures say so); a rerun of a finished rehearsal prints its figures again without running anything.

The GROBID stand-in is not started: it answers only for the recorded corpus PDFs (by their bytes),
so for the world's rendered PDFs it would answer HTTP 500 every time; the default ``paper`` reads
references with the built-in parser. A real GROBID can be rehearsed with ``-- --grobid-url URL``.
"""

from __future__ import annotations

import collections
import contextlib
import ctypes
import dataclasses
import hashlib
import json
import os
import re
import resource
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from reflong.common.errors import ReflongError

SINCE = "2024-03"
WORLDS = ("2024",)
ARXIV_RULE_S = 3.0  # arXiv's terms of use: one request every 3 seconds
# The index's published gap a request (S2: 1 request/s with a key; OpenAlex: the client's 0.11 s)
INDEX_RULE_S = {"s2": 1.0, "openalex": 0.11}
INDEX_NAMES = {"s2": "Semantic Scholar", "openalex": "OpenAlex"}
LENGTHS = ("real", "demo")
LEDGER = "rehearsal.json"
LEDGER_FORMAT = "reflong-rehearsal/1"
CHECKPOINT_S = 5.0
PHASES = ("dry_run", "run")
# The paper options the rehearsal sets itself: giving them after -- would point the run elsewhere.
OWN_OPTIONS = (
    "--since",
    "--arxiv-url",
    "--oai-url",
    "--source",
    "--citation-index",
    "--delay",
    "--db",
    "--cache",
    "--out",
    "--dry-run",
    "--reuse-db",
)


Echo = Callable[[str], None]


def _stderr(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


@dataclass(frozen=True)
class RehearsalSettings:
    scale: float = 1.0  # 1: 2024's real volume (~90K papers); 0.05 for a quicker check
    index: str = "s2"  # the citation index stand-in: s2 | openalex
    lengths: str = "real"  # on-demand PDF lengths: real (the corpus model) | demo (~3.5K tokens)
    paper_args: tuple[str, ...] = ()  # more `paper` options, passed on to both runs

    def __post_init__(self) -> None:
        if self.scale <= 0:
            raise ReflongError(f"scale {self.scale:g}: give a positive scale (1 is 2024's volume)")
        if self.index not in INDEX_RULE_S:
            raise ReflongError(f"index {self.index!r}: use one of {', '.join(INDEX_RULE_S)}")
        if self.lengths not in LENGTHS:
            raise ReflongError(f"lengths {self.lengths!r}: use one of {', '.join(LENGTHS)}")
        taken = sorted({a.split("=", 1)[0] for a in self.paper_args} & set(own_options()))
        if taken:
            raise ReflongError(
                f"{', '.join(taken)}: the rehearsal sets {'this' if len(taken) == 1 else 'these'} itself "
                "(the stand-ins' URLs and its own folders); give other `paper` options after --"
            )

    @property
    def run_name(self) -> str:
        """The run folder: one per scale, lengths, index and extra options (S2's keeps its old name)."""
        name = f"run-{self.scale:g}-{self.lengths}" + ("" if self.index == "s2" else f"-{self.index}")
        if self.paper_args:
            name += "-" + hashlib.sha256("\0".join(self.paper_args).encode()).hexdigest()[:8]
        return name

    def to_json(self) -> dict:
        return {
            "world": WORLDS[0],
            "scale": self.scale,
            "index": self.index,
            "lengths": self.lengths,
            "paper_args": list(self.paper_args),
        }


def own_options() -> tuple[str, ...]:
    """OWN_OPTIONS and every citation index's URL option (``--s2-url``, ``--openalex-url``...)."""
    from reflong.ingest.index import registry

    return OWN_OPTIONS + tuple(o.flag for p in registry.PROVIDERS for o in p.all_options if o.url)


# ---------------------------------------------------------------------------------------------
# the world


def build_world(out: Path, scale: float, echo: Echo = _stderr) -> Path:
    """``out/world-<scale>``: the catalog, its citation truth and the index view (once; reused)."""
    from reflong.demo.catalog2024 import write_catalog
    from reflong.demo.citation_graph import INDEX_FILE, TRUTH_FILE, write_world_index

    world = Path(out) / f"world-{scale:g}"
    if not (world / "papers.jsonl").is_file():
        echo(f"rehearsal: writing the world (2024's arXiv volume x {scale:g}) to {world} ...")
        s = write_catalog(world, scale=scale)
        echo(f"world: {s.papers} papers in {s.seconds:.0f} s")
    if not ((world / TRUTH_FILE).is_file() and (world / INDEX_FILE).is_file()):
        echo("rehearsal: writing the world's citation truth and the index's view of it ...")
        _, _, n_truth, n_index = write_world_index(world, since=SINCE)
        echo(f"world: {n_truth} true citations, {n_index} index rows")
    return world


def world_papers(world: Path) -> int | None:
    try:
        return json.loads((world / "generator.json").read_text(encoding="utf-8")).get("papers")
    except (OSError, ValueError):
        return None


# ---------------------------------------------------------------------------------------------
# the stand-ins


class StandIns:
    """The arXiv stand-in (PDFs rendered on request) and the citation index one, on 127.0.0.1.

    ``with StandIns(world, settings) as s:`` starts both and stops both on the way out (Ctrl-C
    included); ``s.url_options()`` is what ``paper`` is pointed at; ``s.counts()`` the requests
    both have answered so far, by kind."""

    def __init__(
        self, world: Path, settings: RehearsalSettings, echo: Echo = _stderr, ports: tuple[int, int] = (0, 0)
    ) -> None:
        self.world, self.settings, self.echo = Path(world), settings, echo
        # (arXiv, index); 0: any free port. Fixed ports keep the URLs, so a later run against a
        # restarted stand-in (a grown world) continues the store's harvest (keyed by endpoint).
        self.ports = ports
        self.arxiv = self.index = None

    def __enter__(self) -> StandIns:
        from reflong.demo.citation_graph import TRUTH_FILE
        from reflong.demo.on_demand import OnDemandPdfs
        from reflong.servers.arxiv_server import ArxivServer
        from reflong.servers.openalex_server import OpenAlexServer
        from reflong.servers.s2_server import S2Server

        self.echo(f"rehearsal: starting the stand-ins on {self.world} ...")
        try:
            self.arxiv = ArxivServer(self.world, port=self.ports[0]).start()
            self.arxiv.pdf_source = OnDemandPdfs(
                self.arxiv.catalog, self.world / TRUTH_FILE, lengths=self.settings.lengths
            )
            index_server = S2Server if self.settings.index == "s2" else OpenAlexServer
            self.index = index_server(self.world, port=self.ports[1]).start()
        except BaseException:
            self.__exit__()
            raise
        self.echo(
            f"stand-ins: arXiv at {self.arxiv.url} (OAI-PMH, API, PDFs at {self.settings.lengths} lengths), "
            f"{INDEX_NAMES[self.settings.index]} at {self.index.url}"
        )
        return self

    def __exit__(self, *exc: object) -> None:
        for server in (self.index, self.arxiv):
            if server is not None:
                with contextlib.suppress(Exception):
                    server.stop()
        self.arxiv = self.index = None

    def url_options(self) -> list[str]:
        """The only options that differ from the real run: where arXiv and the index are."""
        urls = [("--arxiv-url", self.arxiv.url), ("--oai-url", self.arxiv.oai_url)]
        if self.settings.index == "s2":
            urls.append(("--s2-url", self.index.url))
        else:
            urls += [("--citation-index", "openalex"), ("--openalex-url", self.index.url)]
        return [x for pair in urls for x in pair]

    def counts(self) -> dict[str, int]:
        by_kind = self.arxiv.stats.snapshot()["by_kind"]
        index = dict(self.index.counts)
        return {
            "oai": by_kind.get("oai", 0),
            "api": by_kind.get("api", 0),
            "pdf": by_kind.get("pdf", 0),
            "index_batch": index.get("batch", 0),
            "index_citations": index.get("citations", 0),
            "index_429": index.get("status:429", 0),
        }


def _diff(after: dict, before: dict) -> dict:
    return {k: after[k] - before.get(k, 0) for k in after}


def _add(a: dict, b: dict) -> dict:
    return {k: a.get(k, 0) + b.get(k, 0) for k in sorted(set(a) | set(b))}


# ---------------------------------------------------------------------------------------------
# the child run

CHILD_CODE = "from reflong.demo.rehearsal import child_main; child_main()"


def child_main() -> None:
    """``python -c CHILD_CODE PARENT_PID ARGS...``: the CLI with ARGS, ended with its parent.

    Linux's ``PR_SET_PDEATHSIG`` ends it when the rehearsal dies (``kill -9`` included), so a
    killed rehearsal leaves no run behind holding the store's lock. Elsewhere the rehearsal's own
    exit path stops it."""
    parent = int(sys.argv[1])
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM, 0, 0, 0)  # PR_SET_PDEATHSIG
    if os.getppid() != parent:
        sys.exit(1)
    from reflong.cli import main

    main(args=sys.argv[2:], prog_name="reflong-build")


def child_env() -> dict[str, str]:
    """The environment of the runs: keyed at the index stand-ins (a key of the rehearsal's own,
    never the user's real one), progress as lines every 30 s (the output is not a terminal)."""
    return dict(os.environ, S2_API_KEY="rehearsal-key", OPENALEX_API_KEY="rehearsal-key")


def paper_command(url_options: list[str], run_dir: Path, extra: tuple[str, ...] = ()) -> list[str]:
    """The default `paper --since 2024-03`, its URLs, folders and --delay 0 changed."""
    return [
        sys.executable,
        "-I",  # the installed package, never a checkout's reflong/ found through the cwd
        "-c",
        CHILD_CODE,
        str(os.getpid()),
        "paper",
        "--since",
        SINCE,
        *url_options,
        "--delay",
        "0",
        "--db",
        str(run_dir / "store.db"),
        "--cache",
        str(run_dir / "cache"),
        "--out",
        str(run_dir / "out"),
        *extra,
    ]


@dataclass
class ChildRun:
    code: int
    seconds: float
    peak_rss_mb: float
    lines: list[str]  # the last lines of its output (stdout and stderr)


def run_child(
    cmd: list[str],
    env: dict[str, str],
    log: Path | None,
    echo: Echo = _stderr,
    kill_after: float | None = None,
    tick: Callable[[float], None] | None = None,
) -> ChildRun:
    """Run ``cmd``; each line of its output goes to ``echo`` and to ``log`` (appended) as it comes.

    ``tick(seconds so far)`` is called every CHECKPOINT_S and after each line. ``kill_after``: SIGKILL it after that
    many seconds. Ctrl-C (or SIGTERM turned into it) stops the child (SIGINT, then SIGKILL after
    15 s) before KeyboardInterrupt goes on up. Peak RSS is the child's and its workers' (wait4)."""
    t0 = time.perf_counter()
    tail: collections.deque[str] = collections.deque(maxlen=400)
    quiet = threading.Event()  # once interrupted, the child's own "rerun the same command" is not ours
    fresh = threading.Event()  # a line came: a stage ended or progressed, a checkpoint is due
    log_fh = None
    if log is not None:
        log.parent.mkdir(parents=True, exist_ok=True)
        log_fh = log.open("a", encoding="utf-8")
        log_fh.write(f"$ {' '.join(cmd[5:])}\n")
        log_fh.flush()
    proc = subprocess.Popen(
        cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, text=True
    )

    def pump() -> None:
        for line in proc.stdout:
            line = line.rstrip("\n")
            tail.append(line)
            if log_fh is not None:
                log_fh.write(line + "\n")
                log_fh.flush()
            if not quiet.is_set():
                echo(line)
            fresh.set()

    reader = threading.Thread(target=pump, name="rehearsal-child-output", daemon=True)
    reader.start()
    rss_kb = 0
    try:
        last_tick = time.perf_counter()
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                proc.returncode = os.waitstatus_to_exitcode(status)
                rss_kb = usage.ru_maxrss
                break
            now = time.perf_counter()
            if kill_after is not None and now - t0 >= kill_after:
                proc.send_signal(signal.SIGKILL)
                kill_after = None
            if tick is not None and (fresh.is_set() or now - last_tick >= CHECKPOINT_S):
                fresh.clear()
                last_tick = now
                tick(now - t0)
            time.sleep(0.1)
    except BaseException:
        quiet.set()
        _stop(proc)
        raise
    finally:
        reader.join(timeout=10)
        if log_fh is not None:
            log_fh.close()
    return ChildRun(proc.returncode, time.perf_counter() - t0, rss_kb / 1024, list(tail))


def _stop(proc: subprocess.Popen) -> None:
    """Ask the child to stop as Ctrl-C does (it saves its work), then kill it if it does not."""
    if proc.poll() is not None:
        return
    with contextlib.suppress(ProcessLookupError):
        proc.send_signal(signal.SIGINT)
    try:
        proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


@contextlib.contextmanager
def _sigterm_as_interrupt() -> Iterator[None]:
    """SIGTERM takes Ctrl-C's path (child stopped, stand-ins stopped, figures kept)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum, frame):
        raise KeyboardInterrupt

    old = signal.signal(signal.SIGTERM, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, old)


# ---------------------------------------------------------------------------------------------
# the figures kept across sessions


@dataclass
class Phase:
    done: bool = False
    sessions: int = 0
    seconds: float = 0.0
    peak_rss_mb: float = 0.0  # the paper run and its workers
    stand_ins_rss_mb: float = 0.0  # the rehearsal's own process: the world, the stand-ins, rendering
    requests: dict[str, int] = field(default_factory=dict)
    running: bool = False  # a session is under way (still true on the next start: it was killed)
    killed: int = 0  # sessions that ended without a last count (SIGKILL, power loss)


class Ledger:
    """``rehearsal.json`` in the run folder: each phase's requests, seconds and sessions so far,
    written whole (``write_atomic``) at every checkpoint, so a killed rehearsal loses at most the
    last CHECKPOINT_S seconds of counts and a rerun adds its own."""

    def __init__(self, path: Path, settings: RehearsalSettings) -> None:
        from reflong import __version__

        self.path, self.settings = path, settings
        self.data: dict = {"format": LEDGER_FORMAT, "reflong": __version__, "settings": settings.to_json()}
        self.phases = {name: Phase() for name in PHASES}
        self.plan: dict = {}
        if path.is_file():
            try:
                old = json.loads(path.read_text(encoding="utf-8"))
            except ValueError:
                old = {}
            if old.get("format") == LEDGER_FORMAT:
                self.data["measured_by"] = old.get("measured_by") or old.get("reflong")
                self.plan = old.get("plan", {})
                for name in PHASES:
                    if name in old.get("phases", {}):
                        phase = self.phases[name] = Phase(**old["phases"][name])
                        if phase.running:  # its requests after the last checkpoint were not counted
                            phase.running, phase.killed = False, phase.killed + 1
        self._base: Phase | None = None

    def begin(self, name: str) -> None:
        self._base = dataclasses.replace(self.phases[name], requests=dict(self.phases[name].requests))
        self.phases[name].sessions += 1
        self.phases[name].running = True
        self.save()

    def update(
        self, name: str, requests: dict, seconds: float, peak_rss_mb: float = 0.0, last: bool = False
    ) -> None:
        """The session's counts so far (``last``: its final ones, the session is over)."""
        base = self._base or Phase()
        phase = self.phases[name]
        phase.running = not last
        phase.requests = _add(base.requests, requests)
        phase.seconds = round(base.seconds + seconds, 1)
        phase.peak_rss_mb = round(max(base.peak_rss_mb, peak_rss_mb), 1)
        own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        phase.stand_ins_rss_mb = round(max(base.stand_ins_rss_mb, own), 1)
        self.save()

    def save(self) -> None:
        from reflong.common.atomic_files import write_atomic

        data = dict(
            self.data, plan=self.plan, phases={n: dataclasses.asdict(p) for n, p in self.phases.items()}
        )
        self.path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(self.path, (json.dumps(data, indent=1, sort_keys=True) + "\n").encode("utf-8"))


# ---------------------------------------------------------------------------------------------
# answers against the truth


def answers_vs_truth(
    db: Path, truth: set[tuple[str, str]], unprovable: set[tuple[str, str]] = frozenset()
) -> tuple[float | None, float | None]:
    """Precision and recall of the last build's answers: a document answers a task when the
    world's truth says its paper cites the key. ``unprovable`` pairs (the citing paper's entry is
    venue-only: no title, arXiv id or DOI) count neither way: no reading of the PDF can prove them,
    and Ref-Long's truth is what the PDF proves."""
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        build = con.execute("select max(id) from build").fetchone()[0]
        tp = answered = relevant = 0
        for key, docs_json, answer_json in con.execute(
            "select key_arxiv_id, documents_json, answer_json from build_task where build_id = ?", (build,)
        ):
            docs = [d.rsplit("v", 1)[0] for d in json.loads(docs_json)]
            answer = set(json.loads(answer_json))
            moot = {i for i, d in enumerate(docs) if (d, key) in unprovable}
            answer -= moot
            cites = {i for i, d in enumerate(docs) if (d, key) in truth} - moot
            tp += len(answer & cites)
            answered += len(answer)
            relevant += len(cites)
    finally:
        con.close()
    return (round(tp / answered, 4) if answered else None, round(tp / relevant, 4) if relevant else None)


def output_hashes(out: Path) -> dict:
    from reflong.common.hashing import sha256_file

    return {p.name: sha256_file(p) for p in sorted(out.glob("*.json")) if p.name not in ("manifest.json",)}


def _planned_pdfs(db: Path) -> int | None:
    if not db.is_file():
        return None
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return con.execute("select count(*) from plan_pick").fetchone()[0]
    except sqlite3.Error:
        return None
    finally:
        con.close()


_ESTIMATED = re.compile(r"^\s*index: \d+ requests .*estimated (\d+);")


def _index_estimate(lines: list[str]) -> int | None:
    for line in reversed(lines):
        if m := _ESTIMATED.match(line):
            return int(m.group(1))
    return None


def build_figures(run_dir: Path, world: Path) -> dict:
    """What the finished run built, read from its store and outputs."""
    from reflong.demo.citation_graph import TRUTH_FILE, read_truth_pairs
    from reflong.demo.on_demand import unprovable_pairs

    out, db = run_dir / "out", run_dir / "store.db"
    report = json.loads((out / "build_report.json").read_text(encoding="utf-8"))
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        keys = con.execute("select count(*) from index_key").fetchone()[0]
        fetched_docs = con.execute(
            "select count(*) from plan_pick k join paper_role r on r.arxiv_id = k.arxiv_id and r.window = k.window "
            "join paper p on p.arxiv_id = r.arxiv_id and p.version = r.version where p.status = 'downloaded'"
        ).fetchone()[0]
    finally:
        con.close()
    tasks = {f.stem: len(json.loads(f.read_text(encoding="utf-8"))) for f in sorted(out.glob("*_*K.json"))}
    unprovable = unprovable_pairs(world)
    precision, recall = answers_vs_truth(db, read_truth_pairs(world / TRUTH_FILE), unprovable)
    return {
        "keys": {"index": keys, **{d: len(v) for d, v in report.get("keys_used", {}).items()}},
        "tasks": tasks,
        "answer_precision": precision,
        "answer_recall": recall,
        "unprovable_pairs": len(unprovable),
        "index_agreement": report.get("index_agreement", {}),
        "usable_share": round(1 - len(report.get("excluded_docs", {})) / fetched_docs, 4)
        if fetched_docs
        else None,
        "pdfs_downloaded": fetched_docs,
    }


# ---------------------------------------------------------------------------------------------
# the whole rehearsal

AfterRun = Callable[[StandIns, list[str], dict, dict], dict]


def rehearse(
    out: Path | str,
    settings: RehearsalSettings,
    echo: Echo = _stderr,
    dry_run_only: bool = False,
    after_run: AfterRun | None = None,
) -> dict:
    """Build or reuse the world, run what is left of the dry run and the run, return the figures.

    ``after_run(stand_ins, paper command, env, result so far)``, while the stand-ins still serve
    (the bench's kill trials), returns more fields for the result. Raises ReflongError (one line)
    when a run fails; KeyboardInterrupt after stopping the run and the stand-ins."""
    from reflong.db.lock import StoreBusy, writer_lock

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    try:
        with writer_lock(out / "rehearsal", "demo --world"), _sigterm_as_interrupt():
            return _rehearse(out, settings, echo, dry_run_only, after_run, t0)
    except StoreBusy:
        raise ReflongError(
            f"another rehearsal is running in {out} (see {out / 'rehearsal.lock'}); wait for it or give another --out"
        ) from None


def _rehearse(
    out: Path,
    settings: RehearsalSettings,
    echo: Echo,
    dry_run_only: bool,
    after_run: AfterRun | None,
    t0: float,
) -> dict:
    world = build_world(out, settings.scale, echo)
    world_s = time.perf_counter() - t0
    run_dir = out / settings.run_name
    ledger = Ledger(run_dir / LEDGER, settings)
    wanted = PHASES[:1] if dry_run_only else PHASES
    pending = [p for p in wanted if not ledger.phases[p].done]
    result: dict = {**settings.to_json(), "world_papers": world_papers(world), "run_dir": str(run_dir)}
    if not pending and after_run is None:
        _reprint_note(ledger, run_dir, echo)
    else:
        env = child_env()
        with StandIns(world, settings, echo) as stand_ins:
            cmd = paper_command(stand_ins.url_options(), run_dir, settings.paper_args)
            for phase in pending:
                _run_phase(phase, cmd, env, run_dir, ledger, stand_ins, echo)
            if after_run is not None:
                result |= after_run(stand_ins, cmd, env, _figures(result, ledger, settings))
    result = _figures(result, ledger, settings)
    result["world_s"] = round(world_s, 1)
    if not dry_run_only:
        result |= build_figures(run_dir, world)
        if result["pdfs_planned"] is None:
            result["pdfs_planned"] = _planned_pdfs(run_dir / "store.db")
    return result


def _reprint_note(ledger: Ledger, run_dir: Path, echo: Echo) -> None:
    from reflong import __version__

    by = ledger.data.get("measured_by")
    other = f" by reflong-build {by}, not this {__version__}" if by and by != __version__ else ""
    echo(
        f"rehearsal: finished earlier{other}; its figures follow (delete {run_dir} or give another --out "
        "to measure again)"
    )


def _run_phase(
    phase: str, cmd: list[str], env: dict, run_dir: Path, ledger: Ledger, stand_ins: StandIns, echo: Echo
) -> None:
    what = "the dry run (the plan: metadata and the index)" if phase == "dry_run" else "the run"
    again = (
        f" (resumed: session {ledger.phases[phase].sessions + 1})" if ledger.phases[phase].sessions else ""
    )
    echo(
        f"rehearsal: {what}{again}: reflong-build {' '.join(cmd[5:] + (['--dry-run'] if phase == 'dry_run' else []))}"
    )
    before = stand_ins.counts()
    ledger.begin(phase)
    start = time.perf_counter()
    try:
        child = run_child(
            [*cmd, "--dry-run"] if phase == "dry_run" else cmd,
            env,
            run_dir / f"{phase}.log",
            echo,
            tick=lambda s: ledger.update(phase, _diff(stand_ins.counts(), before), s),
        )
    except BaseException:
        ledger.update(phase, _diff(stand_ins.counts(), before), time.perf_counter() - start, last=True)
        raise
    ledger.update(phase, _diff(stand_ins.counts(), before), child.seconds, child.peak_rss_mb, last=True)
    if child.code != 0:
        last = next((x for x in reversed(child.lines) if x.strip()), "no output").strip()
        last = last.removeprefix("Error: ")
        raise ReflongError(
            f"the rehearsed paper run stopped (exit {child.code}) in {what}: {last} "
            f"(log {run_dir / (phase + '.log')}); rerun the same command to resume"
        )
    if phase == "dry_run":
        ledger.plan = {"index": _index_estimate(child.lines), "pdfs": _planned_pdfs(run_dir / "store.db")}
    ledger.phases[phase].done = True
    ledger.save()


def _figures(result: dict, ledger: Ledger, settings: RehearsalSettings) -> dict:
    dry, run = ledger.phases["dry_run"], ledger.phases["run"]
    zero = dict.fromkeys(("oai", "api", "pdf", "index_batch", "index_citations", "index_429"), 0)
    d, r = _add(zero, dry.requests), _add(zero, run.requests)
    out = dict(result)
    out |= {
        "dry_run_s": dry.seconds,
        "dry_run_requests": d,
        "dry_run_estimate": {"index": ledger.plan.get("index"), "pdfs": ledger.plan.get("pdfs")},
        "pdfs_planned": ledger.plan.get("pdfs"),
        "sessions": {"dry_run": dry.sessions, "run": run.sessions},
        # sessions killed outright: their requests after the last checkpoint are not counted
        "sessions_killed": {"dry_run": dry.killed, "run": run.killed},
    }
    if not run.done:
        return out
    arxiv = r["oai"] + r["api"] + r["pdf"] + d["oai"] + d["api"]
    index = sum(d[k] + r[k] for k in ("index_batch", "index_citations"))
    out |= {
        "requests": _add(d, r),
        "pdfs_fetched": r["pdf"],
        "peak_rss_mb": max(dry.peak_rss_mb, run.peak_rss_mb),
        "stand_ins_rss_mb": max(dry.stand_ins_rss_mb, run.stand_ins_rss_mb),
        "run_s": run.seconds,
        "wall_s": round(dry.seconds + run.seconds, 1),
        "projected_hours": round((arxiv * ARXIV_RULE_S + index * INDEX_RULE_S[settings.index]) / 3600, 2),
        "requests_after_plan": {"index": d["index_batch"] + d["index_citations"], "pdfs": r["pdf"]},
        "not_measured": ["per-paper lengths are the demo's ~3.5K tokens (lengths demo)"]
        if settings.lengths == "demo"
        else [],
    }
    return out


def summary_lines(result: dict) -> list[str]:
    """The plain summary ``demo --world`` prints: requests, cost at the rules, answers, time here."""
    n = lambda v: f"{v:,}" if isinstance(v, int) else "?"  # noqa: E731
    req, dry = result["requests"], result["dry_run_requests"]
    index_name = INDEX_NAMES[result["index"]]
    arxiv = req["oai"] + req["api"] + req["pdf"]
    index = req["index_batch"] + req["index_citations"]
    sessions = result["sessions"]
    resumed = sum(sessions.values()) - len(sessions)
    killed = sum(result["sessions_killed"].values())
    uncounted = (
        f" ({killed} killed session{'s' if killed != 1 else ''}: requests in up to {CHECKPOINT_S:g} s "
        "before a kill are not counted)"
        if killed
        else ""
    )
    scale = result["scale"]
    size = (
        "2024's real volume" if scale == 1 else f"{scale:g} x 2024's volume; --scale 1 rehearses the real one"
    )
    tasks = result.get("tasks", {})
    ia = result.get("index_agreement") or {}
    p, r = result.get("answer_precision"), result.get("answer_recall")
    lines = [
        f"rehearsal of `reflong-build paper --since {SINCE}` on the {result['world']} world x {scale:g} "
        f"({n(result.get('world_papers'))} papers), {index_name} stand-in, {result['lengths']} paper lengths"
        + (f", with {' '.join(result['paper_args'])}" if result.get("paper_args") else ""),
        f"  requests: arXiv {n(arxiv)} ({n(req['oai'])} OAI-PMH, {n(req['api'])} API, {n(req['pdf'])} PDF); "
        f"{index_name} {n(index)} ({n(req['index_batch'])} batch, {n(req['index_citations'])} citation pages"
        + (f", {n(req['index_429'])} answered 429" if req["index_429"] else "")
        + f"; {n(dry['index_batch'] + dry['index_citations'])} of them in the dry run, "
        f"which estimated {n(result['dry_run_estimate']['index'])})",
        f"  PDFs: {n(result['pdfs_fetched'])} fetched, the plan said {n(result['pdfs_planned'])}"
        + (
            f"; {n(result.get('pdfs_downloaded'))} downloaded in the store"
            if "pdfs_downloaded" in result
            else ""
        )
        + uncounted,
        f"  on arXiv: {n(arxiv)} requests x {ARXIV_RULE_S:g} s + {n(index)} index requests x "
        f"{INDEX_RULE_S[result['index']]:g} s = {result['projected_hours']:.2f} h at the services' rules "
        f"(this world is {size})",
        f"  answers vs the world's truth: precision {_ratio(p)}, recall {_ratio(r)} over {n(sum(tasks.values()))} "
        f"tasks in {len(tasks)} settings; usable share of fetched papers {_ratio(result.get('usable_share'))}",
    ]
    if ia:
        lines.append(
            f"  index vs text: {n(ia.get('confirmed_by_text'))} of {n(ia.get('index_pairs'))} index pairs confirmed "
            f"({_ratio(ia.get('index_confirmed_rate'))}), {n(ia.get('text_only'))} text edges not in the index"
        )
    lines += [
        f"  here: {_duration(result['wall_s'])} (dry run {_duration(result['dry_run_s'])}, run "
        f"{_duration(result['run_s'])}"
        + (f"; {resumed} resumed session{'s' if resumed != 1 else ''}" if resumed else "")
        + f"), peak RSS {result['peak_rss_mb']:,.0f} MB (the paper run and its workers), "
        f"{result['stand_ins_rss_mb']:,.0f} MB (the world and the stand-ins)",
        f"  files: {result['run_dir']} (store.db, out/, dry_run.log, run.log, {LEDGER})",
    ]
    return lines


def _ratio(v) -> str:
    return "?" if v is None else f"{v:.4f}"


def _duration(seconds: float) -> str:
    seconds = round(seconds)
    if seconds < 60:
        return f"{seconds} s"
    if seconds < 3600:
        return f"{seconds // 60} min {seconds % 60:02d} s"
    return f"{seconds // 3600} h {seconds % 3600 // 60:02d} min"
