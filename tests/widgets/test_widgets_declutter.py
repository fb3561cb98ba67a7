"""Label decluttering: the greedy screen-space collision test, by hand and on the live widget."""
from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("pythreejs", reason="the widgets need the lab extra: pip install -e '.[lab]'")

from ohara_lab.widgets.declutter import declutter, label_boxes, overlaps  # noqa: E402 - after the skip guard


def test_boxes_and_overlaps_by_hand() -> None:
    boxes = label_boxes(np.array([[50.0, 50.0], [80.0, 50.0], [200.0, 50.0]]), np.array([[40.0, 10.0]] * 3))
    assert boxes[0].tolist() == [30.0, 45.0, 70.0, 55.0]
    hits = overlaps(boxes, boxes)
    assert hits[0, 1] and hits[1, 0] and not hits[0, 2]
    touching = label_boxes(np.array([[0.0, 0.0], [40.0, 0.0]]), np.array([[40.0, 10.0]] * 2))
    assert not overlaps(touching[:1], touching[1:])[0, 0]  # sharing an edge is not overlapping


def test_most_important_label_wins_and_the_rest_fit() -> None:
    centers = np.array([[50.0, 50.0], [60.0, 52.0], [200.0, 50.0], [895.0, 50.0], [300.0, 300.0]])
    sizes = np.array([[40.0, 12.0]] * 5)
    depth = np.array([1.0, 1.0, 1.0, 1.0, -1.0])
    priority = np.array([1.0, 5.0, 1.0, 9.0, 9.0])
    shown = declutter(centers, sizes, depth, priority, width=900, height=600)
    # 1 beats 0 (same spot, higher priority); 3 sticks out of the canvas; 4 is behind the camera.
    assert shown.tolist() == [False, True, True, False, False]


def test_the_widget_shows_labels_that_do_not_overlap(atlas, ontology) -> None:
    from ohara_lab.widgets import SpaceTimeMap

    m = SpaceTimeMap(atlas, ontology=ontology, view="oblique", time_scale=0.35)
    boxes = [b for _, b in m.label_screen_boxes()]
    assert len(boxes) >= 4
    arr = np.array(boxes)
    clash = overlaps(arr, arr) & ~np.eye(len(arr), dtype=bool)
    assert not clash.any()
    assert all(0 <= x0 and x1 <= m.width and 0 <= y0 and y1 <= m.height for x0, y0, x1, y1 in boxes)
    # A camera move re-runs the test for the new view.
    before = [s.visible for s in m.labels.sprites]
    m.fit("side")
    after = [s.visible for s in m.labels.sprites]
    arr = np.array([b for _, b in m.label_screen_boxes()])
    assert not (overlaps(arr, arr) & ~np.eye(len(arr), dtype=bool)).any()
    assert before != after
    # Every document title is there in full for the hover tooltip, even when its label is cut.
    doc = atlas.documents()[0]
    assert m.hover(doc.id).startswith(doc.title)
    assert "ohara-tooltip" in m.hover_box.value and doc.title[:20] in m.hover_box.value


def test_labels_are_drawn_after_the_dots_over_them(atlas, ontology) -> None:
    """Highlight dots are transparent (drawn on top), so only a higher render order keeps them off label text."""
    from ohara_lab.widgets import SpaceTimeMap

    m = SpaceTimeMap(atlas, ontology=ontology)
    overlays = max(o.renderOrder for o in m.overlays)
    assert m.labels.sprites and min(s.renderOrder for s in m.labels.sprites) > overlays
    # Each label has a plate under it (drawn before its text, after the dots), shown and hidden with it.
    assert all(overlays < plate.renderOrder < s.renderOrder and plate.visible == s.visible
               for s, plate in zip(m.labels.sprites, m.labels.plates, strict=True))
    assert any(not s.visible for s in m.labels.sprites) and any(s.visible for s in m.labels.sprites)


def test_auras_fade_on_crowded_maps() -> None:
    from ohara_lab.widgets.scene import AURA_CROWD_DOCS, aura_opacity

    assert aura_opacity(0.16, 7) == aura_opacity(0.16, AURA_CROWD_DOCS) == 0.16
    assert aura_opacity(0.16, 4 * AURA_CROWD_DOCS) == pytest.approx(0.08)
