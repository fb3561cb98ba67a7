"""Phase 4: fusion (spec §3.8).

    fused(node) = Σ_phases  w_p · m_mode(p) · n_p(score_p(node))

Each phase's raw scores are normalised per query (`normalise.py`; the original
divided by the phase maximum, because its raw BM25 of 13-24 otherwise swamped
phases scored in [0, 1]), multiplied by the phase weight and, with adaptive
weights, by the query-mode multiplier, then summed per node; reciprocal-rank
fusion replaces the normalised score by 1 / (k + rank). Every term is kept as a
`Contribution`, so a fused score can always be taken apart again.
"""
from __future__ import annotations

from ..errors import UsageError
from ..phase_table import MODES, PHASE_TABLE
from ..settings import Settings
from .hits import PHASES, Contribution, Fused, Hit
from .normalise import normaliser

# The spec's query-mode rows (§3.8), one multiplier per phase (`phase_table`: the graph walk and the
# bridge hop are not in the spec: they follow their seed, the vector phase).
MODE_MULTIPLIERS: dict[str, dict[str, float]] = {
    mode: {p.name: p.modes[i] for p in PHASE_TABLE} for i, mode in enumerate(MODES)}


def base_weights(settings: Settings) -> dict[str, float]:
    """Each phase's weight setting (`PhaseSpec.weight`), 0 while its gate setting is off."""
    return {p.name: getattr(settings, p.weight) if p.gate is None or getattr(settings, p.gate) else 0.0
            for p in PHASE_TABLE}


def phase_weights(settings: Settings, mode: str) -> dict[str, float]:
    """Base weights times the query-mode row (unless adaptive weights are off)."""
    weights = base_weights(settings)
    if settings.adaptive_weights:
        row = MODE_MULTIPLIERS.get(mode, MODE_MULTIPLIERS["factoid"])
        weights = {p: w * row[p] for p, w in weights.items()}
    return weights


LONG_DOCUMENT_TOP = 10  # BM25 passages whose documents `long_document_weights` counts


def document_share(hits: list[Hit], top: int = LONG_DOCUMENT_TOP) -> float:
    """Share of the `top` best hits (by score, ties by id) that the most frequent document holds; 0 when none."""
    ranked = sorted(hits, key=lambda h: (-h.score, h.id))[:top]
    counts: dict[str, int] = {}
    for h in ranked:
        if h.document_id:
            counts[h.document_id] = counts.get(h.document_id, 0) + 1
    return max(counts.values()) / len(ranked) if counts else 0.0


def long_document_weights(weights: dict[str, float], hits_by_phase: dict[str, list[Hit]], settings: Settings,
                          mode: str) -> dict[str, float]:
    """`weights` with BM25 raised to `long_document_bm25_weight` (times the mode row) when one document holds at
    least `long_document_share` of BM25's top passages (issue 31). The walk's value is the bridge between
    documents; inside one long paper every passage shares its entities, the walk spreads mass over the paper's
    hub paragraphs and buries the passage the query's exact terms find. MuSiQue's tuning half never reaches a
    share of 0.4 (max 0.3), QASPER-leval's mostly does (0.4-0.9). Unchanged when off, or without BM25 hits."""
    w = settings.long_document_bm25_weight
    if w <= 0 or weights.get("ppr", 0.0) <= 0:
        return weights
    share = document_share(hits_by_phase.get("bm25", []))
    if share < settings.long_document_share or share <= 0:
        return weights
    row = MODE_MULTIPLIERS.get(mode, MODE_MULTIPLIERS["factoid"]) if settings.adaptive_weights else {}
    raised = w * row.get("bm25", 1.0)
    return {**weights, "bm25": max(weights.get("bm25", 0.0), raised)}


def normalisation(settings: Settings) -> str:
    """The per-phase normalisation a query uses: `normalisation`, or none when `normalize_scores` is off."""
    return settings.normalisation if settings.normalize_scores else "none"


def weighted(norm: float, rank: int, k: int) -> float:
    """A phase's term in the weighted sum: its normalised score (Σ_p w_p · n_p(s))."""
    return norm


def reciprocal_rank(norm: float, rank: int, k: int) -> float:
    """A phase's term in reciprocal-rank fusion (Cormack, Clarke & Büttcher, SIGIR 2009): 1 / (k + rank)."""
    return 1.0 / (k + rank)


FUSIONS = {"weighted": weighted, "rrf": reciprocal_rank}


def fuse(hits_by_phase: dict[str, list[Hit]], weights: dict[str, float], normalisation: str = "max",
         method: str = "weighted", rrf_k: int = 60) -> list[Fused]:
    """Per node, Σ over phases of weight × term; best first (ties by id).

    `weighted`: term = the phase's score normalised per query (`normalise.py`:
    max | minmax | zscore | none). `rrf`: term = 1 / (k + rank), rank 1-based within
    the phase, so only each phase's order matters. Weights that sum to 1 make the
    weighted sum a convex combination (the `default` profile's); scaling all weights
    changes no ranking.
    """
    if method not in FUSIONS:
        raise UsageError(f"unknown fusion {method!r}; choose one of {', '.join(FUSIONS)}")
    term = FUSIONS[method]
    norm_fn = normaliser(normalisation)
    fused: dict[str, Fused] = {}
    for phase in PHASES:
        hits = hits_by_phase.get(phase, [])
        w = weights.get(phase, 0.0)
        ranked = sorted(hits, key=lambda h: (-h.score, h.id))
        rank = {h.id: i for i, h in enumerate(ranked, start=1)}
        normed = norm_fn([h.score for h in hits])
        for h, n in zip(hits, normed):
            value = term(n, rank[h.id], rrf_k)
            entry = fused.setdefault(h.id, Fused(h.id, h.document_id, 0.0))
            entry.document_id = entry.document_id or h.document_id
            contribution = Contribution(phase, w * value, h.score, value, w,
                                        h.via.get("seed_document") or h.document_id, dict(h.via))
            entry.contributions.append(contribution)
            entry.score += contribution.score
    return sorted(fused.values(), key=lambda f: (-f.score, f.id))
