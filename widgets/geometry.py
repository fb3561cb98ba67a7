"""Render-ready arrays for the map, computed from a `MapLayout` with numpy only.

pythreejs bundles three.js r97, which has no InstancedMesh, so the map is drawn
in batches: one `Points` per (kind, size class), one `LineSegments` per line
family, one merged mesh per aura class. This module builds those batches'
arrays and the camera maths the widget needs (look-at quaternion, projection to
canvas pixels); `space_time_map` only wraps them in pythreejs objects. Keeping
it free of pythreejs makes every number here testable without a browser.
"""
from __future__ import annotations

import math
from collections.abc import Collection, Sequence
from dataclasses import dataclass

import numpy as np

from ohara_lab.layout.colors import hex_to_rgb
from ohara_lab.layout.maplayout import MapLayout
from ohara_lab.records import CONTRADICTS, HAS_CHILD, MENTIONS, NEXT_PARA, NEXT_SIBLING, PRECEDES, SIMILAR_TO

SIZE_STEP = 3.0  # nodes whose map size rounds to the same multiple share one draw call
DIM_TARGET = hex_to_rgb("#4B3D2D")  # spec §6: unrelated nodes lerp 72 % towards it
DIM_AMOUNT = 0.72
EDGE_COLORS = {
    HAS_CHILD: "#586e75",
    NEXT_SIBLING: "#93a1a1",
    NEXT_PARA: "#657b83",
    MENTIONS: "#d33682",
    SIMILAR_TO: "#b58900",
    CONTRADICTS: "#dc322f",
    PRECEDES: "#6c71c4",
    "TAG_TETHER": "#5c4a12",  # dim: tethers are many and only orient the eye
}
OTHER_EDGE_COLOR = "#839496"
RULER_COLOR = "#839496"
DISC_MARGIN = 20.0  # spec §6: disc outline at discR + 20
RULER_HALF_WIDTH = 40.0  # spec §6: timeline tick segments span x ∈ [−40, 40]
CIRCLE_SEGMENTS = 48
# Level of detail for per-document outlines and auras: (documents up to, circle chords, sphere segments, rings).
# A 2,000-document map at full detail would send ~19 MB of aura and outline vertices alone.
DOCUMENT_DETAIL = ((200, 48, 16, 8), (1000, 24, 12, 6), (None, 16, 8, 4))


def document_detail(n_documents: int) -> tuple[int, int, int]:
    """(circle chords, sphere segments, sphere rings) for a map of `n_documents`."""
    for limit, chords, segments, rings in DOCUMENT_DETAIL:
        if limit is None or n_documents <= limit:
            return chords, segments, rings
    raise AssertionError("unreachable: the last row has no limit")


@dataclass(frozen=True)
class NodeBucket:
    """Rows of the layout drawn by one `Points` object."""

    kind: str
    size: float  # the layout size shared by the bucket (its rounded size)
    rows: np.ndarray  # (k,) int64 rows of the layout, ascending


def node_buckets(layout: MapLayout, size_step: float = SIZE_STEP) -> list[NodeBucket]:
    """Group rows by kind and by size rounded to `size_step` (at least one step).

    Kinds come in `kind_names` order and sizes ascend within a kind, so the
    bucket list is stable for a given layout.
    """
    buckets: list[NodeBucket] = []
    rounded = np.maximum(np.round(layout.sizes / size_step), 1.0) * size_step
    for code, kind in enumerate(layout.kind_names):
        rows = np.flatnonzero(layout.kinds == code)
        if not len(rows):
            continue
        for size in np.unique(rounded[rows]):
            buckets.append(NodeBucket(kind, float(size), rows[rounded[rows] == size].astype(np.int64)))
    return buckets


def dimmed(colors: np.ndarray, keep: np.ndarray | None = None, amount: float = DIM_AMOUNT) -> np.ndarray:
    """Colours lerped `amount` towards the dim target, except the rows where `keep` is True."""
    out = np.asarray(colors, dtype=np.float32).copy()
    target = np.array(DIM_TARGET, dtype=np.float32)
    mask = np.ones(len(out), dtype=bool) if keep is None else ~np.asarray(keep, dtype=bool)
    out[mask] = out[mask] + (target - out[mask]) * amount
    return out


