"""`reflong-build refresh` (issue 21): releases window after window on one store, with notes.

A tiny 2024 world (scale 0.001: 91 papers) served by the arXiv and Semantic Scholar stand-ins on
fixed ports: the first release (2024-03), then known changes (one released paper withdrawn, one
given a new version, one released positive rejected by an audit verdict), then the next release
(2024-04), whose notes must list exactly those three changes. The dry run's plan is what the run
then asks for; a rerun of a finished release makes no request and rewrites the same bytes;
`load_dataset` reads every release; cron's exit codes.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import socket
from collections import Counter
from datetime import date
from pathlib import Path

import pytest
from click.testing import CliRunner
from sqlmodel import Session, select

from reflong.assemble.release.layout import START_FILE
from reflong.cli import main
from reflong.common.licenses import kind_of
from reflong.db import Build, BuildTask, open_store
from reflong.db.audits import EdgeKey, record_verdict
from reflong.db.papers import Paper
from reflong.db.stats import store_rows
from reflong.demo.growing_world import grow_world
from reflong.demo.rehearsal import RehearsalSettings, StandIns
from reflong.ingest.plan.windows import add_months

# one growing world shared by every test here, each release building on the one before: slow as a
# whole, and on one xdist worker in file order (pyproject's --dist loadfile)
pytestmark = pytest.mark.slow

SCALE = 0.001
WHY = "the entry names another paper"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class World:
    """The world's folder, the store and release folder, and stand-ins restarted on the same ports."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.folder = root / "world"
        grow_world(self.folder, SCALE, "2024-10")
        self.ports = (_free_port(), _free_port())
        self.releases = root / "releases"

    def refresh(self, *args: str, store: str = "store.db", cache: str = "cache", out: Path | None = None):
        """Run `refresh` against freshly started stand-ins; the result and the requests they saw."""
        with StandIns(
            self.folder, RehearsalSettings(scale=SCALE), echo=lambda _: None, ports=self.ports
        ) as s:
            argv = [
                "refresh", "--db", str(self.root / store), "--cache", str(self.root / cache),
                "--out", str(out or self.releases), "--delay", "0", "--index-delay", "0", *s.url_options(),
                *args,
            ]  # fmt: skip
            result = CliRunner().invoke(main, argv, env={"S2_API_KEY": "test-key"})
            return result, s.counts()

    def amend(self, arxiv_id: str, day: str, withdraw: bool) -> int:
        """Give a paper of the catalog a new version dated ``day`` (a withdrawal notice or a text)."""
        path = self.folder / "papers.jsonl"
        lines = path.read_text(encoding="utf-8").splitlines()
        for i, line in enumerate(lines):
            rec = json.loads(line)
            if rec["arxiv_id"] != arxiv_id:
                continue
            number = len(rec["versions"]) + 1
            version = {"version": f"v{number}", "published": day, "size_kb": 1 if withdraw else 2100}
            if withdraw:
                version["withdrawn"] = True
                rec["comment"] = "The evaluation had an error"
            rec["versions"].append(version)
            rec.update(version=f"v{number}", published=day, datestamp=day)
            lines[i] = json.dumps(rec, ensure_ascii=False, separators=(",", ":"))
            path.write_text("\n".join(lines) + "\n", encoding="utf-8")
            return number
        raise AssertionError(f"{arxiv_id} is not in the catalog")

    def tree(self) -> dict[str, str]:
        return {
            p.relative_to(self.releases).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(self.releases.rglob("*"))
            if p.is_file()
        }


def _planned_pdfs(output: str) -> int:
    m = re.search(r"refresh plan for release \S+: \d+ requests \(.*PDFs (\d+) to fetch", output)
    assert m, output
    return int(m[1])


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    return World(tmp_path_factory.mktemp("refresh"))


