"""Report and audit queue on a real build: `paper` on ../shared/corpus through the arXiv-protocol
server (the same pipeline users run), then `report` and `audit` on what it stored."""

from __future__ import annotations

import json
import sqlite3
from collections import Counter
from html.parser import HTMLParser

import pytest
from click.testing import CliRunner

from reflong.cli import main
from reflong.servers.arxiv_server import ArxivServer

# --metadata api: the corpus knows papers at an unknown version (PDFs without a vN), which the API
# route keeps as such; arXivRaw (the OAI default) lists v1..vN, so their PDFs would be asked as v1.
ARGS = [
    "--metadata", "api",
    "--since", "2023-01", "--pool-months", "30", "--distractor-months", "12", "--categories", "",
    "--trim", "--max-doc-tokens", "4000", "--lengths", "15K:4,22K:6,30K:8",
    "--difficulty", "easy", "--tasks", "12", "--seed", "3",
]  # fmt: skip


class _Stats(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.stats: dict[str, str] = {}
        self.tags: Counter = Counter()
        self._open: str | None = None

    def handle_starttag(self, tag, attrs):
        self.tags[tag] += 1
        a = dict(attrs)
        self._open = a.get("data-stat")

    def handle_data(self, data):
        if self._open:
            self.stats[self._open] = data
            self._open = None


def _ok(args: list[str]) -> str:
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    return result.output


@pytest.fixture(scope="module")
def real_build(tmp_path_factory, corpus_dir):
    work = tmp_path_factory.mktemp("real")
    db, out = work / "store.db", work / "out"
    with ArxivServer(corpus_dir) as server:
        _ok(
            ["paper", *ARGS, "--db", str(db), "--cache", str(work / "cache"), "--arxiv-url", server.url, "--oai-url", server.oai_url,
             "--delay", "0", "--seeds", str(corpus_dir / "seeds.jsonl"), "--out", str(out)]
        )  # fmt: skip
    return db, out


@pytest.mark.slow
def test_report_on_a_real_build_matches_its_statistics(real_build, data_dir):
    db, out = real_build
    compare = data_dir / "reflong" / "Ref-Long-Paper" / "answers"
    _ok(["report", "--build", str(out), "--db", str(db), "--compare", str(compare)])
    parser = _Stats()
    html = (out / "report.html").read_text(encoding="utf-8")
    parser.feed(html)
    stats = parser.stats
    assert html.count("<td>ok</td>") == 3  # each answers file written by `paper` agrees with the store
    assert parser.tags["svg"] == 4 and parser.tags["script"] == 0
    con = sqlite3.connect(db)
    (build_id, n_tasks, fps) = con.execute(
        "SELECT id, n_tasks, distractor_false_positives FROM build ORDER BY id DESC"
    ).fetchone()
    assert stats["tasks_total"] == str(n_tasks) == "36"
    assert stats["distractor_false_positives"] == str(fps)
    for length in ("15K", "22K", "30K"):
        tokens = [
            n
            for (n,) in con.execute(
                "SELECT prompt_tokens FROM build_task WHERE build_id = ? AND length = ?", (build_id, length)
            )
        ]
        assert stats[f"tasks:easy_{length}"] == str(len(tokens)) == "12"
        assert stats[f"tokens_min:easy_{length}"] == f"{min(tokens):,}"
        assert stats[f"tokens_max:easy_{length}"] == f"{max(tokens):,}"
        name = f"easy_{length}_answers.json"
        path = out / "answers" / name if (out / "answers" / name).is_file() else out / name
        answers = json.loads(path.read_text())
        sizes = Counter(len(v[1]) for v in answers.values())
        for n, count in sizes.items():
            cell = stats[f"answer_size_{n}:easy_{length}"]
            assert cell.split(" / ")[0] == str(count)
    released = json.loads((compare / "easy_30K_answers.json").read_text())
    assert stats["answer_size_2:easy_30K"].endswith(f" / {sum(len(v[1]) == 2 for v in released.values())}")
    # Edge counts by method and band are the stored edges of the build's keys.
    keys = [
        k
        for (k,) in con.execute(
            "SELECT DISTINCT key_arxiv_id FROM build_task WHERE build_id = ?", (build_id,)
        )
    ]
    marks = ",".join("?" * len(keys))
    for method, band, n in con.execute(
        f"SELECT method, band, count(*) FROM citation WHERE seed_arxiv_id IN ({marks}) GROUP BY method, band",
        keys,
    ):
        assert stats[f"edges:{method}:{band}"] == str(n)
    # The review queue size is what `audit --build` lists.
    rows = [
        json.loads(x)
        for x in _ok(["audit", "--db", str(db), "--build-id", str(build_id), "--format", "jsonl"]).splitlines()
    ]
    assert stats["review_queue"] == str(len(rows)) and rows
    for kind, n in Counter(r["kind"] for r in rows).items():
        assert stats[f"queue:{kind}"] == str(n)
    assert all(r["seed_arxiv_id"] in keys or r["kind"] != "review" for r in rows)


@pytest.mark.slow
def test_report_escapes_a_key_title_with_markup(real_build, tmp_path):
    db, _out = real_build
    con = sqlite3.connect(db)
    (key,) = con.execute("SELECT key_arxiv_id FROM build_task ORDER BY id LIMIT 1").fetchone()
    evil = "</td><script>alert(1)</script><td>"
    con.execute("UPDATE build_task SET key_title = key_title || ? WHERE key_arxiv_id = ?", (evil, key))
    con.execute("UPDATE seed SET title = title || ? WHERE arxiv_id = ?", (evil, key))
    con.commit()
    con.close()
    target = tmp_path / "report"
    (build_id,) = sqlite3.connect(db).execute("SELECT max(id) FROM build").fetchone()
    _ok(["report", "--build", str(target), "--build-id", str(build_id), "--db", str(db)])
    html = (target / "report.html").read_text(encoding="utf-8")
    assert "<script" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    parser = _Stats()
    parser.feed(html)
    assert parser.tags["script"] == 0 and parser.tags["svg"] == 4
