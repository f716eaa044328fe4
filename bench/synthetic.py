"""Time the synthetic subsets end to end and print figures (no pass/fail; ratios are the point).

    python bench/synthetic.py [--shared ../shared] [--skip-f]

Runs, each in a fresh subprocess (wall time and peak RSS):
- A, --preset reflong2025, all 18 files (1,800 tasks) with parquet dataset, card and manifest
  (the issue's target: under 30 s on this machine);
- A, default (1,000-token documents), the same 1,800 tasks;
- F, --preset reflong2025, 21 files (2,100 tasks), unless --skip-f;
and, as the peer, what counting every A prompt in full would cost (the builders instead sum
cached per-document counts; tests check both agree).
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def run(args: list[str]) -> tuple[float, float]:
    """(seconds, peak RSS MiB) of one ``reflong-build`` run in a child process."""
    code = "import sys; from reflong.cli import main; sys.argv = ['reflong-build', *sys.argv[1:]]; main()"
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    start = time.perf_counter()
    subprocess.run([sys.executable, "-I", "-c", code, *args], check=True, stdout=subprocess.DEVNULL)
    seconds = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return seconds, max(peak, before) / 1024


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--shared", default=str(REPO.parent / "shared"))
    parser.add_argument("--skip-f", action="store_true")
    opts = parser.parse_args()
    data = Path(opts.shared) / "data"
    essays = str(data / "pg_essays")
    with tempfile.TemporaryDirectory() as tmp:
        rows = []
        preset_out = Path(tmp) / "a_preset"
        secs, mib = run(["a", "--preset", "reflong2025", "--haystack", essays, "--out", str(preset_out)])
        rows.append(("A preset, 1,800 tasks, JSON+parquet+card+manifest", secs, mib))
        secs_json, mib = run(
            ["a", "--preset", "reflong2025", "--haystack", essays, "--out", f"{tmp}/a_json", "--no-dataset"]
        )
        rows.append(("A preset, 1,800 tasks, JSON+card+manifest only", secs_json, mib))
        secs_def, mib = run(["a", "--haystack", essays, "--out", f"{tmp}/a_default"])
        rows.append(("A default (1,000-token docs), 1,800 tasks, all outputs", secs_def, mib))
        if not opts.skip_f:
            secs_f, mib = run(
                ["f", "--preset", "reflong2025", "--summhay", str(data / "summhay"), "--out", f"{tmp}/f"]
            )
            rows.append(("F preset, 2,100 tasks, all outputs", secs_f, mib))

        # Peer: count every A prompt in full with the same tokenizer.
        sys.path.insert(0, str(REPO))
        from reflong.common.tokenizer import get_tokenizer

        tok = get_tokenizer("o200k_base")
        start = time.perf_counter()
        total = 0
        for path in sorted((preset_out / "before").glob("*.json")):
            for _, prompt in json.loads(path.read_text()).values():
                total += tok.count(prompt)
        peer = time.perf_counter() - start

    print(f"{'run':<58} {'seconds':>8} {'peak MiB':>9}")
    for name, secs, mib in rows:
        print(f"{name:<58} {secs:>8.1f} {mib:>9.0f}")
    print(
        f"peer: counting all 1,800 A prompts in full: {peer:.1f} s for {total:,} tokens "
        "(the builders sum cached per-document counts instead); "
        f"whole preset build / full counting = {rows[0][1] / peer:.2f}"
    )
    print(
        f"target: whole A subset under 30 s -> {'met' if rows[0][1] < 30 else 'NOT met'} ({rows[0][1]:.1f} s)"
    )


if __name__ == "__main__":
    main()
