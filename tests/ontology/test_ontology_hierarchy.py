"""Hierarchy walks: hand-made graphs (including a cycle) and facts read off the real SUMO.owl."""
from __future__ import annotations

import pytest

from ohara_lab.ontology import load_ontology
from ohara_lab.ontology.hierarchy import ancestors, children_of, depth, primary_chain, subtree_sizes

#        R
#      /   \
#     A     B
#     |   /   \
#     C  D     E
#      \ |
#        F   (F: primary parent C, second parent D)
TOY = {"A": ["R"], "B": ["R"], "C": ["A"], "D": ["B"], "E": ["B"], "F": ["C", "D"]}


def test_primary_chain_and_depth_follow_first_parents():
    assert primary_chain("F", TOY) == ["F", "C", "A", "R"]
    assert depth("F", TOY) == 3
    assert depth("R", TOY) == 0
    assert depth("unknown", TOY) == 0


def test_ancestors_are_bfs_over_all_parents():
    assert ancestors("F", TOY, 1) == {"C": 1, "D": 1}
    assert ancestors("F", TOY, 2) == {"C": 1, "D": 1, "A": 2, "B": 2}
    assert ancestors("F", TOY, 3) == {"C": 1, "D": 1, "A": 2, "B": 2, "R": 3}
    assert ancestors("F", TOY, 0) == {}
    assert ancestors("F", TOY, -1) == {}


def test_walks_survive_cycles():
    cyclic = {"X": ["Y"], "Y": ["Z"], "Z": ["X"]}
    assert primary_chain("X", cyclic) == ["X", "Y", "Z"]
    assert ancestors("X", cyclic, 10) == {"Y": 1, "Z": 2}


def test_subtree_sizes_and_children():
    assert subtree_sizes(["R", "A", "B", "C", "D", "E", "F"], TOY) == {
        "R": 6, "A": 2, "B": 3, "C": 1, "D": 1, "E": 0, "F": 0}
    assert children_of(TOY)["B"] == ["D", "E"]


@pytest.fixture(scope="module")
def onto():
    return load_ontology()


def test_human_is_a_hominid_primate_mammal(onto):
    # SUMO.owl: Human subClassOf Hominid, CognitiveAgent, ITAgent (in that order).
    assert onto.parents("Human") == ["Hominid", "CognitiveAgent", "ITAgent"]
    assert onto.ancestors("Human", 1) == {"Hominid": 1, "CognitiveAgent": 1, "ITAgent": 1}
    two = onto.ancestors("Human", 2)
    assert two["Primate"] == 2 and two["SentientAgent"] == 2
    assert onto.ancestors("Human", 3)["Mammal"] == 3
    assert onto.depth("Human") == 13  # Hominid, Primate, Mammal, …, Object, Physical, Entity
    assert onto.depth("Entity") == 0
    assert onto.depth("NoSuchClass") is None
    assert onto.ancestors("Human", 0) == {}


def test_river_is_a_water_area(onto):
    assert onto.parents("River") == ["StreamWaterArea", "FreshWaterArea", "BodyOfWater"]
    assert onto.ancestors("River", 2)["WaterArea"] == 2
    assert onto.parents("Entity") == [] and onto.parents("NoSuchClass") == []


def test_index_lookups(onto):
    assert len(onto) == len(onto.classes) == 4538
    assert onto.has("Human") and not onto.has("human") and not onto.has("")
    assert onto.label("APC") == "armored personnel carrier"
    assert onto.label("NoSuchClass") is None
    assert onto.uri("River") == "http://www.ontologyportal.org/SUMO.owl#River"
    # Defined in SUMO.owl with an absolute URI outside the SUMO.owl# namespace.
    assert onto.uri("Brandy") == "http://www.ontologyportal.org/Brandy"
