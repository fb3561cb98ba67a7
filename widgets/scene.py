"""pythreejs objects for a `MapLayout`: batched points, lines, aura meshes and labels.

One function per kind of object; each takes arrays from `geometry` and returns
pythreejs widgets. Materials avoid lighting (basic / points / line materials)
so the scene needs no lights, and every batch is one draw call.
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pythreejs as p3

from ohara_lab.layout.auras import DECAY_CLASSES
from ohara_lab.layout.maplayout import MapLayout

from .geometry import NodeBucket, aura_mesh_arrays, disc_outline_arrays, disc_outline_colors, guide_arrays

MIN_POINT_PX = 2.0
MAX_POINT_PX = 18.0
LABEL_FONT_PX = 48  # texture resolution; the on-screen height is set by the sprite scale
LABEL_COLOR = "#d5dde3"
TICK_LABEL_COLOR = "#93a1a1"
MAX_TICK_LABELS = 12
MAX_DOCUMENT_LABELS = 60  # the largest documents get a label; decluttering picks which show
DOC_LABEL_OFFSET = 35.0  # spec §6: doc labels at discR + 35
# three.js draws transparent objects far to near, so a highlight dot (drawn on top, hence transparent)
# nearer the camera than a label's anchor came after the label and covered its text; a higher
# render order sorts before distance: labels are drawn last.
LABEL_RENDER_ORDER = 10
# A dark plate under each label's text (drawn just before it): over a dense slab of dots the glyphs
# alone were hard to read, and the dots showed through between them.
PLATE_COLOR, PLATE_OPACITY, PLATE_PAD_PX = "#0f1419", 0.6, 3.0
AURA_CROWD_DOCS = 200  # above this many documents the auras fade as 1/√n, or they wash the map out


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


def node_points(layout: MapLayout, buckets: Sequence[NodeBucket], drawn: Sequence[np.ndarray], point_scale: float,
                texture: p3.DataTexture | None) -> list[p3.Points]:
    """One `Points` per bucket, holding the bucket's `drawn` rows (all of them, or a level-of-detail part)."""
    return [points(layout.positions[rows], layout.colors[rows], pixel_size(b.size, point_scale), texture)
            for b, rows in zip(buckets, drawn)]


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
    # The outline takes the document colour (by-document mode) or its class colour, like its aura.
    return line_segments(disc_outline_arrays(layout), disc_outline_colors(layout), opacity=0.6)


def set_colors(obj: p3.Object3D, colors: np.ndarray) -> None:
    """Rewrite one object's colour buffer only: the browser gets one array, the scene stays."""
    if len(colors):
        obj.geometry.attributes["color"].array = np.ascontiguousarray(colors, dtype=np.float32)


def aura_meshes(layout: MapLayout) -> list[p3.Mesh]:
    """One translucent merged mesh per decay class present (EPHEMERAL's pulse is not animated).

    Each mesh's `name` is "aura CLASS", which is how a recolouring finds its class again.
    """
    meshes = []
    for code, name in enumerate(DECAY_CLASSES):
        arrays = aura_mesh_arrays(layout, code)
        if arrays is None:
            continue
        vertices, colors, index = arrays
        opacity = aura_opacity(float(layout.auras.opacities[layout.auras.classes == code][0]),
                               len(layout.discs.document_ids))
        geometry = p3.BufferGeometry(
            attributes={"position": _attribute(vertices), "color": _attribute(colors)},
            index=p3.BufferAttribute(array=index, normalized=False),
        )
        material = p3.MeshBasicMaterial(vertexColors="VertexColors", transparent=True, opacity=opacity,
                                        depthWrite=False, side="DoubleSide")
        meshes.append(p3.Mesh(geometry=geometry, material=material, name=f"aura {name}"))
    return meshes


def aura_opacity(base: float, documents: int) -> float:
    """An aura class's opacity on a map of `documents` discs: the spec's value up to AURA_CROWD_DOCS, then × √(crowd/n).

    Overlapping translucent auras add up; at 1,000+ documents the spec's opacities covered the whole canvas.
    """
    return base * min(1.0, math.sqrt(AURA_CROWD_DOCS / max(documents, 1)))


def label_size_px(text: str, height_px: float) -> tuple[float, float]:
    """On-screen (width, height) of a label: its height, times the text's aspect in Arial-like glyphs."""
    aspect = (0.56 * LABEL_FONT_PX * len(text) + 2) / (LABEL_FONT_PX + 2)  # Arial's mean glyph width
    return height_px * aspect, height_px


