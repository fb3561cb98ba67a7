"""`MapLayout`: the whole map as plain numpy arrays, ready for a renderer or a file.

Saved as one `.npz`: every array under its dotted field name, and every
string, list and scalar in one JSON document (`__meta__`), so loading never
needs pickle (`np.load(..., allow_pickle=False)`).
"""

from __future__ import annotations

import dataclasses
import json
import os
import typing
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ohara_lab.errors import UsageError
from ohara_lab.layout.auras import Auras
from ohara_lab.layout.camera import Camera
from ohara_lab.layout.guides import Guides
from ohara_lab.layout.inputs import NODE_KINDS
from ohara_lab.layout.time_axis import Timeline

FORMAT = "ohara-lab/map-layout"
FORMAT_VERSION = 2  # 2: colour style keys (recolouring without a rebuild)
_META_KEY = "__meta__"


@dataclass(frozen=True)
class Discs:
    """One entry per document, in input order (auras share this order)."""

    document_ids: list[str]
    node_index: np.ndarray  # (d,) int32 row of the document node, −1 when documents are not drawn
    centers: np.ndarray  # (d, 3) float32
    radii: np.ndarray  # (d,) float32 disc radius (final curR)


@dataclass
class MapLayout:
    positions: np.ndarray  # (n, 3) float32
    colors: np.ndarray  # (n, 3) float32 RGB in [0, 1]
    sizes: np.ndarray  # (n,) float32
    kinds: np.ndarray  # (n,) uint8 index into kind_names
    ids: list[str]
    labels: list[str]
    node_document: np.ndarray  # (n,) int32 index into discs (the node's document), −1 for entities and tags
    edges: np.ndarray  # (m, 2) int32 row pairs (from, to)
    edge_kinds: np.ndarray  # (m,) uint8 index into edge_kind_names
    edge_kind_names: tuple[str, ...]
    discs: Discs
    auras: Auras
    timeline: Timeline
    guides: Guides
    bounds: np.ndarray  # (2, 3) float32 min and max of positions
    camera: Camera
    color_mode: str
    # What each node's colour depends on (`NodeStyleKey` fields as lists), deduplicated, so a colour-mode
    # change recomputes one colour per distinct key instead of re-running the layout (`recolor`).
    styles: list[list[Any]] = field(default_factory=list)
    style_index: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int32))  # (n,) row into styles
    document_style_index: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int32))  # (d,) for auras
    kind_names: tuple[str, ...] = NODE_KINDS
    _index: dict[str, int] | None = field(default=None, init=False, repr=False, compare=False)

    def __len__(self) -> int:
        return len(self.ids)

    def __contains__(self, node_id: object) -> bool:
        return node_id in self._rows()

    def index_of(self, node_id: str) -> int:
        """Row of a node id in the arrays."""
        try:
            return self._rows()[node_id]
        except KeyError:
            raise KeyError(f"node {node_id!r} is not in this layout") from None

    def _rows(self) -> dict[str, int]:
        if self._index is None:
            self._index = {node_id: i for i, node_id in enumerate(self.ids)}
        return self._index

    def kind_mask(self, kind: str) -> np.ndarray:
        if kind not in self.kind_names:
            raise UsageError(f"unknown node kind {kind!r}; choose one of {list(self.kind_names)}")
        return self.kinds == self.kind_names.index(kind)

    # ------------------------------------------------------------------ files

    def to_npz(self, path: str | os.PathLike[str]) -> None:
        arrays, meta = _flatten(self)
        meta["format"], meta["version"] = FORMAT, FORMAT_VERSION
        with open(path, "wb") as fh:
            # numpy's stub types **kwds as the bool after them (allow_pickle): a stub quirk, not a bug
            np.savez_compressed(fh, **arrays, **{_META_KEY: np.array(json.dumps(meta))})  # type: ignore[arg-type]

    @classmethod
    def from_npz(cls, path: str | os.PathLike[str]) -> MapLayout:
        with np.load(path, allow_pickle=False) as data:
            arrays = {name: data[name] for name in data.files}
        meta = json.loads(str(arrays.pop(_META_KEY)))
        if meta.get("format") != FORMAT or meta.get("version") != FORMAT_VERSION:
            raise UsageError(f"{os.fspath(path)}: not a {FORMAT} v{FORMAT_VERSION} file")
        return _unflatten(cls, "", arrays, meta)

    def nbytes(self) -> int:
        """Bytes held: every array plus the JSON-encoded strings and scalars."""
        arrays, meta = _flatten(self)
        return sum(a.nbytes for a in arrays.values()) + len(json.dumps(meta).encode("utf-8"))


def _fields(cls: type) -> list[tuple[str, Any]]:
    hints = typing.get_type_hints(cls)
    return [(f.name, hints[f.name]) for f in dataclasses.fields(cls) if f.init]


def _flatten(obj: Any, prefix: str = "") -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    arrays: dict[str, np.ndarray] = {}
    meta: dict[str, Any] = {}
    for name, _ in _fields(type(obj)):
        value = getattr(obj, name)
        key = prefix + name
        if isinstance(value, np.ndarray):
            arrays[key] = value
        elif dataclasses.is_dataclass(value):
            sub_arrays, sub_meta = _flatten(value, key + ".")
            arrays.update(sub_arrays)
            meta.update(sub_meta)
        else:
            meta[key] = list(value) if isinstance(value, tuple) else value
    return arrays, meta


def _unflatten(cls: type, prefix: str, arrays: dict[str, np.ndarray], meta: dict[str, Any]) -> Any:
    kwargs: dict[str, Any] = {}
    for name, hint in _fields(cls):
        key = prefix + name
        if isinstance(hint, type) and dataclasses.is_dataclass(hint):
            kwargs[name] = _unflatten(hint, key + ".", arrays, meta)
        elif key in arrays:
            kwargs[name] = arrays[key]
        else:
            value = meta[key]
            kwargs[name] = tuple(value) if typing.get_origin(hint) is tuple else value
    return cls(**kwargs)
