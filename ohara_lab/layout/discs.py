"""Document discs: sections on concentric rings by level, text nodes on the outer ring.

Source: OHARA spec §6 "Disc".

    ringR(n, d, g) = max(35, ⌈n(d+g)/2π⌉)          n nodes of diameter d with gap g around a ring
    curR starts at 34; for each section level, ascending:
        r = max(curR, ringR(n, 10, 5)),   node i of n at angle 2πi/n (doc_position order),
        curR = r + 32
    disc radius = final curR

All nodes lie in the disc plane, at the document's (x, y) offset and its Z.

Changed from the original on purpose: it never placed paragraphs and tables
(the paper puts them on the outer ring; spec §9.2-5 lists them as undrawn).
Here all text nodes of a document (paragraphs, figures, tables) take one more
ring outside the sections, by the same ringR rule, in reading order.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

FIRST_RING = 34.0
RING_GAP = 32.0
NODE_DIAMETER = 10
NODE_GAP = 5
MIN_RING = 35


def ring_radius(n: int, diameter: int = NODE_DIAMETER, gap: int = NODE_GAP) -> int:
    """ringR(n, d, g) = max(35, ⌈n(d+g)/2π⌉)."""
    return max(MIN_RING, math.ceil(n * (diameter + gap) / (2 * math.pi)))


@dataclass(frozen=True)
class DiscPlacement:
    section_xyz: np.ndarray  # (n_sections, 3)
    text_xyz: np.ndarray  # (n_text, 3)
    disc_radius: np.ndarray  # (n_docs,)


def _ring_groups(
    doc: np.ndarray, ring: np.ndarray, position: np.ndarray
) -> tuple[np.ndarray, list[tuple[int, int, int, int]]]:
    """Sort nodes by (doc, ring, position, input order); return the order and its runs.

    Each run is (start, stop, doc, ring) over the sorted order: the nodes that
    share one ring of one disc.
    """
    order = np.lexsort((np.arange(len(doc)), position, ring, doc))
    d, r = doc[order], ring[order]
    cuts = np.flatnonzero((d[1:] != d[:-1]) | (r[1:] != r[:-1])) + 1
    starts = np.concatenate([[0], cuts]).astype(int)
    stops = np.concatenate([cuts, [len(order)]]).astype(int)
    runs = [(int(a), int(b), int(d[a]), int(r[a])) for a, b in zip(starts, stops) if b > a]
    return order, runs


def place_discs(
    doc_xyz: np.ndarray,
    section_doc: np.ndarray,
    section_level: np.ndarray,
    section_position: np.ndarray,
    text_doc: np.ndarray,
    text_position: np.ndarray,
) -> DiscPlacement:
    """Lay out every disc at once.

    `*_doc` are indices into `doc_xyz`; positions give the order around a ring.
    Text nodes form one ring per document, outside its section rings.
    """
    doc_xyz = np.asarray(doc_xyz, dtype=np.float64).reshape(-1, 3)
    n_docs, n_sec, n_txt = len(doc_xyz), len(section_doc), len(text_doc)
    # One index space for both kinds: text nodes ride on a ring key above every section level.
    outer = (int(np.max(section_level)) + 1) if n_sec else 0
    doc = np.concatenate([np.asarray(section_doc, np.int64), np.asarray(text_doc, np.int64)])
    ring = np.concatenate([np.asarray(section_level, np.int64), np.full(n_txt, outer, np.int64)])
    position = np.concatenate([np.asarray(section_position, np.int64), np.asarray(text_position, np.int64)])

    order, runs = _ring_groups(doc, ring, position)
    radius = np.empty(len(doc), dtype=np.float64)
    angle = np.empty(len(doc), dtype=np.float64)
    current = np.full(n_docs, FIRST_RING)
    for start, stop, d, _ in runs:  # runs of a disc come in ascending ring order
        n = stop - start
        r = max(current[d], ring_radius(n))
        members = order[start:stop]
        radius[members] = r
        angle[members] = 2 * np.pi * np.arange(n) / n
        current[d] = r + RING_GAP

    xyz = doc_xyz[doc] if len(doc) else np.zeros((0, 3))
    xyz = xyz.copy()
    xyz[:, 0] += radius * np.cos(angle)
    xyz[:, 1] += radius * np.sin(angle)
    return DiscPlacement(xyz[:n_sec], xyz[n_sec:], current)
