"""Map categories (spec §1.4, §6): the selection rule on a hand-made hierarchy, and the real accessors."""
from __future__ import annotations

import pytest

from ohara_lab.errors import OntologyError
from ohara_lab.ontology import categories as cat_mod
from ohara_lab.ontology import load_ontology

#            Entity
#          /        \
#     Physical    Abstract
#     /     \          \
#  Object  Process   Quantity
#   |  \       \
#  Agent Region Motion
#   |      |
#  Human  River ---- (River also ⊂ Motion, second parent)
#                Orphan (no parents), OrphanKid ⊂ Orphan
TOY = {
    "Physical": ["Entity"], "Abstract": ["Entity"], "Object": ["Physical"], "Process": ["Physical"],
    "Quantity": ["Abstract"], "Agent": ["Object"], "Region": ["Object"], "Motion": ["Process"],
    "Human": ["Agent"], "River": ["Region", "Motion"], "OrphanKid": ["Orphan"],
}
CLASSES = sorted(set(TOY) | {p for ps in TOY.values() for p in ps})


@pytest.fixture
def small_thresholds(monkeypatch):
    # The real rule asks for >= 25 descendants; scale it to the toy: depth 1-2, >= 2 descendants.
    monkeypatch.setattr(cat_mod, "MAX_CATEGORY_DEPTH", 2)
    monkeypatch.setattr(cat_mod, "MIN_CATEGORY_DESCENDANTS", 2)


def test_rule_on_a_toy_hierarchy(small_thresholds):
    # descendants: Physical 7, Abstract 1, Object 4, Process 2 (Motion, River), Orphan 1 (and off the root)
    table = cat_mod.build_categories(CLASSES, TOY)
    assert table.root == "Entity"
    assert table.categories == ["Physical", "Object", "Process"]  # by depth, then size
    assert table.map == {
        "Physical": "Physical", "Object": "Object", "Process": "Process",
        "Agent": "Object", "Region": "Object", "Human": "Object", "Motion": "Process",
        "River": "Object",  # BFS: Region (primary) and Motion tie at distance 1; primary first, Object at 2
    }
    assert table.cat_parent == {"Physical": None, "Object": "Physical", "Process": "Physical"}
    assert table.cat_depth == {"Physical": 1, "Object": 2, "Process": 2}
    assert table.cat_groups == {"Physical": {"L1": "Physical", "L2": "Physical"},
                                "Object": {"L1": "Physical", "L2": "Object"},
                                "Process": {"L1": "Physical", "L2": "Process"}}
    assert table.tag_counts == {"Physical": 1, "Object": 5, "Process": 2}


def test_nearest_category_prefers_the_closest(small_thresholds):
    cats = {"Object", "Motion"}
    # River reaches Motion at distance 1 but Object only at 2.
    assert cat_mod.nearest_category("River", TOY, cats) == "Motion"
    assert cat_mod.nearest_category("Motion", TOY, cats) == "Motion"
    assert cat_mod.nearest_category("Motion", TOY, cats, include_self=False) is None
    assert cat_mod.nearest_category("OrphanKid", TOY, cats) is None


@pytest.fixture(scope="module")
def onto():
    return load_ontology()


def test_real_categories(onto):
    cats = onto.categories
    assert 80 <= len(cats) <= 120 and cats[:2] == ["Physical", "Abstract"]
    assert onto.category("River") == "WaterArea"
    assert onto.category("Human") == "CognitiveAgent"  # a parent of Human, nearer than OrganicObject
    assert onto.category("WaterArea") == "WaterArea"
    assert onto.category("Law") is None  # orphan root in SUMO.owl
    assert onto.category("NoSuchClass") is None
    assert onto.category_parent("WaterArea") == "GeographicArea"
    assert onto.category_parent("Physical") is None
    assert onto.category_depth("Physical") == 1 and onto.category_depth("Object") == 2
    assert onto.category_groups("Physical") == ("Physical", "Physical")
    assert onto.category_groups("Attribute") == ("Abstract", "Attribute")
    assert onto.category_groups("WaterArea") == ("Physical", "Object")
    counts = onto.category_tag_counts
    assert set(counts) == set(cats) and all(n >= 1 for n in counts.values())
    assert onto.category_root == "Entity"


def test_category_accessors_reject_non_categories(onto):
    with pytest.raises(OntologyError, match="not a map category"):
        onto.category_parent("River")
    with pytest.raises(OntologyError):
        onto.category_groups("NoSuchClass")
