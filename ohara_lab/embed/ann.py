"""An HNSW index over one model's vectors of an atlas, persisted beside it.

Hierarchical Navigable Small World graphs: Malkov & Yashunin, "Efficient and robust
approximate nearest neighbor search using Hierarchical Navigable Small World graphs",
IEEE TPAMI 42(4), 2020. Each vector is a node of a layered proximity graph (M links per
node, layer l kept with probability e^(−l/ln M)); a search descends greedily from the top
layer and keeps the `ef` best candidates on the bottom one. Recall grows with ef, so ef is
a setting (`OHARA_ANN_EF`), chosen by measurement (`benchmarks/bench_ann.py`).

One graph node per *distinct* vector. Identical vectors (boilerplate paragraphs: 3,628 of
28,499 rows of the scale atlas, one vector shared by 376) crowd each other's neighbour lists
and cut the graph into pieces a search cannot leave; indexed once each, recall@10 on those
real vectors goes from 0.90 to 1.00 at the same ef (`eval/scale/ann-atlas.md`). A node's
label stands for the sorted ids holding its vector; a search expands them and orders the
result by (−cosine, id), as `ohara_lab.embed.index.knn` breaks ties, so the ids chosen among
equal scores are the exact search's.

Library: hnswlib (why: `eval/scale/ann-30k.md`). Inner-product space over L2-normalised
rows, so its distance is 1 − cosine. Files, in `<atlas>/ann/`:

    <model>.hnsw   the graph and vectors, hnswlib's own format
    <model>.json   {"format", "version", "library", "model", "dim", "m", "ef_construction",
                    "vectors_version", "keys": [vector digest of label 0, 1, …],
                    "groups": [[node ids holding label 0's vector], …]}

A sync adds the vectors it has not seen (the graph grows in place) and marks a label deleted
when no id holds its vector any more (it is never returned); a vector that comes back gets
its old label again. Built on one thread: insertion order and the seed then fix the graph,
so two builds of one atlas answer alike. An index of an older format version is rebuilt.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import EmbeddingError

FORMAT = "ohara-lab/ann"
FORMAT_VERSION = 2  # 2: one label per distinct vector ("keys", "groups"); 1 had one label per id
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


def vector_keys(matrix: np.ndarray) -> list[str]:
    """A digest of each row's float32 bytes: equal rows, equal keys."""
    rows = np.ascontiguousarray(matrix, dtype=np.float32)
    return [hashlib.blake2b(row.tobytes(), digest_size=16).hexdigest() for row in rows]


