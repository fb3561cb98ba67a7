"""Phase 4: fusion (spec §3.8).

Each phase's raw scores are divided by that phase's maximum (max-normalisation;
the original's raw BM25 of 13-24 otherwise swamped phases scored in [0, 1]),
multiplied by the phase weight and, with adaptive weights, by the query-mode
multiplier, then summed per node. Every term is kept as a `Contribution`, so a
fused score can always be taken apart again.
"""
from __future__ import annotations

from ..settings import Settings
from .hits import PHASES, Contribution, Fused, Hit

MODE_MULTIPLIERS: dict[str, dict[str, float]] = {
    "factoid": {"fulltext": 1.0, "sumo": 0.8, "entity_pivot": 0.7, "structural": 0.6, "cross_doc_edge": 0.5,
                "vector": 0.8},
    "synthesis": {"fulltext": 0.6, "sumo": 1.0, "entity_pivot": 0.8, "structural": 0.4, "cross_doc_edge": 0.8,
                  "vector": 1.0},
    "exploratory": {"fulltext": 0.7, "sumo": 0.9, "entity_pivot": 1.2, "structural": 0.5, "cross_doc_edge": 1.2,
                    "vector": 0.9},
}


def base_weights(settings: Settings) -> dict[str, float]:
    return {"fulltext": settings.bm25_weight, "sumo": settings.sumo_weight,
            "entity_pivot": settings.entity_pivot_weight, "cross_doc_edge": settings.cross_doc_weight,
            "structural": settings.struct_weight, "vector": settings.vector_weight}


def phase_weights(settings: Settings, mode: str) -> dict[str, float]:
    """Base weights times the query-mode row (unless adaptive weights are off)."""
    weights = base_weights(settings)
    if settings.adaptive_weights:
        row = MODE_MULTIPLIERS.get(mode, MODE_MULTIPLIERS["factoid"])
        weights = {p: w * row[p] for p, w in weights.items()}
    return weights


def normaliser(hits: list[Hit], normalise: bool) -> float:
    """m = max(0, max score); scores are divided by m when m > 0 (else left raw)."""
    if not normalise or not hits:
        return 1.0
    m = max(0.0, max(h.score for h in hits))
    return m if m > 0 else 1.0


def fuse(hits_by_phase: dict[str, list[Hit]], weights: dict[str, float], normalise: bool = True) -> list[Fused]:
    """Weighted sum of max-normalised phase scores per node, best first (ties by id)."""
    fused: dict[str, Fused] = {}
    for phase in PHASES:
        hits = hits_by_phase.get(phase, [])
        m = normaliser(hits, normalise)
        w = weights.get(phase, 0.0)
        for h in hits:
            norm = h.score / m
            entry = fused.setdefault(h.id, Fused(h.id, h.document_id, 0.0))
            entry.document_id = entry.document_id or h.document_id
            contribution = Contribution(phase, w * norm, h.score, norm, w,
                                        h.via.get("seed_document") or h.document_id, dict(h.via))
            entry.contributions.append(contribution)
            entry.score += contribution.score
    return sorted(fused.values(), key=lambda f: (-f.score, f.id))