def test_refresh_builds_releases_whose_notes_list_exactly_what_changed(world):
    # No release yet and no --since: a usage error naming the way out.
    first_try, _ = world.refresh()
    assert first_try.exit_code == 2 and "give --since YYYY-MM for the first one" in first_try.output

    # The first release, its plan printed first.
    # A non-default option: the next refresh, given none, carries it on (issue 21, item 2).
    first, counts = world.refresh("--since", "2024-03", "--key-form", "arxiv-id")
    assert first.exit_code == 0, first.output
    assert first.output.index("refresh plan for release 2024-03") < first.output.index("build 1:")
    assert (
        "settings for release 2024-03: no earlier release to carry settings from: defaults and the options "
        "given; given here: --key-form arxiv-id" in first.output
    )
    assert counts["pdf"] == _planned_pdfs(first.output) > 0
    manifest = json.loads((world.releases / "2024-03" / "release.json").read_text())
    assert manifest["release"] == "2024-03" and manifest["window"] == "2024-03:s1:p6:d2"
    assert manifest["previous"] is None and manifest["resolver"]["version"].startswith("resolve-")

    # Known changes: a released distractor withdrawn, another one revised, a released positive rejected.
    engine = open_store(world.root / "store.db")
    with Session(engine) as session:
        build = session.exec(select(Build).where(Build.window == "2024-03:s1:p6:d2")).one()
        tasks = session.exec(select(BuildTask).where(BuildTask.build_id == build.id)).all()
    docs = sorted({d for t in tasks for d in json.loads(t.documents_json)})
    distractors = [d for d in docs if d.startswith(("2401.", "2402."))]
    withdrawn, revised = distractors[0].split("v")[0], distractors[1].split("v")[0]
    task = next(t for t in tasks if json.loads(t.answer_json))
    positive = json.loads(task.documents_json)[json.loads(task.answer_json)[0]]
    key = task.key_arxiv_id
    affected = [  # in the order the notes list tasks: difficulty, length, task number
        f"2024-03/{t.difficulty}_{t.length}#{t.task_index}"
        for t in sorted(tasks, key=lambda t: (t.difficulty, t.length, t.task_index))
        if t.key_arxiv_id == key
        and positive in [json.loads(t.documents_json)[i] for i in json.loads(t.answer_json)]
    ]
    notice = world.amend(withdrawn, "2024-11-04", withdraw=True)
    new_version = world.amend(revised, "2024-11-05", withdraw=False)
    with Session(engine) as session:
        citing, version = positive.rsplit("v", 1)
        assert record_verdict(session, EdgeKey(citing, int(version), key), "reject", why=WHY, who="tester")
        session.commit()

    # The dataset folder moved between two releases: the earlier release's tasks are found from the
    # folder itself (its release.json), so its ground-truth change is still listed (item 3).
    moved = world.root / "moved" / "releases"
    moved.parent.mkdir()
    shutil.move(world.releases, moved)
    world.releases = moved

    # The next window's plan, then exactly the PDFs it planned.
    plan, _ = world.refresh("--dry-run")
    assert plan.exit_code == 0, plan.output
    assert "refresh plan for release 2024-04" in plan.output and "dry run: nothing downloaded" in plan.output
    assert not (world.releases / "2024-04" / "release.json").exists()
    second, counts = world.refresh()
    assert second.exit_code == 0, second.output
    assert counts["pdf"] == _planned_pdfs(second.output) == _planned_pdfs(plan.output)
    assert counts["index_batch"] == counts["index_citations"] == 0  # asked by the dry run, cached

    assert "settings for release 2024-04: from release 2024-03's release.json: --key-form arxiv-id" in (
        second.output
    )
    release = json.loads((world.releases / "2024-04" / "release.json").read_text())
    assert release["settings"]["key_form"] == "arxiv-id" and release["options"]["key_form"] == "arxiv-id"
    assert release["options"]["pool_months"] == 6 and release["options"]["licenses"] is None
    changes = release["changes"]
    assert changes["previous"] == "2024-03"
    assert changes["withdrawn"] == [
        {
            "arxiv_id": withdrawn, "version": notice, "date": "2024-11-04",
            "comment": "The evaluation had an error", "tasks": changes["withdrawn"][0]["tasks"],
            "releases": ["2024-03"],
        }
    ]  # fmt: skip
    assert changes["withdrawn"][0]["tasks"] > 0
    assert [(e["arxiv_id"], e["before"], e["now"]) for e in changes["new_versions"]] == [
        (revised, new_version - 1, new_version)
    ]
    assert changes["truth_changed"] == [
        {
            "document": positive, "key": key, "was": "positive", "now": "negative",
            "why": f"audit reject by tester: {WHY}", "tasks": affected,
        }
    ]  # fmt: skip
    assert changes["verdicts_since"] == 1 and changes["resolver"] == {}
    notes = (world.releases / "2024-04" / "RELEASE_NOTES.md").read_text()
    assert f"- {positive} -> key {key}: positive -> negative (audit reject by tester: {WHY})" in notes
    assert f"- {revised}: v{new_version - 1} -> v{new_version}" in notes
    # The store never read the new version (a distractor's, outside the window): said plainly.
    assert f"answers NOT rechecked against v{new_version}: the store holds no parsed text of it" in notes
    assert changes["new_versions"][0]["rechecked"] is False and changes["new_versions"][0]["as_document"] > 0
    assert f"- {withdrawn} (withdrawal notice v{notice}, 2024-11-04" in notes
    # The store's growth since the last release, from the counts each release records (item 2).
    rows_before = json.loads((world.releases / "2024-03" / "release.json").read_text())["store"]["rows"]
    rows = release["store"]["rows"]
    with Session(engine) as session:
        assert rows == store_rows(session)
    growth = changes["store_growth"]
    assert growth["references"] == rows["references"] - rows_before["references"] > 0
    assert growth["edges.reject"] == rows["edges"]["reject"] - rows_before["edges"]["reject"]
    assert growth["edges.accept"] == rows["edges"]["accept"] - rows_before["edges"]["accept"] > 0
    assert f"- references: {rows['references']:,} ({growth['references']:+,} since release 2024-03)" in notes

    # The card lists both releases; `datasets` reads every release, each row with its `release`.
    card = (world.releases / "README.md").read_text()
    assert "| 2024-03 | `2024-03:s1:p6:d2` |" in card and "| 2024-04 | `2024-04:s1:p6:d2` |" in card
    import datasets

    index = json.loads((world.releases / "releases.json").read_text())
    assert [r["release"] for r in index["releases"]] == ["2024-03", "2024-04"]
    expected: dict[str, dict[str, int]] = {}
    for label in ("2024-03", "2024-04"):
        for config, n in json.loads((world.releases / label / "release.json").read_text())["tasks"].items():
            expected.setdefault(config, {})[label] = n
    for config, per_release in expected.items():
        # a cache of this test's own: the user-wide one may hold another folder's build at this path
        cache = world.root / "hf-cache"
        ds = datasets.load_dataset(str(world.releases), config, split="test", cache_dir=str(cache))
        seen: dict[str, int] = {}
        for release in ds["release"]:
            seen[release] = seen.get(release, 0) + 1
        assert seen == per_release, config

    # A rerun of a finished release: no request at all, the same bytes everywhere.
    before = world.tree()
    again, counts = world.refresh("--since", "2024-04")
    assert again.exit_code == 0, again.output
    assert sum(counts.values()) == 0
    assert world.tree() == before


