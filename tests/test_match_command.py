"""``reflong-build match``: raw reference strings x a seed list -> decisions with evidence.

Material is real: reference strings and seeds of tests/data/real/citation_styles (GROBID,
AnyStyle and CORA training data, see its SOURCES.md). The decisions are checked against the
pipeline itself: the same strings stored as a reference list in a real SQLite store and resolved
by ``resolve`` must give the same bands and seeds.
"""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from sqlmodel import Session, select

from reflong.citations.fields.entry_parse import parse_entry
from reflong.citations.stages.cite_stage import store_entries
from reflong.citations.stages.resolve_stage import run_resolve
from reflong.cli import main
from reflong.db import Citation, open_store

DATA = Path(__file__).resolve().parent / "data" / "real" / "citation_styles"
CITING = "2401.00001"


def _text(path: Path) -> str:
    """A file of the set; the entries are gzipped (they would pass 1 MiB as plain text)."""
    return (
        gzip.decompress(path.read_bytes()).decode("utf-8")
        if path.suffix == ".gz"
        else path.read_text("utf-8")
    )


def _rows(name: str) -> list[dict]:
    return [json.loads(line) for line in _text(DATA / name).splitlines()]


@pytest.fixture(scope="module")
def sample() -> tuple[list[dict], list[dict]]:
    """Forty dev entries of every style (the first of each in file order) and the dev seeds."""
    entries = _rows("entries.dev.jsonl.gz")
    picked: list[dict] = []
    for style in sorted({e["style"] for e in entries}):
        picked += [e for e in entries if e["style"] == style][:40]
    return picked, _rows("seeds.dev.jsonl")


def _write(tmp_path: Path, entries: list[dict], seeds: list[dict]) -> tuple[Path, Path]:
    e, s = tmp_path / "entries.jsonl", tmp_path / "seeds.jsonl"
    e.write_text(
        "".join(json.dumps({"id": x["id"], "citing": CITING, "raw": x["raw"]}) + "\n" for x in entries)
    )
    s.write_text("".join(json.dumps(x) + "\n" for x in seeds))
    return e, s


def _match(*args: str) -> tuple[int, str, str]:
    res = CliRunner().invoke(main, ["match", *args])
    return res.exit_code, res.stdout, res.stderr


@pytest.mark.slow
def test_match_gives_the_pipelines_decisions_on_real_strings(sample, tmp_path):
    entries, seeds = sample
    entries_file, seeds_file = _write(tmp_path, entries, seeds)
    code, out, err = _match("--seeds", str(seeds_file), "--entries", str(entries_file), "--format", "jsonl")
    assert code == 0, err
    rows = [json.loads(line) for line in out.splitlines()]
    assert [r["id"] for r in rows] == [e["id"] for e in entries]
    assert f"match: {len(entries)} entries x {len(seeds)} seeds" in err

    # The pipeline: the same strings as one stored reference list, resolved by the resolve stage.
    engine = open_store(tmp_path / "store.db")
    with Session(engine) as session:
        store_entries(session, CITING, 1, [parse_entry(e["raw"]) for e in entries], "builtin-test", "t", None)
        session.commit()
    run_resolve(engine, str(seeds_file))
    with Session(engine) as session:
        edges = session.exec(select(Citation)).all()
    best: dict[int, tuple[str, str]] = {}
    for edge in sorted(
        edges, key=lambda c: (c.band != "accept", c.band != "review", -c.score, c.seed_arxiv_id)
    ):
        if edge.band in ("accept", "review"):
            best.setdefault(edge.ref_order, (edge.band, edge.seed_arxiv_id))
    for order, row in enumerate(rows, start=1):
        band, seed = best.get(order, ("none", None))
        assert (row["decision"], row["seed"] if band == "accept" else None) == (
            band,
            seed if band == "accept" else None,
        ), (row, band, seed)
    # Real decisions of all three kinds come out, with evidence on each.
    decisions = {r["decision"] for r in rows}
    assert {"accept", "none"} <= decisions
    for r in rows:
        if r["decision"] != "none":
            assert r["seed"] and r["method"] in ("title", "doi", "arxiv_id") and r["reason"]


def test_match_accepts_the_gold_seed_of_clear_real_entries(tmp_path):
    """Entries whose seed title is printed closed by punctuation resolve to their gold seed;
    entries citing a work outside the seed list resolve to nothing."""
    entries = {e["id"]: e for e in _rows("entries.dev.jsonl.gz")}
    seeds = _rows("seeds.dev.jsonl")
    titles = {s["arxiv_id"]: s["title"] for s in seeds}
    clear = [
        e
        for e in entries.values()
        if e["gold"] and e["source"] == "grobid-cs" and f"{titles[e['gold']]}." in e["raw"]
    ][:20]
    outside = [e for e in entries.values() if e["gold"] is None and e["source"] == "grobid-cs"][:20]
    assert len(clear) == 20 and len(outside) == 20
    entries_file, seeds_file = _write(tmp_path, clear + outside, seeds)
    code, out, err = _match("--seeds", str(seeds_file), "--entries", str(entries_file))
    assert code == 0, err
    lines = [line.split("\t") for line in out.splitlines()]
    got = {cols[0]: (cols[1], cols[2]) for cols in lines}
    assert all(len(cols) == 5 for cols in lines)
    assert sum(got[e["id"]] == ("accept", e["gold"]) for e in clear) >= 19
    assert sum(got[e["id"]][0] == "accept" for e in outside) <= 1


