"""Document discs: ring radii by hand from ringR(n, 10, 5) = max(35, ⌈15n/2π⌉)."""
from __future__ import annotations

import numpy as np
import pytest

from ohara_lab.layout.discs import place_discs, ring_radius


def test_ring_radius() -> None:
    assert ring_radius(1) == 35  # ⌈15/2π⌉ = 3 → floor of 35
    assert ring_radius(30) == 72  # ⌈450/2π⌉ = ⌈71.62⌉
    assert ring_radius(50) == 120  # ⌈750/2π⌉ = ⌈119.37⌉


def _ints(values: list[int]) -> np.ndarray:
    return np.array(values, dtype=np.int64)


def test_disc_of_two_levels_and_text_ring() -> None:
    doc = np.array([[100.0, 0.0, 220.0]])
    # 3 level-1 sections given out of reading order, then 30 level-2 sections; 4 text nodes.
    levels = [1, 1, 1] + [2] * 30
    positions = [2, 0, 1] + list(range(3, 33))
    placed = place_discs(doc, _ints([0] * 33), _ints(levels), _ints(positions), _ints([0] * 4), _ints([0, 1, 2, 3]))
    # Level 1: r = max(34, 35) = 35, curR → 67. Level 2: r = max(67, 72) = 72, curR → 104.
    # Text: r = max(104, 35) = 104, curR → 136.
    assert placed.disc_radius.tolist() == [136.0]
    rel = placed.section_xyz - doc
    assert np.hypot(rel[:3, 0], rel[:3, 1]) == pytest.approx([35.0] * 3)
    assert np.hypot(rel[3:, 0], rel[3:, 1]) == pytest.approx([72.0] * 30)
    # doc_position 1 is the second on its ring: angle 2π/3 → (100 − 17.5, 30.31).
    assert placed.section_xyz[2] == pytest.approx([82.5, 30.310889132455355, 220.0])
    assert placed.section_xyz[1] == pytest.approx([135.0, 0.0, 220.0])  # doc_position 0 at angle 0
    # Third text node of 4 at angle π: (100 − 104, 0).
    assert placed.text_xyz[2] == pytest.approx([-4.0, 0.0, 220.0])
    assert np.all(placed.text_xyz[:, 2] == 220.0) and np.all(placed.section_xyz[:, 2] == 220.0)


def test_discs_are_independent_and_empty_disc_has_first_radius() -> None:
    docs = np.array([[0.0, 0.0, 0.0], [500.0, 0.0, 0.0], [0.0, 500.0, 0.0]])
    # Doc 0: 50 sections on one level (r = 120, disc 152). Doc 1: 5 text nodes only
    # (r = 35, disc 67). Doc 2: nothing (disc = the starting 34).
    placed = place_discs(docs, _ints([0] * 50), _ints([1] * 50), _ints(list(range(50))),
                         _ints([1] * 5), _ints(list(range(5))))
    assert placed.disc_radius.tolist() == [152.0, 67.0, 34.0]
    assert np.hypot(*(placed.text_xyz[:, :2] - docs[1, :2]).T) == pytest.approx([35.0] * 5)


def test_no_nodes_at_all() -> None:
    placed = place_discs(np.zeros((2, 3)), _ints([]), _ints([]), _ints([]), _ints([]), _ints([]))
    assert placed.disc_radius.tolist() == [34.0, 34.0]
    assert placed.section_xyz.shape == (0, 3) and placed.text_xyz.shape == (0, 3)
