"""The map's render arrays and camera maths (`widgets/geometry.py`), with hand-computed values."""
from __future__ import annotations

import math

import numpy as np
import pytest

from ohara_lab.layout import build_layout
from ohara_lab.layout.synthetic import synthetic_map_input, synthetic_ontology
from ohara_lab.widgets import geometry as geo


@pytest.fixture(scope="module")
def layout():
    return build_layout(synthetic_map_input(12, seed=3), synthetic_ontology(),
                        edge_kinds=("HAS_CHILD", "SIMILAR_TO", "MENTIONS", "TAG_TETHER"))


def test_buckets_partition_the_rows_by_kind_and_rounded_size(layout) -> None:
    buckets = geo.node_buckets(layout)
    rows = np.concatenate([b.rows for b in buckets])
    assert sorted(rows.tolist()) == list(range(len(layout)))  # every row exactly once
    for b in buckets:
        assert set(layout.kinds[b.rows].tolist()) == {layout.kind_names.index(b.kind)}
        assert np.all(np.abs(layout.sizes[b.rows] - b.size) <= geo.SIZE_STEP / 2 + 1e-6)
    # Uniform kinds are one batch each: documents 12, sections 6, paragraphs 4 -> 3.0 (rounded)
    sizes = {b.kind: b.size for b in buckets if b.kind in ("document", "section", "paragraph")}
    assert sizes == {"document": 12.0, "section": 6.0, "paragraph": 3.0}
    assert len(buckets) <= 20  # a few draw calls, not one per node


def test_dimming_lerps_72_percent_towards_the_dim_colour() -> None:
    colors = np.array([[1.0, 1.0, 1.0], [0.0, 0.0, 0.0]], dtype=np.float32)
    out = geo.dimmed(colors, keep=np.array([True, False]))
    target = np.array(geo.DIM_TARGET)
    assert np.allclose(out[0], [1, 1, 1])
    assert np.allclose(out[1], 0.72 * target, atol=1e-6)  # 0 + (t − 0)·0.72


def test_edge_arrays_are_the_layout_edges_as_segments(layout) -> None:
    vertices, colors = geo.edge_arrays(layout)
    assert vertices.shape == (2 * len(layout.edges), 3) == colors.shape
    assert np.allclose(vertices[0], layout.positions[layout.edges[0, 0]])
    assert np.allclose(vertices[1], layout.positions[layout.edges[0, 1]])
    only = geo.edge_arrays(layout, kinds=["SIMILAR_TO"])[0]
    n_similar = int(np.sum(layout.edge_kinds == layout.edge_kind_names.index("SIMILAR_TO")))
    assert len(only) == 2 * n_similar > 0


def test_circles_lie_at_their_radius_in_their_plane() -> None:
    v = geo.circle_segments(np.array([[10.0, 20.0, 30.0]]), np.array([5.0]), n=8)
    assert v.shape == (16, 3)
    assert np.allclose(np.hypot(v[:, 0] - 10, v[:, 1] - 20), 5.0)
    assert np.allclose(v[:, 2], 30.0)
    assert np.allclose(v[0], [15, 20, 30]) and np.allclose(v[1], [10 + 5 * math.cos(math.pi / 4), 20 + 5 * math.sin(math.pi / 4), 30])


def test_guides_hold_spines_rings_and_ruler(layout) -> None:
    vertices, colors = geo.guide_arrays(layout)
    g = layout.guides
    n_spines = 2 * len(g.names)
    assert np.allclose(vertices[:n_spines:2, 2], g.z0) and np.allclose(vertices[1:n_spines:2, 2], g.z1)
    ruler = vertices[-(2 + 2 * len(layout.timeline.tick_z)):]
    assert np.allclose(ruler[2::2, 2], layout.timeline.tick_z)
    assert np.allclose(ruler[2::2, 0], -geo.RULER_HALF_WIDTH)
    assert colors.shape == vertices.shape


def test_aura_mesh_is_each_document_sphere_scaled_and_moved(layout) -> None:
    sphere, faces = geo.unit_sphere()
    assert np.allclose(np.linalg.norm(sphere, axis=1), 1.0, atol=1e-6)
    a = layout.auras
    code = int(a.classes[0])
    vertices, colors, index = geo.aura_mesh_arrays(layout, code)
    docs = np.flatnonzero(a.classes == code)
    assert len(vertices) == len(docs) * len(sphere) and len(index) == len(docs) * faces.size
    first = vertices[: len(sphere)]
    # (v − centre) / scale is back on the unit sphere
    assert np.allclose(np.linalg.norm((first - a.centers[docs[0]]) / a.scales[docs[0]], axis=1), 1.0, atol=1e-4)
    assert index.max() == len(vertices) - 1 and index.dtype == np.uint32
    assert np.allclose(colors, np.repeat(a.colors[docs], len(sphere), axis=0))