def test_seeds_as_csv_give_the_same_decisions(sample, tmp_path):
    entries, seeds = sample
    entries_file, seeds_file = _write(tmp_path, entries[:60], seeds)
    csv_file = tmp_path / "seeds.csv"
    import csv

    with open(csv_file, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["arxiv_id", "title", "first_author", "published"])
        for s in seeds:
            w.writerow([s["arxiv_id"], s["title"], s["first_author"] or "", s["published"] or ""])
    a = _match("--seeds", str(seeds_file), "--entries", str(entries_file))
    b = _match("--seeds", str(csv_file), "--entries", str(entries_file))
    assert a[0] == b[0] == 0 and a[1] == b[1]


@pytest.mark.parametrize(
    ("content", "needle"),
    [
        (
            '{"id": "a", "citing": "x", "raw": "A title. 2020."}\n\n{"id": "b", "raw": "x"\n',
            "line 3: not JSON",
        ),
        ('{"id": "a", "citing": "x"}\n', 'line 1: no "raw" reference string'),
        ('["a", "b"]\n', "line 1: expected a JSON object"),
        ('{"id": {"x": 1}, "raw": "A title"}\n', 'line 1: "id" and "citing" must be strings'),
        ("", "lists no entries"),
        # a 50 MB string took 264 s and 744 MB: past 20,000 characters it is refused before matching
        (
            json.dumps({"id": "a", "raw": "A title. " * 2223}) + "\n",
            'line 1: a "raw" string of 20,007 characters',
        ),
    ],
)
def test_a_malformed_entries_file_is_one_line_naming_the_line(tmp_path, content, needle):
    entries_file = tmp_path / "entries.jsonl"
    entries_file.write_text(content)
    seeds_file = tmp_path / "seeds.jsonl"
    seeds_file.write_text(json.dumps({"arxiv_id": "w1", "title": "A title"}) + "\n")
    code, out, err = _match("--seeds", str(seeds_file), "--entries", str(entries_file))
    assert code == 1 and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: --entries") and needle in lines[0], err
    assert "Traceback" not in err


@pytest.mark.parametrize(
    ("name", "content", "needle"),
    [
        ("seeds.jsonl", '{"title": "x"}\n', "--seeds"),
        ("seeds.csv", "id;name\n1;x\n", "needs arxiv_id and title columns"),
        ("seeds.csv", "arxiv_id,title\nw1,\n", "line 2: empty arxiv_id or title"),
        ("missing.jsonl", None, "no such file"),
    ],
)
def test_a_bad_seed_list_is_one_line(tmp_path, name, content, needle):
    seeds_file = tmp_path / name
    if content is not None:
        seeds_file.write_text(content)
    entries_file = tmp_path / "entries.jsonl"
    entries_file.write_text('{"id": "a", "citing": "x", "raw": "A title. 2020."}\n')
    code, out, err = _match("--seeds", str(seeds_file), "--entries", str(entries_file))
    assert code == 1 and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: ") and needle in lines[0], err


def test_review_above_accept_is_refused(tmp_path):
    f = tmp_path / "x.jsonl"
    f.write_text('{"id": "a", "raw": "x"}\n')
    code, _, err = _match("--seeds", str(f), "--entries", str(f), "--accept", "80", "--review", "85")
    assert code == 1 and "--review 85.0 is above --accept 80.0" in err


def test_progress_goes_to_stderr_and_stdout_holds_only_decisions(sample, tmp_path, monkeypatch):
    monkeypatch.setenv("REFLONG_PROGRESS_SECONDS", "0")  # a progress line at every entry
    entries, seeds = sample
    entries_file, seeds_file = _write(tmp_path, entries[:5], seeds)
    code, out, err = _match("--seeds", str(seeds_file), "--entries", str(entries_file), "--format", "jsonl")
    assert code == 0, err
    assert len(out.splitlines()) == 5 and all(json.loads(line)["id"] for line in out.splitlines())
    assert "match: 5/5 entry (100%)" in err and "match: 5/5 entry done" in err
    last = re.fullmatch(
        rf"match: 5 entries x {len(seeds)} seeds: (\d+) accept, (\d+) review, (\d+) none",
        err.splitlines()[-1],
    )
    assert last and sum(map(int, last.groups())) == 5


def test_decisions_and_summary_never_share_a_line_with_the_progress_bar(sample, tmp_path):
    # REFLONG_PROGRESS=1 forces the tqdm bar as on a terminal, where stdout and stderr end on one
    # screen: no decision may be glued after the bar, and the summary is a line of its own.
    entries, seeds = sample
    entries_file, seeds_file = _write(tmp_path, entries[:5], seeds)
    res = CliRunner().invoke(
        main,
        ["match", "--seeds", str(seeds_file), "--entries", str(entries_file)],
        env={"REFLONG_PROGRESS": "1"},
    )
    assert res.exit_code == 0, res.output
    shown = [line.split("\r")[-1] for line in res.output.split("\n")]  # what a terminal keeps
    decisions = [line for line in shown if line.startswith("e")]
    assert [line.split("\t")[0] for line in decisions] == [e["id"] for e in entries[:5]]
    summary = [line for line in shown if line.startswith("match: 5 entries")]
    assert len(summary) == 1 and "\t" not in summary[0]
    glued = [line for line in shown if "%|" in line and "\t" in line]
    assert not glued, f"bar and decision on one line: {glued}"
