"""The passage–entity graph as a sparse transition matrix, built once per atlas version.

Nodes are passages (paragraphs and tables that mention an entity) and entities
(dates and amounts left out: "2011" or "3 inches" link unrelated passages). Edges
are undirected (HippoRAG, Gutiérrez et al., NeurIPS 2024, arXiv 2405.14831, §3):

    passage — entity   MENTIONS     weight 1
    entity — entity    RELATED_TO   weight log(1 + co-occurrence count)
    entity — entity    SYNONYM_OF   weight cos(name vectors)   (written by `ohara embed`)

`transpose` holds Pᵀ for P = D⁻¹A, the row-stochastic walk over the summed weights A,
so one PageRank step is one sparse product. `specificity[e]` = 1 / |passages
mentioning e| (HippoRAG's node specificity).
"""
from __future__ import annotations

import math
import weakref
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, TypeVar

import numpy as np
import scipy.sparse as sparse

from ..ids import entity_id
from ..store.protocol import GraphStore

UNLINKED_TYPES = ("DATE", "AMOUNT")
K = TypeVar("K")
V = TypeVar("V")


@dataclass
class PassageGraph:
    """Index maps and the transposed transition matrix of the passage–entity graph."""

    passages: list[str]
    entities: list[str]
    index: dict[str, int]  # passage id or "entities/<slug>" -> row
    transpose: sparse.csr_matrix
    specificity: dict[str, float]
    passage_entities: dict[str, list[str]] = field(repr=False)
    synonym_edges: int = 0
    synonyms_linked: bool = False  # `ohara embed` (or a batch ingest that embeds) has linked SYNONYM_OF
    passage_documents: dict[str, str] = field(default_factory=dict, repr=False)

    def blocked(self, documents: frozenset[str]) -> np.ndarray | None:
        """A 0/1 mask of the rows a walk may hold mass on: passages of `documents` are closed (None: none are)."""
        if not documents:
            return None
        mask = np.ones(self.size)
        for i, p in enumerate(self.passages):
            if self.passage_documents.get(p) in documents:
                mask[i] = 0.0
        return mask

    @property
    def size(self) -> int:
        return len(self.passages) + len(self.entities)

    def row(self, passage_or_slug: str) -> int | None:
        return self.index.get(passage_or_slug if "/" in passage_or_slug else entity_id(passage_or_slug))

    def nbytes(self) -> int:
        t = self.transpose
        return int(t.data.nbytes + t.indices.nbytes + t.indptr.nbytes)


def build_passage_graph(store: GraphStore) -> PassageGraph:
    """Read MENTIONS, RELATED_TO and SYNONYM_OF from the store and build the walk's matrix."""
    rows = store.passage_entity_graph(UNLINKED_TYPES)
    passages = sorted({p for p, _ in rows.mentions})
    entities = sorted({e for _, e in rows.mentions})
    index = {p: i for i, p in enumerate(passages)}
    index.update({entity_id(e): len(passages) + i for i, e in enumerate(entities)})
    src: list[int] = []
    dst: list[int] = []
    weight: list[float] = []

    def link(a: int, b: int, w: float) -> None:
        src.extend((a, b))
        dst.extend((b, a))
        weight.extend((w, w))

    passage_entities: dict[str, list[str]] = {}
    for p, e in rows.mentions:
        link(index[p], index[entity_id(e)], 1.0)
        passage_entities.setdefault(p, []).append(e)
    known = set(entities)
    for a, b, count in rows.related:
        if a in known and b in known and count > 0:
            link(index[entity_id(a)], index[entity_id(b)], math.log1p(count))
    synonyms = 0
    for a, b, cos in rows.synonyms:
        if a in known and b in known and cos > 0:
            link(index[entity_id(a)], index[entity_id(b)], cos)
            synonyms += 1
    n = len(passages) + len(entities)
    adjacency = sparse.csr_matrix((np.asarray(weight, dtype=np.float64), (src, dst)), shape=(n, n))
    degree = np.asarray(adjacency.sum(axis=1)).ravel()
    inverse = np.divide(1.0, degree, out=np.zeros_like(degree), where=degree > 0)
    transpose = (sparse.diags(inverse) @ adjacency).T.tocsr()
    counts: dict[str, int] = {}
    for _, e in rows.mentions:
        counts[e] = counts.get(e, 0) + 1
    return PassageGraph(passages, entities, index, transpose, {e: 1.0 / c for e, c in counts.items()},
                        passage_entities, synonyms, store.get_meta("synonymy") is not None, rows.documents)


class VersionMemo:
    """Per-store lookups that only a graph-version bump can change (entity names and types, RELATED_TO
    degrees): read once per atlas version instead of once per query. Every writer that can change them (a
    document write or delete, an edge update, an entity change) bumps `GraphStore.graph_version`, and the
    version is read from the store on every use, so a writer in another process is seen too. Bounded: past
    `limit` keys the memo starts over."""

    def __init__(self, limit: int = 1 << 16):
        self.limit = limit
        self._by_store: weakref.WeakKeyDictionary[Any, tuple[int, dict[Any, Any]]] = weakref.WeakKeyDictionary()

    def get_many(self, store: GraphStore, keys: Iterable[K], read: Callable[[list[K]], dict[K, V]]
                 ) -> dict[K, V | None]:
        """key -> value for `keys` (None: `read` returned nothing for it), reading only the keys not yet known."""
        version = store.graph_version()
        cached = self._by_store.get(store)
        if cached is None or cached[0] != version or len(cached[1]) > self.limit:
            cached = (version, {})
            self._by_store[store] = cached
        known = cached[1]
        keys = list(dict.fromkeys(keys))
        missing = [k for k in keys if k not in known]
        if missing:
            found = read(missing)
            known.update({k: found.get(k) for k in missing})
        return {k: known[k] for k in keys}
