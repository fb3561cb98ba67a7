"""Token accounting and cost estimates (hand-computed)."""
from __future__ import annotations

import threading

import pytest

from ohara_lab.llm import TokenUsage, UsageLedger, estimate_cost_usd


def test_token_usage_adds_fieldwise():
    a = TokenUsage(prompt=10, output=2, cached=4, thoughts=1, calls=1)
    b = TokenUsage(prompt=5, output=3, cached=0, thoughts=0, calls=2)
    assert a + b == TokenUsage(15, 5, 4, 1, 3)
    assert (a + b).total == 15 + 5 + 1


def test_cost_standard_and_flex_by_hand():
    usage = TokenUsage(prompt=1_000_000, output=1_000_000, cached=0, thoughts=0, calls=1)
    # flash-lite: $0.10 in + $0.40 out per 1M tokens
    assert estimate_cost_usd("gemini-2.5-flash-lite", usage) == pytest.approx(0.50)
    assert estimate_cost_usd("gemini:gemini-2.5-flash-lite", usage, "flex") == pytest.approx(0.25)
    # flash: 400k fresh at 0.30 + 600k cached at 0.03 + (100k out + 100k thoughts) at 2.50
    mixed = TokenUsage(prompt=1_000_000, output=100_000, cached=600_000, thoughts=100_000, calls=1)
    assert estimate_cost_usd("models/gemini-2.5-flash", mixed) == pytest.approx(0.12 + 0.018 + 0.5)
    assert estimate_cost_usd("offline", usage) == 0.0
    assert estimate_cost_usd("gpt-unknown", usage) is None


def test_ledger_accumulates_per_scope_tier_and_total():
    ledger = UsageLedger()
    ledger.record(TokenUsage(100, 10, 0, 0, 1), scope="doc/a", model="gemini-2.5-flash-lite", tier="flex")
    ledger.record(TokenUsage(50, 5, 0, 0, 1), scope="doc/b", model="gemini-2.5-flash-lite", tier="standard")
    ledger.record(TokenUsage(1, 1, 0, 0, 1), model="gemini-2.5-flash-lite", tier="standard")
    ledger.record_hit(scope="doc/a")
    assert ledger.total == TokenUsage(151, 16, 0, 0, 3)
    assert ledger.scope("doc/a") == TokenUsage(100, 10, 0, 0, 1)
    assert ledger.scope("missing") == TokenUsage()
    assert ledger.scope_hits("doc/a") == 1 and ledger.cache_hits == 1
    assert ledger.by_tier["flex"].prompt == 100 and ledger.by_tier["standard"].prompt == 51
    expected = (100 * 0.10 + 10 * 0.40) / 1e6 * 0.5 + (51 * 0.10 + 6 * 0.40) / 1e6
    assert ledger.cost_usd() == pytest.approx(expected)
    assert ledger.to_dict()["calls"] == 3


def test_ledger_is_thread_safe():
    ledger = UsageLedger()

    def work():
        for _ in range(500):
            ledger.record(TokenUsage(1, 1, 0, 0, 1), scope="s")

    threads = [threading.Thread(target=work) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert ledger.total.calls == 4000 and ledger.scope("s").prompt == 4000
