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
key stands for the sorted ids holding its vector; a search expands them and orders the
result by (−cosine, id), as `ohara_lab.embed.index.knn` breaks ties, so the ids chosen among
equal scores are the exact search's.

Library: usearch (a wheel on every platform, no compiler; chosen over faiss-cpu and hnswlib
by `eval/scale/ann-minilm-100k.md`). Inner-product metric over L2-normalised rows, so its
distance is 1 − cosine. Files, in `<atlas>/ann/`:

    <model>.usearch  HEADER, then usearch's own serialisation of the graph and vectors
    <model>.json     {"format", "version", "library", "model", "dim", "m", "ef_construction",
                      "vectors_version", "nodes", "bytes", "sha256",
                      "keys": [vector digest of key 0, 1, …],
                      "groups": [[ids holding key 0's vector], …], "meta_sha256"}

HEADER is 32 bytes, little-endian: MAGIC (8), format version (u32), dim (u32), nodes
present (u64), payload bytes (u64). Opening verifies everything before trusting a byte of
the payload (`IndexDamaged` names what failed): the file's size, the header, the JSON's own
SHA-256 ("meta_sha256", over the JSON of every other field, keys sorted: a hand-edited
or half-written description), the payload's SHA-256 recorded at build in the JSON, the
header's dim and node count against the JSON's, and the loaded graph's against both; the
caller then checks the id count and dimension against the atlas. A damaged index is never
a traceback at query time: `VectorSearch` answers exactly until `ohara check --fix`
rebuilds it.

A sync adds the vectors it has not seen (the graph grows in place) and removes a key
when no id holds its vector any more; a vector that comes back gets its old key again.
Built on one thread: insertion order then fixes the graph, so two builds of one atlas
answer alike. An index of an older format (1, 2: hnswlib's `.hnsw` files) is rebuilt,
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
FORMAT_VERSION = 3  # 3: usearch, with a header and a checksum; 2: hnswlib, one label per distinct vector; 1: per id
SUFFIX = ".usearch"
OLD_SUFFIXES = (".hnsw",)  # graph files of older formats, deleted when the index is rebuilt
MAGIC = b"OHARAANN"
HEADER = struct.Struct("<8sIIQQ")  # magic, format version, dim, nodes present, payload bytes
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


def _usearch() -> Any:
    try:
        from usearch.index import Index  # noqa: PLC0415 - optional: the `dense` extra
    except ImportError:
        raise EmbeddingError("the vector index needs usearch: pip install 'ohara-lab[dense]'") from None
    return Index


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
    return _usearch()(ndim=dim, metric="ip", dtype="f32", connectivity=m, expansion_add=ef_construction)


class HnswIndex:
    """One model's HNSW graph over its distinct vectors, with the ids behind each (see the module docstring)."""

    live: int  # ids the index answers with
    live_vectors: int  # distinct vectors, graph nodes present

    def __init__(self, model: str, dim: int, index: Any, keys: list[str], groups: list[list[str]],
                 vectors_version: int, m: int = M, ef_construction: int = EF_CONSTRUCTION):
        self.model, self.dim, self.index = model, dim, index
        self.keys, self.groups = keys, groups
        self.label = {key: i for i, key in enumerate(keys)}
        self._count()
        self.vectors_version = vectors_version
        self.m, self.ef_construction = m, ef_construction
        # One search at a time: the breadth is set on the index before each, and a search with
        # threads=1 uses usearch's context of thread 0, shared by callers (the HTTP API's threads).
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
        if len(groups) != len(keys) or nodes != sum(1 for g in groups if g):
            raise IndexDamaged(meta_path, f"describes {nodes} nodes but {sum(1 for g in groups if g)} vectors with ids")
        payload = _read_verified(graph_path, dim=dim, nodes=nodes, size=size, digest=digest)
        try:
            index = _usearch().restore(payload)
        except (RuntimeError, ValueError) as e:
            raise IndexDamaged(graph_path, f"usearch cannot read it ({e})") from None
        if index is None or int(index.ndim) != dim or len(index) != nodes:
            got = "nothing" if index is None else f"{len(index)} nodes of dimension {index.ndim}"
            raise IndexDamaged(graph_path, f"holds {got}, its description says {nodes} of dimension {dim}")
        present = {int(k) for k in np.asarray(index.keys)} if nodes else set()
        if present != {i for i, g in enumerate(groups) if g}:
            raise IndexDamaged(graph_path, "its node keys are not the ones its description has ids for")
        return cls(model, dim, index, keys, groups, vv, m, efc)

    def save(self, stem: Path) -> None:
        """Write the graph, then its JSON; each file is replaced whole (write, fsync, rename).

        A crash between the two renames leaves a graph whose checksum its JSON does not
        record: the pair is then damaged, reported by `check` and rebuilt by `check --fix`.
        """
        stem.parent.mkdir(parents=True, exist_ok=True)
        payload = bytes(self.index.save()) if self.live_vectors else b""
        header = HEADER.pack(MAGIC, FORMAT_VERSION, self.dim, self.live_vectors, len(payload))
        graph_path = stem.parent / (stem.name + SUFFIX)
        _write_whole(graph_path, header + payload)
        meta = {"format": FORMAT, "version": FORMAT_VERSION, "library": f"usearch {_version()}",
                "model": self.model, "dim": self.dim, "m": self.m, "ef_construction": self.ef_construction,
                "vectors_version": self.vectors_version, "nodes": self.live_vectors,
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
        start = len(self.keys)
        self._add_vectors(keys, matrix)
        groups: list[list[str]] = [[] for _ in self.keys]
        first_row: dict[int, int] = {}
        for row, (node, key) in enumerate(zip(ids, keys)):
            groups[self.label[key]].append(node)
            first_row.setdefault(self.label[key], row)
        back = []
        for label, group in enumerate(groups):
            group.sort()  # the exact search's tie order
            held = label < start and bool(self.groups[label])
            if held and not group:
                self.index.remove(label)
            elif label < start and not held and group:
                back.append(label)  # its vector is back: the same key again
        if back:
            rows = np.ascontiguousarray(matrix[[first_row[label] for label in back]], dtype=np.float32)
            self.index.add(np.asarray(back, dtype=np.uint64), rows, threads=1)
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
        self.index.add(np.arange(start, start + len(first), dtype=np.uint64), rows, threads=1)
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
        q = np.asarray(query, dtype=np.float32).ravel()
        if q.shape[0] != self.dim:
            raise EmbeddingError(f"query vector has {q.shape[0]} dimensions, the atlas has {self.dim}")
        # k distinct vectors hold at least k ids, and the best k ids lie among the best k vectors.
        want = min(k, self.live_vectors)
        with self._lock:
            self.index.expansion_search = max(ef, want)
            found_keys = self.index.search(q, want, threads=1)
        found = [(node, 1.0 - float(d)) for label, d in zip(found_keys.keys, found_keys.distances)
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
        return metadata.version("usearch")
    except metadata.PackageNotFoundError:
        return "unknown"
