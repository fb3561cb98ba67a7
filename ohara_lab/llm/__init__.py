"""LLM access — the only door to a language model in ohara-lab (architecture rule 3).

``get_provider(settings)`` returns an `LLMProvider`: Gemini when asked for (or, with
``OHARA_LLM=auto``, when ``GEMINI_API_KEY`` is set and the `gemini` extra is
installed), otherwise the deterministic offline provider. Importing this package does
not import google-genai; only building a Gemini provider does.

What uses it (each module one job):

* ``ingest``      `llm_ingest_hooks(store, settings)`: LLM structuring of chunks
                  (``fidelity`` checks a reply reproduces its chunk), failed chunks kept
                  as ``llm_pending`` text, then ``enrich`` (SIMILAR_TO edges) and
                  ``accounting`` (token usage per document build and per atlas); with
                  OHARA_ANSWERS_SAME, ``questions`` (paragraph questions for ANSWERS_SAME);
                  with OHARA_LLM_BUDGET_USD, ``budget`` (calls refused past the cap)
* ``estimate``    `estimate_ingest(...)`: the requests, tokens (``tokens``) and price of an
                  LLM ingest, nothing sent (`ohara ingest --dry-run`)
* ``shared``      one provider per LLM configuration for query-time features
* ``offline_builtin`` / ``offline_core``: what the offline provider answers
"""
from __future__ import annotations

import importlib.util
import logging
from pathlib import Path
from typing import Any

from ..errors import LLMError, UsageError
from ..settings import Settings
from .offline import OfflineProvider, offline_behaviours, register_offline, unregister_offline
from .prompts import Prompt, list_prompts, load_prompt, prompt_names
from .provider import BaseProvider, LLMProvider, LLMReply
from .usage import TokenUsage, UsageLedger, estimate_cost_usd

__all__ = [
    "LLMError",
    "LLMProvider",
    "LLMReply",
    "OfflineProvider",
    "Prompt",
    "TokenUsage",
    "UsageLedger",
    "BaseProvider",
    "estimate_cost_usd",
    "gemini_available",
    "get_provider",
    "list_prompts",
    "load_prompt",
    "offline_behaviours",
    "prompt_names",
    "register_offline",
    "unregister_offline",
]

log = logging.getLogger(__name__)

PROVIDERS = ("auto", "gemini", "offline")


def gemini_available() -> bool:
    """True when the `gemini` extra (google-genai and tenacity) is importable."""
    try:
        return all(importlib.util.find_spec(mod) is not None for mod in ("google.genai", "tenacity"))
    except ModuleNotFoundError:  # find_spec imports the parent: without `google` it raises, not None
        return False


def get_provider(settings: Settings, cache_dir: str | Path | None = None, **options: Any) -> LLMProvider:
    """The provider `settings.llm` (``OHARA_LLM``) asks for.

    ``auto``: Gemini when an API key is set and the extra is installed, else offline.
    ``gemini``: Gemini, or UsageError when the key or the extra is missing.
    ``offline``: the offline provider. `options` go to the provider's constructor
    (e.g. ``backoff=Backoff(0.001, 0.01)`` in tests); the offline provider takes only ``ledger``.
    """
    choice = (settings.llm or "auto").strip().lower()
    if choice not in PROVIDERS:
        raise UsageError(f"OHARA_LLM={settings.llm!r} is not a provider; choose one of {', '.join(PROVIDERS)}")
    has_key = bool(settings.gemini_api_key)
    has_sdk = gemini_available()
    if choice == "offline" or (choice == "auto" and not (has_key and has_sdk)):
        if choice == "auto" and has_key:
            log.warning("GEMINI_API_KEY is set but the gemini extra is not installed; using the offline provider")
        # Only the ledger applies offline; Gemini options (backoff, tiers, ...) are ignored.
        return OfflineProvider(concurrency=settings.ingest_concurrency, ledger=options.get("ledger"))
    if not has_key:
        raise UsageError("OHARA_LLM=gemini needs GEMINI_API_KEY to be set")
    if not has_sdk:
        raise UsageError("OHARA_LLM=gemini needs the gemini extra: pip install 'ohara-lab[gemini]'")
    from .gemini import GeminiProvider

    return GeminiProvider(settings, cache_dir, **options)
