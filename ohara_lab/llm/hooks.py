"""Install the LLM-backed retrieval steps on an `Engine`.

With a non-offline provider (``OHARA_LLM``), phase 0a (`query_plan.LLMFingerprint`)
and phase 0b (`query_plan.LLMTocSelector`) replace the engine's offline defaults.

Regardless of provider, the opt-in steps are installed and read their switch from
the query's own settings (``state.settings``), so a per-call override turns them on
or off; with the offline provider they use its deterministic behaviours:

====================  ===========================  ==========================================
step                  switch                       where
====================  ===========================  ==========================================
reasoning sub-queries ``reasoning_rag``            after phase 1 (`reasoning`)
integrity verify      ``integrity_llm_verify``     after tiers (`verify.integrity_verify`)
self-RAG              ``self_rag_verify``          after tiers (`verify.self_rag`)
rerank                ``rerank``                   after tiers (`verify.rerank`)
speculative pre-warm  ``speculative_rag``          after tiers, read by `engine.query` (`speculative`)
====================  ===========================  ==========================================

The after-tier order follows spec §3 (tiers → integrity check → self-RAG → rerank
→ speculative).
"""
from __future__ import annotations

from typing import Any

from ..settings import Settings
from . import speculative
from .query_plan import LLMFingerprint, LLMTocSelector
from .reasoning import reasoning_subqueries
from .shared import is_offline
from .verify import integrity_verify, rerank, self_rag


def install_retrieval_hooks(engine: Any, settings: Settings) -> None:
    """Wire phase 0a/0b (LLM providers only) and the switchable steps into `engine`."""
    if not is_offline(settings):
        engine.fingerprint = LLMFingerprint(engine.store, lambda: engine.ontology)
        engine.toc_selector = LLMTocSelector(settings)
    engine.after_bm25.append(reasoning_subqueries)
    engine.after_tiers.extend([integrity_verify, self_rag, rerank])
    speculative.install(engine)  # appends its pre-warm step last
