"""Sunburst partition and document placement; the trees are worked out in conftest.py."""
from __future__ import annotations

import math

import numpy as np
import pytest

from ohara_lab.layout.sunburst import (
    Slice,
    category_children,
    category_xy,
    depth_radius,
    document_category,
    fan_out_collisions,
    subtree_weights,
    sunburst_layout,
)
from ohara_lab.layout.synthetic import TreeOntology


def _deg(d: float) -> float:
    return round(math.radians(d), 4)


def test_subtree_weights(floor_tree: TreeOntology) -> None:
    children = category_children(floor_tree)
    assert children[None] == ["A", "B", "C"]
    assert children["A"] == ["A1", "A2"]
    assert subtree_weights(children, floor_tree.category_tag_counts) == {
        "A": 100.0, "A1": 9.0, "A2": 90.0, "B": 1.0, "C": 4.0,
    }


def test_partition_with_the_8_degree_floor(floor_tree: TreeOntology) -> None:
    layout = sunburst_layout(floor_tree)
    # Root order by W: A, C, B. A = 4400/13°, C = 176/13°, B raised to 8°.
    assert layout["A"] == Slice(theta=2.9536, a0=0.0, a1=5.9073)
    assert layout["C"] == Slice(theta=6.0254, a0=5.9073, a1=6.1436)
    assert layout["B"] == Slice(theta=6.2134, a0=6.1436, a1=6.2832)
    assert layout["B"].a1 - layout["B"].a0 == pytest.approx(math.radians(8), abs=1e-4)
    # Inside A: A2 (W 90) first, then A1 (W 9): 4000/13° and 400/13°.
    assert layout["A2"] == Slice(theta=_deg(2000 / 13), a0=0.0, a1=_deg(4000 / 13))
    assert layout["A1"] == Slice(theta=_deg(4200 / 13), a0=_deg(4000 / 13), a1=_deg(4400 / 13))
    # Hand values in radians for the record: A2 2.6851 [0, 5.3702], A1 5.6388 [5.3702, 5.9073].
    assert (layout["A2"].theta, layout["A1"].theta) == (2.6851, 5.6388)


def test_no_floor_when_the_span_is_too_small(no_floor_tree: TreeOntology) -> None:
    layout = sunburst_layout(no_floor_tree)
    assert layout["X"] == Slice(theta=3.0501, a0=0.0, a1=6.1002)  # 36000/103°
    # Y ≈ 10.49° < 2·8°: its children split it evenly, each ≈ 5.24°, below the floor.
    assert layout["Y1"] == Slice(theta=6.1459, a0=6.1002, a1=6.1917)
    assert layout["Y2"] == Slice(theta=6.2374, a0=6.1917, a1=6.2832)
    assert layout["Y1"].a1 - layout["Y1"].a0 < math.radians(8)


def test_siblings_are_adjacent_and_cover_their_parent(floor_tree: TreeOntology) -> None:
    layout = sunburst_layout(floor_tree)
    assert layout["A2"].a1 == layout["A1"].a0
    assert (layout["A2"].a0, layout["A1"].a1) == (layout["A"].a0, layout["A"].a1)


def test_layout_ignores_corpus_but_follows_tag_counts(floor_tree: TreeOntology) -> None:
    heavier = TreeOntology(parents=floor_tree.parents, tag_counts={**floor_tree.category_tag_counts, "B": 10**6})
    assert sunburst_layout(heavier)["B"].a0 == 0.0  # B now outweighs A and comes first


def test_depth_radius() -> None:
    assert depth_radius(5) == pytest.approx(700.0)
    assert depth_radius(2) == pytest.approx(442.7188724235731)  # 700·sqrt(2/5)
    assert depth_radius(0) == depth_radius(None) == depth_radius(2)  # default depth 2


def test_document_position(floor_tree: TreeOntology) -> None:
    layout = sunburst_layout(floor_tree)
    # C: depth 5 → r = 700, θ = 6.0254.
    assert category_xy(document_category(["tagC", "tagA"], floor_tree), floor_tree, layout) == pytest.approx(
        (676.8698734817214, -178.45776635618432))
    # A: depth 2 → r = 442.72, θ = 2.9536.
    assert category_xy("A", floor_tree, layout) == pytest.approx((-434.9187687084761, 82.73853168326767))
    # B has depth 0 → default 2, same radius as A.
    assert math.hypot(*category_xy("B", floor_tree, layout)) == pytest.approx(depth_radius(2))
    # Unknown tag, no tag: origin.
    assert category_xy(document_category(["nope"], floor_tree), floor_tree, layout) == (0.0, 0.0)
    assert document_category([], floor_tree) is None


def test_collision_fan_out_of_three() -> None:
    xyz = np.array([[10.0, 20.0, 220.0]] * 3 + [[10.0, 20.0, 440.0]])
    out = fan_out_collisions(xyz)
    # i-th of 3 moves by 80·(cos, sin)(2πi/3): (80, 0), (−40, 69.28), (−40, −69.28).
    assert out[:3, :2] - xyz[:3, :2] == pytest.approx(np.array([[80.0, 0.0], [-40.0, 69.2820323], [-40.0, -69.2820323]]))
    assert out[:, 2].tolist() == xyz[:, 2].tolist()
    assert out[3].tolist() == xyz[3].tolist()  # alone at its Z: untouched
