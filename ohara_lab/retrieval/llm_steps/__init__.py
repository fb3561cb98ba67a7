"""Register the LLM-backed retrieval steps at the engine's extension points.

With a non-offline provider (``OHARA_LLM``), phase 0a (`query_plan.LLMFingerprint`,
at ``fingerprint``) refines the offline fingerprint and phase 0b
(`query_plan.LLMTocSelector`, at ``toc_selector``) replaces the lexical selector.

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
====================  ===========================  ==========================================

The after-tier order follows spec §3 (tiers → integrity check → self-RAG → rerank
→ speculative); the speculative pre-warm is registered last by the
`speculative.SpeculativeQueries` wrapper the atlas composes around its engine.
"""
from __future__ import annotations

from ...llm.shared import is_offline
from ...settings import Settings
from ..engine import Engine
from .query_plan import LLMFingerprint, LLMTocSelector
from .reasoning import reasoning_subqueries
from .verify import integrity_verify, rerank, self_rag


def register_llm_steps(engine: Engine, settings: Settings) -> None:
    """Register phase 0a/0b (LLM providers only) and the switchable steps at `engine`'s extension points."""
    points = engine.extensions
    if not is_offline(settings):
        points.register("fingerprint", "llm", LLMFingerprint(engine.store, lambda: engine.ontology))
        points.register("toc_selector", "llm", LLMTocSelector(settings))
    points.register("after_bm25", "reasoning", reasoning_subqueries)
    points.register("after_tiers", "integrity_verify", integrity_verify)
    points.register("after_tiers", "self_rag", self_rag)
    points.register("after_tiers", "rerank", rerank)
