"""Phase 1d: dense vectors, exact cosine k-NN (spec §3.5)."""
from __future__ import annotations


from ...embed.index import knn
from ...settings import Settings
from ...store.protocol import GraphStore
from ..hits import Hit
from ..state import QueryState


def vector(state: QueryState, store: GraphStore, settings: Settings) -> list[Hit]:
    if state.query_vector is None:
        return []
    ids, matrix = store.vector_matrix(state.query_vector_model)
    walk = settings.ppr_candidates if settings.ppr_weight > 0 else 0  # the graph walk resets from more candidates
    found = knn(ids, matrix, state.query_vector, max(settings.vector_limit, walk))
    state.dense = {nid: score for nid, score in found}
    found = found[: settings.vector_limit]
    docs = {nid: row.get("document_id", nid) for nid, row in store.get_nodes([i for i, _ in found]).items()}
    hits = [Hit(nid, docs.get(nid, ""), "vector", score, {}) for nid, score in found if score > 0]
    return hits