def segments(positions: np.ndarray, pairs: np.ndarray) -> np.ndarray:
    """(2m, 3) float32 vertex array of the segments between row pairs (LineSegments layout)."""
    pairs = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
    return np.asarray(positions, dtype=np.float32)[pairs.reshape(-1)].reshape(-1, 3)


def edge_arrays(layout: MapLayout, kinds: Collection[str] | None = None,
                drawn: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Vertices and per-vertex colours of the layout's edges (optionally only some kinds, and only
    those whose two ends are `drawn`: an (n,) bool mask of the rows on screen)."""
    names = layout.edge_kind_names
    keep = np.ones(len(layout.edges), dtype=bool)
    if kinds is not None:
        wanted = [i for i, n in enumerate(names) if n in set(kinds)]
        keep = np.isin(layout.edge_kinds, wanted)
    if drawn is not None and len(layout.edges):
        keep &= drawn[layout.edges[:, 0]] & drawn[layout.edges[:, 1]]
    pairs = layout.edges[keep]
    palette = np.array([hex_to_rgb(EDGE_COLORS.get(n, OTHER_EDGE_COLOR)) for n in names] or [(0, 0, 0)],
                       dtype=np.float32)
    colors = np.repeat(palette[layout.edge_kinds[keep]], 2, axis=0)
    return segments(layout.positions, pairs), colors.reshape(-1, 3)


def circle_segments(centers: np.ndarray, radii: np.ndarray, n: int = CIRCLE_SEGMENTS) -> np.ndarray:
    """(len(centers)·n·2, 3) vertices: each circle in its centre's z plane, as n chords."""
    centers = np.asarray(centers, dtype=np.float64).reshape(-1, 3)
    radii = np.asarray(radii, dtype=np.float64).reshape(-1)
    angles = 2 * np.pi * np.arange(n + 1) / n
    ring = np.stack([np.cos(angles), np.sin(angles), np.zeros_like(angles)], axis=1)  # (n+1, 3)
    pts = centers[:, None, :] + radii[:, None, None] * ring[None, :, :]  # (c, n+1, 3)
    pairs = np.stack([pts[:, :-1], pts[:, 1:]], axis=2)  # (c, n, 2, 3)
    return pairs.reshape(-1, 3).astype(np.float32)


def disc_outline_arrays(layout: MapLayout) -> np.ndarray:
    """The disc outlines at discR + 20, one circle per document (fewer chords on big maps)."""
    chords = document_detail(len(layout.discs.document_ids))[0]
    return circle_segments(layout.discs.centers, layout.discs.radii + DISC_MARGIN, chords)


def guide_arrays(layout: MapLayout) -> tuple[np.ndarray, np.ndarray]:
    """Topic-column spines, depth rings on the floor, Z spine and timeline ticks (vertices, colours)."""
    g = layout.guides
    verts: list[np.ndarray] = []
    cols: list[np.ndarray] = []
    if len(g.names):
        x, y = g.radii * np.cos(g.angles), g.radii * np.sin(g.angles)
        spines = np.stack([np.column_stack([x, y, np.full_like(x, g.z0)]),
                           np.column_stack([x, y, np.full_like(x, g.z1)])], axis=1).reshape(-1, 3)
        verts.append(spines)
        cols.append(np.repeat(g.colors, 2, axis=0))
    if len(g.ring_radii):
        rings = circle_segments(np.tile([0.0, 0.0, g.z0], (len(g.ring_radii), 1)), g.ring_radii, 96)
        verts.append(rings)
        cols.append(np.tile(np.array(hex_to_rgb(RULER_COLOR), dtype=np.float32) * 0.6, (len(rings), 1)))
    ruler = [[0.0, 0.0, g.z0], [0.0, 0.0, g.z1]]
    for z in layout.timeline.tick_z:
        ruler += [[-RULER_HALF_WIDTH, 0.0, float(z)], [RULER_HALF_WIDTH, 0.0, float(z)]]
    verts.append(np.array(ruler, dtype=np.float32))
    cols.append(np.tile(np.array(hex_to_rgb(RULER_COLOR), dtype=np.float32), (len(ruler), 1)))
    return np.concatenate(verts).astype(np.float32), np.concatenate(cols).astype(np.float32)