class HnswIndex:
    """One model's HNSW graph over its distinct vectors, with the ids behind each (see the module docstring)."""

    live: int  # ids the index answers with
    live_vectors: int  # distinct vectors, graph nodes not marked deleted

    def __init__(self, model: str, dim: int, index: Any, keys: list[str], groups: list[list[str]],
                 vectors_version: int, m: int = M, ef_construction: int = EF_CONSTRUCTION):
        self.model, self.dim, self.index = model, dim, index
        self.keys, self.groups = keys, groups
        self.label = {key: i for i, key in enumerate(keys)}
        self._count()
        self.vectors_version = vectors_version
        self.m, self.ef_construction = m, ef_construction

    # ------------------------------------------------------------------ build, load, save
    @classmethod
    def build(cls, model: str, ids: list[str], matrix: np.ndarray, vectors_version: int,
              m: int = M, ef_construction: int = EF_CONSTRUCTION) -> HnswIndex:
        index = _hnswlib().Index(space="ip", dim=int(matrix.shape[1]))
        index.init_index(max_elements=max(len(ids), 1), ef_construction=ef_construction, M=m, random_seed=SEED)
        out = cls(model, int(matrix.shape[1]), index, [], [], vectors_version, m, ef_construction)
        out.sync(ids, matrix, vectors_version)
        return out

    @classmethod
    def load(cls, stem: Path) -> HnswIndex | None:
        """The index saved at `stem`, or None when there is none, it is not ours or of an older format (rebuilt)."""
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
        index.load_index(str(graph_path), max_elements=max(len(meta["keys"]), 1))
        if index.get_current_count() != len(meta["keys"]):
            return None  # the graph and its JSON are from different saves (a crash between the two renames)
        return cls(meta["model"], int(meta["dim"]), index, list(meta["keys"]), [list(g) for g in meta["groups"]],
                   int(meta["vectors_version"]), int(meta["m"]), int(meta["ef_construction"]))

    def save(self, stem: Path) -> None:
        """Write the graph and its JSON side by side; each file is replaced whole (write, then rename)."""
        stem.parent.mkdir(parents=True, exist_ok=True)
        graph_tmp = stem.with_suffix(".hnsw.tmp")
        self.index.save_index(str(graph_tmp))
        meta = {"format": FORMAT, "version": FORMAT_VERSION, "library": f"hnswlib {_version()}",
                "model": self.model, "dim": self.dim, "m": self.m, "ef_construction": self.ef_construction,
                "vectors_version": self.vectors_version, "keys": self.keys, "groups": self.groups}
        meta_tmp = stem.with_suffix(".json.tmp")
        meta_tmp.write_text(json.dumps(meta), encoding="utf-8")
        os.replace(graph_tmp, stem.with_suffix(".hnsw"))
        os.replace(meta_tmp, stem.with_suffix(".json"))

    # ------------------------------------------------------------------ keep up with the atlas
    def sync(self, ids: list[str], matrix: np.ndarray, vectors_version: int) -> tuple[int, int]:
        """Make the index hold exactly `ids` (rows of `matrix`); returns (ids added or moved, ids gone)."""
        keys = vector_keys(matrix)
        before = {node: label for label, group in enumerate(self.groups) for node in group}
        start = len(self.keys)
        self._add_vectors(keys, matrix)
        groups: list[list[str]] = [[] for _ in self.keys]
        for node, key in zip(ids, keys):
            groups[self.label[key]].append(node)
        for label, group in enumerate(groups):
            group.sort()  # the exact search's tie order
            held = label < start and bool(self.groups[label])
            if held and not group:
                self._mark(label, deleted=True)
            elif label < start and not held and group:
                self._mark(label, deleted=False)  # its vector is back
        self.groups = groups
        self._count()
        self.vectors_version = vectors_version
        now = {node: self.label[key] for node, key in zip(ids, keys)}
        return sum(before.get(n) != label for n, label in now.items()), sum(n not in now for n in before)

    def _mark(self, label: int, deleted: bool) -> None:
        # A graph saved after its JSON was not (a crash between the renames) may already be marked so.
        try:
            self.index.mark_deleted(label) if deleted else self.index.unmark_deleted(label)
        except RuntimeError as e:
            if "already deleted" not in str(e) and "is not deleted" not in str(e):
                raise

    def _add_vectors(self, keys: list[str], matrix: np.ndarray) -> None:
        """Give each vector not seen before a new label, in order of first appearance."""
        first: dict[str, int] = {}
        for row, key in enumerate(keys):
            if key not in self.label:
                first.setdefault(key, row)
        if not first:
            return
        start = len(self.keys)
        if start + len(first) > self.index.get_max_elements():
            self.index.resize_index(start + len(first))
        rows = np.ascontiguousarray(matrix[list(first.values())], dtype=np.float32)
        self.index.add_items(rows, np.arange(start, start + len(first)), num_threads=1)
        self.keys += list(first)
        self.label.update((key, start + i) for i, key in enumerate(first))

    # ------------------------------------------------------------------ search
    def _count(self) -> None:
        # Counted once per change, not per query (a million labels take ~20 ms to count).
        self.live = sum(len(g) for g in self.groups)
        self.live_vectors = sum(1 for g in self.groups if g)

    def search(self, query: np.ndarray, k: int, ef: int) -> list[tuple[str, float]]:
        """Top-k (id, cosine), best first, ties broken by id (as the exact search)."""
        if k <= 0 or self.live_vectors == 0:
            return []
        q = np.asarray(query, dtype=np.float32).reshape(1, -1)
        if q.shape[1] != self.dim:
            raise EmbeddingError(f"query vector has {q.shape[1]} dimensions, the atlas has {self.dim}")
        # k distinct vectors hold at least k ids, and the best k ids lie among the best k vectors.
        want = min(k, self.live_vectors)
        self.index.set_ef(max(ef, want))
        labels, distances = self.index.knn_query(q, k=want, num_threads=1)
        found = [(node, 1.0 - float(d)) for label, d in zip(labels[0], distances[0])
                 for node in self.groups[int(label)]]
        return sorted(found, key=lambda pair: (-pair[1], pair[0]))[:k]


def _version() -> str:
    try:
        return metadata.version("hnswlib")
    except metadata.PackageNotFoundError:
        return "unknown"