def label_sprite(text: str, position: Sequence[float], height_px: float, canvas_height: int, fov: float,
                 color: str = LABEL_COLOR) -> p3.Sprite:
    """A camera-facing text label of constant on-screen height (`label_size_px` pixels)."""
    texture = p3.TextTexture(string=text, size=LABEL_FONT_PX, color=color, squareTexture=False)
    # Without size attenuation a sprite's scale is in view units at distance 1: px = s / tan(fov/2) · H/2.
    per_px = math.tan(math.radians(fov) / 2) * 2 / canvas_height
    w, h = label_size_px(text, height_px)
    material = p3.SpriteMaterial(map=texture, sizeAttenuation=False, transparent=True, depthTest=False)
    return p3.Sprite(material=material, position=tuple(float(v) for v in position), scale=(w * per_px, h * per_px, 1.0),
                     renderOrder=LABEL_RENDER_ORDER)


def label_plate(text: str, position: Sequence[float], height_px: float, canvas_height: int, fov: float) -> p3.Sprite:
    """The translucent backing of a `label_sprite` of the same arguments, `PLATE_PAD_PX` larger on each side."""
    per_px = math.tan(math.radians(fov) / 2) * 2 / canvas_height
    w, h = label_size_px(text, height_px)
    material = p3.SpriteMaterial(color=PLATE_COLOR, opacity=PLATE_OPACITY, sizeAttenuation=False, transparent=True,
                                 depthTest=False, depthWrite=False)
    return p3.Sprite(material=material, position=tuple(float(v) for v in position),
                     scale=((w + 2 * PLATE_PAD_PX) * per_px, (h + 2 * PLATE_PAD_PX) * per_px, 1.0),
                     renderOrder=LABEL_RENDER_ORDER - 1)


@dataclass
class LabelSet:
    """The map's labels and what decluttering needs to know about each."""

    sprites: list[p3.Sprite]
    plates: list[p3.Sprite]  # one backing per sprite, shown with it
    anchors: np.ndarray  # (n, 3) layout positions (before the display's time stretch)
    sizes_px: np.ndarray  # (n, 2) on-screen width and height
    priority: np.ndarray  # (n,) larger is shown first
    texts: list[str]  # the full text each label stands for (shown on hover)


def _hex(rgb: np.ndarray) -> str:
    return "#" + "".join(f"{int(c * 255):02x}" for c in np.clip(rgb, 0, 1))


def label_specs(layout: MapLayout, full_titles: Sequence[str] | None = None,
                max_documents: int = MAX_DOCUMENT_LABELS) -> list[tuple[str, tuple[float, float, float], float, str, float, str]]:
    """(text, anchor, height px, colour, priority, full text) of every label, most important kinds first.

    Priorities: documents (the largest first) > broad topic columns > timeline ticks > narrower columns.
    """
    g = layout.guides
    specs = []
    for d in _largest_documents(layout, max_documents):
        row = int(layout.discs.node_index[d])
        x, y, z = (float(v) for v in layout.discs.centers[d])
        size = float(layout.discs.radii[d])
        text = layout.labels[row]
        full = full_titles[d] if full_titles is not None else text
        specs.append((text, (x, y + size + DOC_LABEL_OFFSET, z), 12.0, LABEL_COLOR, 300.0 + min(size, 1e4) / 100, full))
    # Column names sit at the near end of their spines: around the tunnel's mouth, not at its vanishing point.
    for i, (name, a, r, col) in enumerate(zip(g.names, g.angles, g.radii, g.colors)):
        broad = r <= float(np.min(g.radii)) + 1e-3
        specs.append((name, (float(r * math.cos(a)), float(r * math.sin(a)), g.z0 - 40), 13.0, _hex(col * 1.6),
                      (200.0 if broad else 100.0) - i / max(len(g.names), 1), name))
    for k, (z, label) in enumerate(zip(*layout.timeline.thinned(MAX_TICK_LABELS))):
        specs.append((label, (90.0, 0.0, float(z)), 12.0, TICK_LABEL_COLOR, 150.0 - k / 100, label))
    return specs


def _largest_documents(layout: MapLayout, limit: int) -> list[int]:
    """Indices of the drawn documents with the largest discs (ties: input order), at most `limit`."""
    drawn = np.flatnonzero(layout.discs.node_index >= 0)
    order = np.lexsort((drawn, -layout.discs.radii[drawn]))
    return [int(d) for d in drawn[order][:limit]]


def label_set(layout: MapLayout, canvas_height: int, fov: float,
              full_titles: Sequence[str] | None = None) -> LabelSet:
    """Topic-column names, thinned timeline ticks and the largest documents' titles, as sprites."""
    specs = label_specs(layout, full_titles)
    sprites = [label_sprite(text, anchor, h, canvas_height, fov, color) for text, anchor, h, color, _, _ in specs]
    return LabelSet(
        sprites=sprites,
        plates=[label_plate(text, anchor, h, canvas_height, fov) for text, anchor, h, _, _, _ in specs],
        anchors=np.array([s[1] for s in specs], dtype=np.float64).reshape(-1, 3),
        sizes_px=np.array([label_size_px(s[0], s[2]) for s in specs], dtype=np.float64).reshape(-1, 2),
        priority=np.array([s[4] for s in specs], dtype=np.float64),
        texts=[s[5] for s in specs],
    )
