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
result by (−cosine, id), as `ohara_lab.store.vectors.knn` breaks ties, so the ids chosen among
equal scores are the exact search's.

Library: faiss-cpu's `IndexHNSWFlat` (a wheel on every platform, no compiler; chosen over
usearch and hnswlib by `eval/scale/ann-minilm-100k.md`: the best recall for its latency and
the shortest build on 100k MiniLM vectors). Inner-product metric over L2-normalised rows, so
a score is the cosine. Files, in `<atlas>/ann/`:

    <model>.faiss    HEADER, then faiss's own serialisation of the graph and vectors
    <model>.json     {"format", "version", "library", "model", "dim", "m", "ef_construction",
                      "vectors_version", "nodes", "bytes", "sha256",
                      "keys": [vector digest of label 0, 1, …],
                      "groups": [[ids holding label 0's vector], …], "meta_sha256"}

HEADER is 32 bytes, little-endian: MAGIC (8), format version (u32), dim (u32), graph
nodes (u64, the removed ones too), payload bytes (u64). Opening verifies everything before trusting a byte of
the payload (`IndexDamaged` names what failed): the file's size, the header, the JSON's own
SHA-256 ("meta_sha256", over the JSON of every other field, keys sorted: a hand-edited
or half-written description), the payload's SHA-256 recorded at build in the JSON, the
header's dim and node count against the JSON's, and the loaded graph's against both; the
caller then checks the id count and dimension against the atlas. A damaged index is never
a traceback at query time: `VectorSearch` answers exactly until `ohara check --fix`
rebuilds it.

A sync adds the vectors it has not seen (the graph grows in place; faiss labels nodes
0, 1, … in order of insertion, which are our labels) and stops returning a label when no
id holds its vector any more (its group is empty: searches pass faiss a selector of the
labels with ids; the node stays in the graph); a vector that comes back gets its old
label again. Built on one thread (faiss's OpenMP threads set to 1: its HNSW levels come
from a fixed seed, so insertion order then fixes the graph and two builds of one atlas
answer alike). An index of an older format (1, 2: hnswlib's `.hnsw` files) is rebuilt,
with one line in the log saying so.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import struct
import threading
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import EmbeddingError

FORMAT = "ohara-lab/ann"
FORMAT_VERSION = 3  # 3: faiss, with a header and checksums; 2: hnswlib, one label per distinct vector; 1: per id
SUFFIX = ".faiss"
OLD_SUFFIXES = (".hnsw",)  # graph files of older formats, deleted when the index is rebuilt
MAGIC = b"OHARAANN"
HEADER = struct.Struct("<8sIIQQ")  # magic, format version, dim, graph nodes, payload bytes
M = 16  # links per node
EF_CONSTRUCTION = 200


class IndexDamaged(Exception):  # noqa: N818 - a state of a file, not a failure of the caller
    """An index file that must not be trusted; `reason` is one line naming what failed."""

    def __init__(self, path: Path, reason: str):
        super().__init__(f"{path}: {reason}")
        self.path, self.reason = path, reason


class OldFormat(Exception):  # noqa: N818
    """An index written by an older version of ohara-lab: rebuilt, not read."""

    def __init__(self, path: Path, version: Any):
        super().__init__(f"{path}: ANN index format {version}, this version writes {FORMAT_VERSION}")
        self.path, self.version = path, version


def _faiss() -> Any:
    try:
        import faiss  # noqa: PLC0415 - optional: the `dense` extra
    except ImportError:
        raise EmbeddingError("the vector index needs faiss-cpu: pip install 'ohara-lab[dense]'") from None
    faiss.omp_set_num_threads(1)  # one thread: the graph then depends on insertion order only
    return faiss


def file_stem(directory: Path, model: str) -> Path:
    """`<directory>/<model>` with the model name made safe for a file name."""
    return directory / re.sub(r"[^A-Za-z0-9._-]+", "_", model)


def index_files(stem: Path) -> list[Path]:
    """Every file an index at `stem` may have (this format's, older formats', leftovers of a save)."""
    names = [SUFFIX, ".json", *OLD_SUFFIXES, SUFFIX + ".tmp", ".json.tmp"]
    return [stem.parent / (stem.name + s) for s in names]


def vector_keys(matrix: np.ndarray) -> list[str]:
    """A digest of each row's float32 bytes: equal rows, equal keys."""
    rows = np.ascontiguousarray(matrix, dtype=np.float32)
    return [hashlib.blake2b(row.tobytes(), digest_size=16).hexdigest() for row in rows]


def _new_index(dim: int, m: int, ef_construction: int) -> Any:
    faiss = _faiss()
    index = faiss.IndexHNSWFlat(dim, m, faiss.METRIC_INNER_PRODUCT)
    index.hnsw.efConstruction = ef_construction
    return index


class HnswIndex:
    """One model's HNSW graph over its distinct vectors, with the ids behind each (see the module docstring)."""

    live: int  # ids the index answers with
    live_vectors: int  # distinct vectors with ids, graph nodes a search may return

    def __init__(self, model: str, dim: int, index: Any, keys: list[str], groups: list[list[str]],
                 vectors_version: int, m: int = M, ef_construction: int = EF_CONSTRUCTION):
        self.model, self.dim, self.index = model, dim, index
        self.keys, self.groups = keys, groups
        self.label = {key: i for i, key in enumerate(keys)}
        self._count()
        self.vectors_version = vectors_version
        self.m, self.ef_construction = m, ef_construction
        # One search or sync at a time: a sync grows the graph and swaps the selector a search reads
        # (the HTTP API searches from several threads).
        self._lock = threading.Lock()

    # ------------------------------------------------------------------ build, load, save
    @classmethod
    def build(cls, model: str, ids: list[str], matrix: np.ndarray, vectors_version: int,
              m: int = M, ef_construction: int = EF_CONSTRUCTION) -> HnswIndex:
        out = cls(model, int(matrix.shape[1]), _new_index(int(matrix.shape[1]), m, ef_construction), [], [],
                  vectors_version, m, ef_construction)
        out.sync(ids, matrix, vectors_version)
        return out

    @classmethod
    def load(cls, stem: Path) -> HnswIndex | None:
        """The index saved at `stem`, or None when there is none.

        Raises `OldFormat` for an index of an older format and `IndexDamaged` for one that fails
        any check of the module docstring (including a JSON that is not ours or not JSON).
        """
        meta_path, graph_path = stem.parent / (stem.name + ".json"), stem.parent / (stem.name + SUFFIX)
        old = [p for p in (stem.parent / (stem.name + s) for s in OLD_SUFFIXES) if p.is_file()]
        if not meta_path.is_file():
            if graph_path.is_file():
                raise IndexDamaged(graph_path, f"its description {meta_path.name} is missing")
            if old:
                raise OldFormat(old[0], "2 or older")
            return None
        try:
            meta = json.loads(meta_path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as e:
            raise IndexDamaged(meta_path, f"not readable as JSON ({e.__class__.__name__})") from None
        if not isinstance(meta, dict) or meta.get("format") != FORMAT:
            raise IndexDamaged(meta_path, "not an ohara-lab ANN index description")
        if meta.get("version") != FORMAT_VERSION:
            if isinstance(meta.get("version"), int) and meta["version"] < FORMAT_VERSION:
                raise OldFormat(meta_path, meta["version"])
            raise IndexDamaged(meta_path, f"unknown format version {meta.get('version')!r}")
        if meta.get("meta_sha256") != meta_digest(meta):
            raise IndexDamaged(meta_path, "its checksum does not match its content (edited or half-written)")
        try:
            keys, groups = list(meta["keys"]), [list(g) for g in meta["groups"]]
            dim, nodes, size, digest = int(meta["dim"]), int(meta["nodes"]), int(meta["bytes"]), str(meta["sha256"])
            m, efc, vv = int(meta["m"]), int(meta["ef_construction"]), int(meta["vectors_version"])
            model = str(meta["model"])
        except (KeyError, TypeError, ValueError) as e:
            raise IndexDamaged(meta_path, f"description lacks or garbles {e}") from None
        if len(groups) != len(keys) or nodes != len(keys):
            raise IndexDamaged(meta_path, f"describes {nodes} nodes but {len(keys)} vectors and {len(groups)} groups")
        payload = _read_verified(graph_path, dim=dim, nodes=nodes, size=size, digest=digest)
        faiss = _faiss()
        try:
            stored = np.frombuffer(payload, dtype=np.uint8)
            index = faiss.deserialize_index(stored) if nodes else _new_index(dim, m, efc)
        except RuntimeError as e:
            raise IndexDamaged(graph_path, f"faiss cannot read it ({str(e).splitlines()[0][:120]})") from None
        if not isinstance(index, faiss.IndexHNSWFlat) or int(index.d) != dim or int(index.ntotal) != nodes:
            got = f"{int(index.ntotal)} nodes of dimension {int(index.d)} ({type(index).__name__})"
            raise IndexDamaged(graph_path, f"holds {got}, its description says {nodes} of dimension {dim}")
        return cls(model, dim, index, keys, groups, vv, m, efc)

    def save(self, stem: Path) -> None:
        """Write the graph, then its JSON; each file is replaced whole (write, fsync, rename).

        A crash between the two renames leaves a graph whose checksum its JSON does not
        record: the pair is then damaged, reported by `check` and rebuilt by `check --fix`.
        """
        stem.parent.mkdir(parents=True, exist_ok=True)
        nodes = int(self.index.ntotal)
        payload = _faiss().serialize_index(self.index).tobytes() if nodes else b""
        header = HEADER.pack(MAGIC, FORMAT_VERSION, self.dim, nodes, len(payload))
        graph_path = stem.parent / (stem.name + SUFFIX)
        _write_whole(graph_path, header + payload)
        meta = {"format": FORMAT, "version": FORMAT_VERSION, "library": f"faiss-cpu {_version()}",
                "model": self.model, "dim": self.dim, "m": self.m, "ef_construction": self.ef_construction,
                "vectors_version": self.vectors_version, "nodes": nodes,
                "bytes": HEADER.size + len(payload), "sha256": hashlib.sha256(payload).hexdigest(),
                "keys": self.keys, "groups": self.groups}
        meta["meta_sha256"] = meta_digest(meta)
        _write_whole(stem.parent / (stem.name + ".json"), json.dumps(meta).encode("utf-8"))
        for old in OLD_SUFFIXES:
            (stem.parent / (stem.name + old)).unlink(missing_ok=True)

    # ------------------------------------------------------------------ keep up with the atlas
    def sync(self, ids: list[str], matrix: np.ndarray, vectors_version: int) -> tuple[int, int]:
        """Make the index hold exactly `ids` (rows of `matrix`); returns (ids added or moved, ids gone)."""
        with self._lock:
            return self._sync(ids, matrix, vectors_version)

    def _sync(self, ids: list[str], matrix: np.ndarray, vectors_version: int) -> tuple[int, int]:
        keys = vector_keys(matrix)
        before = {node: label for label, group in enumerate(self.groups) for node in group}
        self._add_vectors(keys, matrix)
        groups: list[list[str]] = [[] for _ in self.keys]
        for node, key in zip(ids, keys):
            groups[self.label[key]].append(node)
        for group in groups:
            group.sort()  # the exact search's tie order
        # A label whose group empties is no longer returned (see `_count`); one that fills again is.
        self.groups = groups
        self._count()
        self.vectors_version = vectors_version
        now = {node: self.label[key] for node, key in zip(ids, keys)}
        return sum(before.get(n) != label for n, label in now.items()), sum(n not in now for n in before)

    def _add_vectors(self, keys: list[str], matrix: np.ndarray) -> None:
        """Give each vector not seen before a new key, in order of first appearance."""
        first: dict[str, int] = {}
        for row, key in enumerate(keys):
            if key not in self.label:
                first.setdefault(key, row)
        if not first:
            return
        start = len(self.keys)
        rows = np.ascontiguousarray(matrix[list(first.values())], dtype=np.float32)
        _faiss()  # one OpenMP thread (set there)
        self.index.add(rows)  # faiss labels them start, start + 1, … in this order
        self.keys += list(first)
        self.label.update((key, start + i) for i, key in enumerate(first))

    # ------------------------------------------------------------------ search
    def _count(self) -> None:
        # Counted once per change, not per query (a million labels take ~20 ms to count).
        self.live = sum(len(g) for g in self.groups)
        self.live_vectors = sum(1 for g in self.groups if g)
        self._selector = None  # every node has ids: search the whole graph
        if self.live_vectors < len(self.groups):
            faiss = _faiss()
            held = np.fromiter((bool(g) for g in self.groups), dtype=bool, count=len(self.groups))
            self._bitmap = np.packbits(held, bitorder="little")  # kept: faiss's selector points into it
            self._selector = faiss.IDSelectorBitmap(len(self.groups), faiss.swig_ptr(self._bitmap))

    def search(self, query: np.ndarray, k: int, ef: int) -> list[tuple[str, float]]:
        """Top-k (id, cosine), best first, ties broken by id (as the exact search)."""
        if k <= 0 or self.live_vectors == 0:
            return []
        q = np.asarray(query, dtype=np.float32).ravel()
        if q.shape[0] != self.dim:
            raise EmbeddingError(f"query vector has {q.shape[0]} dimensions, the atlas has {self.dim}")
        # k distinct vectors hold at least k ids, and the best k ids lie among the best k vectors.
        want = min(k, self.live_vectors)
        params = _faiss().SearchParametersHNSW()
        params.efSearch = max(ef, want)
        if self._selector is not None:
            params.sel = self._selector
        with self._lock:
            scores, labels = self.index.search(q.reshape(1, -1), want, params=params)
        found = [(node, float(score)) for label, score in zip(labels[0], scores[0]) if label >= 0
                 for node in self.groups[int(label)]]
        return sorted(found, key=lambda pair: (-pair[1], pair[0]))[:k]


def meta_digest(meta: dict[str, Any]) -> str:
    """SHA-256 of a description's JSON without its own checksum, keys sorted."""
    body = {k: v for k, v in meta.items() if k != "meta_sha256"}
    return hashlib.sha256(json.dumps(body, sort_keys=True).encode("utf-8")).hexdigest()


def _read_verified(path: Path, *, dim: int, nodes: int, size: int, digest: str) -> bytes:
    """The payload of the graph file at `path`, after its size, header and checksum are checked."""
    try:
        data = path.read_bytes()
    except OSError as e:
        raise IndexDamaged(path, f"cannot be read ({e.strerror or e})") from None
    if len(data) != size:
        raise IndexDamaged(path, f"is {len(data):,} bytes, {size:,} were written")
    if len(data) < HEADER.size:
        raise IndexDamaged(path, "is shorter than its header")
    magic, version, h_dim, h_nodes, h_bytes = HEADER.unpack_from(data)
    if magic != MAGIC or version != FORMAT_VERSION:
        raise IndexDamaged(path, "has no ohara-lab ANN header")
    if (h_dim, h_nodes, h_bytes) != (dim, nodes, len(data) - HEADER.size):
        raise IndexDamaged(path, f"header says {h_nodes} nodes of dimension {h_dim} in {h_bytes:,} bytes, its "
                                 f"description {nodes} of dimension {dim} in {len(data) - HEADER.size:,}")
    payload = data[HEADER.size:]
    if hashlib.sha256(payload).hexdigest() != digest:
        raise IndexDamaged(path, "checksum differs from the one recorded when it was built")
    return payload


def _write_whole(path: Path, data: bytes) -> None:
    tmp = path.parent / (path.name + ".tmp")
    with open(tmp, "wb") as fh:
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)


def _version() -> str:
    try:
        return metadata.version("faiss-cpu")
    except metadata.PackageNotFoundError:
        return "unknown"
