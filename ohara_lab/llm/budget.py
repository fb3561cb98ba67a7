"""A cap on what one ingest run may spend on LLM calls (``OHARA_LLM_BUDGET_USD``).

Before a call leaves the machine the provider asks `LLMBudget.reserve`: the call is
refused with `BudgetReached` (an `LLMError`, so every caller's failure path applies:
a chunk becomes an ``llm_pending`` paragraph, an edge keeps its offline attributes)
when

    spent + reserved + estimate > limit

where ``spent`` is the ledger's cost since the budget was opened, ``reserved`` the
estimates of calls still in flight (so concurrent calls cannot overrun together),
and ``estimate`` this call's cost at the standard rate with as many output tokens as
input tokens (`tokens.count_tokens`). Replies served from the reply cache cost
nothing and never ask. A later run with a higher budget rebuilds the partial
documents: what was answered comes from the cache, the rest is sent.
"""
from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

from ..errors import LLMError
from .tokens import count_tokens
from .usage import STANDARD, TokenUsage, UsageLedger, estimate_cost_usd


class BudgetReached(LLMError):
    """The run's LLM budget would be exceeded by this call; nothing was sent."""


class LLMBudget:
    """Spend since opening plus in-flight reservations, kept under `limit_usd`."""

    def __init__(self, limit_usd: float, ledger: UsageLedger, model: str):
        self.limit_usd = float(limit_usd)
        self.ledger = ledger
        self.model = model
        self._lock = threading.Lock()
        self._opened_at = ledger.cost_usd() or 0.0
        self._reserved = 0.0
        self.refused = 0  # calls not sent because of the cap

    @property
    def spent_usd(self) -> float:
        return max(0.0, (self.ledger.cost_usd() or 0.0) - self._opened_at)

    @property
    def reached(self) -> bool:
        return self.refused > 0

    def estimate_usd(self, prompt_text: str) -> float:
        tokens = count_tokens(prompt_text)
        return estimate_cost_usd(self.model, TokenUsage(prompt=tokens, output=tokens), STANDARD) or 0.0

    @contextmanager
    def reserve(self, prompt_name: str, prompt_text: str) -> Iterator[None]:
        """Hold this call's estimate while it runs; BudgetReached (nothing sent) when it does not fit."""
        estimate = self.estimate_usd(prompt_text)
        with self._lock:
            spent = self.spent_usd
            if spent + self._reserved + estimate > self.limit_usd:
                self.refused += 1
                raise BudgetReached(prompt_name, f"LLM budget reached: ${spent:.4f} spent of "
                                                 f"${self.limit_usd:.4f} (OHARA_LLM_BUDGET_USD); not sent")
            self._reserved += estimate
        try:
            yield
        finally:
            with self._lock:
                self._reserved -= estimate

    def summary(self) -> dict[str, float | int | bool]:
        return {"budget_usd": self.limit_usd, "spent_usd": round(self.spent_usd, 6), "refused_calls": self.refused,
                "reached": self.reached}
