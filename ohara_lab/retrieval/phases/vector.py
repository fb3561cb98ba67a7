"""Phase 1d: dense vectors, cosine k-NN (spec §3.5; exact, or HNSW above OHARA_ANN_THRESHOLD)."""
from __future__ import annotations

from ...settings import Settings
from ...store.protocol import GraphStore
from ..hits import Hit
from ..state import QueryState

AS_OF_OVERFETCH = 4  # an "as of" query drops later documents' neighbours: ask for more, keep k


def vector(state: QueryState, store: GraphStore, settings: Settings) -> list[Hit]:
    if state.query_vector is None or state.query_vector_model is None:  # a query vector comes with its model
        return []
    walk = settings.ppr_candidates if settings.ppr_weight > 0 else 0  # the graph walk resets from more candidates
    k = max(settings.vector_limit, walk)
    found = store.vector_search(state.query_vector_model, state.query_vector, k * AS_OF_OVERFETCH if state.excluded else k)
    docs = {nid: row.get("document_id", nid) for nid, row in store.get_nodes([i for i, _ in found]).items()}
    found = [(nid, s) for nid, s in found if docs.get(nid) not in state.excluded][:k]
    state.dense = {nid: score for nid, score in found}
    found = found[: settings.vector_limit]
    hits = [Hit(nid, docs.get(nid, ""), "vector", score, {}) for nid, score in found if score > 0]
    return hits
