"""Adamic–Adar link prediction between entities (spec §2.13).

AA(u, v) = Σ_{w ∈ N(u) ∩ N(v)} 1 / ln(max(deg(w), 2))   (Adamic & Adar 2003,
"Friends and neighbors on the Web", Social Networks 25(3); the max(·, 2) is the
spec's guard, a no-op for a common neighbour, whose degree is at least 2).
Kept: pairs not already linked by RELATED_TO with at least MIN_COMMON common
neighbours and AA >= MIN_SCORE (the spec's 0.3), rounded to 4 places; each
entity stores its TOP_PER_ENTITY strongest (MuSiQue has ~750k such pairs, a
median of 65 per entity: storing them all took longer than finding them).

Computed for all pairs at once as sparse products, A·diag(1/ln deg)·A for the
scores and A·A for the common-neighbour counts; the test checks it against
networkx's `adamic_adar_index`, the reference implementation.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .graph import require

MIN_COMMON = 2
MIN_SCORE = 0.3
# Stored per entity: the strongest links only (retrieval reads the maximum, the Explorer those >= 0.5).
TOP_PER_ENTITY = 25


@dataclass(frozen=True)
class Link:
    a: str  # a < b
    b: str
    score: float
    common: int


@dataclass
class Prediction:
    """All predicted links as parallel arrays (MuSiQue: ~750k pairs; no Python object per pair)."""

    names: list[str]
    a: np.ndarray  # row indices into names, a < b
    b: np.ndarray
    score: np.ndarray  # rounded to 4 places
    common: np.ndarray

    def __len__(self) -> int:
        return len(self.score)

    def links(self) -> list[Link]:
        """Every link, strongest first (ties by names) — for small graphs and tests."""
        out = [Link(self.names[i], self.names[j], float(s), int(c))
               for i, j, s, c in zip(self.a, self.b, self.score, self.common)]
        return sorted(out, key=lambda link: (-link.score, link.a, link.b))


def predict(g: Any, *, min_common: int = MIN_COMMON, min_score: float = MIN_SCORE) -> Prediction:
    """Predicted links between entities not already linked."""
    sp = require("scipy.sparse")
    names = sorted(g.nodes)
    empty = np.zeros(0, dtype=np.int64)
    if len(names) < 3:
        return Prediction(names, empty, empty, np.zeros(0), empty)
    index = {n: i for i, n in enumerate(names)}
    pairs = [(index[a], index[b]) for a, b in g.edges if a != b]
    rows = [i for i, _ in pairs] + [j for _, j in pairs]
    cols = [j for _, j in pairs] + [i for i, _ in pairs]
    adj = sp.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(len(names), len(names)))
    adj.data[:] = 1.0
    deg = np.asarray(adj.sum(axis=1)).ravel()
    inv_log = 1.0 / np.log(np.maximum(deg, 2.0))
    # Both products share one sparsity pattern (every weight is positive), so their entries line up.
    scores = sp.triu(adj @ sp.diags(inv_log) @ adj, k=1).tocsr().sorted_indices().tocoo()
    common = sp.triu(adj @ adj, k=1).tocsr().sorted_indices().tocoo()
    if not (np.array_equal(scores.row, common.row) and np.array_equal(scores.col, common.col)):
        raise RuntimeError("Adamic-Adar: score and common-neighbour matrices disagree on their pattern")
    linked = np.asarray(adj[scores.row, scores.col]).ravel() > 0
    keep = (scores.data >= min_score) & (common.data >= min_common) & ~linked
    return Prediction(names, scores.row[keep], scores.col[keep], np.round(scores.data[keep], 4),
                      common.data[keep].astype(np.int64))


def by_entity(pred: Prediction, top: int = TOP_PER_ENTITY) -> dict[str, list[list[Any]]]:
    """Per entity its `top` strongest predicted links, [[other slug, score, common neighbours], ...].

    Both directions, as the spec's two ADAMIC_ADAR edges; ties by the other's
    slug. Names are sorted, so index order is slug order.
    """
    if not len(pred):
        return {}
    ent = np.concatenate([pred.a, pred.b])
    other = np.concatenate([pred.b, pred.a])
    score = np.concatenate([pred.score, pred.score])
    common = np.concatenate([pred.common, pred.common])
    order = np.lexsort((other, -score, ent))
    ent, other, score, common = ent[order], other[order], score[order], common[order]
    starts = np.flatnonzero(np.r_[True, ent[1:] != ent[:-1]])
    out: dict[str, list[list[Any]]] = {}
    for k, start in enumerate(starts):
        end = starts[k + 1] if k + 1 < len(starts) else len(ent)
        stop = min(end, start + top)
        out[pred.names[ent[start]]] = [[pred.names[o], float(s), int(c)]
                                       for o, s, c in zip(other[start:stop], score[start:stop], common[start:stop])]
    return out
