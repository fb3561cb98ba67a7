"""Entities and tags around the corpus; hashes and positions worked out by hand."""
from __future__ import annotations

import numpy as np
import pytest

from ohara_lab.layout.hashing import string_hash16, string_hash32
from ohara_lab.layout.satellites import (
    entity_size,
    place_entities,
    place_tags,
    satellite_distance,
    tag_size,
    top_tags,
)


def test_string_hashes_match_java_hashcode() -> None:
    assert string_hash32("ab") == 97 * 31 + 98 == 3105
    assert string_hash32("abc") == 96354
    assert string_hash32("😀") == 55357 * 31 + 56832  # UTF-16 surrogates, like charCodeAt
    assert string_hash32("polygenelubricants") == 2**31  # Java's famous Integer.MIN_VALUE
    # 16-bit variant masks every step: hello → 104, 3325, 37647, 53053, 1644754 − 25·65536 = 6354.
    assert string_hash16("hello") == 6354


def test_distances_and_sizes() -> None:
    assert satellite_distance(136) == 256.0  # max(136, 100) + 120
    assert satellite_distance(50) == 220.0  # max(50, 100) + 120
    assert entity_size(np.array([0, 5, 20])).tolist() == [6.0, 10.0, 18.0]  # min(18, 6 + 0.8c)
    assert tag_size(np.array([4, 30])).tolist() == [7.0, 16.0]  # min(16, 5 + 0.5c)


DOCS = np.array([[0.0, 0.0, 0.0], [200.0, 0.0, 220.0], [0.0, 200.0, 440.0]])  # centroid C = (200/3, 200/3)


def test_entity_pushed_out_from_the_corpus_centroid() -> None:
    placed = place_entities(DOCS, [[0, 1]], ["ab"], [5], 256.0)
    # P = (100, 0); away from C along (1, −2)/√5 by 256 → (214.49, −228.97);
    # jitter h("ab") & 0xff = 33 → (33/255 − 0.5)·80 = −29.647 on x and y; z = mean(0, 220).
    assert placed.xyz[0] == pytest.approx([184.8396216244598, -258.6204197195079, 110.0])
    assert placed.sizes.tolist() == [10.0]


def test_entity_without_known_document_uses_its_hash_angle() -> None:
    placed = place_entities(DOCS, [[]], ["ab"], [0], 256.0)
    # angle (3105 & 0x7fff)/0x7fff·2π = 0.59539 rad at distance 256 from C;
    # z = ((3105 >>> 8) & 0xff)/255 · max(440, 220) = 12/255·440.
    assert placed.xyz[0] == pytest.approx([278.61606424351646, 210.24052524409177, 20.705882352941178])


def test_entity_on_the_centroid_leaves_along_its_hash_angle() -> None:
    placed = place_entities(DOCS, [[0, 1, 2]], ["ab"], [0], 256.0)
    # P = C: leaves along the hash angle (the point above), then the usual −29.647 jitter.
    assert placed.xyz[0] == pytest.approx([248.96900542, 180.59346642, 220.0])


def test_top_tags_count_nodes_and_keep_first_seen_order_on_ties() -> None:
    nodes = [["x", "y"], ["y"], ["z", "y", "x"], ["x", "x"]]
    assert top_tags(nodes) == [("x", 3), ("y", 3), ("z", 1)]
    assert top_tags(nodes, k=2) == [("x", 3), ("y", 3)]


def test_tag_placed_beyond_the_entities() -> None:
    holders = [np.array([[100.0, 0.0, 0.0], [300.0, 0.0, 220.0]])]
    placed = place_tags(["ab"], [4], holders, np.array([0.0, 0.0]), 256.0)
    # Holder centroid (200, 0, 110), pushed along +x by 256 + 80; jitter (33/255 − 0.5)·60 = −22.235.
    assert placed.xyz[0] == pytest.approx([513.7647058823529, -22.235294117647058, 110.0])
    assert placed.sizes.tolist() == [7.0]
