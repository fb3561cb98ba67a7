"""The tail of a query for modes that gather their own phase hits: fusion, temporal
prior, tiers, node views and the engine's after-tier steps (self-RAG, rerank, ...).

It mirrors `Engine.query` after the phases, so an agent's hits are fused, tiered
and explained exactly like the engine's own.
"""
from __future__ import annotations

import time
from typing import Any

from ..retrieval.fusion import fuse, phase_weights
from ..retrieval.result import RetrievalResult
from ..retrieval.state import QueryState


def finish(engine: Any, state: QueryState, timings_ms: dict[str, float] | None = None) -> RetrievalResult:
    """A `RetrievalResult` from the phase hits in `state.hits`."""
    s = state.settings
    timings = dict(timings_ms or {})
    t0 = time.perf_counter()
    weights = phase_weights(s, state.query.mode)
    fused = fuse(state.hits, weights, s.normalize_scores)
    # Engine internals until the engine offers this tail as one public call.
    fused = engine._temporal(fused, state, s)
    tiers = engine._tiers(fused, s)
    views = engine._views(fused[: s.result_limit], tiers)
    result = RetrievalResult(state.query, weights, fused, s.result_limit, tiers, views, timings, dict(state.skipped),
                             s.to_dict())
    for hook in engine.after_tiers:
        hook(result, state)
    result.views.update(engine._views(result.results, result.tiers))
    timings["finish"] = (time.perf_counter() - t0) * 1000
    timings["total"] = sum(v for k, v in timings.items() if k != "total")
    return result
