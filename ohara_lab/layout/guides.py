"""Reading aids of the map: topic-column spines and depth rings (spec §6 "Guides").

depth rings     radius 700·sqrt(d/5), d = 1..5, at z = floor
topic columns   at every category of depth ≤ 2, at (700·sqrt(depth/5), theta),
                from z = floor to max(maxZ, 220) + 80,
                coloured by L1 group: Abstract #2d6a9f, Physical #7a3d8c, otherwise #5a4530
floor           −80, or 80 below the undated slab when there is one (ours: the
                slab lies below the original's floor)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from ohara_lab.layout.colors import hex_to_rgb
from ohara_lab.layout.inputs import OntologyCategories
from ohara_lab.layout.sunburst import MAX_DEPTH, Slice, depth_radius

MAX_GUIDE_DEPTH = 2
FLOOR_Z = -80.0
MARGIN = 80.0
MIN_TOP = 220.0
L1_COLORS = {"Abstract": "#2d6a9f", "Physical": "#7a3d8c"}
OTHER_L1_COLOR = "#5a4530"


@dataclass(frozen=True)
class Guides:
    names: list[str]  # categories with a column
    angles: np.ndarray  # (g,) float32 theta of each column
    radii: np.ndarray  # (g,) float32
    groups: list[str]  # L1 group of each column
    colors: np.ndarray  # (g, 3) float32
    z0: float  # bottom of the columns, height of the depth rings
    z1: float  # top of the columns
    ring_radii: np.ndarray  # (5,) float32


def build_guides(
    ontology: OntologyCategories,
    layout: Mapping[str, Slice],
    max_z: float,
    undated_z: float | None = None,
) -> Guides:
    names: list[str] = []
    depths: list[int] = []
    for cat in ontology.categories:
        depth = ontology.category_depth(cat)
        if cat in layout and depth <= MAX_GUIDE_DEPTH:
            names.append(cat)
            depths.append(depth)
    groups = [ontology.category_groups(cat)[0] for cat in names]
    z0 = FLOOR_Z if undated_z is None else min(FLOOR_Z, undated_z - MARGIN)
    return Guides(
        names=names,
        angles=np.array([layout[c].theta for c in names], dtype=np.float32),
        radii=np.array([depth_radius(d) for d in depths], dtype=np.float32),
        groups=groups,
        colors=np.array([hex_to_rgb(L1_COLORS.get(g, OTHER_L1_COLOR)) for g in groups], dtype=np.float32).reshape(
            -1, 3
        ),
        z0=z0,
        z1=max(max_z, MIN_TOP) + MARGIN,
        ring_radii=np.array([depth_radius(d) for d in range(1, MAX_DEPTH + 1)], dtype=np.float32),
    )
