"""The provider protocol: schema-validated JSON for a named prompt, with usage and caching.

Every LLM-backed feature calls ``provider.generate("prompt_name", {...})`` and gets an
`LLMReply` whose ``data`` already satisfies ``prompts/<name>.schema.json``, or an
`LLMError` — never half-valid data. `BaseProvider` holds what all providers share
(variable checks, the reply cache, the usage ledger, ``generate_many``); a provider
only says how to produce data for a rendered prompt.
"""
from __future__ import annotations

import logging
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from ..errors import LLMError
from .cache import ReplyCache, cache_key
from .prompts import Prompt, load_prompt
from .reply import validate
from .usage import TokenUsage, UsageLedger

log = logging.getLogger(__name__)

# A caller's own check of reply data beyond the schema (e.g. "the nodes reproduce the
# chunk text"): raise `ReplyInvalid` with a model-readable message to reject the data.
Check = Callable[[dict[str, Any]], None]


@dataclass(frozen=True)
class LLMReply:
    """A validated reply. `usage` is what this call spent (zero on a cache hit)."""

    data: dict[str, Any]
    usage: TokenUsage
    cached: bool
    model: str
    tier: str | None = None  # service tier that answered (gemini), None for cache hits / offline


@runtime_checkable
class LLMProvider(Protocol):
    name: str  # e.g. "gemini:gemini-2.5-flash-lite", "offline"
    model: str
    ledger: UsageLedger

    def generate(
        self, prompt_name: str, variables: dict[str, Any], *, cache: bool = True, scope: str | None = None,
        check: Check | None = None,
    ) -> LLMReply:
        """Validated reply for `prompt_name`; LLMError after retries, on schema violation or failed `check`."""

    def generate_many(
        self, requests: list[tuple[str, dict[str, Any]]], concurrency: int | None = None, *, scope: str | None = None,
        checks: list[Check | None] | None = None,
    ) -> list[LLMReply | LLMError]:
        """`generate` for each (prompt, variables) (with `checks[i]`), in order; failures come back as LLMError items."""


@dataclass(frozen=True)
class Produced:
    """What a provider made for one prompt: validated data, its cost, the tier used."""

    data: dict[str, Any]
    usage: TokenUsage
    tier: str | None = None


class BaseProvider:
    """Shared generate/generate_many; subclasses implement `_produce`."""

    name: str = "base"
    model: str = "base"

    def __init__(self, *, cache: ReplyCache | None = None, ledger: UsageLedger | None = None, concurrency: int = 4,
                 budget: Any = None):
        self.cache = cache
        self.ledger = ledger if ledger is not None else UsageLedger()
        self.concurrency = max(1, concurrency)
        self.budget = budget  # an `LLMBudget`: calls that would overrun it are refused, never sent

    # -- to implement -----------------------------------------------------------------
    def _produce(
        self, prompt: Prompt, text: str, variables: dict[str, Any], scope: str | None, check: Check | None = None
    ) -> Produced:
        """Data satisfying `prompt.schema` (and `check`) for the rendered `text`; raise LLMError otherwise.

        Record the usage of every call made (including rejected replies) in `self.ledger`.
        """
        raise NotImplementedError

    # -- shared ---------------------------------------------------------------------
    def generate(
        self, prompt_name: str, variables: dict[str, Any], *, cache: bool = True, scope: str | None = None,
        check: Check | None = None,
    ) -> LLMReply:
        prompt = load_prompt(prompt_name)
        text = prompt.render(variables)  # UsageError on caller bugs: they must not be retried
        use_cache = cache and self.cache is not None
        key = ""
        if use_cache:
            key = cache_key(prompt.name, prompt.version, self.model, prompt.cache_variables(variables))
            hit = self.cache.get(key, check=lambda data: _checked(prompt, data, check))
            if hit is not None:
                self.ledger.record_hit(scope=scope)
                return LLMReply(hit, TokenUsage(), True, self.model)
        if self.budget is None:
            produced = self._produce(prompt, text, variables, scope, check)
        else:
            with self.budget.reserve(prompt.name, text):  # BudgetReached: nothing is sent
                produced = self._produce(prompt, text, variables, scope, check)
        if use_cache:
            try:
                self.cache.put(
                    key,
                    prompt=prompt.name,
                    version=prompt.version,
                    model=self.model,
                    data=produced.data,
                    usage=produced.usage.to_dict(),
                )
            except OSError as exc:  # a full or read-only disk costs a replay, not the reply
                log.warning("LLM cache write failed for %s: %s", prompt.name, exc)
        return LLMReply(produced.data, produced.usage, False, self.model, produced.tier)

    def generate_many(
        self, requests: list[tuple[str, dict[str, Any]]], concurrency: int | None = None, *, scope: str | None = None,
        checks: list[Check | None] | None = None,
    ) -> list[LLMReply | LLMError]:
        if checks is not None and len(checks) != len(requests):
            raise ValueError(f"{len(checks)} checks for {len(requests)} requests")
        jobs = list(zip(requests, checks if checks is not None else [None] * len(requests)))

        def one(job: tuple[tuple[str, dict[str, Any]], Check | None]) -> LLMReply | LLMError:
            (name, variables), check = job
            try:
                return self.generate(name, variables, scope=scope, check=check)
            except LLMError as exc:
                return exc

        workers = max(1, concurrency or self.concurrency)
        if workers == 1 or len(jobs) <= 1:
            return [one(j) for j in jobs]
        with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="ohara-llm") as pool:
            return list(pool.map(one, jobs))  # map keeps input order

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"


def _checked(prompt: Prompt, data: Any, check: Check | None) -> dict[str, Any]:
    """Schema, then the caller's check: a cached reply must pass what a fresh one would."""
    validate(prompt, data)
    if check is not None:
        check(data)
    return data
