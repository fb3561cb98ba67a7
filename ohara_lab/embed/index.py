"""Cosine k-NN over an atlas's vectors: exact, or HNSW above a size.

Exact: the matrix (float32, rows L2-normalised) is loaded once per atlas version
and model and kept in memory; a query is one matrix-vector product (linear in
the atlas: `eval/scale/ann.md` has it at 100k x 384 on this machine).
Above `OHARA_ANN_THRESHOLD` vectors of a model, `VectorSearch` answers from an
HNSW graph persisted beside the atlas (`ohara_lab.embed.ann`) instead, and the
matrix is not kept: the graph holds the vectors. `VectorSearch` is the one
switch; stores call it from `vector_search` and `sync_vector_index`.
"""
from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import EmbeddingError

Loader = Callable[[], tuple[list[str], np.ndarray]]


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
    kth = scores[np.argpartition(-scores, k - 1)[k - 1]]
    # Every row scoring at least the k-th, not argpartition's k: which of several equal
    # scores at the cut gets in is then decided by id too (the HNSW path matches it).
    top = np.flatnonzero(scores >= kth)
    order = sorted(top.tolist(), key=lambda i: (-float(scores[i]), ids[i]))[:k]
    return [(ids[i], float(scores[i])) for i in order]


class VectorSearch:
    """k-NN per model: exact below `threshold` vectors, HNSW at or above it.

    `directory` (None: nothing persisted) holds the graphs; `writable` says whether
    this process may write there (a read-only atlas brings a stale graph up to date
    in memory only). `ef` is the HNSW search breadth.
    """

    def __init__(self, directory: Path | None, threshold: int, ef: int, writable: bool = True):
        self.directory, self.threshold, self.ef, self.writable = directory, int(threshold), int(ef), writable
        self._graphs: dict[str, Any] = {}
        self.builds = 0  # full builds in this process (a test reads it to tell a load from a rebuild)

    def approximate(self, count: int) -> bool:
        return self.threshold > 0 and count >= self.threshold

    def search(self, model: str, count: int, version: int, load: Loader, cached: Loader, query: np.ndarray,
               k: int) -> list[tuple[str, float]]:
        """Top-k (id, cosine) among `count` vectors of `model` at atlas `version`.

        `load` reads the vectors afresh (for building a graph: not kept), `cached`
        returns the matrix the store keeps per version (the exact search).
        """
        if not self.approximate(count):
            ids, matrix = cached()
            return knn(ids, matrix, query, k)
        return self._graph(model, version, load).search(query, k, self.ef)

    def sync(self, counts: dict[str, int], version: int, load_for: Callable[[str], Loader]) -> None:
        """After a write: bring every model's graph up to date, and drop graphs below the threshold."""
        for model, count in counts.items():
            if self.approximate(count):
                self._graph(model, version, load_for(model))
        for model in [m for m in self._graphs if not self.approximate(counts.get(m, 0))]:
            del self._graphs[model]
        if self.directory is not None and self.writable and self.directory.is_dir():
            from .ann import file_stem  # noqa: PLC0415

            keep = {file_stem(self.directory, m).name for m, c in counts.items() if self.approximate(c)}
            for path in self.directory.iterdir():
                if path.name.rsplit(".", 1)[0] not in keep:
                    path.unlink()
            if not any(self.directory.iterdir()):
                shutil.rmtree(self.directory, ignore_errors=True)

    def _graph(self, model: str, version: int, load: Loader) -> Any:
        from .ann import HnswIndex, file_stem  # noqa: PLC0415 - hnswlib only when a graph is needed

        stem = file_stem(self.directory, model) if self.directory is not None else None
        graph = self._graphs.get(model)
        if graph is None and stem is not None:
            graph = HnswIndex.load(stem)
        if graph is not None and graph.vectors_version == version:
            self._graphs[model] = graph
            return graph
        ids, matrix = load()
        if graph is None or graph.dim != matrix.shape[1]:
            graph = HnswIndex.build(model, ids, matrix, version)
            self.builds += 1
        else:
            graph.sync(ids, matrix, version)
        if stem is not None and self.writable:
            graph.save(stem)
        self._graphs[model] = graph
        return graph
