"""Decay auras and node colours against hand-computed values."""
from __future__ import annotations

import math

import numpy as np
import pytest

from ohara_lab.errors import UsageError
from ohara_lab.layout.auras import build_auras, decay_class, ephemeral_opacity
from ohara_lab.layout.colors import (
    NodeStyleKey,
    category_color,
    category_hue,
    hex_to_rgb,
    node_colors,
    type_color,
)
from ohara_lab.layout.synthetic import TreeOntology


def test_decay_class_precedence() -> None:
    assert decay_class("EVERGREEN", "CURRENT") == "EVERGREEN"
    assert decay_class(None, "CURRENT") == "CURRENT"
    assert decay_class("", "EPHEMERAL") == "EPHEMERAL"
    assert decay_class("bogus", None) == "SCHOLARLY"
    assert decay_class(None, None) == "SCHOLARLY"


def test_aura_scales_colours_opacities() -> None:
    classes = ["EVERGREEN", "SCHOLARLY", "CURRENT", "EPHEMERAL"]
    auras = build_auras(np.zeros((4, 3)), np.array([136, 67, 34, 100]), classes)
    # zH/2 = 220·factor/2: 5 → 550, 2.5 → 275, 1 → 110, 0.4 → 44.
    assert auras.scales.tolist() == [[136, 136, 550], [67, 67, 275], [34, 34, 110], [100, 100, 44]]
    assert auras.opacities == pytest.approx([0.16, 0.14, 0.12, 0.10])
    assert auras.colors[0] == pytest.approx([38 / 255, 139 / 255, 210 / 255])  # #268bd2
    assert auras.classes.tolist() == [0, 1, 2, 3]


def test_aura_takes_document_colours_when_given() -> None:
    colours = np.array([[0.1, 0.2, 0.3]])
    auras = build_auras(np.zeros((1, 3)), np.array([50.0]), ["CURRENT"], colours)
    assert auras.colors[0] == pytest.approx([0.1, 0.2, 0.3])
    assert auras.opacities[0] == pytest.approx(0.12)


def test_ephemeral_pulse() -> None:
    assert ephemeral_opacity(0.1, 0.0) == pytest.approx(0.07)  # 0.1·(0.4 + 0.6·0.5)
    assert ephemeral_opacity(0.1, (math.pi / 2) / 0.0018) == pytest.approx(0.1)  # sin = 1


def test_category_colour_idx_3_of_10() -> None:
    # hue = round(3/10·360·1.6180339887) = round(174.748) = 175; S 55%, L 62%:
    # C = (1 − |2·0.62 − 1|)·0.55 = 0.418, X = C·(1 − |175/60 mod 2 − 1|) = 0.383167,
    # m = 0.62 − C/2 = 0.411; hue in [120, 180) → (m, C + m, X + m).
    assert category_hue(3, 10) == 175
    assert category_color(3, 10) == pytest.approx((0.411, 0.829, 0.7941667), abs=1e-6)
    assert category_hue(1, 10) == 58  # 58.249 rounds down
    assert category_hue(0, 10) == 0


def test_type_colours_and_section_levels() -> None:
    assert type_color("table") == hex_to_rgb("#cb4b16")
    assert type_color("section", 3) == hex_to_rgb("#657b83")  # (3 − 1) mod 7 = 2
    assert type_color("section", 8) == hex_to_rgb("#268bd2")  # (8 − 1) mod 7 = 0
    assert type_color("section", 0) == type_color("section", 1)  # a Part counts as level 1
    assert hex_to_rgb("#d33682") == (211 / 255, 54 / 255, 130 / 255)


@pytest.fixture
def ten_categories() -> TreeOntology:
    cats = [f"K{i}" for i in range(10)]
    return TreeOntology(parents=dict.fromkeys(cats), tag_map={f"t{i}": c for i, c in enumerate(cats)})


def test_colour_modes(ten_categories: TreeOntology) -> None:
    keys = [
        NodeStyleKey("paragraph", None, first_tag="ab", document_tag="t3"),  # own tag unknown, doc in K3
        NodeStyleKey("section", 2, first_tag="t3", document_tag="zz"),  # own tag K3, doc unknown
        NodeStyleKey("figure", None, first_tag=None, document_tag=None),
        NodeStyleKey("entity"),
        NodeStyleKey("tag", None, first_tag="t3"),
    ]
    k3 = category_color(3, 10)
    by_doc = node_colors("by_document", keys, ten_categories)
    assert by_doc[0] == pytest.approx(k3)
    assert by_doc[1] == pytest.approx(type_color("section", 2))  # its document has no category
    assert by_doc[3] == pytest.approx(hex_to_rgb("#d33682"))
    assert by_doc[4] == pytest.approx(hex_to_rgb("#b58900"))
    by_sumo = node_colors("by_sumo", keys, ten_categories)
    assert by_sumo[0] == pytest.approx(hex_to_rgb("#cb4b16"))  # hash16("ab") = 3105, 3105 mod 8 = 1
    assert by_sumo[1] == pytest.approx(k3)
    assert by_sumo[2] == pytest.approx(type_color("figure"))
    assert by_sumo[4] == pytest.approx(k3)
    by_type = node_colors("by_type", keys, ten_categories)
    assert by_type[0] == pytest.approx(hex_to_rgb("#586e75"))
    assert by_type.dtype == np.float32 and by_type.shape == (5, 3)
    with pytest.raises(UsageError, match="by_mood"):
        node_colors("by_mood", keys, ten_categories)
