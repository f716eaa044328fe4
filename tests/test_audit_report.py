"""The build report: valid HTML, figures that match the store, escaped paper text, deterministic."""

from __future__ import annotations

import json
import sqlite3
import statistics
from collections import Counter
from html.parser import HTMLParser

import pytest
from _audit_store import EVIL_TITLE, make_build
from click.testing import CliRunner

from reflong.cli import main


class _Collect(HTMLParser):
    """Checks nesting while collecting data-stat cells, svg ids and script tags."""

    VOID = frozenset({"meta", "br", "img", "input", "link", "hr"})

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[str] = []
        self.stats: dict[str, str] = {}
        self.svg_ids: list[str] = []
        self.scripts = 0
        self._stat: str | None = None
        self.errors: list[str] = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "script":
            self.scripts += 1
        if tag == "g" and a.get("id", "").startswith("fig-"):
            self.svg_ids.append(a["id"])
        if "data-stat" in a:
            self._stat = a["data-stat"]
        if tag not in self.VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag, attrs):
        pass

    def handle_endtag(self, tag):
        if tag in self.VOID:
            return
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"</{tag}> closes {self.stack[-1:]}")
            return
        self.stack.pop()

    def handle_data(self, data):
        if self._stat is not None:
            self.stats[self._stat] = data
            self._stat = None


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    root = tmp_path_factory.mktemp("report")
    db, out = root / "store.db", root / "out"
    build_id = make_build(db, out)
    return db, out, build_id


def _run(*args: str) -> str:
    result = CliRunner().invoke(main, list(args))
    assert result.exit_code == 0, result.output
    return result.output


@pytest.mark.slow
def test_report_matches_the_store_and_ref_long(built, data_dir):
    db, out, build_id = built
    compare = data_dir / "reflong" / "Ref-Long-Paper" / "answers"
    printed = _run("report", "--build", str(out), "--db", str(db), "--compare", str(compare))
    path = out / "report.html"
    assert printed.strip() == f"report on build {build_id}: {path}"
    html = path.read_text(encoding="utf-8")
    parser = _Collect()
    parser.feed(html)
    parser.close()
    assert parser.errors == [] and parser.stack == []
    assert parser.scripts == 0  # no script at all: neither ours nor one smuggled in by a title
    assert parser.svg_ids == ["fig-prompt-tokens", "fig-answer-sizes", "fig-keys", "fig-edge-scores"]
    assert "<script" not in html.lower() and "&lt;script&gt;" in html

    # Independent figures straight from the SQLite file.
    con = sqlite3.connect(db)
    rows = con.execute(
        "SELECT difficulty, length, prompt_tokens, answer_json, key_arxiv_id FROM build_task"
    ).fetchall()
    tokens: dict[str, list[int]] = {}
    sizes: dict[str, Counter] = {}
    for difficulty, length, n, answer, _ in rows:
        tokens.setdefault(f"{difficulty}_{length}", []).append(n)
        sizes.setdefault(f"{difficulty}_{length}", Counter())[len(json.loads(answer))] += 1
    stats = parser.stats
    assert stats["tasks_total"] == str(len(rows)) == "48"
    assert stats["settings"] == "4" and stats["keys"] == "3"
    assert stats["distractor_false_positives"] == "1" and stats["dropped_tasks"] == "1"
    for setting, values in tokens.items():
        assert stats[f"tasks:{setting}"] == str(len(values))
        assert stats[f"tokens_min:{setting}"] == f"{min(values):,}"
        assert stats[f"tokens_max:{setting}"] == f"{max(values):,}"
        assert stats[f"tokens_median:{setting}"].replace(",", "") in {
            f"{statistics.median(values):.0f}",
            f"{statistics.median(values):.1f}",
        }
    for setting, counts in sizes.items():
        released = json.loads((compare / f"{setting}_answers.json").read_text())
        theirs = Counter(len(v[1]) for v in released.values())
        for n in range(2, 6):
            assert stats[f"answer_size_{n}:{setting}"] == f"{counts.get(n, 0)} / {theirs.get(n, 0)}"
    # Every task of key 2403.00003 has 4 answers, and its positives are the same 4 documents.
    assert stats["positives:2403.00003"] == "4" and stats["positives:2403.00002"] == "3"
    # Edges of the build's keys (9 citing papers, cycling through EDGES), and the review queue.
    edges = Counter(con.execute("SELECT method || ':' || band FROM citation").fetchall())
    for (mb,), n in edges.items():
        assert stats[f"edges:{mb}"] == str(n)
    assert stats["edges:title:review"] == "3" and stats["edges:arxiv_id:accept"] == "3"
    # Queue: 1 distractor hit, 3 review edges, 2 title-only accepts below 95, 1 dropped task.
    assert stats["queue:distractor_fp"] == "1" and stats["queue:review"] == "3"
    assert stats["queue:title_only"] == "2" and stats["queue:dropped_task"] == "1"
    assert stats["review_queue"] == str(1 + 3 + 2 + 1 + int(stats.get("queue:near_dup_seeds", "0")))
    # The outputs folder agrees with the store.
    assert html.count("<td>ok</td>") == 4
    # Self-contained: inline SVG only, nothing fetched from elsewhere.
    assert "https://" not in html and "http://" not in html.replace("http://www.w3.org/", "")
    assert "<img" not in html and "<link" not in html


