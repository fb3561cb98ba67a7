"""Token accounting: what each LLM call cost, per scope (e.g. a document) and in total.

Counts come from Gemini's `usageMetadata` (promptTokenCount, candidatesTokenCount,
cachedContentTokenCount, thoughtsTokenCount). A cache hit costs nothing and is
counted separately, so a re-ingest shows how much the cache saved.
"""
from __future__ import annotations

import threading
from dataclasses import asdict, dataclass, field
from typing import Any

STANDARD = "standard"
FLEX = "flex"


@dataclass(frozen=True)
class TokenUsage:
    """Tokens of one or more LLM calls. `prompt` includes the `cached` part."""

    prompt: int = 0
    output: int = 0  # candidate tokens (the visible reply)
    cached: int = 0  # prompt tokens served from Gemini's context cache
    thoughts: int = 0  # thinking tokens, billed as output
    calls: int = 0  # HTTP calls that returned a reply (not cache hits)

    def __add__(self, other: TokenUsage) -> TokenUsage:
        if not isinstance(other, TokenUsage):
            return NotImplemented
        return TokenUsage(
            self.prompt + other.prompt,
            self.output + other.output,
            self.cached + other.cached,
            self.thoughts + other.thoughts,
            self.calls + other.calls,
        )

    @property
    def total(self) -> int:
        return self.prompt + self.output + self.thoughts

    def to_dict(self) -> dict[str, int]:
        return asdict(self)


# USD per 1M tokens, Gemini Developer API paid tier, standard service tier, text,
# prompts <=200k tokens, as listed on ai.google.dev/gemini-api/docs/pricing in
# January 2026 (context-cache reads are 10% of the input price; storage fees ignored).
# Flex is billed at 50% of standard on every line (docs/flex-inference, same date).
PRICES_USD_PER_MTOK: dict[str, dict[str, float]] = {
    "gemini-2.5-flash-lite": {"input": 0.10, "cached": 0.01, "output": 0.40},
    "gemini-2.5-flash": {"input": 0.30, "cached": 0.03, "output": 2.50},
    "gemini-embedding-001": {"input": 0.15, "cached": 0.15, "output": 0.0},
}
TIER_MULTIPLIER = {STANDARD: 1.0, FLEX: 0.5}


def _bare_model(model: str) -> str:
    """`gemini:models/gemini-2.5-flash` -> `gemini-2.5-flash`."""
    name = model.split(":", 1)[1] if model.startswith("gemini:") else model
    return name.rsplit("/", 1)[-1]


def estimate_cost_usd(model: str, usage: TokenUsage, tier: str = STANDARD) -> float | None:
    """Estimated USD cost of `usage` on `model` at `tier`; None when the price is unknown.

    cost = ((prompt - cached) * input + cached * cached_price + (output + thoughts) * output)
           / 1e6 * tier_multiplier
    The offline provider costs 0.
    """
    if model == "offline":
        return 0.0
    price = PRICES_USD_PER_MTOK.get(_bare_model(model))
    if price is None or tier not in TIER_MULTIPLIER:
        return None
    fresh = max(usage.prompt - usage.cached, 0)
    dollars = (
        fresh * price["input"]
        + usage.cached * price["cached"]
        + (usage.output + usage.thoughts) * price["output"]
    ) / 1_000_000
    return dollars * TIER_MULTIPLIER[tier]


def _cost(rates: dict[tuple[str, str], TokenUsage]) -> float | None:
    total = 0.0
    for (model, tier), usage in rates.items():
        cost = estimate_cost_usd(model, usage, tier)
        if cost is None:
            return None
        total += cost
    return total


@dataclass
class _Bucket:
    usage: TokenUsage = field(default_factory=TokenUsage)
    cache_hits: int = 0


class UsageLedger:
    """Thread-safe accumulator of `TokenUsage` per scope, per (model, tier), and in total."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._total = _Bucket()
        self._scopes: dict[str, _Bucket] = {}
        self._rates: dict[tuple[str, str], TokenUsage] = {}
        self._scope_rates: dict[tuple[str, str, str], TokenUsage] = {}  # (scope, model, tier)

    def record(self, usage: TokenUsage, *, scope: str | None = None, model: str = "", tier: str = STANDARD) -> None:
        """Add the usage of one call (already counted in `usage.calls`)."""
        with self._lock:
            self._total.usage = self._total.usage + usage
            if scope is not None:
                bucket = self._scopes.setdefault(scope, _Bucket())
                bucket.usage = bucket.usage + usage
                skey = (scope, model, tier)
                self._scope_rates[skey] = self._scope_rates.get(skey, TokenUsage()) + usage
            key = (model, tier)
            self._rates[key] = self._rates.get(key, TokenUsage()) + usage

    def record_hit(self, *, scope: str | None = None) -> None:
        """Count one reply served from the local cache (no tokens spent)."""
        with self._lock:
            self._total.cache_hits += 1
            if scope is not None:
                self._scopes.setdefault(scope, _Bucket()).cache_hits += 1

    @property
    def total(self) -> TokenUsage:
        with self._lock:
            return self._total.usage

    @property
    def cache_hits(self) -> int:
        with self._lock:
            return self._total.cache_hits

    def scope(self, name: str) -> TokenUsage:
        """Usage recorded under `name` (zero when nothing was)."""
        with self._lock:
            bucket = self._scopes.get(name)
            return bucket.usage if bucket else TokenUsage()

    def scope_hits(self, name: str) -> int:
        with self._lock:
            bucket = self._scopes.get(name)
            return bucket.cache_hits if bucket else 0

    @property
    def scopes(self) -> dict[str, TokenUsage]:
        with self._lock:
            return {name: b.usage for name, b in self._scopes.items()}

    @property
    def by_tier(self) -> dict[str, TokenUsage]:
        with self._lock:
            out: dict[str, TokenUsage] = {}
            for (_, tier), usage in self._rates.items():
                out[tier] = out.get(tier, TokenUsage()) + usage
            return out

    def cost_usd(self) -> float | None:
        """Estimated cost of everything recorded; None if some model has no known price."""
        with self._lock:
            rates = dict(self._rates)
        return _cost(rates)

    def scope_cost_usd(self, name: str) -> float | None:
        """Estimated cost of what was recorded under `name`; None if some model has no known price."""
        with self._lock:
            rates = {(m, t): u for (s, m, t), u in self._scope_rates.items() if s == name}
        return _cost(rates)

    def scope_report(self, name: str) -> dict[str, Any]:
        """Plain view of one scope: token counts, total, cache hits, estimated cost, models used."""
        with self._lock:
            bucket = self._scopes.get(name, _Bucket())
            models = sorted({m for (s, m, _t) in self._scope_rates if s == name and m})
        out: dict[str, Any] = bucket.usage.to_dict()
        out["total"] = bucket.usage.total
        out["cache_hits"] = bucket.cache_hits
        out["cost_usd"] = self.scope_cost_usd(name)
        out["models"] = models
        return out

    def to_dict(self) -> dict[str, Any]:
        """Plain view for `Document.token_usage` and reports."""
        out: dict[str, Any] = self.total.to_dict()
        out["cache_hits"] = self.cache_hits
        out["by_tier"] = {tier: u.to_dict() for tier, u in self.by_tier.items()}
        out["cost_usd"] = self.cost_usd()
        return out
