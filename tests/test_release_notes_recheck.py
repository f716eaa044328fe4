"""Release notes on new versions of released documents: were the answers rechecked against the new
text, and which would change (issue 21). The store-backed path is in tests/test_refresh.py (a new
version the store never read: "not rechecked"); here the three outcomes on known inputs."""

from __future__ import annotations

from reflong.assemble.release.notes import EarlierRelease, NewText, compute_changes, render_notes
from reflong.assemble.release.store_view import PairStatus, PaperState, ReleasedTask

KEY = "2403.00001"
TASK = ReleasedTask(
    "easy_30K", 0, KEY, "A key", ("2404.00010v1", "2404.00011v1", "2402.00012v1"), frozenset({"2404.00010v1"})
)
PREVIOUS = {
    "release": "2024-03",
    "store": {
        "audit_through": 0,
        "papers": {a: {"latest_version": 1, "withdrawn": False} for a in ("2404.00010", "2404.00011", KEY)},
    },
    "resolver": {"version": "r", "fingerprint": "f"},
}


def _notes(new_texts):
    states = {
        "2404.00010": PaperState(2, False),
        "2404.00011": PaperState(3, False),
        KEY: PaperState(2, False),
    }
    changes = compute_changes(
        "2024-04",
        [],
        [EarlierRelease("2024-03", [TASK])],
        PREVIOUS,
        {},
        states,
        {"version": "r", "fingerprint": "f"},
        {KEY},
        new_texts,
    )
    return changes, render_notes(changes, "2024-04:s1:p6:d2", "0")


def test_new_versions_say_whether_answers_were_rechecked_and_what_changed():
    changes, notes = _notes(
        {
            # v2 of the positive no longer cites the key; v3 of the negative now does.
            "2404.00010v2": NewText(True, {KEY: PairStatus(positive=False)}),
            "2404.00011v3": NewText(True, {KEY: PairStatus(positive=True)}),
        }
    )
    by_id = {e["arxiv_id"]: e for e in changes.new_versions}
    assert by_id["2404.00010"]["answers_changed"] == [
        {"task": "2024-03/easy_30K#0", "index": 0, "was": "positive", "now": "negative"}
    ]
    assert by_id["2404.00011"]["answers_changed"] == [
        {"task": "2024-03/easy_30K#0", "index": 1, "was": "negative", "now": "positive"}
    ]
    assert "answers rechecked against v2's text: 1 of 1 would change (2024-03/easy_30K#0 document 0" in notes
    assert by_id[KEY]["as_document"] == 0 and "as a key only" in notes

    # A new version whose text agrees: unchanged; one the store never parsed: said plainly.
    changes, notes = _notes(
        {
            "2404.00010v2": NewText(True, {KEY: PairStatus(positive=True)}),
            "2404.00011v3": NewText(False),
        }
    )
    assert "answers rechecked against v2's text: unchanged in all 1 tasks showing it" in notes
    assert "2404.00011: v1 -> v3" in notes and "answers NOT rechecked against v3" in notes
    assert {e["arxiv_id"]: e["rechecked"] for e in changes.new_versions} == {
        "2404.00010": True,
        "2404.00011": False,
        KEY: False,
    }


def test_the_notes_give_the_store_and_its_growth_since_the_previous_release():
    changes, _ = _notes({})
    changes.store_rows = {"references": 1200, "edges": {"accept": 40, "review": 3, "reject": 90}}
    changes.store_rows_before = {"references": 1000, "edges": {"accept": 30, "review": 3, "reject": 100}}
    notes = render_notes(changes, "2024-04:s1:p6:d2", "0")
    assert "- references: 1,200 (+200 since release 2024-03)" in notes
    assert "- edges.review: 3 (+0 since release 2024-03)" in notes
    assert "- edges.reject: 90 (-10 since release 2024-03)" in notes  # a resolver may keep fewer
    assert changes.to_json()["store_growth"] == {
        "references": 200, "edges.accept": 10, "edges.review": 0, "edges.reject": -10,
    }  # fmt: skip
    # A previous release from before the counts were recorded: totals only, and why.
    changes.store_rows_before = None
    notes = render_notes(changes, "2024-04:s1:p6:d2", "0")
    assert "- references: 1,200 (release 2024-03 recorded no counts)" in notes
    assert changes.to_json()["store_growth"] is None
