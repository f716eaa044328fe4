"""The labelled sets' build order (``_labelled_sets.BUILD_ORDER``): the one list a new set is
added to, from which every set's checks read the sets built before it. A set folder missing from
it, or named twice, would give some set the wrong "built before", so its rebuild check would
compare against prior sets its builder never named."""

from __future__ import annotations

from _labelled_sets import BUILD_ORDER, REAL, LabelledSet, sets_built_before


def test_every_committed_set_has_its_place_in_the_build_order():
    named = [name for batch in BUILD_ORDER for name in batch]
    assert len(named) == len(set(named))
    assert set(named) == {p.name for p in REAL.glob("citation_*") if p.is_dir()}


def test_sets_built_side_by_side_leave_each_other_out():
    def before(name: str) -> set[str]:
        return {p.name for p in sets_built_before(LabelledSet(name, split="", source="", style_counts={}))}

    assert before("citation_styles") == set()
    assert "citation_pmc_test3" not in before("citation_fresh_test2")
    assert "citation_fresh_test2" not in before("citation_pmc_test3")
    assert before("citation_fresh_test3") >= {"citation_fresh_test2", "citation_pmc_test3"}
    assert len(before("citation_pmc_test5")) == 14
