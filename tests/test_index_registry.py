"""Citation-index providers by name: a third provider is its module plus one registration.

The fake provider below is written as a provider module would be (a client answering from the
world's index view, and its ``PROVIDER`` declaration); registering it before the CLI is imported is
the only other step. The CLI's choices, options and help, and the plan, pick it up from the
registry: its dry run plans the same keys and PDFs as Semantic Scholar's stand-in serving the same
view.
"""

from __future__ import annotations

import dataclasses
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from reflong.cli import main
from reflong.db.engine import open_store
from reflong.demo.citation_graph import IndexConfig, write_world_index
from reflong.demo.generate import generate
from reflong.demo.world import SynthConfig
from reflong.ingest.index import registry
from reflong.ingest.plan.pdf_plan import PlanSettings, open_index
from reflong.servers.s2_server import S2Server

SINCE = "2024-03"

FAKE_PROVIDER_MODULE = '''
"""A third citation index: answers from an index view file (JSON lines), no network."""

import json
from collections import Counter
from pathlib import Path

from reflong.ingest.index.base import Citer, CitersPage, IndexedPaper
from reflong.ingest.index.provider import IndexProvider, IndexSetup, ProviderOption


class ViewIndex:
    source = "fake"
    batch_size = 7
    page_size = 1000
    max_citers = 10**9
    published_gap = 0.5

    def __init__(self, view: Path, delay: float | None) -> None:
        self.rows = [json.loads(x) for x in view.read_text().splitlines() if x]
        self.delay = 0.5 if delay is None else delay
        self.requests = Counter()

    def papers(self, arxiv_ids):
        self.requests["batch"] += 1
        counts = Counter(r["cited"] for r in self.rows)
        return [IndexedPaper(a, a in counts, counts[a], None, None, None) for a in arxiv_ids]

    def citers(self, arxiv_id, paper_key=None):
        self.requests["citations"] += 1
        rows = [r for r in self.rows if r["cited"] == arxiv_id]
        return CitersPage([Citer(r["citing_key"], r["citing_arxiv"], r["date"], r["title"]) for r in rows])


def open_client(setup: IndexSetup):
    client = ViewIndex(Path(setup.given("fake_view")), setup.delay)
    return client, f"{len(client.rows)} citations in a view, {client.delay:g} s/request"


PROVIDER = IndexProvider(
    name="fake",
    default_url="https://fake.example",
    key_env="FAKE_INDEX_KEY",
    url_help="Base URL of the fake index",
    description="the fake index (fake; answers from --fake-view)",
    delay_note="fake 0.5",
    open=open_client,
    options=(ProviderOption("--fake-view", "Index view (JSON lines) the fake index answers from.", metavar="FILE"),),
)
'''

# Registration is one line; it runs before the CLI is imported, which reads the registry.
RUN_CLI = """
import sys
sys.path.insert(0, sys.argv.pop(1))
import fake_index
from reflong.ingest.index.registry import register
register(fake_index.PROVIDER)
from reflong.cli import main
main(sys.argv[1:], prog_name="reflong-build")
"""


@pytest.fixture(scope="module")
def world(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("world")
    generate(root / "catalog", SynthConfig(papers=120, seed=0, since=SINCE), jobs=1)
    write_world_index(root / "catalog", since=SINCE, config=IndexConfig(seed=0, missing=0.3, spurious=0.2))
    return root / "catalog"


@pytest.fixture(scope="module")
def with_fake(tmp_path_factory):
    """``reflong-build`` with the fake provider registered: run(args) -> completed process."""
    here = tmp_path_factory.mktemp("fake")
    (here / "fake_index.py").write_text(textwrap.dedent(FAKE_PROVIDER_MODULE))
    (here / "run_cli.py").write_text(RUN_CLI)

    def run(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, str(here / "run_cli.py"), str(here), *args],
            capture_output=True,
            text=True,
            timeout=300,
        )

    return run


def _plan_args(world: Path, root: Path, *extra: str) -> list[str]:
    return [
        "ingest", "--source", str(world), "--since", SINCE, "--distractor-months", "6", "--pool-months", "6",
        "--categories", "", "--db", str(root / "store.db"), "--cache", str(root / "cache"),
        "--keys", "6", "--citers-per-key", "4", "--distractors", "10", "--controls", "3",
        "--index-delay", "0", "--dry-run", *extra,
    ]  # fmt: skip


def _plan_tables(db: Path) -> tuple[list, list]:
    con = sqlite3.connect(db)
    keys = con.execute(
        "select arxiv_id, citation_count, band, citers_in_pool from index_key order by arxiv_id"
    ).fetchall()
    picks = con.execute("select arxiv_id, role, seed_arxiv_id from plan_pick order by arxiv_id").fetchall()
    return keys, picks