def test_an_option_given_to_a_refresh_overrides_the_carried_one_and_is_recorded(world):
    # 2024-04 carried --key-form arxiv-id from 2024-03; rebuilt with the option given, it changes
    # and is recorded, and a rebuild without options then keeps what the release recorded.
    result, counts = world.refresh("--since", "2024-04", "--key-form", "title")
    assert result.exit_code == 0, result.output
    assert "given here: --key-form title" in result.output and sum(counts.values()) == 0
    release = json.loads((world.releases / "2024-04" / "release.json").read_text())
    assert release["options"]["key_form"] == "title" and "key_form" not in release["settings"]
    before = world.tree()
    again, _ = world.refresh("--since", "2024-04")
    assert again.exit_code == 0, again.output
    assert "settings for release 2024-04: from release 2024-04's release.json: nothing but defaults" in (
        again.output
    )
    assert world.tree() == before


def test_a_killed_refresh_rerun_with_no_options_finishes_the_release_as_it_was_started(world):
    # Issue 41 item 5. A first release of a new release folder on the same store, started with
    # --tasks 3, dies at its first request (arXiv's OAI-PMH does not answer): the folder holds the
    # start record and no release.json.
    out = world.root / "resumed"
    dead = f"http://127.0.0.1:{_free_port()}/oai"
    killed, _ = world.refresh("--since", "2024-03", "--tasks", "3", "--oai-url", dead, "--retries", "0", out=out)
    assert killed.exit_code == 1 and "Traceback" not in killed.output, killed.output
    folder = out / "2024-03"
    assert (folder / START_FILE).is_file() and not (folder / "release.json").exists()
    # Other options are refused before any request, naming what differs.
    refused, counts = world.refresh("--tasks", "100", out=out)
    assert refused.exit_code == 2 and sum(counts.values()) == 0
    assert "--tasks 3 (given: 100)" in " ".join(refused.output.split())
    # No option at all: the unfinished release comes first, built as started.
    done, _ = world.refresh(out=out)
    assert done.exit_code == 0, done.output
    assert "settings for release 2024-03: from release 2024-03's start record" in done.output
    release = json.loads((folder / "release.json").read_text())
    assert release["options"]["n_tasks"] == 3 and not (folder / START_FILE).exists()
    engine = open_store(world.root / "store.db")
    with Session(engine) as session:
        build = session.exec(select(Build).where(Build.out_dir == str(folder)).order_by(Build.id.desc())).first()
        tasks = session.exec(select(BuildTask).where(BuildTask.build_id == build.id)).all()
    per_config = Counter((t.length, t.difficulty) for t in tasks)
    assert per_config and max(per_config.values()) == 3, per_config


