"""Hand-made category trees whose sunburst partitions are worked out on paper.

FLOOR_TREE (the 8° floor case), tag counts → W = sqrt(count or 1) + Σ W(children):
    A  (0 tags)      W = 1 + 9 + 90 = 100
      A1 (81 tags)   W = 9
      A2 (8100 tags) W = 90
    B  (1 tag)       W = 1
    C  (16 tags)     W = 4
Root, 360° over ΣW = 105: A 2400/7°, C 96/7°, B 24/7° (< 8°). Raise B to 8°;
deficit 32/7° comes off A and C in proportion to their spans (ΣA+C = 2496/7):
A 4400/13° ≈ 338.46°, C 176/13° ≈ 13.54°, B 8° — in that order (W descending).
Inside A (4400/13°): A2 = 10/11 of it = 4000/13°, A1 = 400/13° (both ≥ 8°).

NO_FLOOR_TREE (a span too small for the floor):
    X (10000 tags) W = 100;  Y (1 tag) W = 1 + 1 + 1 = 3 with children Y1, Y2 (0 tags, W = 1)
Root: X 36000/103° ≈ 349.51°, Y ≈ 10.49° (≥ 8°, nothing raised). Y's span is
< 2·8°, so no floor: Y1 and Y2 get ≈ 5.24° each.
"""
from __future__ import annotations

import matplotlib
import pytest

from ohara_lab.layout.synthetic import TreeOntology

matplotlib.use("Agg")


@pytest.fixture
def floor_tree() -> TreeOntology:
    return TreeOntology(
        parents={"A": None, "B": None, "C": None, "A1": "A", "A2": "A"},
        tag_map={"tagA1": "A1", "tagA2": "A2", "tagB": "B", "tagC": "C", "tagA": "A"},
        depths={"A": 2, "B": 0, "C": 5, "A1": 3, "A2": 3},
        groups={"A": ("Abstract", "A"), "B": ("Physical", "B"), "C": ("Other", "C"),
                "A1": ("Abstract", "A"), "A2": ("Abstract", "A")},
        tag_counts={"A": 0, "A1": 81, "A2": 8100, "B": 1, "C": 16},
    )


@pytest.fixture
def no_floor_tree() -> TreeOntology:
    return TreeOntology(
        parents={"X": None, "Y": None, "Y1": "Y", "Y2": "Y"},
        tag_counts={"X": 10000, "Y": 1, "Y1": 0, "Y2": 0},
    )
