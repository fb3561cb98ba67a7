"""Level of detail and recolouring: which text nodes a big map draws, and a colour change without a rebuild."""
from __future__ import annotations

import numpy as np
import pytest

from ohara_lab.layout import build_layout
from ohara_lab.layout.detail import detail_rows, documents_by_focus, slab_focus, slabs, text_mask
from ohara_lab.layout.scene import recolor
from ohara_lab.layout.synthetic import synthetic_map_input, synthetic_ontology


@pytest.fixture(scope="module")
def layout():
    return build_layout(synthetic_map_input(40, seed=5), synthetic_ontology())


def test_slabs_partition_the_documents_by_z(layout) -> None:
    found = slabs(layout)
    z = layout.discs.centers[:, 2]
    assert sorted(np.concatenate([s.documents for s in found]).tolist()) == list(range(len(z)))
    for s in found:
        assert np.all(z[s.documents] == s.z)
    assert [s.z for s in found] == sorted(s.z for s in found)
    assert sum(s.text_nodes for s in found) == int(text_mask(layout).sum())
    assert len({s.label for s in found}) == len(found)  # names are unique, so a slab can be asked for by name


def test_under_the_budget_every_text_node_is_drawn(layout) -> None:
    rows = detail_rows(layout, np.zeros(3), budget=10**6)
    assert np.array_equal(rows, np.flatnonzero(text_mask(layout)))


def test_over_the_budget_the_nearest_slab_comes_first(layout) -> None:
    found = slabs(layout)
    middle = found[len(found) // 2]
    focus = slab_focus(layout, middle.label)
    budget = 300
    rows = detail_rows(layout, focus, budget)
    assert 0 < len(rows) <= max(budget, middle.text_nodes)
    assert text_mask(layout)[rows].all()
    docs = set(layout.node_document[rows].tolist())
    # Every drawn document is at least as near (in Z) as every document left out that holds text nodes.
    dz = np.abs(layout.discs.centers[:, 2] - focus[2])
    holders = set(layout.node_document[text_mask(layout)].tolist())
    assert max(dz[list(docs)]) <= min(dz[list(holders - docs)])
    # Documents come whole: a drawn document shows all of its text nodes.
    for d in docs:
        assert np.isin(np.flatnonzero(text_mask(layout) & (layout.node_document == d)), rows).all()
    # The order is by slab distance first, then by distance in the plane.
    order = documents_by_focus(layout, focus)
    assert dz[order[0]] == dz.min()
    with pytest.raises(KeyError, match="no slab"):
        slab_focus(layout, "1066")


def test_a_tiny_budget_still_draws_the_first_document(layout) -> None:
    rows = detail_rows(layout, layout.discs.centers[0], budget=1)
    assert len(rows) > 0 and set(layout.node_document[rows].tolist()) == {0}


@pytest.mark.parametrize("mode", ["by_type", "by_sumo", "by_document"])
def test_recolor_equals_a_fresh_layout_in_that_mode(mode) -> None:
    mi, onto = synthetic_map_input(12, seed=2), synthetic_ontology()
    start = build_layout(mi, onto, color_mode="by_document" if mode != "by_document" else "by_type")
    fresh = build_layout(mi, onto, color_mode=mode)
    changed = recolor(start, onto, mode)
    assert np.array_equal(changed.colors, fresh.colors) and changed.colors.dtype == np.float32
    assert np.array_equal(changed.auras.colors, fresh.auras.colors)
    assert np.array_equal(changed.positions, start.positions) and changed.color_mode == mode
    assert not np.array_equal(changed.colors, start.colors)
