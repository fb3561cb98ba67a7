"""pythreejs objects for a `MapLayout`: batched points, lines, aura meshes and labels.

One function per kind of object; each takes arrays from `geometry` and returns
pythreejs widgets. Materials avoid lighting (basic / points / line materials)
so the scene needs no lights, and every batch is one draw call.
"""
from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pythreejs as p3

from ohara_lab.layout.auras import DECAY_CLASSES
from ohara_lab.layout.maplayout import MapLayout

from .geometry import NodeBucket, aura_mesh_arrays, disc_outline_arrays, guide_arrays

MIN_POINT_PX = 2.0
MAX_POINT_PX = 18.0
LABEL_FONT_PX = 48  # texture resolution; the on-screen height is set by the sprite scale
LABEL_COLOR = "#d5dde3"
TICK_LABEL_COLOR = "#93a1a1"
MAX_TICK_LABELS = 12
MAX_DOCUMENT_LABELS = 40
DOCUMENT_LABEL_CHARS = 30
DOC_LABEL_OFFSET = 35.0  # spec §6: doc labels at discR + 35


def _attribute(array: np.ndarray) -> p3.BufferAttribute:
    return p3.BufferAttribute(array=np.ascontiguousarray(array, dtype=np.float32), normalized=False)


def point_texture(size: int = 64, ring: bool = False) -> p3.DataTexture:
    """A round sprite (or a ring) for `PointsMaterial.map`, so nodes are dots rather than squares."""
    c = (size - 1) / 2
    y, x = np.mgrid[0:size, 0:size]
    r = np.hypot(x - c, y - c) / c
    alpha = (r <= 1.0) if not ring else ((r <= 1.0) & (r >= 0.72))
    data = np.zeros((size, size, 4), dtype=np.uint8)
    data[..., :3] = 255
    data[..., 3] = alpha.astype(np.uint8) * 255
    return p3.DataTexture(data=data, format="RGBAFormat", type="UnsignedByteType",
                          magFilter="LinearFilter", minFilter="LinearFilter")


def pixel_size(size: float, point_scale: float) -> float:
    return float(np.clip(size * point_scale, MIN_POINT_PX, MAX_POINT_PX))


def points(positions: np.ndarray, colors: np.ndarray, size_px: float, texture: p3.DataTexture | None,
           visible: bool = True, on_top: bool = False) -> p3.Points:
    """A batch of same-size dots with per-vertex colours (constant screen size)."""
    positions, colors, filled = _or_dummy(positions, colors, 1)
    visible = visible and filled
    geometry = p3.BufferGeometry(attributes={"position": _attribute(positions), "color": _attribute(colors)})
    material = p3.PointsMaterial(vertexColors="VertexColors", size=size_px, sizeAttenuation=False,
                                 map=texture, alphaTest=0.5 if texture is not None else 0.0,
                                 depthTest=not on_top, transparent=on_top)
    return p3.Points(geometry=geometry, material=material, visible=visible)


def set_points(obj: p3.Points, positions: np.ndarray, colors: np.ndarray) -> None:
    """Replace a batch's arrays in place (the browser updates without a new object)."""
    _set_arrays(obj, *_or_dummy(positions, colors, 1))


def node_points(layout: MapLayout, buckets: Sequence[NodeBucket], point_scale: float,
                texture: p3.DataTexture | None) -> list[p3.Points]:
    return [points(layout.positions[b.rows], layout.colors[b.rows], pixel_size(b.size, point_scale), texture)
            for b in buckets]


def line_segments(vertices: np.ndarray, colors: np.ndarray, opacity: float = 0.35,
                  visible: bool = True) -> p3.LineSegments:
    vertices, colors, filled = _or_dummy(vertices, colors, 2)
    visible = visible and filled
    geometry = p3.BufferGeometry(attributes={"position": _attribute(vertices), "color": _attribute(colors)})
    material = p3.LineBasicMaterial(vertexColors="VertexColors", transparent=opacity < 1.0, opacity=opacity,
                                    depthWrite=opacity >= 1.0)
    return p3.LineSegments(geometry=geometry, material=material, visible=visible)


def set_lines(obj: p3.LineSegments, vertices: np.ndarray, colors: np.ndarray) -> None:
    _set_arrays(obj, *_or_dummy(vertices, colors, 2))