def unit_sphere(segments_around: int = 16, rings: int = 8) -> tuple[np.ndarray, np.ndarray]:
    """A UV sphere of radius 1: (v, 3) vertices and (t, 3) triangle indices."""
    theta = np.linspace(0, np.pi, rings + 1)  # pole to pole
    phi = np.linspace(0, 2 * np.pi, segments_around + 1)
    t, p = np.meshgrid(theta, phi, indexing="ij")
    verts = np.stack([np.sin(t) * np.cos(p), np.sin(t) * np.sin(p), np.cos(t)], axis=-1).reshape(-1, 3)
    cols = segments_around + 1
    faces = []
    for r in range(rings):
        for s in range(segments_around):
            a, b = r * cols + s, (r + 1) * cols + s
            faces += [(a, b, a + 1), (a + 1, b, b + 1)]
    return verts.astype(np.float32), np.array(faces, dtype=np.uint32)


def aura_mesh_colors(layout: MapLayout, class_code: int) -> np.ndarray:
    """Per-vertex colours of one aura class's merged mesh (what a colour-mode change rewrites)."""
    a = layout.auras
    docs = np.flatnonzero(a.classes == class_code)
    return np.repeat(a.colors[docs], len(_aura_sphere(layout)[0]), axis=0).astype(np.float32)


def _aura_sphere(layout: MapLayout) -> tuple[np.ndarray, np.ndarray]:
    return unit_sphere(*document_detail(len(layout.discs.document_ids))[1:])


def disc_outline_colors(layout: MapLayout) -> np.ndarray:
    """Per-vertex colours of the disc outlines: each document's aura colour."""
    n = len(layout.discs.document_ids)
    per_circle = document_detail(n)[0] * 2
    return np.repeat(layout.auras.colors, per_circle, axis=0).astype(np.float32).reshape(-1, 3) if n else \
        np.zeros((0, 3), np.float32)


def aura_mesh_arrays(layout: MapLayout, class_code: int) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """One merged ellipsoid mesh for every document of an aura class: (vertices, colours, indices).

    Each document's unit sphere is scaled by its aura scale and moved to its
    centre; indices are offset per document so one draw call covers them all.
    None when no document has this class.
    """
    a = layout.auras
    docs = np.flatnonzero(a.classes == class_code)
    if not len(docs):
        return None
    sphere, faces = _aura_sphere(layout)
    verts = (sphere[None, :, :] * a.scales[docs][:, None, :] + a.centers[docs][:, None, :]).reshape(-1, 3)
    colors = aura_mesh_colors(layout, class_code)
    offsets = (np.arange(len(docs), dtype=np.uint32) * len(sphere))[:, None, None]
    index = (faces[None, :, :] + offsets).reshape(-1)
    return verts.astype(np.float32), colors.astype(np.float32), index.astype(np.uint32)


# ----------------------------------------------------------------------------- camera maths


def look_at_quaternion(position: Sequence[float], target: Sequence[float],
                       up: Sequence[float] = (0.0, 1.0, 0.0)) -> tuple[float, float, float, float]:
    """(x, y, z, w) rotation that points a three.js camera (looking down its −Z) at `target`."""
    eye, tgt, upv = (np.asarray(v, dtype=np.float64) for v in (position, target, up))
    z = eye - tgt
    z = z / (np.linalg.norm(z) or 1.0)
    x = np.cross(upv, z)
    if np.linalg.norm(x) < 1e-12:  # looking along `up`: any perpendicular will do
        x = np.cross(np.array([1.0, 0.0, 0.0]), z)
    x = x / np.linalg.norm(x)
    y = np.cross(z, x)
    m = np.column_stack([x, y, z])
    return _matrix_to_quaternion(m)


def _matrix_to_quaternion(m: np.ndarray) -> tuple[float, float, float, float]:
    # Shepperd's method, as three.js's Quaternion.setFromRotationMatrix.
    trace = m[0, 0] + m[1, 1] + m[2, 2]
    if trace > 0:
        s = 0.5 / math.sqrt(trace + 1.0)
        return ((m[2, 1] - m[1, 2]) * s, (m[0, 2] - m[2, 0]) * s, (m[1, 0] - m[0, 1]) * s, 0.25 / s)
    if m[0, 0] > m[1, 1] and m[0, 0] > m[2, 2]:
        s = 2.0 * math.sqrt(1.0 + m[0, 0] - m[1, 1] - m[2, 2])
        return (0.25 * s, (m[0, 1] + m[1, 0]) / s, (m[0, 2] + m[2, 0]) / s, (m[2, 1] - m[1, 2]) / s)
    if m[1, 1] > m[2, 2]:
        s = 2.0 * math.sqrt(1.0 + m[1, 1] - m[0, 0] - m[2, 2])
        return ((m[0, 1] + m[1, 0]) / s, 0.25 * s, (m[1, 2] + m[2, 1]) / s, (m[0, 2] - m[2, 0]) / s)
    s = 2.0 * math.sqrt(1.0 + m[2, 2] - m[0, 0] - m[1, 1])
    return ((m[0, 2] + m[2, 0]) / s, (m[1, 2] + m[2, 1]) / s, 0.25 * s, (m[1, 0] - m[0, 1]) / s)


