"""The report's edge counts say they count only the edges to the build's keys, and how many the
store holds in all, the figure `reflong-build stats` shows (issue 20, finding 10h)."""

from __future__ import annotations

import re
from html import unescape

import pytest
from _audit_store import KEYS, make_build
from click.testing import CliRunner
from sqlmodel import Session

from reflong.cli import main
from reflong.db import Citation, open_store


def test_report_edge_counts_name_their_scope_and_the_stores_total(tmp_path):
    db, out = tmp_path / "s.db", tmp_path / "out"
    make_build(db, out)
    with Session(open_store(db)) as session:  # an edge to a seed that is no key of the build
        session.add(
            Citation(citing_arxiv_id="2405.77777", citing_version=1, seed_arxiv_id="2403.09999", ref_order=1,
                     reference="Someone (2024). Not a key.", method="title", score=96.0, band="accept")
        )  # fmt: skip
        session.commit()
    stats = CliRunner().invoke(main, ["stats", "--db", str(db)])
    assert stats.exit_code == 0, stats.output
    block = stats.output.split("edges:")[1].split("audits:")[0]
    store_total = sum(int(n) for n in re.findall(r":\s+(\d+)", block))
    result = CliRunner().invoke(main, ["report", "--db", str(db), "--build", str(out)])
    assert result.exit_code == 0, result.output
    text = unescape(re.sub(r"<[^>]+>", "", (out / "report.html").read_text()))
    scope = re.search(r"Only the (\d+) edges to this build's (\d+) keys are counted here; the store holds "
                      r"(\d+) edges to every seed \(`reflong-build stats`\)", text)  # fmt: skip
    assert scope, text[text.find("Edge scores") :][:1500]
    in_build, keys, total = map(int, scope.groups())
    assert keys == len(KEYS) and total == store_total and in_build == store_total - 1


@pytest.mark.parametrize("command", [["report"], ["audit"], ["audit", "export", "--csv", "{tmp}/r.csv"]])
def test_a_folder_that_holds_no_build_is_refused_in_one_line_and_nothing_is_written(command, tmp_path):
    # issue 38: report and audit took the store's latest build instead, exit 0, and report wrote
    # its page into the unrelated folder
    db, out = tmp_path / "s.db", tmp_path / "out"
    make_build(db, out)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    argv = [a.format(tmp=tmp_path) for a in command]
    result = CliRunner().invoke(main, [*argv[:1], "--db", str(db), *argv[1:], "--build", str(elsewhere)])
    assert result.exit_code == 1, result.output
    assert result.output.strip().splitlines() == [
        f"Error: --build {elsewhere}: no build of this store was written there; its builds are in {out} "
        "(or give --build-id ID; `reflong-build stats` lists the builds)"
    ]
    assert list(elsewhere.iterdir()) == [] and not (tmp_path / "r.csv").exists()
    # the build's own folder still works
    ok = CliRunner().invoke(main, [*argv[:1], "--db", str(db), *argv[1:], "--build", str(out)])
    assert ok.exit_code == 0, ok.output
