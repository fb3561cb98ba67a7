"""The offline provider: deterministic, no network, zero usage.

It answers a prompt by calling the Python function registered for it
(``register_offline(name, fn)``, ``fn(variables) -> dict``). The function's output is
validated against the same schema as Gemini's replies, so the two providers cannot
drift apart: an offline behaviour that breaks its prompt's schema fails loudly.

Built-in behaviours (``offline_builtin.BUILTIN``) cover the prompts that need
nothing but their variables; ``offline_core.CORE`` covers those built from the core's
offline pieces (ingest structuring, document context, query fingerprint, TOC,
metadata), so every packaged prompt has one. A registered function overrides both.
"""
from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from ..errors import LLMError, UsageError
from .prompts import Prompt, load_prompt
from .provider import BaseProvider, Check, Produced
from .reply import ReplyInvalid, validate
from .usage import TokenUsage, UsageLedger

OfflineFn = Callable[[dict[str, Any]], dict[str, Any]]

_REGISTRY: dict[str, OfflineFn] = {}
_LOCK = threading.Lock()


def register_offline(prompt_name: str, fn: OfflineFn) -> None:
    """Make `fn(variables) -> dict` the offline behaviour of `prompt_name` (replacing any)."""
    load_prompt(prompt_name)  # UsageError for a prompt that does not exist
    if not callable(fn):
        raise UsageError(f"offline behaviour for {prompt_name!r} must be callable")
    with _LOCK:
        _REGISTRY[prompt_name] = fn


def unregister_offline(prompt_name: str) -> None:
    """Drop a registered behaviour (the built-in one, if any, applies again)."""
    with _LOCK:
        _REGISTRY.pop(prompt_name, None)


def offline_behaviours() -> dict[str, OfflineFn]:
    """Every prompt with an offline behaviour -> its function (registered over core over built-in)."""
    from .offline_builtin import BUILTIN
    from .offline_core import CORE

    with _LOCK:
        return {**BUILTIN, **CORE, **_REGISTRY}


class OfflineProvider(BaseProvider):
    """Same protocol as Gemini; answers from registered Python functions."""

    name = "offline"
    model = "offline"

    def __init__(self, *, ledger: UsageLedger | None = None, concurrency: int = 4):
        # No reply cache: behaviours are deterministic and free, so caching gains nothing
        # and would hide a behaviour change from the tests.
        super().__init__(cache=None, ledger=ledger, concurrency=concurrency)

    def _produce(
        self, prompt: Prompt, text: str, variables: dict[str, Any], scope: str | None, check: Check | None = None
    ) -> Produced:
        behaviours = offline_behaviours()
        fn = behaviours.get(prompt.name)
        if fn is None:
            raise LLMError(
                prompt.name,
                f"no offline behaviour registered; prompts with one: {', '.join(sorted(behaviours))}",
            )
        data = fn(dict(variables))
        try:
            validate(prompt, data)
        except ReplyInvalid as exc:
            raise LLMError(prompt.name, f"offline behaviour broke the prompt's schema: {exc}") from None
        if check is not None:
            try:
                check(data)
            except ReplyInvalid as exc:
                raise LLMError(prompt.name, f"offline reply failed the caller's check: {exc}") from None
        return Produced(data, TokenUsage(), None)
