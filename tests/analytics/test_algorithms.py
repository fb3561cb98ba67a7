"""The analytics algorithms on small graphs with hand-computed answers, and against networkx's reference."""
from __future__ import annotations

import math

import numpy as np
import pytest

nx = pytest.importorskip("networkx")

from ohara_lab.analytics import adamic_adar, clusters, communities  # noqa: E402


def test_adamic_adar_hand_computed():
    # u and v share w1 (degree 2) and w2 (degree 3); x hangs off w2.
    g = nx.Graph([("u", "w1"), ("v", "w1"), ("u", "w2"), ("v", "w2"), ("x", "w2")])
    pred = adamic_adar.predict(g)
    links = pred.links()
    uv = round(1 / math.log(2) + 1 / math.log(3), 4)  # 1.4427 + 0.9102 = 2.3529
    ww = round(2 / math.log(2), 4)  # w1 and w2 share u and v, both of degree 2: 2.8854
    assert [(l.a, l.b, l.score, l.common) for l in links] == [("w1", "w2", ww, 2), ("u", "v", uv, 2)]
    # u-x and v-x share only w2; linked pairs are never predicted
    assert adamic_adar.by_entity(pred)["u"] == [["v", uv, 2]]
    assert adamic_adar.by_entity(pred)["w1"] == [["w2", ww, 2]]
    assert adamic_adar.by_entity(pred, top=0) == {"u": [], "v": [], "w1": [], "w2": []}


def test_adamic_adar_matches_networkx_reference():
    g = nx.gnp_random_graph(60, 0.12, seed=7)
    g = nx.relabel_nodes(g, {i: f"e{i:02d}" for i in g})
    ours = {(l.a, l.b): (l.score, l.common) for l in adamic_adar.predict(g, min_common=2, min_score=0.0).links()}
    ref = {}
    pairs = [(a, b) for a, b in nx.non_edges(g) if len(list(nx.common_neighbors(g, a, b))) >= 2]
    for a, b, score in nx.adamic_adar_index(g, pairs):
        ref[tuple(sorted((a, b)))] = (round(score, 4), len(list(nx.common_neighbors(g, a, b))))
    assert ours == ref and len(ours) > 50


def test_by_entity_keeps_the_strongest_per_entity():
    # a star of hubs: e0 shares two neighbours with each of e1..e5, through hubs of growing degree
    g = nx.Graph()
    for k in range(1, 6):
        for h in (f"h{k}a", f"h{k}b"):
            g.add_edges_from([("e0", h), (f"e{k}", h)] + [(h, f"x{k}{h}{i}") for i in range(k)])
    full = adamic_adar.by_entity(adamic_adar.predict(g), top=99)["e0"]
    top2 = adamic_adar.by_entity(adamic_adar.predict(g), top=2)["e0"]
    assert [r[0] for r in full[:5]] == ["e1", "e2", "e3", "e4", "e5"]  # weaker hubs, stronger evidence
    assert top2 == full[:2] and [r[1] for r in full] == sorted((r[1] for r in full), reverse=True)


def test_adamic_adar_threshold():
    g = nx.Graph([("u", "w1"), ("v", "w1"), ("u", "w2"), ("v", "w2")] + [("w2", f"z{i}") for i in range(30)])
    # u-v: 1/ln 2 + 1/ln 32 = 1.7312; w1-w2: 2/ln 2 = 2.8854
    assert [(l.a, l.b, l.score) for l in adamic_adar.predict(g).links()] == [("w1", "w2", 2.8854), ("u", "v", 1.7312)]
    assert [(l.a, l.b) for l in adamic_adar.predict(g, min_score=2.0).links()] == [("w1", "w2")]
    assert len(adamic_adar.predict(g, min_score=3.0)) == 0


@pytest.mark.parametrize("n,k", [(2, 2), (10, 3), (200, 10), (1250, 25), (10_000, 50)])
def test_k_rule(n, k):
    assert clusters.choose_k(n) == k


def _two_cliques():
    g = nx.Graph()
    for clique in (["a1", "a2", "a3", "a4"], ["b1", "b2", "b3", "b4"]):
        g.add_edges_from(((x, y) for i, x in enumerate(clique) for y in clique[i + 1:]), weight=3)
    g.add_edge("a1", "b1", weight=1)
    return g


@pytest.mark.parametrize("method", communities.METHODS)
def test_communities_split_two_cliques_and_flag_the_bridge(method):
    if method == "leiden":
        pytest.importorskip("leidenalg")
    g = _two_cliques()
    parts = communities.detect(g, method, seed=1)
    assert sorted(map(sorted, parts)) == [["a1", "a2", "a3", "a4"], ["b1", "b2", "b3", "b4"]]
    assert sorted(map(sorted, parts)) == sorted(map(sorted, communities.detect(g, method, seed=1)))
    found = communities.label(parts, g, {"a1": "Alpha"}, method)
    assert [c.size for c in found] == [4, 4] and found[0].members[0] == "a1" and found[0].label.startswith("Alpha")
    membership = {s: c.id for c in found for s in c.members}
    assert communities.surprising(g, membership) == [("a1", "b1", 1)]
    # Q = sum over communities of (internal weight / m) - (degree sum / 2m)^2, by hand: m = 37
    m = 37
    assert communities.modularity(g, parts) == pytest.approx(2 * (18 / m - (37 / (2 * m)) ** 2))


def test_kmeans_separates_two_directions_and_names_them():
    rng = np.random.default_rng(0)
    a = np.array([1.0, 0, 0, 0]) + rng.normal(0, 0.05, (20, 4))
    b = np.array([0, 0, 1.0, 0]) + rng.normal(0, 0.05, (20, 4))
    ids = [f"paragraphs/p{i:02d}" for i in range(40)]
    labels, dist = clusters.kmeans(np.vstack([a, b]))
    assert not set(labels[:20]) & set(labels[20:])  # k = 4 for 40 points: each direction gets its own clusters
    assert dist.max() < 0.5
    texts = {i: ("mining difficulty proof work" if n < 20 else "wallet keys seed mnemonic") for n, i in enumerate(ids)}
    lists = {i: (["bitcoin"] if n < 20 else ["bip-39"]) for n, i in enumerate(ids)}
    found = clusters.build(ids, labels, dist, texts, lists)
    assert len(found) == clusters.choose_k(40) == 4 and sum(c.size for c in found) == 40
    named_sides = [{int(m[-2:]) < 20 for m in c.members} for c in found if c.size >= clusters.MIN_SUMMARY]
    assert {True} in named_sides and {False} in named_sides  # each side has a cluster big enough to be named
    for c in found:  # every cluster stays on one side, and is named by that side's words and entity
        side = {int(m[-2:]) < 20 for m in c.members}
        assert len(side) == 1
        if c.size >= clusters.MIN_SUMMARY:
            mining = side == {True}
            assert c.centroid_entity_slugs == (["bitcoin"] if mining else ["bip-39"])
            assert ("mining" if mining else "wallet") in c.terms
    assert [c.size for c in found] == sorted((c.size for c in found), reverse=True)
