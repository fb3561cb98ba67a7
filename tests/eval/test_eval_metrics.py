"""Per-query metrics on tiny rank lists, expected values worked out by hand (spec §5)."""
from __future__ import annotations

import pytest

from ohara_lab.eval import metrics as m
from ohara_lab.eval.matchers import DocMatcher, RankedItem


# Gold found at ranks 1 and 3 (and 12, beyond the cutoff), 4 gold items in all.
RANKS = [1, 3, 12]


@pytest.mark.parametrize("k, expected", [(1, 0.0), (2, 1.0), (4, 1.0), (10, 1.0)])
def test_hit_at_k_looks_only_at_the_first_hit(k, expected):
    assert m.hit_at_k(RANKS, k) == expected


def test_hit_at_k_without_hits_is_zero():
    assert m.hit_at_k([], 10) == 0.0


def test_reciprocal_rank_is_one_over_first_rank_plus_one_within_cutoff():
    assert m.reciprocal_rank_at_k(RANKS, 10) == pytest.approx(1 / 2)
    assert m.reciprocal_rank_at_k([0], 10) == 1.0
    assert m.reciprocal_rank_at_k([9], 10) == pytest.approx(1 / 10)
    assert m.reciprocal_rank_at_k([10], 10) == 0.0  # rank 10 is the 11th item
    assert m.reciprocal_rank_at_k([], 10) == 0.0


def test_average_precision_divides_by_min_of_gold_count_and_k():
    # hits at ranks 1, 3 inside the top 10: precisions 1/2 and 2/4; / min(4, 10) = 4
    assert m.average_precision_at_k(RANKS, gold_count=4, k=10) == pytest.approx((1 / 2 + 2 / 4) / 4)
    # 12 gold items, 3 found at the top: (1 + 1 + 1) / min(12, 10) = 0.3
    assert m.average_precision_at_k([0, 1, 2], gold_count=12, k=10) == pytest.approx(0.3)
    # one gold item at rank 0: AP = 1
    assert m.average_precision_at_k([0], gold_count=1) == 1.0


def test_average_precision_with_no_gold_is_zero():
    assert m.average_precision_at_k([], gold_count=0) == 0.0


@pytest.mark.parametrize("k, expected", [(2, 1 / 4), (5, 2 / 4), (10, 2 / 4), (20, 3 / 4)])
def test_gold_recall_at_k(k, expected):
    assert m.gold_recall_at_k(RANKS, gold_count=4, k=k) == pytest.approx(expected)


def test_gold_recall_does_not_apply_without_gold():
    assert m.gold_recall_at_k([], gold_count=0, k=10) is None


def test_principal_hit_and_abstention():
    match = DocMatcher(["d2"])
    assert m.principal_hit([RankedItem("d1"), RankedItem("d2")], match) == 1.0
    assert m.principal_hit([RankedItem("d1")], match) == 0.0
    assert m.principal_hit([], match) == 0.0
    assert m.abstained([]) == 1.0
    assert m.abstained([RankedItem("d1")]) == 0.0


def test_doc_hit_and_oracle_rank():
    match = DocMatcher(["x"])  # stands in for a paragraph matcher: only item "x"-text matters below
    items = [RankedItem("p2", "a"), RankedItem("p1", "b"), RankedItem("p2", "c"), RankedItem("p1", "d")]

    def para(item: RankedItem) -> str | None:
        return "gold" if item.text == "d" else None

    assert m.doc_hit_at_k(items, ["p1"], k=2) == 1.0
    assert m.doc_hit_at_k(items, ["p1"], k=1) == 0.0
    # items from p1: "b", "d" -> first match at index 1 of that sub-list
    assert m.oracle_rank(items, para, ["p1"]) == 1
    assert m.oracle_rank(items, para, ["p2"]) is None
    assert m.first_hit_rank([]) is None and m.first_hit_rank([3, 5]) == 3
    assert match(RankedItem("x")) == "x"
