import pytest

from ohara_lab.retrieval.fusion import fuse, phase_weights
from ohara_lab.retrieval.hits import Hit
from ohara_lab.settings import Settings


def test_phase_weights_apply_the_mode_row():
    s = Settings(bm25_weight=1.0, sumo_weight=0.4, vector_weight=0.5)
    w = phase_weights(s, "synthesis")
    assert w["bm25"] == pytest.approx(0.6) and w["sumo"] == pytest.approx(0.4) and w["vector"] == pytest.approx(0.5)
    assert phase_weights(s.override(adaptive_weights=False), "synthesis")["bm25"] == 1.0


def test_max_normalised_weighted_sum_by_hand():
    hits = {
        "bm25": [Hit("p/a", "d/1", "bm25", 20.0), Hit("p/b", "d/1", "bm25", 10.0)],
        "vector": [Hit("p/b", "d/1", "vector", 0.8), Hit("p/c", "d/2", "vector", 0.4)],
        "sumo": [Hit("p/c", "d/2", "sumo", 0.0)],
    }
    weights = {"bm25": 1.0, "vector": 0.5, "sumo": 0.4}
    fused = {f.id: f for f in fuse(hits, weights)}
    # a: 1.0*20/20 = 1.0 ; b: 1.0*10/20 + 0.5*0.8/0.8 = 1.0 ; c: 0.5*0.4/0.8 + 0 (sumo max is 0 -> raw 0) = 0.25
    assert fused["p/a"].score == pytest.approx(1.0)
    assert fused["p/b"].score == pytest.approx(1.0)
    assert fused["p/c"].score == pytest.approx(0.25)
    assert fused["p/b"].families == {"bm25", "vector"}
    assert fused["p/c"].families == {"vector"}  # a zero contribution corroborates nothing
    assert [f.id for f in fuse(hits, weights)] == ["p/a", "p/b", "p/c"]  # ties by id


def test_without_normalisation_raw_scores_swamp():
    hits = {"bm25": [Hit("p/a", "d", "bm25", 20.0)], "vector": [Hit("p/b", "d", "vector", 0.9)]}
    fused = fuse(hits, {"bm25": 1.0, "vector": 1.0}, normalisation="none")
    assert fused[0].score == 20.0 and fused[1].score == pytest.approx(0.9)


def test_reciprocal_rank_fusion_by_hand():
    hits = {"bm25": [Hit("a", "d", "bm25", 9.0), Hit("b", "d", "bm25", 5.0)],
            "vector": [Hit("b", "d", "vector", 0.9), Hit("c", "d", "vector", 0.1)]}
    fused = {f.id: f.score for f in fuse(hits, {"bm25": 1.0, "vector": 1.0}, method="rrf", rrf_k=60)}
    assert fused["a"] == pytest.approx(1 / 61)
    assert fused["b"] == pytest.approx(1 / 62 + 1 / 61)
    assert fused["c"] == pytest.approx(1 / 62)
