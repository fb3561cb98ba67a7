"""Seeded, stratified halves of a dataset's queries: the tuning and test splits every procedure shares.

The tuning half is what weight tuning (notebook 04), the profile procedure (`profile_search`) and the
answerability model's training may read; the test half is only ever reported.
"""
from __future__ import annotations

import random
from dataclasses import replace

from ..errors import UsageError
from .dataset import Dataset
from .significance import DEFAULT_SEED


def split_queries(
    dataset: Dataset, tune_fraction: float = 0.5, seed: int = DEFAULT_SEED
) -> tuple[list[str], list[str]]:
    """(tune ids, test ids): disjoint, seeded, stratified by question type, in dataset order."""
    if not 0.0 < tune_fraction < 1.0:
        raise UsageError(f"tune_fraction must be strictly between 0 and 1, got {tune_fraction}")
    rng = random.Random(seed)
    tune: set[str] = set()
    for qtype in dict.fromkeys(q.type for q in dataset.queries):
        ids = [q.id for q in dataset.queries if q.type == qtype]
        tune |= set(rng.sample(ids, round(tune_fraction * len(ids))))
    order = [q.id for q in dataset.queries]
    tune_ids = [i for i in order if i in tune]
    test_ids = [i for i in order if i not in tune]
    if not tune_ids or not test_ids:
        raise UsageError(f"{dataset.name}: {len(order)} queries are too few for a tune/test split")
    return tune_ids, test_ids


def half(dataset: Dataset, split: str | None, seed: int = DEFAULT_SEED) -> Dataset:
    """`dataset` with the queries of one seeded half (tune | test), or unchanged for None."""
    if split is None:
        return dataset
    if split not in ("tune", "test"):
        raise UsageError(f"split must be tune or test, got {split!r}")
    ids = set(split_queries(dataset, 0.5, seed)[0 if split == "tune" else 1])
    note = f"{split} split only: {len(ids)} of {len(dataset.queries)} queries (seed {seed})"
    return replace(dataset, queries=[q for q in dataset.queries if q.id in ids], notes=[*dataset.notes, note])
