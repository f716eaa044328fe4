"""Peak RSS of reading a paper build's inputs from a store (the step that held a refresh's peak).

    python bench/paper_inputs_rss.py --db STORE.db --window 2024-06:s1:p6:d2 [--build OUT_DIR]

A scale-1 refresh peaked at 1.25, 2.0, 3.8 and 6.1 GB in its four releases. The peak was
``load_paper_inputs`` (assembly's read of keys, documents and edges), which loaded every stored
edge (2.0 M by the fourth release, every release's kept rejects) as an ORM object and every
release's parsed text. This script runs that one function in a child process, so the figure is
that step's alone, and prints one JSON line: the store's edge and parsed-text counts, what the
build read (keys, documents), the child's peak RSS and seconds, and a digest of everything it
returned (fixed hash seed), so that two versions of the code can be compared on the same store.
With ``--build OUT_DIR``, a second child runs the whole assembly (``run_paper_build`` with the
default settings, a refresh's) into OUT_DIR and adds its peak RSS, seconds and task count: the
assemble stage's peak as a refresh sees it. That run records a build in the store, so give it a
copy of a store, never one a refresh still uses; without it the store is only read.
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

CHILD = r"""
import dataclasses, hashlib, json, resource, sys, time
from pathlib import Path
from sqlalchemy import create_engine
from reflong.assemble.paper.build import PaperSettings
from reflong.assemble.paper.inputs import load_paper_inputs
from reflong.assemble.paper.stage import run_paper_build

engine = create_engine("sqlite:///" + sys.argv[1])
window, out = sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else None
start = time.monotonic()
if out is not None:
    result = run_paper_build(engine, window, Path(out), PaperSettings())
    figures = {"build_tasks": result.n_tasks}
    prefix = "build_"
else:
    inputs = load_paper_inputs(engine, window)
    digest = hashlib.sha256()
    for f in dataclasses.fields(inputs):
        digest.update(repr(getattr(inputs, f.name)).encode())
    figures = {
        "keys": len(inputs.keys),
        "documents": len(inputs.docs),
        "positives": sum(len(k.positives) for k in inputs.keys),
        "inputs_sha256": digest.hexdigest(),
    }
    prefix = ""
figures[prefix + "seconds"] = round(time.monotonic() - start, 1)
figures[prefix + "peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
print(json.dumps(figures))
"""


def _store_counts(db: Path) -> dict[str, int]:
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return {
            "edges_in_store": con.execute("SELECT count(*) FROM citation").fetchone()[0],
            "parsed_texts_in_store": con.execute("SELECT count(*) FROM parsed_doc").fetchone()[0],
            "papers_in_store": con.execute("SELECT count(*) FROM paper").fetchone()[0],
        }
    finally:
        con.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--db", required=True, type=Path, help="the store (SQLite file), e.g. a refresh's store.db"
    )
    ap.add_argument("--window", required=True, help="the window label, e.g. 2024-06:s1:p6:d2 (releases.json)")
    ap.add_argument(
        "--build", type=Path, help="also run the whole assembly into this folder (writes a build record)"
    )
    args = ap.parse_args()
    if not args.db.is_file():
        sys.exit(f"paper_inputs_rss: no store at {args.db}")
    counts = _store_counts(args.db)
    figures = {"window": args.window, **counts, **_child(args.db, args.window)}
    if args.build is not None:
        figures.update(_child(args.db, args.window, args.build))
    print(json.dumps(figures))


def _child(db: Path, window: str, build: Path | None = None) -> dict:
    """One fresh process per measurement, so each peak RSS is that step's alone. It runs from the
    store's folder (not the checkout, whose ``reflong/`` would shadow the installed package) and
    with a fixed hash seed (the digest covers sets)."""
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    extra = [str(build.resolve())] if build is not None else []
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(db.resolve()), window, *extra],
        capture_output=True,
        text=True,
        env=env,
        cwd=db.resolve().parent,
        check=False,
    )
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no message"])[-1]
        sys.exit(f"paper_inputs_rss: the child failed (exit {done.returncode}): {last}")
    return json.loads(done.stdout.strip().splitlines()[-1])


if __name__ == "__main__":
    main()
