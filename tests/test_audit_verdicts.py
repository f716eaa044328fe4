"""Verdicts: stable keys, history, idempotent recording, and the band a build must use."""

from __future__ import annotations

import pytest
from sqlmodel import select

from reflong.common.errors import ReflongError
from reflong.db import open_store, session_for
from reflong.db.audits import (
    Audit,
    EdgeKey,
    Verdict,
    apply_verdicts,
    confirmed_without_edge,
    effective_band,
    record_verdict,
    verdict_history,
    verdicts_for,
)
from reflong.db.stats import collect_stats


def test_edge_key_round_trip_and_bad_keys():
    key = EdgeKey.parse("2405.01234v2->2403.00001")
    assert key == EdgeKey("2405.01234", 2, "2403.00001")
    assert str(key) == "2405.01234v2->2403.00001"
    assert EdgeKey.parse(" hep-th/9901001v1 -> 2403.00001v3 ") == EdgeKey("hep-th/9901001", 1, "2403.00001")
    for bad in ("2405.01234->2403.00001", "2405.01234v2", "", "v2->x y"):
        with pytest.raises(ReflongError, match="is not CITINGvN->SEED"):
            EdgeKey.parse(bad)


def test_effective_band_verdict_wins():
    assert effective_band("review", None) == "review"
    assert effective_band("review", "confirm") == "accept"
    assert effective_band("reject", "confirm") == "accept"
    assert effective_band("accept", "reject") == "reject"
    assert effective_band("accept", Verdict("reject", "a", "t", "")) == "reject"


def test_record_history_latest_wins_and_repeats_add_nothing(db_path):
    engine = open_store(db_path)
    key = EdgeKey("2405.01234", 2, "2403.00001")
    with session_for(engine) as s:
        assert record_verdict(s, key, "reject", why="cites LLaMA 1, not 2", who="ann")
        assert not record_verdict(s, str(key), "REJECT", why="cites LLaMA 1, not 2", who="ann")
        assert record_verdict(s, key, "confirm", why="checked the PDF", who="bob")
        assert record_verdict(s, "2405.09999v1->2403.00002", "reject", who="ann")
        s.commit()
    with session_for(engine) as s:
        assert len(s.exec(select(Audit)).all()) == 3
        current = verdicts_for(s)
        assert current[key].verdict == "confirm" and current[key].who == "bob"
        assert current[key].at.endswith("Z") and current[key].why == "checked the PDF"
        assert [v.verdict for v in verdict_history(s, key)] == ["reject", "confirm"]
        assert set(verdicts_for(s, [key])) == {key}
        with pytest.raises(ReflongError, match="not one of confirm, reject"):
            record_verdict(s, key, "maybe")
    assert collect_stats(engine)["audits"] == {"confirm": 1, "reject": 1}


def test_apply_verdicts_on_edges_and_confirmed_without_edge():
    edges = [
        {"citing_arxiv_id": "2405.00001", "citing_version": 1, "seed_arxiv_id": "S1", "band": "review"},
        {"citing_arxiv_id": "2405.00002", "citing_version": 1, "seed_arxiv_id": "S1", "band": "accept"},
        {"citing_arxiv_id": "2405.00003", "citing_version": 2, "seed_arxiv_id": "S1", "band": "accept"},
    ]
    verdicts = {
        EdgeKey("2405.00001", 1, "S1"): Verdict("confirm", "a", "t", ""),
        EdgeKey("2405.00002", 1, "S1"): Verdict("reject", "a", "t", ""),
        EdgeKey("2405.00003", 1, "S1"): Verdict("reject", "a", "t", "other version"),
        EdgeKey("2405.00009", 1, "S1"): Verdict("confirm", "a", "t", "resolver missed it"),
    }
    decided = apply_verdicts(edges, verdicts)
    assert [(str(d.key), d.band, d.positive) for d in decided] == [
        ("2405.00001v1->S1", "accept", True),
        ("2405.00002v1->S1", "reject", False),
        ("2405.00003v2->S1", "accept", True),  # a verdict on v1 says nothing about v2's text
    ]
    assert confirmed_without_edge(edges, verdicts) == [EdgeKey("2405.00009", 1, "S1")]
