"""Satellites: entities and the corpus's top SUMO tags, floating outside the discs.

Source: OHARA spec §6, "Entities" and "Tags" bullets. With C the (x, y)
centroid of all document centres and h the 31-multiplier hash of the node's
key (`hashing.string_hash32`):

    E       = max(max disc radius, 100) + 120
    entity  P = centroid of its documents' centres, pushed away from C by E,
            + jitter ((h & 0xff)/255 − 0.5)·80 on x and on y (the same value, as specified),
            z = mean Z of its documents, size = min(18, 6 + 0.8·mention_count)
            no known document: angle (h & 0x7fff)/0x7fff·2π at distance E,
            z = ((h >>> 8) & 0xff)/255 · max(maxZ, 220)
    tag     the top 25 tags of the visible text nodes; P = centroid of the sections
            holding them, pushed away from C by E + 80, jitter span 60,
            z = mean Z of those sections, size = min(16, 5 + 0.5·count)

Choices the spec leaves open, made here: the entity key is its id and the tag
key is the tag; distances are measured from C (also for entities without a
known document); a point that sits exactly on C is pushed along its hash
angle; a text node outside any section counts its document's centre as its
holder; a tag's count is the number of visible text nodes carrying it (ties
keep first-seen order).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ohara_lab.layout.hashing import string_hash32

ENTITY_GAP = 120.0
MIN_SPREAD = 100.0
TAG_EXTRA = 80.0
ENTITY_JITTER = 80.0
TAG_JITTER = 60.0
TOP_TAGS = 25
MIN_Z_SPAN = 220.0


def satellite_distance(max_disc_radius: float) -> float:
    """E = max(max disc radius, 100) + 120."""
    return max(max_disc_radius, MIN_SPREAD) + ENTITY_GAP


def entity_size(mention_count: int | np.ndarray) -> np.ndarray:
    return np.minimum(18.0, 6.0 + 0.8 * np.asarray(mention_count, dtype=np.float64))


def tag_size(count: int | np.ndarray) -> np.ndarray:
    return np.minimum(16.0, 5.0 + 0.5 * np.asarray(count, dtype=np.float64))


def _hashes(keys: Sequence[str]) -> np.ndarray:
    return np.array([string_hash32(k) for k in keys], dtype=np.uint64)


def _hash_angle(h: np.ndarray) -> np.ndarray:
    return (h & 0x7FFF).astype(np.float64) / 0x7FFF * 2 * np.pi


def push_out(
    anchor_xy: np.ndarray, centre_xy: np.ndarray, distance: float, keys: Sequence[str], jitter_span: float
) -> np.ndarray:
    """anchor + distance·unit(anchor − centre) + jitter; the hash angle stands in for a zero direction."""
    anchor_xy = np.asarray(anchor_xy, dtype=np.float64).reshape(-1, 2)
    h = _hashes(keys)
    away = anchor_xy - centre_xy
    norm = np.hypot(away[:, 0], away[:, 1])
    flat = norm < 1e-9
    fallback = _hash_angle(h[flat])
    away[flat] = np.column_stack([np.cos(fallback), np.sin(fallback)])
    norm[flat] = 1.0
    jitter = ((h & 0xFF).astype(np.float64) / 255 - 0.5) * jitter_span
    return anchor_xy + away / norm[:, None] * distance + jitter[:, None]


@dataclass(frozen=True)
class Satellites:
    xyz: np.ndarray  # (k, 3)
    sizes: np.ndarray  # (k,)


def place_entities(
    doc_xyz: np.ndarray,
    entity_docs: Sequence[Sequence[int]],
    keys: Sequence[str],
    mention_counts: Sequence[int],
    distance: float,
) -> Satellites:
    """Entities around the corpus; `entity_docs[i]` are indices into `doc_xyz` (may be empty)."""
    doc_xyz = np.asarray(doc_xyz, dtype=np.float64).reshape(-1, 3)
    n = len(keys)
    centre = doc_xyz[:, :2].mean(axis=0) if len(doc_xyz) else np.zeros(2)
    max_z = float(doc_xyz[:, 2].max()) if len(doc_xyz) else 0.0
    xyz = np.zeros((n, 3))
    known = np.array([len(d) > 0 for d in entity_docs], dtype=bool)
    if known.any():
        # Mean over each entity's documents via a flat index + bincount (vectorised ragged mean).
        flat = np.concatenate([np.asarray(d, dtype=np.int64) for d in entity_docs if len(d)])
        owner = np.repeat(np.flatnonzero(known), [len(d) for d in entity_docs if len(d)])
        counts = np.bincount(owner, minlength=n)[known][:, None]
        sums = np.column_stack([np.bincount(owner, weights=doc_xyz[flat, k], minlength=n)[known] for k in range(3)])
        means = sums / counts
        xyz[known, :2] = push_out(
            means[:, :2], centre, distance, [keys[i] for i in np.flatnonzero(known).tolist()], ENTITY_JITTER
        )
        xyz[known, 2] = means[:, 2]
    if (~known).any():
        h = _hashes([keys[i] for i in np.flatnonzero(~known).tolist()])
        angle = _hash_angle(h)
        xyz[~known, 0] = centre[0] + distance * np.cos(angle)
        xyz[~known, 1] = centre[1] + distance * np.sin(angle)
        xyz[~known, 2] = ((h >> 8) & 0xFF).astype(np.float64) / 255 * max(max_z, MIN_Z_SPAN)
    return Satellites(xyz, entity_size(np.asarray(mention_counts)))


def top_tags(node_tags: Sequence[Sequence[str]], k: int = TOP_TAGS) -> list[tuple[str, int]]:
    """The k tags carried by most nodes; Counter.most_common keeps first-seen order among ties."""
    # dict.fromkeys: a node counts once per tag, in its own order (a set's order would vary by hash seed).
    counts = Counter(tag for tags in node_tags for tag in dict.fromkeys(tags))
    return counts.most_common(k)


def place_tags(
    tags: Sequence[str],
    counts: Sequence[int],
    holder_xyz: Sequence[np.ndarray],
    doc_centre_xy: np.ndarray,
    distance: float,
) -> Satellites:
    """Tag nodes; `holder_xyz[i]` are the positions of the sections holding tag i (non-empty)."""
    n = len(tags)
    if n == 0:
        return Satellites(np.zeros((0, 3)), np.zeros(0))
    means = np.array([np.asarray(h, dtype=np.float64).reshape(-1, 3).mean(axis=0) for h in holder_xyz])
    xyz = np.empty((n, 3))
    xyz[:, :2] = push_out(
        means[:, :2], np.asarray(doc_centre_xy, dtype=np.float64), distance + TAG_EXTRA, tags, TAG_JITTER
    )
    xyz[:, 2] = means[:, 2]
    return Satellites(xyz, tag_size(np.asarray(counts)))
