"""Per-phase score normalisation: one phase's raw scores for one query, mapped onto a common scale
before fusion (ranx keeps these in `ranx/normalization/`; Bruch, Gai & Ingber, "An Analysis of
Fusion Functions for Hybrid Retrieval", ACM TOIS 2023, arXiv 2210.11934).

Over the scores s of the candidates one phase returned for one query:

    max     n(s) = s / max(s)                 the original's (spec §3.8); 1.0 divides when max ≤ 0
    minmax  n(s) = (s − min) / (max − min)    1.0 for every candidate when max = min
    zscore  n(s) = (s − min) / σ              z-score shifted so the weakest candidate is 0
    none    n(s) = s

Why not plain max: dense cosines sit in a narrow band just under their maximum, so
s / max gives every dense candidate nearly 1 and the wide-range phases (BM25, graph
overlaps) decide the order; min–max and z-score spread each phase over its own range.
The z-score is shifted by its minimum (a constant per phase and query, so the order
within the phase is the plain z-score's) so that a node a phase did not return, which
contributes 0, never outranks one it did.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from ..errors import UsageError

Normaliser = Callable[[Sequence[float]], list[float]]


def max_norm(scores: Sequence[float]) -> list[float]:
    """s / max(0, max s); left raw when that maximum is 0."""
    m = max([0.0, *scores])
    return [s / m for s in scores] if m > 0 else list(scores)


def minmax_norm(scores: Sequence[float]) -> list[float]:
    """(s − min) / (max − min); 1.0 for all when every score is equal (one candidate, or a tie)."""
    if not scores:
        return []
    lo, hi = min(scores), max(scores)
    if hi - lo <= 1e-12:
        return [1.0] * len(scores)
    return [(s - lo) / (hi - lo) for s in scores]


def zscore_norm(scores: Sequence[float]) -> list[float]:
    """(s − min) / σ with σ the population standard deviation; 1.0 for all when σ = 0."""
    if not scores:
        return []
    mean = math.fsum(scores) / len(scores)
    sd = math.sqrt(math.fsum((s - mean) ** 2 for s in scores) / len(scores))
    if sd <= 1e-12:
        return [1.0] * len(scores)
    lo = min(scores)
    return [(s - lo) / sd for s in scores]


def no_norm(scores: Sequence[float]) -> list[float]:
    return list(scores)


NORMALISERS: dict[str, Normaliser] = {"max": max_norm, "minmax": minmax_norm, "zscore": zscore_norm, "none": no_norm}


def normaliser(name: str) -> Normaliser:
    """The normaliser called `name`; an unknown name is an error listing the known ones."""
    try:
        return NORMALISERS[name]
    except KeyError:
        raise UsageError(f"unknown normalisation {name!r}; choose one of {', '.join(NORMALISERS)}") from None
