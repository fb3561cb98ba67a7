"""Cosine k-NN over an atlas's vectors: exact, or HNSW above a size.

Exact: the matrix (float32, rows L2-normalised) is loaded once per atlas version
and model and kept in memory; a query is one matrix-vector product (linear in
the atlas: `eval/scale/ann.md` has it at 100k x 384 on this machine).
Above `OHARA_ANN_THRESHOLD` vectors of a model, `VectorSearch` answers from an
HNSW graph persisted beside the atlas (`ohara_lab.store.ann`) instead, and the
matrix is not kept: the graph holds the vectors. `VectorSearch` is the one
switch; stores call it from `vector_search`, `sync_vector_index`, `check` and
`rebuild_vector_index`.

A graph file that fails verification on open (`ohara_lab.store.ann.IndexDamaged`: size,
header, checksum, node count or dimension against its description, id count or dimension
against the atlas) is never used: one warning names it, queries of that model are answered
exactly (the same answers, slower), writes leave it alone, `check` reports it (ANN_CORRUPT)
and `check --fix` rebuilds it. An index of an older format is rebuilt with one log line.
"""
from __future__ import annotations

import logging
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ..errors import EmbeddingError
from ..records import Problem

if TYPE_CHECKING:
    from .ann import HnswIndex

log = logging.getLogger(__name__)

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
    in memory only). `ef` is the HNSW search breadth. `dim_of(model)` is the atlas's
    dimension for a model, checked against a graph read from disk.
    """

    def __init__(self, directory: Path | None, threshold: int, ef: int, writable: bool = True,
                 dim_of: Callable[[str], int] | None = None):
        self.directory, self.threshold, self.ef, self.writable = directory, int(threshold), int(ef), writable
        self.dim_of = dim_of  # a model's vector dimension in the atlas (a graph of another is not used)
        self._graphs: dict[str, HnswIndex] = {}
        self.damaged: dict[str, str] = {}  # model -> why its graph file is not trusted (warned once)
        self.builds = 0  # full builds in this process (a test reads it to tell a load from a rebuild)

    def approximate(self, count: int) -> bool:
        return self.threshold > 0 and count >= self.threshold

    def search(self, model: str, count: int, version: int, load: Loader, cached: Loader, query: np.ndarray,
               k: int) -> list[tuple[str, float]]:
        """Top-k (id, cosine) among `count` vectors of `model` at atlas `version`.

        `load` reads the vectors afresh (for building a graph: not kept), `cached`
        returns the matrix the store keeps per version (the exact search).
        """
        graph = self._graph(model, count, version, load) if self.approximate(count) else None
        if graph is None:
            ids, matrix = cached()
            return knn(ids, matrix, query, k)
        return graph.search(query, k, self.ef)

    def sync(self, counts: dict[str, int], version: int, load_for: Callable[[str], Loader]) -> None:
        """After a write: bring every model's graph up to date, and drop graphs below the threshold."""
        for model, count in counts.items():
            if self.approximate(count):
                self._graph(model, count, version, load_for(model))
        for model in [m for m in self._graphs if not self.approximate(counts.get(m, 0))]:
            del self._graphs[model]
        for model in [m for m in self.damaged if not self.approximate(counts.get(m, 0))]:
            del self.damaged[model]  # below the threshold its files go: nothing left to repair
        if self.directory is not None and self.writable and self.directory.is_dir():
            from .ann import file_stem  # noqa: PLC0415

            keep = {file_stem(self.directory, m).name for m, c in counts.items() if self.approximate(c)}
            for path in self.directory.iterdir():
                if path.name.rsplit(".", 1)[0] not in keep:
                    path.unlink()
            if not any(self.directory.iterdir()):
                shutil.rmtree(self.directory, ignore_errors=True)

    def check(self, counts: dict[str, int], version: int) -> list[Problem]:
        """ANN_CORRUPT (error) per model whose graph file fails verification; ANN_OLD_FORMAT and
        ANN_MISSING (warnings) for graphs a write or `check --fix` builds; nothing below the threshold."""
        return [problem for _, problem in self.findings(counts, version)]

    def findings(self, counts: dict[str, int], version: int) -> list[tuple[str, Problem]]:
        """(model, problem) of `check`, for `check --fix` to know which graphs to rebuild."""
        from .ann import IndexDamaged, OldFormat  # noqa: PLC0415

        if self.directory is None:
            return []
        out = []
        for model, count in sorted(counts.items()):
            if not self.approximate(count):
                continue
            try:
                if self._open(model, count, version) is None:
                    out.append((model, Problem("ANN_MISSING", "warning", f"{model}: no ANN index for its {count:,}"
                                               " vectors (queries are exact): `ohara check --fix` builds it")))
            except OldFormat as e:
                out.append((model, Problem("ANN_OLD_FORMAT", "warning",
                                           f"{model}: {e}; `ohara check --fix` rebuilds it")))
            except IndexDamaged as e:
                out.append((model, Problem("ANN_CORRUPT", "error", f"{model}: ANN index {e.path.name} {e.reason};"
                                           " queries are exact until `ohara check --fix` rebuilds it")))
        return out

    def rebuild(self, model: str, version: int, load: Loader) -> None:
        """Build `model`'s graph afresh from the atlas and save it (`check --fix`)."""
        from .ann import HnswIndex, file_stem, index_files  # noqa: PLC0415

        ids, matrix = load()
        graph = HnswIndex.build(model, ids, matrix, version)
        self.builds += 1
        if self.directory is not None and self.writable:
            stem = file_stem(self.directory, model)
            for path in index_files(stem):
                path.unlink(missing_ok=True)
            graph.save(stem)
        self._graphs[model] = graph
        self.damaged.pop(model, None)

    def _open(self, model: str, count: int, version: int) -> HnswIndex | None:
        """The graph saved for `model`, verified against the atlas too; None when there is none.

        Raises OldFormat or IndexDamaged (`ohara_lab.store.ann`). A graph behind the atlas (a write
        whose sync did not run) is brought in step by the caller; one at the atlas's version must
        hold exactly its ids, and none may be ahead of it.
        """
        from .ann import SUFFIX, HnswIndex, IndexDamaged, file_stem  # noqa: PLC0415 - faiss only when needed

        assert self.directory is not None
        stem = file_stem(self.directory, model)
        graph = HnswIndex.load(stem)
        if graph is None:
            return None
        path = stem.parent / (stem.name + SUFFIX)
        dim = self.dim_of(model) if self.dim_of is not None else graph.dim
        if graph.dim != dim:
            raise IndexDamaged(path, f"has dimension {graph.dim}, the atlas's {model} vectors {dim}")
        if graph.model != model:
            raise IndexDamaged(path, f"is described as the index of {graph.model}, not {model}")
        if graph.vectors_version > version:
            raise IndexDamaged(path, f"describes atlas version {graph.vectors_version}, the atlas is at {version}")
        if graph.vectors_version == version and graph.live != count:
            raise IndexDamaged(path, f"holds {graph.live:,} ids, the atlas {count:,} {model} vectors")
        return graph

    def _graph(self, model: str, count: int, version: int, load: Loader) -> HnswIndex | None:
        """The model's graph, up to date; None when its file is damaged (the caller searches exactly)."""
        from .ann import HnswIndex, IndexDamaged, OldFormat, file_stem  # noqa: PLC0415 - faiss only when needed

        if model in self.damaged:
            return None
        stem = file_stem(self.directory, model) if self.directory is not None else None
        graph = self._graphs.get(model)
        if graph is None and stem is not None:
            try:
                graph = self._open(model, count, version)
            except OldFormat as e:
                log.warning("%s; rebuilding it", e)
                graph = None
            except IndexDamaged as e:
                self.damaged[model] = e.reason
                log.warning("ANN index of %s ignored, queries are exact until `ohara check --fix`: %s", model, e)
                return None
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
