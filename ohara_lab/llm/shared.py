"""One provider per LLM configuration, shared by the query-time features.

Retrieval hooks and answer synthesis read their settings per call (a call may
override them), but building a Gemini client per query would cost a connection
pool each time. `provider_for(settings)` keys providers on the settings that
change what a provider is — not on fusion weights or switches.
"""
from __future__ import annotations

import threading
from typing import Any

from ..settings import Settings
from . import get_provider
from .provider import LLMProvider

_FIELDS = ("llm", "gemini_api_key", "gemini_model", "gemini_base_url", "gemini_timeout_s", "gemini_max_retries",
           "llm_cache_dir", "atlas", "ingest_concurrency")
_MAX = 16
_LOCK = threading.Lock()
_PROVIDERS: dict[tuple[Any, ...], LLMProvider] = {}


def provider_key(settings: Settings) -> tuple[Any, ...]:
    return tuple(getattr(settings, f) for f in _FIELDS)


def provider_for(settings: Settings) -> LLMProvider:
    """The (memoised) provider `settings` asks for; see `ohara_lab.llm.get_provider`."""
    key = provider_key(settings)
    with _LOCK:
        found = _PROVIDERS.get(key)
    if found is not None:
        return found
    provider = get_provider(settings)
    with _LOCK:
        if len(_PROVIDERS) >= _MAX:  # oldest first: dicts keep insertion order
            _PROVIDERS.pop(next(iter(_PROVIDERS)))
        return _PROVIDERS.setdefault(key, provider)


def is_offline(settings: Settings) -> bool:
    return provider_for(settings).name == "offline"
