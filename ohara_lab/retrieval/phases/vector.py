"""Phase 1d: dense vectors, exact cosine k-NN (spec §3.5)."""
from __future__ import annotations

from typing import Any

from ...embed.index import knn
from ...settings import Settings
from ..hits import Hit
from ..state import QueryState


def vector(state: QueryState, store: Any, settings: Settings) -> list[Hit]:
    if state.query_vector is None:
        return []
    ids, matrix = store.vector_matrix(state.query_vector_model)
    found = knn(ids, matrix, state.query_vector, settings.vector_limit)
    docs = {nid: row.get("document_id", nid) for nid, row in store.get_nodes([i for i, _ in found]).items()}
    hits = [Hit(nid, docs.get(nid, ""), "vector", score, {}) for nid, score in found if score > 0]
    return hits
