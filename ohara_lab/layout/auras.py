"""Decay auras: one translucent ellipsoid per document, as tall as its information lives.

Source: OHARA spec §6 "Decay auras".

    scale = (discR, discR, zH/2),  zH = 220 × {EVERGREEN 5, SCHOLARLY 2.5, CURRENT 1, EPHEMERAL 0.4}
    class = effective_decay_class → decay_class → SCHOLARLY   (an unknown name counts as missing)
    colour/opacity  EVERGREEN #268bd2/0.16, SCHOLARLY #586e75/0.14, CURRENT #657b83/0.12,
                    EPHEMERAL #93a1a1/0.10  (the document's colour in by-document mode)
    EPHEMERAL opacity pulses: base·(0.4 + 0.6·(0.5 + 0.5·sin(0.0018·t_ms)))
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ohara_lab.layout.colors import hex_to_rgb
from ohara_lab.records import DECAY_CLASSES

DEFAULT_CLASS = "SCHOLARLY"
BUCKET_Z = 220.0
HEIGHT_BUCKETS = {"EVERGREEN": 5.0, "SCHOLARLY": 2.5, "CURRENT": 1.0, "EPHEMERAL": 0.4}
STYLE = {  # class -> (colour, opacity)
    "EVERGREEN": ("#268bd2", 0.16),
    "SCHOLARLY": ("#586e75", 0.14),
    "CURRENT": ("#657b83", 0.12),
    "EPHEMERAL": ("#93a1a1", 0.10),
}


def decay_class(effective: str | None, declared: str | None) -> str:
    for candidate in (effective, declared):
        if candidate in HEIGHT_BUCKETS:
            return candidate
    return DEFAULT_CLASS


def aura_height(cls: str) -> float:
    """zH = 220 × the class's factor."""
    return BUCKET_Z * HEIGHT_BUCKETS[cls]


def ephemeral_opacity(base: float, t_ms: float) -> float:
    """The EPHEMERAL pulse at time t_ms (for the renderer; layout stores the base)."""
    return base * (0.4 + 0.6 * (0.5 + 0.5 * math.sin(0.0018 * t_ms)))


def class_colors(classes: Sequence[str]) -> np.ndarray:
    """(d, 3) float32: each decay class's aura colour (every mode but by-document)."""
    return np.array([hex_to_rgb(STYLE[c][0]) for c in classes], dtype=np.float32).reshape(-1, 3)


@dataclass(frozen=True)
class Auras:
    centers: np.ndarray  # (d, 3) float32, the document centres
    scales: np.ndarray  # (d, 3) float32, scale of a unit sphere
    colors: np.ndarray  # (d, 3) float32 RGB in [0, 1]
    opacities: np.ndarray  # (d,) float32
    classes: np.ndarray  # (d,) uint8 index into DECAY_CLASSES


def build_auras(
    centers: np.ndarray,
    disc_radii: np.ndarray,
    classes: Sequence[str],
    document_colors: np.ndarray | None = None,
) -> Auras:
    """Auras for documents; pass `document_colors` (d, 3) in by-document colour mode."""
    centers = np.asarray(centers, dtype=np.float32).reshape(-1, 3)
    radii = np.asarray(disc_radii, dtype=np.float32)
    half_heights = np.array([aura_height(c) / 2 for c in classes], dtype=np.float32)
    scales = np.column_stack([radii, radii, half_heights]).astype(np.float32).reshape(-1, 3)
    if document_colors is None:
        colors = class_colors(classes)
    else:
        colors = np.asarray(document_colors, dtype=np.float32).reshape(-1, 3)
    opacities = np.array([STYLE[c][1] for c in classes], dtype=np.float32)
    codes = np.array([DECAY_CLASSES.index(c) for c in classes], dtype=np.uint8)
    return Auras(centers, scales, colors, opacities, codes)
