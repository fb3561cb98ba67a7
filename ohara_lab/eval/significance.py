"""Paired significance of a per-query metric difference between two runs.

* Paired randomization test (Fisher 1935; as used for IR by Smucker, Allan &
  Carterette, CIKM 2007): under H0 the two systems are exchangeable on each query,
  so each difference d_i keeps or flips its sign with probability 1/2. Statistic
  T = mean(d); two-sided p = P(|T*| ≥ |T|). All 2^n sign patterns are enumerated
  when 2^n ≤ n_resamples (exact test); otherwise n_resamples random patterns are drawn
  and p = (1 + #{|T*| ≥ |T|}) / (1 + n_resamples) (Phipson & Smyth 2010, never 0).
* Percentile bootstrap CI of the mean difference (Efron & Tibshirani 1993, ch. 13):
  queries resampled with replacement, 2.5th / 97.5th percentiles of the resampled means.

Both use `numpy.random.default_rng(seed)` with a fixed default seed, so a report is
reproducible; ranx's `compare` follows the same habit.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import UsageError

DEFAULT_SEED = 42
DEFAULT_RESAMPLES = 10_000
_BATCH = 1_000  # resamples drawn per block, to bound memory at n_queries x 1,000
_MAX_EXACT_N = 20  # 2^20 patterns is the most we are willing to enumerate


@dataclass(frozen=True)
class Comparison:
    """Run A minus run B on one metric, over the queries both runs score."""

    diff: float  # mean(a - b)
    ci_low: float
    ci_high: float
    p_value: float
    n: int
    metric: str = ""
    mean_a: float = float("nan")
    mean_b: float = float("nan")
    exact: bool = False  # True when the p-value enumerated every sign pattern
    n_resamples: int = DEFAULT_RESAMPLES
    seed: int = DEFAULT_SEED

    def significant(self, alpha: float = 0.05) -> bool:
        return self.p_value < alpha


def _tolerance(observed: float) -> float:
    # Sums of the same numbers in another order differ in the last bits; without
    # this slack a resample equal to the observed statistic could count as smaller.
    return 1e-12 * max(1.0, abs(observed))


def paired_randomization_test(
    diffs: Sequence[float] | np.ndarray,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> tuple[float, bool]:
    """Two-sided sign-flip p-value of mean(diffs) ≠ 0, and whether it was exact."""
    d = np.asarray(diffs, dtype=np.float64)
    n = d.size
    if n == 0:
        raise UsageError("a randomization test needs at least one paired difference")
    observed = abs(d.mean())
    tol = _tolerance(observed)
    if n <= _MAX_EXACT_N and 2**n <= n_resamples:
        # Rows of `signs` are all 2^n patterns (bit j of the row index flips query j).
        codes = np.arange(2**n, dtype=np.int64)[:, None]
        signs = 1.0 - 2.0 * ((codes >> np.arange(n)) & 1)
        stats = np.abs(signs @ d) / n
        return float(np.mean(stats >= observed - tol)), True
    rng = np.random.default_rng(seed)
    extreme = 0
    done = 0
    while done < n_resamples:
        size = min(_BATCH, n_resamples - done)
        signs = rng.choice(np.array([-1.0, 1.0]), size=(size, n))
        extreme += int(np.sum(np.abs(signs @ d) / n >= observed - tol))
        done += size
    return (extreme + 1) / (n_resamples + 1), False


def bootstrap_ci(
    diffs: Sequence[float] | np.ndarray,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    confidence: float = 0.95,
) -> tuple[float, float]:
    """Percentile bootstrap interval of mean(diffs)."""
    d = np.asarray(diffs, dtype=np.float64)
    n = d.size
    if n == 0:
        raise UsageError("a bootstrap interval needs at least one paired difference")
    rng = np.random.default_rng(seed)
    means = np.empty(n_resamples, dtype=np.float64)
    done = 0
    while done < n_resamples:
        size = min(_BATCH, n_resamples - done)
        idx = rng.integers(0, n, size=(size, n))
        means[done : done + size] = d[idx].mean(axis=1)
        done += size
    alpha = (1.0 - confidence) / 2.0
    low, high = np.percentile(means, [100 * alpha, 100 * (1 - alpha)])
    return float(low), float(high)


def _rows(per_query: Any) -> Sequence[Mapping[str, Any]]:
    # Accept an EvalReport as well as its rows.
    return getattr(per_query, "rows", per_query)


def paired_scores(
    per_query_a: Any, per_query_b: Any, metric: str
) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """Align two runs' per-query rows by id; keep queries where both scored `metric`.

    Both runs must cover the same query ids: comparing runs over different query
    sets is a caller bug, not something to paper over.
    """
    a = {r["id"]: r for r in _rows(per_query_a)}
    b = {r["id"]: r for r in _rows(per_query_b)}
    if set(a) != set(b):
        only_a = sorted(set(a) - set(b))[:3]
        only_b = sorted(set(b) - set(a))[:3]
        raise UsageError(f"runs cover different queries (only in A: {only_a}, only in B: {only_b})")
    ids: list[str] = []
    xa: list[float] = []
    xb: list[float] = []
    for qid, ra in a.items():
        if metric not in ra or metric not in b[qid]:
            raise UsageError(f"metric {metric!r} is not a per-query column")
        va, vb = ra[metric], b[qid][metric]
        if va is None or vb is None:
            continue
        ids.append(qid)
        xa.append(float(va))
        xb.append(float(vb))
    return np.asarray(xa), np.asarray(xb), ids


def compare(
    per_query_a: Any,
    per_query_b: Any,
    metric: str,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    confidence: float = 0.95,
) -> Comparison:
    """A − B on `metric`: mean difference, bootstrap CI, randomization-test p-value."""
    xa, xb, _ = paired_scores(per_query_a, per_query_b, metric)
    if xa.size == 0:
        raise UsageError(f"no query has {metric!r} in both runs")
    d = xa - xb
    p, exact = paired_randomization_test(d, n_resamples, seed)
    low, high = bootstrap_ci(d, n_resamples, seed, confidence)
    return Comparison(
        diff=float(d.mean()),
        ci_low=low,
        ci_high=high,
        p_value=p,
        n=int(d.size),
        metric=metric,
        mean_a=float(xa.mean()),
        mean_b=float(xb.mean()),
        exact=exact,
        n_resamples=n_resamples,
        seed=seed,
    )