def rotation_matrix(quaternion: Sequence[float]) -> np.ndarray:
    """3×3 rotation of an (x, y, z, w) quaternion."""
    x, y, z, w = (float(v) for v in quaternion)
    return np.array([
        [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
        [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
        [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
    ])


def project(points: np.ndarray, position: Sequence[float], quaternion: Sequence[float], fov: float,
            width: int, height: int) -> tuple[np.ndarray, np.ndarray]:
    """Canvas pixels (x right, y down) and view depth of world points, for a perspective camera.

    Depth is the distance in front of the camera along its view axis; points
    with depth ≤ 0 are behind it and their pixels are meaningless.
    """
    pts = np.asarray(points, dtype=np.float64).reshape(-1, 3)
    rot = rotation_matrix(quaternion)
    cam = (pts - np.asarray(position, dtype=np.float64)) @ rot  # world → camera frame (R^T · v)
    depth = -cam[:, 2]
    f = 1.0 / math.tan(math.radians(fov) / 2)
    aspect = width / height
    with np.errstate(divide="ignore", invalid="ignore"):
        ndc_x = f / aspect * cam[:, 0] / depth
        ndc_y = f * cam[:, 1] / depth
    px = np.column_stack([(ndc_x + 1) / 2 * width, (1 - ndc_y) / 2 * height])
    return px, depth


def units_per_pixel(distance: float, fov: float, height: int) -> float:
    """World units one canvas pixel spans at `distance` in front of the camera."""
    return 2 * distance * math.tan(math.radians(fov) / 2) / max(height, 1)


def angular_nearest(points: np.ndarray, origin: Sequence[float], through: Sequence[float],
                    max_angle: float) -> int | None:
    """Row of the point closest in angle to the ray origin → through, within `max_angle` radians.

    A pick reports the first point along the ray within a world-unit threshold,
    which prefers near nodes over the one under the cursor; the angle to the
    ray is what the eye judges, so the widget settles the pick with it.
    """
    pts = np.asarray(points, dtype=np.float64).reshape(-1, 3)
    o = np.asarray(origin, dtype=np.float64)
    d = np.asarray(through, dtype=np.float64) - o
    norm = np.linalg.norm(d)
    if not len(pts) or norm == 0:
        return None
    d /= norm
    v = pts - o
    along = v @ d
    dist = np.linalg.norm(v, axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        angle = np.arccos(np.clip(along / dist, -1.0, 1.0))
    angle[(along <= 0) | (dist == 0)] = np.inf
    best = int(np.argmin(angle))
    return best if angle[best] <= max_angle else None


# ----------------------------------------------------------------------------- view presets

VIEWS: tuple[str, ...] = ("entrance", "oblique", "side")
_VIEW_DIRECTIONS = {  # from the target towards the camera, before fitting the distance
    "oblique": (1.0, 0.6, -0.8),
    "side": (-1.0, 0.25, 0.0),  # from −X, so time (Z) runs left to right
}
FIT_MARGIN = 0.92  # fraction of the canvas the fitted box may fill
RECENTRE_ROUNDS = 3


def stretched(points: np.ndarray, time_scale: float) -> np.ndarray:
    """Positions as drawn: the layout's Z multiplied by the display's time stretch."""
    out = np.asarray(points, dtype=np.float64).copy()
    out[..., 2] *= time_scale
    return out


def fitted_view(points: np.ndarray, direction: Sequence[float], fov: float, aspect: float,
                up: Sequence[float] = (0.0, 1.0, 0.0)) -> tuple[np.ndarray, np.ndarray]:
    """Camera position and target that look at the points' box centre from `direction` and fit them.

    The distance is the smallest at which every point lies in front of the camera
    and inside `FIT_MARGIN` of the canvas, found by bisection (the projected extent
    shrinks as the camera backs away, however deep the scene is along the view
    axis; a rescaling step overshoots when near points dominate, as in the tunnel
    view). Fitting the points rather than their box's corners keeps the map from
    shrinking into the middle of the canvas.
    """
    pts = np.asarray(points, dtype=np.float64).reshape(-1, 3)
    if len(pts) == 0:
        pts = np.zeros((1, 3))
    target = (pts.min(axis=0) + pts.max(axis=0)) / 2
    d = np.asarray(direction, dtype=np.float64)
    d /= np.linalg.norm(d)
    height = 1000
    width = int(round(height * aspect))

    def fits(dist: float) -> bool:
        position = target + d * dist
        px, depth = project(pts, position, look_at_quaternion(position, target, up), fov, width, height)
        if (depth <= 1e-6 * dist).any():
            return False
        return float((np.abs(px - [width / 2, height / 2]) / [width / 2, height / 2]).max()) <= FIT_MARGIN

    def fit_distance() -> float:
        hi = max(float(np.linalg.norm(pts - target, axis=1).max()), 1.0) / math.sin(math.radians(fov) / 2)
        while not fits(hi):
            hi *= 2
        lo = 0.0
        for _ in range(30):  # 2^-30 of the distance: far below a pixel
            mid = (lo + hi) / 2
            lo, hi = (lo, mid) if fits(mid) else (mid, hi)
        return hi

    for _ in range(RECENTRE_ROUNDS):
        # Perspective makes the box centre project off-centre; pan so the points' extent is centred, refit.
        position = target + d * fit_distance()
        rot = rotation_matrix(look_at_quaternion(position, target, up))
        cam = (pts - position) @ rot
        depth = -cam[:, 2]
        shift = [_centring_pan(cam[:, axis], depth) for axis in (0, 1)]
        target = target + rot[:, 0] * shift[0] + rot[:, 1] * shift[1]
    return target + d * fit_distance(), target


def _centring_pan(x: np.ndarray, depth: np.ndarray) -> float:
    """Pan s along one camera axis that centres the projected extent of points (x, depth).

    A point projects to x/depth; with the extreme points a and b the centre condition
    (x_a − s)/z_a + (x_b − s)/z_b = 0 gives s = (x_a/z_a + x_b/z_b) / (1/z_a + 1/z_b).
    """
    ratio = x / depth
    a, b = int(np.argmin(ratio)), int(np.argmax(ratio))
    return float((ratio[a] + ratio[b]) / (1 / depth[a] + 1 / depth[b]))


def view_camera(layout: MapLayout, view: str, time_scale: float, aspect: float) -> tuple[np.ndarray, np.ndarray]:
    """(position, target) of a named view of the drawn (time-stretched) layout.

    "entrance" is the layout's own tunnel-entrance camera (spec §6) recomputed
    for the stretched bounds; the others fit the box from a fixed direction.
    """
    from ohara_lab.layout.camera import fit_camera  # noqa: PLC0415

    if view == "entrance":
        # The spec's direction (from before the first slab, down +Z); the distance is fitted to the
        # nodes like the other views, since the spec's own (1.6 × the bounding box) leaves the map a
        # small clump in the middle of the canvas.
        cam = fit_camera(stretched(layout.bounds, time_scale).astype(np.float32), layout.camera.fov)
        direction = np.asarray(cam.position, dtype=np.float64) - np.asarray(cam.target, dtype=np.float64)
    elif view in _VIEW_DIRECTIONS:
        direction = np.asarray(_VIEW_DIRECTIONS[view], dtype=np.float64)
    else:
        raise ValueError(f"unknown view {view!r}; choose one of {list(VIEWS)}")
    points = layout.positions
    if len(points) > 4000:  # the hull is what matters; a fixed stride keeps it deterministic and fast
        points = points[:: len(points) // 4000 + 1]
    # The auras' tips too: a camera inside the nearest document's aura sees nothing but its colour.
    a = layout.auras
    tips = (a.centers[:, None, :] + a.scales[:, None, :] * np.vstack([np.eye(3), -np.eye(3)])[None]).reshape(-1, 3)
    return fitted_view(stretched(np.vstack([points, tips]), time_scale), direction, layout.camera.fov, aspect)