def _or_dummy(positions: np.ndarray, colors: np.ndarray, rows: int) -> tuple[np.ndarray, np.ndarray, bool]:
    """The arrays, or `rows` zero vertices when empty (an empty buffer upsets three r97); False if a dummy."""
    if len(positions):
        return positions, colors, True
    return np.zeros((rows, 3), np.float32), np.zeros((rows, 3), np.float32), False


def _set_arrays(obj: p3.Points | p3.LineSegments, positions: np.ndarray, colors: np.ndarray,
                visible: bool) -> None:
    obj.geometry.attributes["position"].array = np.ascontiguousarray(positions, dtype=np.float32)
    obj.geometry.attributes["color"].array = np.ascontiguousarray(colors, dtype=np.float32)
    obj.visible = visible


def guide_lines(layout: MapLayout) -> p3.LineSegments:
    vertices, colors = guide_arrays(layout)
    return line_segments(vertices, colors, opacity=0.55)


def disc_lines(layout: MapLayout) -> p3.LineSegments:
    vertices = disc_outline_arrays(layout)
    node_colors = layout.auras.colors  # the document colour (by-document mode) or its class colour
    per_vertex = np.repeat(node_colors, len(vertices) // max(len(node_colors), 1), axis=0)
    return line_segments(vertices, per_vertex.reshape(-1, 3), opacity=0.6)


def aura_meshes(layout: MapLayout) -> list[p3.Mesh]:
    """One translucent merged mesh per decay class present (EPHEMERAL's pulse is not animated)."""
    meshes = []
    for code, name in enumerate(DECAY_CLASSES):
        arrays = aura_mesh_arrays(layout, code)
        if arrays is None:
            continue
        vertices, colors, index = arrays
        opacity = float(layout.auras.opacities[layout.auras.classes == code][0])
        geometry = p3.BufferGeometry(
            attributes={"position": _attribute(vertices), "color": _attribute(colors)},
            index=p3.BufferAttribute(array=index, normalized=False),
        )
        material = p3.MeshBasicMaterial(vertexColors="VertexColors", transparent=True, opacity=opacity,
                                        depthWrite=False, side="DoubleSide")
        meshes.append(p3.Mesh(geometry=geometry, material=material, name=f"aura {name}"))
    return meshes


def label_sprite(text: str, position: Sequence[float], height_px: float, canvas_height: int, fov: float,
                 color: str = LABEL_COLOR) -> p3.Sprite:
    """A camera-facing text label of constant on-screen height."""
    texture = p3.TextTexture(string=text, size=LABEL_FONT_PX, color=color, squareTexture=False)
    # Without size attenuation a sprite's scale is in view units at distance 1: px = s / tan(fov/2) · H/2.
    h = height_px * math.tan(math.radians(fov) / 2) * 2 / canvas_height
    aspect = (0.56 * LABEL_FONT_PX * len(text) + 2) / (LABEL_FONT_PX + 2)  # Arial's mean glyph width
    material = p3.SpriteMaterial(map=texture, sizeAttenuation=False, transparent=True, depthTest=False)
    return p3.Sprite(material=material, position=tuple(float(v) for v in position), scale=(h * aspect, h, 1.0))


def label_sprites(layout: MapLayout, canvas_height: int, fov: float) -> list[p3.Sprite]:
    """Topic-column names at the mouth of the tunnel, thinned timeline ticks, and document titles."""
    g = layout.guides
    # Column names sit at the near end of their spines: around the tunnel's mouth, not crowded at its vanishing point.
    sprites = [label_sprite(name, (r * math.cos(a), r * math.sin(a), g.z0 - 40), 13, canvas_height, fov,
                            "#" + "".join(f"{int(c * 255):02x}" for c in np.clip(col * 1.6, 0, 1)))
               for name, a, r, col in zip(g.names, g.angles, g.radii, g.colors)]
    for z, label in zip(*layout.timeline.thinned(MAX_TICK_LABELS)):
        sprites.append(label_sprite(label, (90.0, 0.0, float(z)), 12, canvas_height, fov, TICK_LABEL_COLOR))
    if len(layout.discs.document_ids) <= MAX_DOCUMENT_LABELS:
        for d, center in enumerate(layout.discs.centers):
            row = int(layout.discs.node_index[d])
            if row < 0:
                continue
            x, y, z = (float(v) for v in center)
            sprites.append(label_sprite(layout.labels[row][: DOCUMENT_LABEL_CHARS + 10],
                                        (x, y + float(layout.discs.radii[d]) + DOC_LABEL_OFFSET, z), 12,
                                        canvas_height, fov))
    return sprites