@pytest.mark.slow
def test_report_is_deterministic_and_flags_tampered_outputs(built):
    db, out, build_id = built
    _run("report", "--build", str(out), "--db", str(db), "--build-id", str(build_id))
    first = (out / "report.html").read_bytes()
    _run("report", "--build", str(out), "--db", str(db), "--build-id", str(build_id))
    assert (out / "report.html").read_bytes() == first
    answers = json.loads((out / "easy_30K_answers.json").read_text())
    answers["3"][1] = [0]
    tampered = out.parent / "tampered"
    tampered.mkdir()
    for f in out.glob("*_answers.json"):
        (tampered / f.name).write_text(f.read_text())
    (tampered / "easy_30K_answers.json").write_text(json.dumps(answers))
    con = sqlite3.connect(db)
    con.execute("UPDATE build SET out_dir = ? WHERE id = ?", (str(tampered), build_id))
    con.commit()
    con.close()
    _run("report", "--build", str(tampered), "--db", str(db))
    html = (tampered / "report.html").read_text()
    assert "1 tasks differ from the store (first: 3)" in html
    assert EVIL_TITLE not in html


def test_report_errors_are_one_line(tmp_path):
    from reflong.db import open_store

    for name in ("empty.db", "e.db"):  # existing but empty stores (a missing one: test_cli_readonly)
        open_store(tmp_path / name).dispose()
    result = CliRunner().invoke(main, ["report", "--build", str(tmp_path), "--db", str(tmp_path / "empty.db")])
    assert result.exit_code == 1
    assert "the store has no build yet" in result.output
    result = CliRunner().invoke(
        main, ["report", "--build", str(tmp_path), "--db", str(tmp_path / "e.db"), "--compare", str(tmp_path)]
    )
    assert result.exit_code == 1 and "no *_answers.json files" in result.output


def test_report_and_queue_on_a_build_without_tasks(tmp_path):
    from reflong.db import Build, open_store, session_for

    engine = open_store(tmp_path / "s.db")
    with session_for(engine) as s:
        s.add(Build(tool_version="0.1.0", out_dir=str(tmp_path / "out")))
        s.commit()
    assert _run("audit", "--db", str(tmp_path / "s.db")).strip() == (
        "kind           key                            method           score  band    citing title | reference\n"
        "0 rows: nothing to review"
    )
    _run("report", "--build", str(tmp_path / "out"), "--db", str(tmp_path / "s.db"))
    html = (tmp_path / "out" / "report.html").read_text()
    assert html.count("This build has no tasks.") == 2 and "No citation edges point at this build" in html


def test_long_reference_strings_are_clipped_in_the_middle():
    from reflong.assemble.audit.report import _clip

    authors = ", ".join(f"A. Author{i}" for i in range(80))
    ref = f"{authors}. A Title That Matters. In Venue, 2024."
    clipped = _clip(ref)
    assert len(clipped) < 330 and clipped.startswith("A. Author0,") and clipped.endswith("In Venue, 2024.")
    assert " … " in clipped and _clip("short") == "short"
