"""Exact cosine k-NN over an atlas's vectors.

The matrix (float32, rows L2-normalised) is loaded once per atlas and model and
kept in memory; a query is one matrix-vector product, about 7 ms for 100k x 384
here. An approximate index (HNSW, e.g. hnswlib or faiss) would replace
`search` here once atlases outgrow exact search; nothing else would change.
"""
from __future__ import annotations

import numpy as np

from ..errors import EmbeddingError


def knn(ids: list[str], matrix: np.ndarray, query: np.ndarray, k: int) -> list[tuple[str, float]]:
    """Top-k (id, cosine) by exact search; ties broken by id for determinism."""
    if matrix.shape[0] == 0 or k <= 0:
        return []
    q = np.asarray(query, dtype=np.float32).ravel()
    if q.shape[0] != matrix.shape[1]:
        raise EmbeddingError(f"query vector has {q.shape[0]} dimensions, the atlas has {matrix.shape[1]}")
    # einsum, not `matrix @ q`: as fast (the product is memory-bound), and it leaves no
    # OpenBLAS threads spinning afterwards to starve the next query's torch encoder
    # (measured on 2 cores: MiniLM engine queries 42 ms -> 18 ms p50).
    scores = np.einsum("ij,j->i", matrix, q)
    k = min(k, scores.shape[0])
    top = np.argpartition(-scores, k - 1)[:k]
    order = sorted(top.tolist(), key=lambda i: (-float(scores[i]), ids[i]))
    return [(ids[i], float(scores[i])) for i in order]
