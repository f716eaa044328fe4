"""The PDF plan and licences (issue 21): the arXiv API route gives none, and the plan says so.

arXiv's API feed (Atom) has no licence element, so papers harvested with ``--metadata api`` have no
licence known: ``--licenses`` drops them and the card counts them as not republishable. The plan
used to say nothing of it; now a line names the count and the way out (``--metadata oai``). A small
synthetic world through the real path: the arXiv stand-in on 127.0.0.1, ``ingest --dry-run``.
"""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from reflong.cli import main
from reflong.demo.generate import generate
from reflong.demo.world import SynthConfig
from reflong.servers.arxiv_server import ArxivServer

SINCE = "2024-03"
WINDOW = "2024-03:s1:p6:d2"


@pytest.fixture(scope="module")
def world(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("world")
    generate(root / "catalog", SynthConfig(papers=60, seed=0, since=SINCE), jobs=1)
    return root / "catalog"


def _plan(world: Path, db: Path, *extra: str) -> str:
    with ArxivServer(world) as ax:
        args = [
            "ingest", "--since", SINCE, "--categories", "", "--arxiv-url", ax.url, "--oai-url", ax.oai_url,
            "--delay", "0", "--db", str(db), "--cache", str(db.parent / "cache"), "--citation-index", "none",
            "--dry-run", *extra,
        ]  # fmt: skip
        out = CliRunner().invoke(main, args)
    assert out.exit_code == 0, out.output
    return out.output


def test_the_plan_says_the_api_route_leaves_licences_unknown(world, tmp_path):
    api = _plan(world, tmp_path / "api.db", "--metadata", "api")
    m = re.search(r"licences: (\d+) papers of the window: licence unknown \(API route", api)
    assert m, api
    con = sqlite3.connect(tmp_path / "api.db")
    (in_window,) = con.execute(
        "select count(*) from paper_role r join paper p on p.arxiv_id = r.arxiv_id and p.version = r.version "
        "where r.window = ? and p.license is null",
        (WINDOW,),
    ).fetchone()
    con.close()
    assert int(m[1]) == in_window > 0
    # Through OAI-PMH (arXivRaw) every paper of the stand-in has its licence: no such line.
    oai = _plan(world, tmp_path / "oai.db")
    assert "licence unknown" not in oai and "plan for window" in oai
