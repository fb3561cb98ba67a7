"""Spec §2.12 dedup plan: survivor choice and merged fields, hand-computed."""
from __future__ import annotations

import itertools

from ohara_lab.entities.dedup import merge_plan, plan_dedup
from ohara_lab.records import Entity


def _e(slug: str, name: str, count: int, first_seen: str, aliases=(), docs=(), key="bitcoin") -> Entity:
    return Entity(id=f"entities/{slug}", slug=slug, name=name, norm_key=key, type="TECH",
                  aliases=list(aliases), document_ids=list(docs), mention_count=count, first_seen=first_seen)


A = _e("bitcoin", "Bitcoin", 5, "2024-01-02T00:00:00", aliases=["BTC"], docs=["d1"])
B = _e("bit-coin", "Bit-coin", 5, "2024-01-01T00:00:00", aliases=["Bitcoin", "XBT"], docs=["d2", "d1"])
C = _e("bitcoin-2", "BitCoin", 2, "2023-06-01T00:00:00", aliases=["BTC", ""], docs=["d3"])


def test_survivor_is_max_count_then_earliest_first_seen() -> None:
    plan = merge_plan([A, B, C])
    assert plan is not None
    # A and B tie on count 5; B was seen first. C is earliest but has fewer mentions.
    assert plan.survivor == "bit-coin"
    assert plan.merged == ["bitcoin", "bitcoin-2"]
    # B's aliases, then A's name+aliases, then C's; minus B's own name, no repeats, no blanks.
    assert plan.aliases == ["Bitcoin", "XBT", "BTC", "BitCoin"]
    assert plan.document_ids == ["d2", "d1", "d3"]
    assert plan.mention_count == 12


def test_plan_does_not_depend_on_input_order() -> None:
    plans = [merge_plan(list(p)) for p in itertools.permutations([A, B, C])]
    assert all(p == plans[0] for p in plans)


def test_missing_first_seen_counts_as_latest() -> None:
    x = _e("x", "X", 3, "")
    y = _e("y", "Y", 3, "2025-05-05")
    assert merge_plan([x, y]).survivor == "y"


def test_plan_dedup_groups_by_norm_key_and_skips_singletons() -> None:
    other = _e("alice", "Alice", 9, "2024-01-01", key="alice")
    plans = plan_dedup([A, other, B])
    assert [(p.norm_key, p.survivor, p.merged) for p in plans] == [("bitcoin", "bit-coin", ["bitcoin"])]
    assert merge_plan([other]) is None
