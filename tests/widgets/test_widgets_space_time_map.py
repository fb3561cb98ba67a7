"""`SpaceTimeMap` driven from Python: the scene matches the layout, picks inspect, controls rebuild."""
from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("pythreejs", reason="the widgets need the lab extra: pip install -e '.[lab]'")

from ohara_lab.layout import MapInput, build_layout  # noqa: E402 - after the skip guard
from ohara_lab.layout.from_atlas import map_input_from_atlas  # noqa: E402 - after the skip guard
from ohara_lab.layout.synthetic import synthetic_map_input, synthetic_ontology  # noqa: E402 - after the skip guard
from ohara_lab.widgets import SpaceTimeMap  # noqa: E402 - after the skip guard
from ohara_lab.widgets import geometry as geo  # noqa: E402 - after the skip guard
from ohara_lab.widgets.geometry import DIM_TARGET  # noqa: E402 - after the skip guard
from ohara_lab.widgets.space_time_map import TIER_COLORS  # noqa: E402 - after the skip guard


@pytest.fixture
def space_map(atlas, ontology) -> SpaceTimeMap:
    return SpaceTimeMap(atlas, ontology=ontology)


def _drawn(space_map: SpaceTimeMap) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rows, positions and colours as sent to the browser, batch by batch."""
    rows = np.concatenate(space_map.drawn)
    pos = np.concatenate([o.geometry.attributes["position"].array for o in space_map.node_objects])
    col = np.concatenate([o.geometry.attributes["color"].array for o in space_map.node_objects])
    return rows, pos, col


def test_scene_arrays_are_the_layout(space_map, atlas, ontology) -> None:
    expected = build_layout(map_input_from_atlas(atlas), ontology)
    L = space_map.layout_data
    assert L.ids == expected.ids
    assert np.array_equal(L.positions, expected.positions)
    rows, pos, col = _drawn(space_map)
    assert sorted(rows.tolist()) == list(range(len(L)))
    assert np.array_equal(pos, L.positions[rows]) and np.array_equal(col, L.colors[rows])
    assert pos.dtype == np.float32
    edges = space_map.edge_lines.geometry.attributes["position"].array
    assert len(edges) == 2 * len(L.edges) > 0
    assert space_map.nodes.children == tuple(space_map.node_objects)
    assert len(space_map.node_objects) < 20  # batched draw calls
    for obj, bucket in zip(space_map.node_objects, space_map.buckets):
        assert obj.material.vertexColors == "VertexColors"
        assert obj.material.size == pytest.approx(np.clip(bucket.size * space_map.point_scale, 2, 18))


def test_camera_starts_at_the_views_fit(space_map) -> None:
    position, target = geo.view_camera(space_map.layout_data, "entrance", 1.0, space_map.width / space_map.height)
    assert np.allclose(space_map.camera.position, position, atol=1e-3)
    assert np.allclose(space_map.orbit.target, target, atol=1e-3)
    # The quaternion we set points the camera at the orbit target, so Python-side projection matches.
    x, y = space_map.screen_position(space_map.layout_data.ids[0]) or (-1, -1)
    assert 0 <= x < space_map.width and 0 <= y < space_map.height


def test_select_paragraph_fills_the_inspector(space_map, atlas) -> None:
    doc = next(d for d in atlas.documents() if d.title.startswith("GNU GENERAL PUBLIC LICENSE, Version 3"))
    rows = atlas.store.document_nodes(doc.id)
    para = next(p for p in rows["paragraphs"] if p["section_id"] and len(p["content"]) > 80)
    section = next(s for s in rows["sections"] if s["id"] == para["section_id"])
    inspection = space_map.select_node(para["id"])
    html = space_map.inspector.value
    assert space_map.selected == para["id"]
    assert inspection.title == section["title"]
    assert f'data-node-id="{para["id"]}"' in html
    assert doc.title in html and section["title"] in html
    assert para["content"][:60].replace('"', "&quot;") in html
    assert 'class="current"' in html  # the section outline marks where the paragraph sits
    # Neighbours are read lazily and drawn as lines from the node.
    assert space_map.neighbour_ids and doc.id in space_map.neighbour_ids
    lines = space_map.neighbour_lines.geometry.attributes["position"].array
    assert len(lines) == 2 * len(space_map.neighbour_ids)
    row = space_map.layout_data.index_of(para["id"])
    assert np.allclose(lines[0], space_map.layout_data.positions[row])
    assert space_map.selected_points.visible and space_map.related_points.visible


def test_select_document_and_entity(space_map, atlas) -> None:
    doc = atlas.documents()[0]
    assert space_map.select_node(doc.id).title == doc.title
    assert doc.title in space_map.inspector.value and "Outline" in space_map.inspector.value
    entity = next(e for e in atlas.store.get_entities() if e.mention_count > 1)
    inspection = space_map.select_node(entity.id)
    assert inspection.title == entity.name and inspection.kind == "entity"
    with pytest.raises(KeyError):
        space_map.select_node("paragraphs/not-drawn")


def test_a_pick_from_the_browser_selects_the_node_under_the_cursor(space_map) -> None:
    L = space_map.layout_data
    target = space_map.clear_pick_target(kinds=("document", "tag", "entity", "section"), margin_px=3)
    assert target is not None
    row = L.index_of(target)
    bucket_index = next(i for i, b in enumerate(space_map.buckets) if row in b.rows)
    bucket = space_map.buckets[bucket_index]
    # What the Picker sends: the picked object, the vertex index and the point on the ray nearest to it.
    with space_map.picker.hold_trait_notifications():
        space_map.picker.object = space_map.node_objects[bucket_index]
        space_map.picker.index = int(np.flatnonzero(bucket.rows == row)[0])
        space_map.picker.point = tuple(float(v) for v in space_map.world_positions()[row])
    assert space_map.selected == target
    assert f'data-node-id="{target}"' in space_map.inspector.value


def _pick(space_map: SpaceTimeMap, row: int) -> None:
    b_index = next(i for i, b in enumerate(space_map.buckets) if row in b.rows)
    with space_map.picker.hold_trait_notifications():
        space_map.picker.object = space_map.node_objects[b_index]
        space_map.picker.index = int(np.flatnonzero(space_map.buckets[b_index].rows == row)[0])
        space_map.picker.point = tuple(float(v) for v in space_map.world_positions()[row])


def test_picking_the_same_node_again_still_selects_it(space_map) -> None:
    L = space_map.layout_data
    target = space_map.clear_pick_target(kinds=("document", "tag", "entity"), margin_px=3)
    _pick(space_map, L.index_of(target))
    assert space_map.selected == target
    space_map.select_node(L.ids[0] if L.ids[0] != target else L.ids[1])
    _pick(space_map, L.index_of(target))  # the browser sends exactly the same values as before
    assert space_map.selected == target


def test_a_pick_is_settled_by_angle_not_by_the_first_hit(space_map) -> None:
    """The picker reports the first node within a world threshold; the widget keeps the one under the cursor."""
    L = space_map.layout_data
    target = space_map.clear_pick_target(kinds=("document", "tag", "entity"), margin_px=3)
    row = L.index_of(target)
    other = (row + 1) % len(L)
    b_index = next(i for i, b in enumerate(space_map.buckets) if other in b.rows)
    with space_map.picker.hold_trait_notifications():
        space_map.picker.object = space_map.node_objects[b_index]
        space_map.picker.index = int(np.flatnonzero(space_map.buckets[b_index].rows == other)[0])
        space_map.picker.point = tuple(float(v) for v in space_map.world_positions()[row])  # the ray passes `target`
    assert space_map.selected == target


def test_controls_rebuild_the_scene(space_map, atlas) -> None:
    old_objects = list(space_map.node_objects)
    space_map.resolution_control.value = "decade"
    assert space_map.layout_data.timeline.resolution == "decade"
    assert all(label.endswith("s") for label in space_map.layout_data.timeline.tick_labels if label != "undated")
    assert all(o.comm is None for o in old_objects)  # replaced widgets are closed, not leaked

    before = space_map.layout_data.colors.copy()
    space_map.color_control.value = "by_type"
    assert not np.array_equal(before, space_map.layout_data.colors)

    space_map.edges_control.value = ("SIMILAR_TO",)
    assert set(space_map.layout_data.edge_kind_names) == {"SIMILAR_TO"}
    assert len(space_map.edge_lines.geometry.attributes["position"].array) == 2 * len(space_map.layout_data.edges)

    two = tuple(d.id for d in atlas.documents()[:2])
    n_before = len(space_map.layout_data)
    space_map.set_documents(two)
    assert set(space_map.layout_data.discs.document_ids) == set(two)
    assert len(space_map.layout_data) < n_before

    space_map.auras_control.value = False
    assert space_map.aura_group.visible is False
    space_map.labels_control.value = False
    assert space_map.label_group.visible is False


def test_a_rebuild_keeps_the_selection_where_the_node_now_is(space_map, atlas) -> None:
    doc = atlas.documents()[2].id
    space_map.select_node(doc)
    space_map.resolution_control.value = "century"
    ring = space_map.selected_points.geometry.attributes["position"].array
    assert space_map.selected == doc
    assert np.allclose(ring[0], space_map.layout_data.positions[space_map.layout_data.index_of(doc)])
    space_map.set_documents([d.id for d in atlas.documents() if d.id != doc])
    assert space_map.selected is None and space_map.selected_points.visible is False


def test_time_stretch_scales_the_world_and_refits(space_map) -> None:
    space_map.stretch_control.value = 0.25
    assert space_map.world.scale == (1.0, 1.0, 0.25)
    assert np.allclose(space_map.world_positions()[:, 2], space_map.layout_data.positions[:, 2] * 0.25)
    position, _ = geo.view_camera(space_map.layout_data, "entrance", 0.25, 1.5)
    assert np.allclose(space_map.camera.position, position, atol=1e-3)
    space_map.fit("side")
    assert space_map.view_control.value == "side"


def test_highlight_marks_the_tiers_of_a_query(space_map, atlas, query_text) -> None:
    result = atlas.query(query_text)
    marked = space_map.highlight(result)
    principal = {f.id for f in result.tiers.principal}
    assert principal and {k for k, v in marked.items() if v == "principal"} == principal
    assert set(marked) >= {f.id for f in result.results if f.id in space_map.layout_data}
    pos = space_map.highlight_points.geometry.attributes["position"].array
    col = space_map.highlight_points.geometry.attributes["color"].array
    assert len(pos) == len(marked)
    L = space_map.layout_data
    first = next(iter(marked))
    assert np.allclose(pos[0], L.positions[L.index_of(first)])
    assert np.allclose(col[list(marked).index(next(iter(principal)))], _rgb(TIER_COLORS["principal"]), atol=1e-6)
    # Every unmarked node is dimmed towards the dim colour, the marked ones keep theirs.
    rows, _, drawn_colors = _drawn(space_map)
    unmarked = next(i for i, r in enumerate(rows) if L.ids[r] not in marked)
    r = rows[unmarked]
    assert np.allclose(drawn_colors[unmarked], L.colors[r] + (np.array(DIM_TARGET) - L.colors[r]) * 0.72, atol=1e-5)
    space_map.clear()
    _, _, restored = _drawn(space_map)
    assert np.array_equal(restored, L.colors[rows])
    assert space_map.highlight_points.visible is False


def test_payload_counts_the_node_buffers(space_map) -> None:
    size = space_map.payload_bytes()
    node_bytes = 2 * space_map.layout_data.positions.nbytes  # positions + colours, float32
    assert size.buffer_bytes >= node_bytes
    assert size.json_bytes > 0 and size.widgets > 20


def test_a_bare_map_input_needs_no_store() -> None:
    mi: MapInput = synthetic_map_input(6, seed=1)
    m = SpaceTimeMap(mi, ontology=synthetic_ontology(), auras=False, labels=False)
    assert len(m.layout_data) >= mi.node_count()
    para = mi.text_nodes[0]
    inspection = m.select_node(para.id)
    assert inspection.kind == "paragraph" and m.neighbour_ids  # HAS_CHILD from its section


def _rgb(hex_color: str) -> tuple[float, float, float]:
    from ohara_lab.layout.colors import hex_to_rgb

    return hex_to_rgb(hex_color)


def test_level_of_detail_draws_the_slab_asked_for() -> None:
    """Above the budget only the text nodes of the slabs near the focus are sent; nothing else is re-sent."""
    from ohara_lab.layout.detail import text_mask

    mi = synthetic_map_input(40, seed=5)
    m = SpaceTimeMap(mi, ontology=synthetic_ontology(), detail_budget=300, auras=False)
    L = m.layout_data
    is_text = text_mask(L)
    rows, pos, _ = _drawn(m)
    assert 0 < len(m.detail) <= 300 < int(is_text.sum())  # the budget holds; every other node is drawn
    assert set(rows.tolist()) == set(np.flatnonzero(~is_text).tolist()) | set(m.detail.tolist())
    assert np.array_equal(pos, L.positions[rows])
    assert "text nodes drawn" in m.status.value
    # Edges are drawn only between drawn nodes of the detail's documents (or entities and tags).
    near = set(L.node_document[m.detail].tolist()) | {-1}
    drawn = np.zeros(len(L), dtype=bool)
    drawn[rows] = True
    drawn &= np.isin(L.node_document, list(near))
    both = drawn[L.edges[:, 0]] & drawn[L.edges[:, 1]]
    far_sections = ~np.isin(L.node_document, list(near)) & L.kind_mask("section")
    assert far_sections.any() and not far_sections[L.edges[both]].any()
    assert len(m.edge_lines.geometry.attributes["position"].array) == 2 * int(both.sum()) < 2 * len(L.edges)
    others = [o for o, b in zip(m.node_objects, m.buckets) if not is_text[b.rows[0]]]
    kept = [o.geometry.attributes["position"].array for o in others]
    objects = list(m.node_objects)

    first = m.slabs[0]
    m.show_slab(first.label)
    shown = set(L.node_document[m.detail].tolist())
    slab_docs = {d for d in first.documents.tolist() if (L.node_document[is_text] == d).any()}
    # The slab's own documents first; while the budget lasts, the next-nearest slabs fill it up.
    assert slab_docs <= shown if first.text_nodes <= 300 else shown <= slab_docs
    assert m.node_objects == objects  # the same objects: only the text batches' arrays changed
    assert all(o.geometry.attributes["position"].array is a for o, a in zip(others, kept))
    rows, pos, _ = _drawn(m)
    assert np.array_equal(pos, L.positions[rows])
    # A pick in a level-of-detail batch maps back to the right node.
    row = int(m.detail[0])
    i = next(i for i, d in enumerate(m.drawn) if row in d)
    with m.picker.hold_trait_notifications():
        m.picker.object = m.node_objects[i]
        m.picker.index = int(np.flatnonzero(m.drawn[i] == row)[0])
        m.picker.point = tuple(float(v) for v in m.world_positions()[row])
    assert m.selected is not None
    with pytest.raises(KeyError, match="no slab"):
        m.show_slab("1066")
    m.show_slab("auto")
    assert m.detail_control.value.startswith("auto")


def test_a_colour_change_rewrites_colours_only(space_map, atlas, ontology, monkeypatch) -> None:
    objects = list(space_map.node_objects)
    positions = [o.geometry.attributes["position"].array for o in objects]
    content = list(space_map._content)
    # Spies that count and call through: a colour change runs neither the layout nor the scene build.
    rebuilt: list[str] = []
    for name in ("_compute_layout", "_populate"):
        real = getattr(space_map, name)
        monkeypatch.setattr(space_map, name, lambda *a, _real=real, _name=name, **k: (rebuilt.append(_name), _real(*a, **k))[1])
    space_map.color_control.value = "by_sumo"
    assert rebuilt == []
    expected = build_layout(map_input_from_atlas(atlas), ontology, color_mode="by_sumo")
    assert np.array_equal(space_map.layout_data.colors, expected.colors)
    assert space_map.node_objects == objects and space_map._content == content  # no object re-created
    assert all(o.geometry.attributes["position"].array is p for o, p in zip(objects, positions))
    rows, _, col = _drawn(space_map)
    assert np.array_equal(col, expected.colors[rows])
    discs = space_map.discs.geometry.attributes["color"].array
    assert np.allclose(discs, geo.disc_outline_colors(expected))


def test_auras_start_hidden_on_a_map_of_many_documents(monkeypatch) -> None:
    from ohara_lab.widgets import space_time_map

    mi = synthetic_map_input(6, seed=1)
    assert SpaceTimeMap(mi, ontology=synthetic_ontology()).aura_group.visible is True
    monkeypatch.setattr(space_time_map, "AURAS_AUTO_MAX_DOCUMENTS", 5)
    crowded = SpaceTimeMap(mi, ontology=synthetic_ontology())
    assert crowded.auras_control.value is False and crowded.aura_group.visible is False
    assert SpaceTimeMap(mi, ontology=synthetic_ontology(), auras=True).aura_group.visible is True
