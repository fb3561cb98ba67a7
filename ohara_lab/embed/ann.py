"""An HNSW index over one model's vectors of an atlas, persisted beside it.

Hierarchical Navigable Small World graphs: Malkov & Yashunin, "Efficient and robust
approximate nearest neighbor search using Hierarchical Navigable Small World graphs",
IEEE TPAMI 42(4), 2020. Each vector is a node of a layered proximity graph (M links per
node, layer l kept with probability e^(−l/ln M)); a search descends greedily from the top
layer and keeps the `ef` best candidates on the bottom one. Recall grows with ef, so ef is
a setting (`OHARA_ANN_EF`), chosen by measurement (`benchmarks/bench_ann.py`).

Library: hnswlib (why: `eval/scale/ann.md`). Inner-product space over L2-normalised
rows, so its distance is 1 − cosine. Files, in `<atlas>/ann/`:

    <model>.hnsw   the graph and vectors, hnswlib's own format
    <model>.json   {"format", "version", "library", "model", "dim", "m", "ef_construction",
                    "vectors_version", "ids": [node id of label 0, 1, …]}

Labels are positions in `ids`. A sync adds the vectors it has not seen (the graph grows
in place) and marks the vectors that are gone as deleted (they are never returned); a
node that comes back after a removal gets its old label again.
Built on one thread: insertion order and the seed then fix the graph, so two builds of
one atlas answer alike.
"""
from __future__ import annotations

import json
import os
import re
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import EmbeddingError

FORMAT = "ohara-lab/ann"
FORMAT_VERSION = 1
M = 16  # links per node
EF_CONSTRUCTION = 200
SEED = 0


def _hnswlib() -> Any:
    try:
        import hnswlib  # noqa: PLC0415 - optional: the `dense` extra
    except ImportError:
        raise EmbeddingError("the vector index needs hnswlib: pip install 'ohara-lab[dense]'") from None
    return hnswlib


def file_stem(directory: Path, model: str) -> Path:
    """`<directory>/<model>` with the model name made safe for a file name."""
    return directory / re.sub(r"[^A-Za-z0-9._-]+", "_", model)


class HnswIndex:
    """One model's HNSW graph with its id list (see the module docstring)."""

    def __init__(self, model: str, dim: int, index: Any, ids: list[str], vectors_version: int):
        self.model, self.dim, self.index = model, dim, index
        self.ids = ids
        self.row = {node: i for i, node in enumerate(ids)}
        self.deleted: set[int] = set()
        self.vectors_version = vectors_version

    # ------------------------------------------------------------------ build, load, save
    @classmethod
    def build(cls, model: str, ids: list[str], matrix: np.ndarray, vectors_version: int) -> HnswIndex:
        hnswlib = _hnswlib()
        index = hnswlib.Index(space="ip", dim=int(matrix.shape[1]))
        index.init_index(max_elements=max(len(ids), 1), ef_construction=EF_CONSTRUCTION, M=M, random_seed=SEED)
        if len(ids):
            index.add_items(np.ascontiguousarray(matrix, dtype=np.float32), np.arange(len(ids)), num_threads=1)
        return cls(model, int(matrix.shape[1]), index, list(ids), vectors_version)

    @classmethod
    def load(cls, stem: Path) -> HnswIndex | None:
        """The index saved at `stem`, or None when there is none or it is not ours (then it is rebuilt)."""
        meta_path, graph_path = stem.with_suffix(".json"), stem.with_suffix(".hnsw")
        if not (meta_path.is_file() and graph_path.is_file()):
            return None
        try:
            meta = json.loads(meta_path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        if meta.get("format") != FORMAT or meta.get("version") != FORMAT_VERSION:
            return None
        index = _hnswlib().Index(space="ip", dim=int(meta["dim"]))
        index.load_index(str(graph_path), max_elements=len(meta["ids"]))
        out = cls(meta["model"], int(meta["dim"]), index, list(meta["ids"]), int(meta["vectors_version"]))
        out.deleted = set(meta.get("deleted", []))
        return out

    def save(self, stem: Path) -> None:
        """Write the graph and its JSON side by side; each file is replaced whole (write, then rename)."""
        stem.parent.mkdir(parents=True, exist_ok=True)
        graph_tmp = stem.with_suffix(".hnsw.tmp")
        self.index.save_index(str(graph_tmp))
        meta = {"format": FORMAT, "version": FORMAT_VERSION, "library": f"hnswlib {_version()}",
                "model": self.model, "dim": self.dim, "m": M, "ef_construction": EF_CONSTRUCTION,
                "vectors_version": self.vectors_version, "ids": self.ids, "deleted": sorted(self.deleted)}
        meta_tmp = stem.with_suffix(".json.tmp")
        meta_tmp.write_text(json.dumps(meta), encoding="utf-8")
        os.replace(graph_tmp, stem.with_suffix(".hnsw"))
        os.replace(meta_tmp, stem.with_suffix(".json"))

    # ------------------------------------------------------------------ keep up with the atlas
    def sync(self, ids: list[str], matrix: np.ndarray, vectors_version: int) -> tuple[int, int]:
        """Make the index hold exactly `ids` (rows of `matrix`); returns (added or replaced, deleted)."""
        wanted = {node: i for i, node in enumerate(ids)}
        gone = [self.row[node] for node in self.row if node not in wanted and self.row[node] not in self.deleted]
        for label in gone:
            self.index.mark_deleted(label)
        self.deleted.update(gone)
        fresh = [node for node in ids if node not in self.row]
        # Node ids come from content hashes, so a known id has its old vector; one that was deleted and
        # is back (a document removed and ingested again, a model re-embedded) gets its label again.
        back = [node for node in ids if node in self.row and self.row[node] in self.deleted]
        if back:
            labels = np.array([self.row[n] for n in back])
            for label in labels.tolist():
                self.index.unmark_deleted(label)
                self.deleted.discard(label)
            self.index.add_items(matrix[[wanted[n] for n in back]], labels, num_threads=1)
        if fresh:
            start = len(self.ids)
            self.index.resize_index(start + len(fresh))
            self.index.add_items(matrix[[wanted[n] for n in fresh]], np.arange(start, start + len(fresh)),
                                 num_threads=1)
            self.ids += fresh
            self.row.update((node, start + i) for i, node in enumerate(fresh))
        self.vectors_version = vectors_version
        return len(fresh) + len(back), len(gone)

    # ------------------------------------------------------------------ search
    @property
    def live(self) -> int:
        return len(self.ids) - len(self.deleted)

    def search(self, query: np.ndarray, k: int, ef: int) -> list[tuple[str, float]]:
        """Top-k (id, cosine), best first, ties broken by id (as the exact search)."""
        if k <= 0 or self.live == 0:
            return []
        q = np.asarray(query, dtype=np.float32).reshape(1, -1)
        if q.shape[1] != self.dim:
            raise EmbeddingError(f"query vector has {q.shape[1]} dimensions, the atlas has {self.dim}")
        k = min(k, self.live)
        self.index.set_ef(max(ef, k))
        labels, distances = self.index.knn_query(q, k=k, num_threads=1)
        found = [(self.ids[int(label)], 1.0 - float(d)) for label, d in zip(labels[0], distances[0])]
        return sorted(found, key=lambda pair: (-pair[1], pair[0]))


def _version() -> str:
    try:
        return metadata.version("hnswlib")
    except metadata.PackageNotFoundError:
        return "unknown"
