"""Smaller versions of a dataset for quick runs: the first N queries, a sampled corpus.

A notebook's default parameters must run in a minute or two, which MuSiQue's 1,764
documents do not allow (ingest alone takes minutes). `subset` keeps the first `limit`
queries and, when `distractors` is given, only their gold documents plus a seeded
sample of other documents. Results on a subset are for smoke runs, not for the paper's
tables: a sampled corpus has fewer hard negatives than the full one.
"""
from __future__ import annotations

import random

from ..errors import UsageError
from .dataset import Dataset


def subset(dataset: Dataset, limit: int | None = None, distractors: int | None = None, seed: int = 42) -> Dataset:
    """The first `limit` queries (None = all); the corpus cut to their gold + `distractors` others.

    `distractors=None` keeps the whole corpus, so metrics stay comparable with a full run.
    Distractors are drawn with `random.Random(seed)` from the remaining documents in id order.
    """
    if limit is not None and limit < 1:
        raise UsageError(f"limit must be at least 1, got {limit}")
    if distractors is not None and distractors < 0:
        raise UsageError(f"distractors must be 0 or more, got {distractors}")
    if limit is None and distractors is None:
        return dataset
    queries = dataset.queries[:limit] if limit is not None else list(dataset.queries)
    notes = list(dataset.notes)
    if limit is not None and limit < len(dataset.queries):
        notes.append(f"subset: first {len(queries)} of {len(dataset.queries)} queries")
    documents = dataset.documents
    if distractors is not None:
        gold = {g for q in queries for g in q.gold_doc_ids}
        others = sorted(d.id for d in dataset.documents if d.id not in gold)
        drawn = set(random.Random(seed).sample(others, min(distractors, len(others))))
        documents = [d for d in dataset.documents if d.id in gold or d.id in drawn]
        notes.append(f"subset: corpus cut to {len(gold)} gold + {len(drawn)} random distractor documents "
                     f"(seed {seed}) of {len(dataset.documents)}")
    return Dataset(name=dataset.name, documents=documents, queries=queries, matcher=dataset.matcher, notes=notes,
                   rank_unit=dataset.rank_unit)
