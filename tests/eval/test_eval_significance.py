"""Paired randomization test and bootstrap CI, against hand counts and scipy.stats."""
from __future__ import annotations

import numpy as np
import pytest

from ohara_lab.errors import UsageError
from ohara_lab.eval.significance import (
    bootstrap_ci, compare, paired_randomization_test, paired_scores,
)

stats = pytest.importorskip("scipy.stats", reason="scipy is the reference implementation (dev extra)")


def _rows(values, metric="mrr@10", prefix="q"):
    return [{"id": f"{prefix}{i:03d}", metric: v} for i, v in enumerate(values)]


def _scipy_p(a, b, n_resamples=10_000, seed=0):
    res = stats.permutation_test(
        (a, b), lambda x, y, axis: np.mean(x - y, axis=axis), permutation_type="samples",
        vectorized=True, n_resamples=n_resamples, alternative="two-sided", random_state=seed,
    )
    return res.pvalue


def test_identical_runs_give_zero_difference_and_p_one():
    scores = np.random.default_rng(1).random(50)
    c = compare(_rows(scores), _rows(scores), "mrr@10")
    assert c.diff == 0.0 and c.p_value == 1.0
    assert (c.ci_low, c.ci_high) == (0.0, 0.0)
    assert c.n == 50 and not c.exact
    small = compare(_rows(scores[:8]), _rows(scores[:8]), "mrr@10")
    assert small.exact and small.p_value == 1.0


def test_exact_sign_flip_p_values_counted_by_hand():
    # d = (1, 1, 1): of the 8 sign patterns only +++ and --- reach |mean| = 1 -> p = 2/8
    assert paired_randomization_test([1.0, 1.0, 1.0]) == (0.25, True)
    # d = (1, 1, 1, 1, 1): 2 of 32
    assert paired_randomization_test([1.0] * 5) == (2 / 32, True)
    # d = (2, -1, 0): |mean| >= 1/3 for sign patterns whose |±2 ± 1| >= 1: all 8 -> p = 1
    assert paired_randomization_test([2.0, -1.0, 0.0]) == (1.0, True)
    # d = (3, 1): |±3 ± 1|/2 >= 2 -> (+,+) and (-,-) -> 2 of 4
    assert paired_randomization_test([3.0, 1.0]) == (0.5, True)


def test_large_consistent_difference_is_highly_significant():
    rng = np.random.default_rng(2)
    b = rng.random(60) * 0.5
    a = b + 0.3 + rng.normal(0, 0.02, 60)
    c = compare(_rows(a), _rows(b), "mrr@10")
    assert c.p_value == pytest.approx(1 / 10_001)  # no resample reaches it: the floor
    assert 0.29 < c.ci_low < c.diff < c.ci_high < 0.31
    assert c.significant()


def test_exact_p_value_equals_scipy_exact_permutation_test():
    rng = np.random.default_rng(3)
    a, b = rng.random(12), rng.random(12)
    ours, exact = paired_randomization_test(a - b)
    assert exact  # 2^12 = 4096 patterns <= 10,000 resamples: enumerated, as scipy does
    assert ours == pytest.approx(_scipy_p(a, b), abs=1e-12)


@pytest.mark.parametrize("seed, shift", [(4, 0.05), (5, 0.1), (6, 0.0)])
def test_monte_carlo_p_value_agrees_with_scipy(seed, shift):
    rng = np.random.default_rng(seed)
    b = rng.random(40)
    a = b + shift + rng.normal(0, 0.25, 40)
    ours, exact = paired_randomization_test(a - b, n_resamples=10_000, seed=seed)
    theirs = _scipy_p(a, b, seed=seed)
    assert not exact
    # two independent 10,000-draw estimates: sd of their difference <= 0.0071
    assert ours == pytest.approx(theirs, abs=0.03)


def test_bootstrap_ci_agrees_with_scipy_percentile_bootstrap():
    rng = np.random.default_rng(7)
    d = rng.normal(0.05, 0.2, 80)
    ours = bootstrap_ci(d, n_resamples=10_000, seed=7)
    res = stats.bootstrap((d,), np.mean, method="percentile", n_resamples=10_000, random_state=7,
                          confidence_level=0.95)
    assert ours[0] == pytest.approx(res.confidence_interval.low, abs=0.01)
    assert ours[1] == pytest.approx(res.confidence_interval.high, abs=0.01)
    assert ours[0] < d.mean() < ours[1]


def test_fixed_seed_makes_results_reproducible():
    rng = np.random.default_rng(8)
    a, b = rng.random(30), rng.random(30)
    first = compare(_rows(a), _rows(b), "mrr@10", seed=11)
    again = compare(_rows(a), _rows(b), "mrr@10", seed=11)
    other = compare(_rows(a), _rows(b), "mrr@10", seed=12)
    assert first == again
    assert (first.p_value, first.ci_low) != (other.p_value, other.ci_low)


def test_pairing_is_by_query_id_and_skips_non_applicable_rows():
    a = [{"id": "x", "m": 1.0}, {"id": "y", "m": None}, {"id": "z", "m": 0.0}]
    b = [{"id": "z", "m": 1.0}, {"id": "x", "m": 0.5}, {"id": "y", "m": 1.0}]
    xa, xb, ids = paired_scores(a, b, "m")
    assert ids == ["x", "z"] and list(xa) == [1.0, 0.0] and list(xb) == [0.5, 1.0]
    c = compare(a, b, "m")
    assert c.n == 2 and c.diff == pytest.approx(-0.25)
    assert c.mean_a == 0.5 and c.mean_b == 0.75


def test_runs_over_different_queries_are_refused():
    with pytest.raises(UsageError, match="different queries"):
        compare(_rows([1.0, 0.0]), _rows([1.0, 0.0], prefix="p"), "mrr@10")
    with pytest.raises(UsageError, match="not a per-query column"):
        compare(_rows([1.0]), _rows([1.0]), "hits@4")
    with pytest.raises(UsageError, match="no query"):
        compare(_rows([None]), _rows([1.0]), "mrr@10")


def test_by_type_comparison_tests_each_type_on_its_own_queries():
    from ohara_lab.eval.report import by_type_comparison_rows

    def rows(config, values, qtype, start):
        return [{"config": config, "id": f"q{start + i}", "question_type": qtype, "recall@5": v}
                for i, v in enumerate(values)]
    per_query = (rows("full", [0, 0, 0], "2hop", 0) + rows("full", [1, 1], "3hop", 3)
                 + rows("x", [1, 1, 1], "2hop", 0) + rows("x", [1, 1], "3hop", 3))
    got = {r["question_type"]: r for r in by_type_comparison_rows(per_query, "full", ("recall@5",))}
    assert set(got) == {"2hop", "3hop"}
    # 2hop: d = (1, 1, 1), exact sign flips: p = 2/8; 3hop: no difference, p = 1
    assert got["2hop"]["diff"] == 1.0 and got["2hop"]["p_value"] == 0.25 and got["2hop"]["n"] == 3
    assert got["3hop"]["diff"] == 0.0 and got["3hop"]["p_value"] == 1.0 and got["3hop"]["n"] == 2