def test_a_window_the_stores_data_does_not_reach_is_not_built_yet(world):
    # The world reaches 2024-10 (and the amendments of 2024-11): 2024-06's pool runs through
    # 2024-12. Today's date would build it (2024 is long past); the data says not yet (item 4).
    result, counts = world.refresh("--since", "2024-06")
    assert result.exit_code == 3, result.output
    # Checked after the harvest (kept), before the plan: no index request, no PDF, no plan.
    assert "refresh plan for release 2024-06" not in result.output
    assert counts["index_batch"] == counts["index_citations"] == 0
    assert (
        "release 2024-06: not yet: the store's data reaches 2024-11-05 (its newest datestamp) but the "
        "citing pool runs through 2024-12 (--pool-months 6); the newest window it can build is 2024-05"
    ) in result.output
    assert counts["pdf"] == 0 and "Traceback" not in result.output
    assert not (world.releases / "2024-06").exists()


def _fetch_line(output: str) -> tuple[int, int]:
    """(PDFs to fetch, papers skipped by --licenses) from the refresh plan line."""
    m = re.search(
        r"PDFs (\d+) to fetch of \d+, \d+ cached\) = .*; (\d+) skipped by --licenses$", output, re.M
    )
    assert m, output
    return int(m[1]), int(m[2])


def test_papers_licenses_will_drop_are_neither_planned_nor_fetched(world):
    # Item 1: with --licenses, the plan leaves out the papers the build would drop, and the run
    # fetches exactly the PDFs planned, none under a licence that is not kept.
    kept = "arxiv-nonexclusive,cc-by"
    out = world.root / "licensed"
    args = ("--since", "2024-03", "--licenses", kept)
    plan, dry_counts = world.refresh(*args, "--dry-run", store="licensed.db", cache="licensed-cache", out=out)
    assert plan.exit_code == 0, plan.output
    planned, skipped = _fetch_line(plan.output)
    assert skipped > 0 and planned > 0 and dry_counts["pdf"] == 0
    assert re.search(
        rf"  licences: {skipped} skipped by --licenses \(.*\); kept {kept.replace(',', ', ')}", plan.output
    )
    run, counts = world.refresh(*args, store="licensed.db", cache="licensed-cache", out=out)
    assert run.exit_code == 0, run.output
    assert counts["pdf"] == _fetch_line(run.output)[0] == planned
    engine = open_store(world.root / "licensed.db")
    with Session(engine) as session:
        fetched = session.exec(select(Paper).where(Paper.status == "downloaded")).all()
    assert len(fetched) == planned
    assert {kind_of(p.license).name for p in fetched} <= {"arxiv-nonexclusive", "cc-by"}
    assert json.loads((out / "2024-03" / "release.json").read_text())["options"]["licenses"] == [
        "arxiv-nonexclusive",
        "cc-by",
    ]


def test_cron_exit_codes(world, tmp_path):
    # A window whose citing papers are still being published: exit 3, one line, nothing written.
    recent = add_months(date.today().replace(day=1), -1)
    out = tmp_path / "releases"
    result = CliRunner().invoke(
        main, ["refresh", "--db", str(tmp_path / "s.db"), "--out", str(out), "--since", f"{recent:%Y-%m}"]
    )
    assert result.exit_code == 3, result.output
    assert (
        result.output.count("\n") == 1 and "not yet: its citing papers are published until" in result.output
    )
    assert not out.exists()
    # A network failure: one line, exit 1 (nothing listens on the port).
    port = _free_port()
    result = CliRunner().invoke(
        main,
        [
            "refresh", "--db", str(tmp_path / "s.db"), "--out", str(out), "--since", "2024-03",
            "--oai-url", f"http://127.0.0.1:{port}/oai", "--arxiv-url", f"http://127.0.0.1:{port}",
            "--retries", "0", "--delay", "0", "--citation-index", "none",
        ],
    )  # fmt: skip
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output and result.output.strip().startswith("Error: ")
    assert not (out / "2024-03" / "release.json").exists()
