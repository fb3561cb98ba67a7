"""Phase 1b: SUMO expansion (spec §3.3).

    score = (E + A·ā) / max(|exact| + |anc|, 1) + 0.2·T / max(|qTypes|, 1)

E = exact tags matched, A = ancestor tags matched, ā = mean ancestor weight
(ancestor at distance d weighs 1/(d+1); 0.3 when there are none), T = entity
types shared with the query's entity hints. Unlike the original, tags that at
least two of the top BM25 nodes share join the exact set (its README promised
BM25 tags, its code ignored them, so keyword queries got nothing from this
phase); requiring two seeds means no seed node is corroborated by its own tags.
"""
from __future__ import annotations

import math
from collections import Counter
from typing import Any

from ...settings import Settings
from ...store.protocol import GraphStore
from ..hits import Hit
from ..state import QueryState

SEED_TAGS = 3  # most frequent tags among the top BM25 nodes added to the exact set
TYPE_WEIGHT = 0.2
# Ancestors this close to SUMO's root (Entity, Abstract, Physical, Attribute, ...) tag most of
# any corpus: matching them says nothing about a topic and costs a scan of half the tag table.
MIN_ANCESTOR_DEPTH = 3


def expansion(exact: list[str], ontology: Any, depth: int) -> tuple[dict[str, float], float]:
    """Ancestor weights (max over hints of 1/(d+1)) excluding the exact tags and near-root classes, and their mean ā."""
    anc: dict[str, float] = {}
    for tag in exact:
        for parent, d in ontology.ancestors(tag, depth).items():
            if parent not in exact and (ontology.depth(parent) or 0) >= MIN_ANCESTOR_DEPTH:
                anc[parent] = max(anc.get(parent, 0.0), 1.0 / (d + 1))
    mean = math.fsum(anc.values()) / len(anc) if anc else 0.3  # exact sum: independent of dict order
    return anc, mean


def exact_tags(state: QueryState) -> list[str]:
    seed_counts = Counter(t for row in state.seeds for t in sorted(set(row.get("sumo_tags") or [])))
    ranked = sorted(seed_counts.items(), key=lambda kv: (-kv[1], kv[0]))  # ties by name: hash-seed independent
    shared = [t for t, n in ranked if n >= 2][:SEED_TAGS]
    return list(dict.fromkeys(state.query.sumo_hints + shared))


def sumo(state: QueryState, store: GraphStore, settings: Settings, ontology: Any) -> list[Hit]:
    exact = exact_tags(state)
    if not exact:
        return []
    anc, mean = expansion(exact, ontology, settings.sumo_hierarchy_depth)
    weights = {t: 1.0 for t in exact} | {t: mean for t in anc}
    rows = store.tag_overlap(weights, state.limit, types=state.query.hint_types, type_weight=TYPE_WEIGHT,
                             norm=float(max(len(exact) + len(anc), 1)))
    if not settings.many_angle:
        seen = state.seen("bm25")
        rows = [r for r in rows if r.id not in seen]
    return [Hit(r.id, r.document_id, "sumo", r.score, {"matched_tags": r.matched}) for r in rows if r.score > 0]