@pytest.mark.slow
def test_the_cli_choices_and_help_come_from_the_registry(with_fake):
    assert registry.choices() == ["auto", "s2", "openalex", "none"]
    plain = CliRunner().invoke(main, ["ingest", "--help"]).output
    assert "[auto|s2|openalex|none]" in plain and "--fake" not in plain
    help_text = with_fake("ingest", "--help")
    assert help_text.returncode == 0, help_text.stderr
    out = " ".join(help_text.stdout.split())  # the help wraps lines
    assert "--citation-index [auto|s2|openalex|fake|none]" in out
    assert "with OpenAlex (openalex; key from OPENALEX_API_KEY), with the fake index (fake; answers from --fake-view), or sample the pool without one." in out  # fmt: skip
    assert "--fake-url TEXT Base URL of the fake index [default: https://fake.example]." in out
    assert "--fake-view FILE Index view (JSON lines) the fake index answers from." in out
    assert "S2 1 with S2_API_KEY, 3 without; OpenAlex 0.11; fake 0.5]" in out
    assert "--citation-index [auto|s2|openalex|fake|none]" in " ".join(
        with_fake("paper", "--help").stdout.split()
    )


@pytest.mark.slow
def test_a_registered_provider_plans_like_s2_on_the_same_index_view(world, with_fake, tmp_path):
    view = world / "s2_index.jsonl"
    fake = with_fake(
        *_plan_args(world, tmp_path / "fake", "--citation-index", "fake", "--fake-view", str(view))
    )
    assert fake.returncode == 0, fake.stderr
    n_rows = len(view.read_text().splitlines())
    first = fake.stdout.splitlines()[0]
    assert first == (
        f"plan for window 2024-03:s1:p6:d6; citation index: fake at https://fake.example "
        f"({n_rows} citations in a view, 0 s/request)"
    )
    with S2Server(world, shared_limit=1000, shared_window=1) as s2:
        ran = CliRunner().invoke(
            main, _plan_args(world, tmp_path / "s2", "--citation-index", "s2", "--s2-url", s2.url)
        )
    assert ran.exit_code == 0, ran.output
    fake_keys, fake_picks = _plan_tables(tmp_path / "fake" / "store.db")
    s2_keys, s2_picks = _plan_tables(tmp_path / "s2" / "store.db")
    assert len(fake_keys) == 6 and fake_keys == s2_keys  # same ids, counts, bands, citers in the pool
    assert fake_picks == s2_picks and {r for _, r, _ in fake_picks} == {"citer", "control", "distractor"}
    con = sqlite3.connect(tmp_path / "fake" / "store.db")
    assert {s for (s,) in con.execute("select distinct source from index_paper")} == {"fake"}
    seeds = con.execute("select count(*) from paper_role where role = 'seed'").fetchone()[0]
    assert con.execute("select count(*) from index_paper").fetchone()[0] == seeds  # every seed asked once
    index_line = next(x for x in fake.stdout.splitlines() if x.strip().startswith("index:"))
    assert f"(batch {-(-seeds // 7)}, citations " in index_line  # the fake's batch size: 7 ids


def test_auto_declines_with_every_providers_reason(tmp_path, monkeypatch):
    monkeypatch.delenv("S2_API_KEY", raising=False)
    engine = open_store(tmp_path / "s.db")
    given = {"openalex_url": "http://127.0.0.1:9"}
    index, why = open_index(engine, PlanSettings(index_options=given), 1.0, 0)
    assert index is None
    assert why == (
        "none (no S2_API_KEY and no --s2-url; --citation-index s2 uses the shared pool) "
        "(--openalex-url is used with --citation-index openalex)"
    )
    index, why = open_index(engine, PlanSettings(index_options={"s2_url": "http://127.0.0.1:9"}), 1.0, 0)
    assert index is not None and index.source == "s2"
    assert why == "s2 at http://127.0.0.1:9 (shared pool, no key, 3 s/request)"
    monkeypatch.setenv("OPENALEX_API_KEY", "k")
    monkeypatch.delenv("OPENALEX_MAILTO", raising=False)
    index, why = open_index(engine, PlanSettings(citation_index="openalex", index_delay=0.5), 1.0, 0)
    assert why == "openalex at https://api.openalex.org (no mailto, key, 0.5 s/request)"
    assert index.provider.policy.delay == 0.5 and index.provider.policy.retries == 0


def test_a_provider_name_is_registered_once():
    with pytest.raises(ValueError, match="exists already"):
        registry.register(registry.provider("s2"))
    with pytest.raises(ValueError, match="exists already"):
        registry.register(dataclasses.replace(registry.provider("openalex"), name="none"))
    assert registry.names() == ["s2", "openalex"]
