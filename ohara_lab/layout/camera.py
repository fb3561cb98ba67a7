"""The "tunnel entrance" view: a camera before the first time slab, looking down +Z.

Source: OHARA spec §6 "Interaction" (Fit), with bounds taken from the node
positions themselves (the original's fix for instanced-mesh bounds, §9.1-10).

    c = centre of the bounds, w = x extent, maxDim = largest extent
    dist = maxDim/2 / tan(fov/2) · 1.6,   fov = 55°
    position = (cx + 1.4·w/2, cy + w/2, cz − 0.65·dist),   target = c

Choice made here: maxDim is at least one time bucket (220), so a single point
still gets a usable distance.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

FOV_DEGREES = 55.0
DISTANCE_FACTOR = 1.6
MIN_EXTENT = 220.0


@dataclass(frozen=True)
class Camera:
    position: np.ndarray  # (3,) float32
    target: np.ndarray  # (3,) float32
    up: np.ndarray  # (3,) float32
    fov: float  # vertical field of view, degrees


def bounds(positions: np.ndarray) -> np.ndarray:
    """(2, 3) float32: per-axis min (row 0) and max (row 1); zeros when there are no positions."""
    positions = np.asarray(positions, dtype=np.float32).reshape(-1, 3)
    if len(positions) == 0:
        return np.zeros((2, 3), dtype=np.float32)
    return np.stack([positions.min(axis=0), positions.max(axis=0)]).astype(np.float32)


def fit_camera(box: np.ndarray, fov: float = FOV_DEGREES) -> Camera:
    lo, hi = np.asarray(box, dtype=np.float64)
    centre = (lo + hi) / 2
    size = hi - lo
    width = size[0]
    max_dim = max(float(size.max()), MIN_EXTENT)
    dist = max_dim / 2 / math.tan(math.radians(fov) / 2) * DISTANCE_FACTOR
    position = centre + np.array([1.4 * width / 2, width / 2, -0.65 * dist])
    return Camera(
        position=position.astype(np.float32),
        target=centre.astype(np.float32),
        up=np.array([0.0, 1.0, 0.0], dtype=np.float32),
        fov=fov,
    )
