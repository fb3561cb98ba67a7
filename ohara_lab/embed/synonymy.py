"""SYNONYM_OF edges: entities whose names embed close together (HippoRAG's synonymy edges,
Gutiérrez et al., NeurIPS 2024, arXiv 2405.14831, §3.1; τ = 0.8 and at most 100 neighbours there).

    SYNONYM_OF(a, b)  iff  cos(v_a, v_b) ≥ τ  and  b is among a's `neighbours` nearest (or a among b's)

over the names of every entity of the atlas but dates and amounts and names of two
characters or fewer; v = the embedder's unit vector of the name. Offline NER splits one
thing into several entities ("Rank Organisation", "The Rank Organisation Plc"); these
edges let the graph walk cross between them. The relation is recomputed as a whole
(`GraphStore.replace_edges`), so running it twice writes the same edges once; one edge
per pair, from the smaller slug, weighted by the cosine.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ..ids import entity_id
from ..records import SYNONYM_OF, Edge
from ..store.protocol import GraphStore

RELATION = SYNONYM_OF
UNLINKED_TYPES = frozenset({"DATE", "AMOUNT"})
MIN_NAME_CHARS = 3
BLOCK = 2048  # rows of the similarity matrix computed at once (memory stays O(BLOCK × n))
CACHE_NAMES = 100_000  # name vectors kept per process: relinking after an ingest embeds only the new names

_name_vectors: dict[tuple[str, str], np.ndarray] = {}


def name_vectors(embedder: Any, names: list[str]) -> np.ndarray:
    """Unit vectors of `names`, embedding only those this process has not embedded with this model yet."""
    todo = list(dict.fromkeys(n for n in names if (embedder.model, n) not in _name_vectors))
    if todo:
        if len(_name_vectors) + len(todo) > CACHE_NAMES:
            _name_vectors.clear()
        for name, vec in zip(todo, embedder.embed(todo, "document")):
            _name_vectors[(embedder.model, name)] = np.asarray(vec, dtype=np.float32)
    return np.stack([_name_vectors[(embedder.model, n)] for n in names]) if names else np.zeros((0, 0), np.float32)


def synonym_pairs(slugs: list[str], vectors: np.ndarray, threshold: float, neighbours: int
                  ) -> list[tuple[str, str, float]]:
    """(a, b, cosine) with a < b for every pair at or above `threshold` within each other's top neighbours."""
    found: dict[tuple[str, str], float] = {}
    n = len(slugs)
    for start in range(0, n, BLOCK):
        sims = vectors[start:start + BLOCK] @ vectors.T
        for r in range(sims.shape[0]):
            i = start + r
            sims[r, i] = -1.0  # not its own synonym
            row = sims[r]
            hits = np.flatnonzero(row >= threshold)
            if hits.size > neighbours:
                hits = hits[np.argsort(-row[hits], kind="stable")[:neighbours]]
            for j in hits.tolist():
                a, b = sorted((slugs[i], slugs[j]))
                found[(a, b)] = max(found.get((a, b), 0.0), float(row[j]))
    return [(a, b, round(w, 6)) for (a, b), w in sorted(found.items())]


def link_synonyms(store: GraphStore, embedder: Any, threshold: float, neighbours: int) -> dict[str, Any]:
    """Recompute every SYNONYM_OF edge of the atlas; returns what was linked."""
    entities = [e for e in store.get_entities() if e.type not in UNLINKED_TYPES and len(e.name) >= MIN_NAME_CHARS]
    entities.sort(key=lambda e: e.slug)
    slugs = [e.slug for e in entities]
    vectors = name_vectors(embedder, [e.name for e in entities])
    pairs = synonym_pairs(slugs, vectors, threshold, neighbours) if len(slugs) > 1 else []
    edges = [Edge(entity_id(a), entity_id(b), RELATION, {"weight": w, "model": embedder.model})
             for a, b, w in pairs]
    written = store.replace_edges(RELATION, edges)
    info = {"model": embedder.model, "threshold": threshold, "neighbours": neighbours,
            "entities": len(slugs), "edges": written}
    store.set_meta("synonymy", info)
    return info
