"""Phase 4: fusion (spec §3.8).

Each phase's raw scores are divided by that phase's maximum (max-normalisation;
the original's raw BM25 of 13-24 otherwise swamped phases scored in [0, 1]),
multiplied by the phase weight and, with adaptive weights, by the query-mode
multiplier, then summed per node. Every term is kept as a `Contribution`, so a
fused score can always be taken apart again.
"""
from __future__ import annotations

from ..errors import UsageError
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


def fuse(hits_by_phase: dict[str, list[Hit]], weights: dict[str, float], normalise: bool = True,
         method: str = "weighted", rrf_k: int = 60) -> list[Fused]:
    """Per node, the sum over phases of weight × normalised score; best first (ties by id).

    `weighted`: normalised = score / phase max. `rrf` (reciprocal-rank fusion,
    Cormack et al., SIGIR 2009): normalised = 1 / (k + rank), rank 1-based within
    the phase, so only the order of each phase matters.
    """
    if method not in ("weighted", "rrf"):
        raise UsageError(f"unknown fusion {method!r}; choose weighted or rrf")
    fused: dict[str, Fused] = {}
    for phase in PHASES:
        hits = hits_by_phase.get(phase, [])
        m = normaliser(hits, normalise)
        w = weights.get(phase, 0.0)
        ranked = sorted(hits, key=lambda h: (-h.score, h.id))
        rank = {h.id: i for i, h in enumerate(ranked, start=1)}
        for h in hits:
            norm = 1.0 / (rrf_k + rank[h.id]) if method == "rrf" else h.score / m
            entry = fused.setdefault(h.id, Fused(h.id, h.document_id, 0.0))
            entry.document_id = entry.document_id or h.document_id
            contribution = Contribution(phase, w * norm, h.score, norm, w,
                                        h.via.get("seed_document") or h.document_id, dict(h.via))
            entry.contributions.append(contribution)
            entry.score += contribution.score
    return sorted(fused.values(), key=lambda f: (-f.score, f.id))
