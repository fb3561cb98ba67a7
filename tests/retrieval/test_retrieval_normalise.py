"""Per-phase normalisations, hand-computed."""
from __future__ import annotations

import math

import pytest

from ohara_lab.errors import UsageError
from ohara_lab.retrieval.fusion import fuse
from ohara_lab.retrieval.hits import Hit
from ohara_lab.retrieval.normalise import max_norm, minmax_norm, normaliser, zscore_norm


def test_max_divides_by_the_maximum_and_leaves_non_positive_lists_raw():
    assert max_norm([2.0, 1.0, 0.5]) == [1.0, 0.5, 0.25]
    assert max_norm([-1.0, 0.0]) == [-1.0, 0.0]


def test_minmax_spreads_a_narrow_band_over_zero_to_one():
    assert minmax_norm([0.80, 0.78, 0.76]) == pytest.approx([1.0, 0.5, 0.0])
    assert minmax_norm([0.3, 0.3]) == [1.0, 1.0] and minmax_norm([]) == []


def test_zscore_is_shifted_so_the_weakest_candidate_is_zero():
    # mean 2, population sd sqrt(2/3): (s - 1) / sd
    sd = math.sqrt(2 / 3)
    assert zscore_norm([1.0, 2.0, 3.0]) == pytest.approx([0.0, 1 / sd, 2 / sd])
    assert zscore_norm([5.0]) == [1.0]


def test_unknown_normalisation_names_the_known_ones():
    with pytest.raises(UsageError, match="minmax"):
        normaliser("softmax")


def test_minmax_fusion_lets_a_narrow_dense_band_decide_against_max():
    # Dense cosines 0.80 / 0.78, BM25 10 / 30: max-normalised BM25 decides; min-max lets dense weigh in.
    hits = {"vector": [Hit("p/a", "d", "vector", 0.80), Hit("p/b", "d", "vector", 0.78)],
            "bm25": [Hit("p/a", "d", "bm25", 10.0), Hit("p/b", "d", "bm25", 30.0)]}
    weights = {"vector": 0.7, "bm25": 0.3}
    assert [f.id for f in fuse(hits, weights, "max")] == ["p/b", "p/a"]
    assert [f.id for f in fuse(hits, weights, "minmax")] == ["p/a", "p/b"]
    top = fuse(hits, weights, "minmax")[0]
    assert top.score == pytest.approx(0.7) and {c.phase: c.normalised for c in top.contributions} == \
        {"vector": 1.0, "bm25": 0.0}