def test_look_at_points_the_camera_minus_z_at_the_target() -> None:
    q = geo.look_at_quaternion((0, 0, 10), (0, 0, 0))
    assert np.allclose(q, (0, 0, 0, 1), atol=1e-9)  # already looking down −Z
    q = geo.look_at_quaternion((5, 3, -7), (1, 2, 3))
    forward = geo.rotation_matrix(q) @ np.array([0.0, 0.0, -1.0])
    want = np.array([1 - 5, 2 - 3, 3 + 7], dtype=float)
    assert np.allclose(forward, want / np.linalg.norm(want))


def test_projection_of_known_points() -> None:
    # Camera at the origin looking down −Z, fov 90°: tan(45°) = 1, so x = −z at the right edge (aspect 1).
    px, depth = geo.project(np.array([[0, 0, -10], [10, 0, -10], [0, 5, -10], [0, 0, 10]]),
                            (0, 0, 0), (0, 0, 0, 1), 90.0, 200, 200)
    assert np.allclose(px[0], [100, 100]) and depth[0] == 10
    assert np.allclose(px[1], [200, 100])  # right edge
    assert np.allclose(px[2], [100, 50])  # up is towards the top (y pixels grow downwards)
    assert depth[3] < 0  # behind the camera


def test_units_per_pixel() -> None:
    assert geo.units_per_pixel(100.0, 90.0, 200) == pytest.approx(1.0)  # 2·100·tan 45° / 200


def test_angular_nearest_prefers_the_point_on_the_ray() -> None:
    points = np.array([[0.0, 0.3, 5.0], [0.0, 0.0, 100.0], [0.0, 50.0, 100.0]])
    # The near point is 0.3 units off the ray (3.4°); the far one is on it.
    assert geo.angular_nearest(points, (0, 0, 0), (0, 0, 1), max_angle=0.1) == 1
    assert geo.angular_nearest(points[[0, 2]], (0, 0, 0), (0, 0, 1), max_angle=0.01) is None
    assert geo.angular_nearest(np.array([[0, 0, -5.0]]), (0, 0, 0), (0, 0, 1), max_angle=3.0) is None  # behind


@pytest.mark.parametrize("view", geo.VIEWS)
def test_every_view_keeps_the_whole_map_on_the_canvas(layout, view) -> None:
    for stretch in (1.0, 0.3):
        position, target = geo.view_camera(layout, view, stretch, 1.5)
        q = geo.look_at_quaternion(position, target)
        px, depth = geo.project(geo.stretched(layout.positions, stretch), position, q, 55.0, 900, 600)
        assert np.all(depth > 0)
        assert px[:, 0].min() >= 0 and px[:, 0].max() <= 900
        assert px[:, 1].min() >= 0 and px[:, 1].max() <= 600
        # ... and fills it: the map spans most of the canvas along its tighter side, not a clump in the middle.
        span = (px.max(axis=0) - px.min(axis=0)) / [900, 600]
        assert span.max() >= 0.8, (view, stretch, span)


def test_unknown_view_is_rejected(layout) -> None:
    with pytest.raises(ValueError, match="unknown view"):
        geo.view_camera(layout, "top", 1.0, 1.5)


def test_big_maps_draw_outlines_and_auras_with_fewer_vertices() -> None:
    assert geo.document_detail(200) == (48, 16, 8)
    assert geo.document_detail(201) == (24, 12, 6) and geo.document_detail(5000) == (16, 8, 4)
    big = build_layout(synthetic_map_input(1100, seed=1), synthetic_ontology())
    outline = geo.disc_outline_arrays(big)
    assert len(outline) == len(big.discs.document_ids) * 16 * 2
    assert len(geo.disc_outline_colors(big)) == len(outline)
    code = int(big.auras.classes[0])
    vertices, colors, _ = geo.aura_mesh_arrays(big, code)
    per_doc = len(geo.unit_sphere(8, 4)[0])
    assert len(vertices) == int((big.auras.classes == code).sum()) * per_doc == len(colors)
    assert np.array_equal(colors, geo.aura_mesh_colors(big, code))
