"""Commands that only read do not create a store (issue 12, item 14), and clear words for a
future --since and an unknown paper. `audit import`/`audit verdict` write verdicts (which may
precede their edges), but only into an existing store: a mistyped --db must not start a new one
that keeps the verdicts where no build will ever read them (issue 20, finding 3)."""

from __future__ import annotations

from datetime import date

import pytest
from click.testing import CliRunner

from reflong.cli import main
from reflong.db.engine import open_store


@pytest.mark.parametrize(
    "args",
    [
        ["stats"],
        ["report", "--build", "{tmp}/out"],
        ["audit"],
        ["audit", "export", "--csv", "{tmp}/r.csv"],
        ["edges"],
        ["refs", "--paper", "2405.00001"],
        ["parse"],
        ["cite"],
        ["resolve"],
        # reassembling from the store reads it only (issue 38: it created an empty store, then
        # said the window was empty)
        ["paper", "--reuse-db", "--since", "2024-03", "--out", "{tmp}/out"],
    ],
)
def test_missing_store_is_one_line_and_not_created(args, tmp_path):
    missing = tmp_path / "nowhere" / "store.db"
    args = [a.format(tmp=tmp_path) for a in args]
    res = CliRunner().invoke(main, [*args[:1], "--db", str(missing), *args[1:]])
    assert res.exit_code == 1, res.output
    assert res.output.strip().splitlines() == [
        f"Error: no store at {missing}: nothing has been ingested there; run `reflong-build ingest` "
        "(or `paper`) first, or point --db (env REFLONG_DB) at an existing store"
    ]
    assert not missing.exists() and not missing.parent.exists()


@pytest.mark.parametrize("where", ["group", "subcommand"])
@pytest.mark.parametrize("command", ["import", "verdict"])
def test_audit_verdicts_refuse_a_missing_store_and_create_nothing(command, where, tmp_path):
    missing = tmp_path / "nowhere" / "store.db"
    sheet = tmp_path / "review.csv"
    sheet.write_text("key,verdict,why\n2405.00001v1->2403.00001,confirm,checked\n", encoding="utf-8")
    args = [str(sheet)] if command == "import" else ["2405.00001v1->2403.00001", "confirm"]
    db = ["--db", str(missing)]
    argv = ["audit", *db, command, *args] if where == "group" else ["audit", command, *args, *db]
    res = CliRunner().invoke(main, argv)
    assert res.exit_code == 1, res.output
    assert res.output.strip().splitlines() == [
        f"Error: no store at {missing}: nothing has been ingested there; run `reflong-build ingest` "
        "(or `paper`) first, or point --db (env REFLONG_DB) at an existing store"
    ]
    assert not missing.parent.exists()  # no store, no lock file, no folder
    assert sorted(p.name for p in tmp_path.iterdir()) == ["review.csv"]


def test_future_since_says_the_window_is_in_the_future(tmp_path):
    today = date.today()
    future = f"{today.year + 1}-{today.month:02d}"
    for command in ("paper", "ingest"):
        res = CliRunner().invoke(main, [command, "--since", future, "--db", str(tmp_path / "s.db")])
        assert res.exit_code == 2, res.output
        assert f"the seed window {future} is in the future" in res.output
        assert not (tmp_path / "s.db").exists()


def test_refs_of_an_unknown_paper_says_unknown(tmp_path):
    db = tmp_path / "s.db"
    open_store(db).dispose()
    res = CliRunner().invoke(main, ["refs", "--paper", "2405.99999", "--db", str(db)])
    assert res.exit_code == 1
    assert "unknown paper 2405.99999: not in the store" in res.output
