
from ohara_lab.retrieval.hits import Contribution, Fused
from ohara_lab.retrieval.tiers import is_corroborated, principal, score_floor
from ohara_lab.settings import Settings


def entry(nid, score, phases, docs=None):
    docs = docs or ["d/1"] * len(phases)
    return Fused(nid, docs[0], score, [Contribution(p, 0.1, 1, 1, 1, d) for p, d in zip(phases, docs)])


def test_floor_by_hand():
    # ascending [0.1, 0.2, 0.3, 0.4]; n·pctl = 3 -> s[3] = 0.4
    assert score_floor([0.4, 0.1, 0.3, 0.2], 0.75) == 0.4
    assert score_floor([0.4, 0.1, 0.3, 0.2], 0.5) == 0.3
    assert score_floor([0.5], 0.99) == 0.5
    assert score_floor([], 0.75) == 0.0


def test_principal_needs_two_distinct_families():
    s = Settings(principal_score_pctl=0.0, principal_limit=5, principal_min_families=2)  # the original rule
    twice_one_phase = entry("a", 0.9, ["bm25", "bm25"])
    two_families = entry("b", 0.8, ["bm25", "vector"])
    zero_weight = Fused("c", "d/1", 0.7, [Contribution("bm25", 0.5, 1, 1, 1, "d/1"),
                                          Contribution("sumo", 0.0, 1, 1, 0.0, "d/1")])
    chosen, _ = principal([twice_one_phase, two_families, zero_weight], s)
    assert [f.id for f in chosen] == ["b"]


def test_principal_floor_limit_and_multi_doc():
    s = Settings(principal_score_pctl=0.5, principal_limit=1)
    es = [entry("a", 0.9, ["bm25", "vector"]), entry("b", 0.8, ["bm25", "sumo"]),
          entry("c", 0.2, ["bm25", "sumo"]), entry("d", 0.1, ["vector"])]
    chosen, floor = principal(es, s)
    assert floor == 0.8 and [f.id for f in chosen] == ["a"]
    multi = s.override(principal_require_multi_doc=True, principal_limit=5, principal_score_pctl=0.0)
    assert not is_corroborated(entry("x", 1, ["bm25", "vector"]), multi)
    assert is_corroborated(entry("y", 1, ["bm25", "vector"], ["d/1", "d/2"]), multi)
    assert is_corroborated(entry("z", 1, ["bm25", "cross_doc"]), multi)


def test_empty_fused_list_abstains():
    chosen, floor = principal([], Settings())
    assert chosen == [] and floor == 0.0
