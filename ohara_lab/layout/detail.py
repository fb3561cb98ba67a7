"""Level of detail: which text nodes a map draws when it cannot draw them all.

Documents, sections, entities and tags are always drawn; they are a few percent
of a corpus and carry its shape. Paragraphs, figures and tables (the other 90 %)
are drawn by time slab, nearest slab first, up to a budget:

    slab(d)      = the Z of document d's disc (one value per time bucket)
    order        = documents by (|slab(d) − z_f|, |xy(d) − xy_f|, d)    f = the focus point
    drawn        = the text nodes of the longest prefix of that order whose
                   text-node count stays within `budget` (at least the first document)

The focus is the orbit target, a selected node, or a slab asked for by name.
Nothing moves when detail comes and goes: text nodes keep the positions
`build_layout` gave them, so a slab's paragraphs appear on their disc rings.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ohara_lab.layout.inputs import TEXT_KINDS
from ohara_lab.layout.maplayout import MapLayout

DEFAULT_BUDGET = 20_000  # text nodes drawn at once; below it every text node is drawn


@dataclass(frozen=True)
class Slab:
    z: float  # the Z of the slab's document discs (layout units, before the display's time stretch)
    label: str  # the timeline label of the bucket ("2007", "undated", …)
    documents: np.ndarray  # (k,) int64 document indices (into `layout.discs`)
    text_nodes: int  # how many text nodes its documents hold


def text_mask(layout: MapLayout) -> np.ndarray:
    """(n,) bool: rows that are paragraphs, figures or tables."""
    codes = [layout.kind_names.index(k) for k in TEXT_KINDS]
    return np.isin(layout.kinds, codes)


def slabs(layout: MapLayout) -> list[Slab]:
    """The time slabs of a layout, in Z order, each with its documents and text-node count."""
    z = layout.discs.centers[:, 2].astype(np.float64) if len(layout.discs.document_ids) else np.zeros(0)
    text = text_mask(layout)
    per_doc = np.bincount(layout.node_document[text], minlength=len(z)) if text.any() else np.zeros(len(z), int)
    ticks, names = layout.timeline.tick_z.astype(np.float64), layout.timeline.tick_labels
    out: list[Slab] = []
    seen: set[str] = set()
    for value in np.unique(z):
        docs = np.flatnonzero(z == value)
        label = names[int(np.argmin(np.abs(ticks - value)))] if len(ticks) else "slab"
        if label in seen:  # a shared bucket spread by date rank, or a thinned ruler: keep names unique
            label = f"{label} (z={value:.0f})"
        seen.add(label)
        out.append(Slab(float(value), label, docs.astype(np.int64), int(per_doc[docs].sum())))
    return out


def documents_by_focus(layout: MapLayout, focus: np.ndarray) -> np.ndarray:
    """Document indices nearest the focus first: by slab distance, then by distance in the plane."""
    centers = layout.discs.centers.astype(np.float64)
    f = np.asarray(focus, dtype=np.float64).reshape(3)
    dz = np.abs(centers[:, 2] - f[2])
    dxy = np.hypot(centers[:, 0] - f[0], centers[:, 1] - f[1])
    return np.lexsort((np.arange(len(centers)), dxy, dz)).astype(np.int64)


def detail_rows(layout: MapLayout, focus: np.ndarray, budget: int = DEFAULT_BUDGET) -> np.ndarray:
    """Rows of the text nodes to draw around `focus` (ascending), within `budget` (see module doc)."""
    text = text_mask(layout)
    if int(text.sum()) <= budget:
        return np.flatnonzero(text)
    counts = np.bincount(layout.node_document[text], minlength=len(layout.discs.document_ids))
    order = documents_by_focus(layout, focus)
    running = np.cumsum(counts[order])
    take = max(1, int(np.searchsorted(running, budget, side="right")))
    chosen = np.zeros(len(counts), dtype=bool)
    chosen[order[:take]] = True
    return np.flatnonzero(text & chosen[np.maximum(layout.node_document, 0)] & (layout.node_document >= 0))


def slab_focus(layout: MapLayout, label: str) -> np.ndarray:
    """A focus point inside the named slab (its documents' centre), for `detail_rows`."""
    for slab in slabs(layout):
        if slab.label == label:
            return layout.discs.centers[slab.documents].astype(np.float64).mean(axis=0)
    raise KeyError(f"no slab {label!r}; the slabs are {[s.label for s in slabs(layout)][:12]}")
