"""Chain-of-Retrieval (spec §4 `queryCoR`): query, follow the Explorer frontier, query again.

    for i in 0 .. cor_max_iter-1:
        run the query; merge its fused hits by id, keeping the higher score (tag cor_iter = i)
        stop  (score_delta)        if i > 0 and the best merged score rose by < cor_score_delta
        stop  (max_iterations)     if this was the last allowed iteration
        seeds = "<edge_verb>: <edge_summary>" of the first 3 frontier items
        stop  (no_frontier_seeds)  if there are none
        next query = "<question> [context: s1; s2; s3]"

Results are all merged hits, best first; tiers are the last run's. Unlike the
original, ``cor_iter_count`` is the number of queries actually run, not the cap.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..retrieval.hits import Fused
from .result import ModeResult

if TYPE_CHECKING:
    from ..atlas import Atlas

SEEDS = 3


def frontier_seeds(result: Any, n: int = SEEDS) -> list[str]:
    seeds = []
    for item in result.tiers.explorer[:n]:
        if item.edge_verb or item.edge_summary:
            seeds.append(f"{item.edge_verb or 'related'}: {item.edge_summary or ''}".strip())
    return seeds


def run_cor(atlas: Atlas, text: str, session_history: list[dict[str, str]] | None = None,
            **overrides: Any) -> ModeResult:
    settings = atlas.settings.override(**overrides)
    merged: dict[str, Fused] = {}
    tags: dict[str, dict[str, Any]] = {}
    views: dict[str, Any] = {}
    timings: dict[str, float] = {}
    queries: list[str] = []
    current, best_before, stopped = text, 0.0, "max_iterations"
    runs: list[Any] = []
    iterations = max(1, settings.cor_max_iter)
    for i in range(iterations):
        result = atlas.speculative.query(current, session_history=session_history, **overrides)
        runs.append(result)
        queries.append(current)
        views.update(result.views)
        for k, v in result.timings_ms.items():
            timings[f"iter{i}.{k}"] = v
        for f in result.fused:
            if f.id not in merged or f.score > merged[f.id].score:
                merged[f.id] = f
                tags[f.id] = {"cor_iter": i}
        best = max((f.score for f in merged.values()), default=0.0)
        if i > 0 and best - best_before < settings.cor_score_delta:
            stopped = "score_delta"
            break
        if i == iterations - 1:
            break
        seeds = frontier_seeds(result)
        if not seeds:
            stopped = "no_frontier_seeds"
            break
        current = f"{text} [context: {'; '.join(seeds)}]"
        best_before = best
    first, last = runs[0], runs[-1]
    timings["total"] = sum(v for k, v in timings.items() if k.endswith(".total"))
    fused = sorted(merged.values(), key=lambda f: (-f.score, f.id))
    extra = {"cor": True, "cor_iter_count": len(runs), "cor_queries": queries, "cor_stopped_reason": stopped}
    return ModeResult(first.query, last.weights, fused, settings.result_limit, last.tiers, views, timings,
                      dict(last.skipped), settings.to_dict(), last.answerability, last.as_of, mode="cor",
                      row_tags=tags,
                      extra=extra)
