"""Per-query retrieval metrics of the OHARA evaluation protocol (spec §5), one function each.

All ranks are 0-based positions in the system's ranked result list, and `ranks` is
the output of `matchers.hit_ranks` (ascending, one entry per gold id found).
Dataset-level numbers are means of these per-query scores over the queries a metric
applies to (`ohara_lab.eval.evaluate`).

Relation to ranx (Bassani, ECIR 2022; checked in tests/eval/test_eval_ranx_parity.py, tests/eval/test_eval_beir.py) when
each ranked item is a distinct gold-or-not document:
  * `hit_at_k`           = ranx `hit_rate@k` (ranx `hits@k` is the *count* `len([r < k])`).
  * `reciprocal_rank_at_k` = ranx `mrr@k`.
  * `gold_recall_at_k`   = ranx `recall@k`.
  * `ndcg_at_k`          = ranx `ndcg@k` = trec_eval `ndcg_cut_k` (linear gain, the BEIR number).
  * `average_precision_at_k` = ranx `map@k` when gold_count ≤ k; ranx divides by the
    number of relevant documents R, the original by min(R, k), so for R > k ours is
    ranx's value times R/k.
Where one document yields several ranked items (paragraph runs), ranks here count
items, whereas a ranx run holds each document once; the numbers then differ.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence

from .matchers import RankedItem


def first_hit_rank(ranks: Sequence[int]) -> int | None:
    """Rank of the first hit, or None when nothing matched."""
    return ranks[0] if ranks else None


def hit_at_k(ranks: Sequence[int], k: int) -> float:
    """Hits@k for one query: 1 if the first hit is ranked above k, else 0.

    hit@k = 1[r_1 < k]  (spec §5 "Hits@k = share with first hit rank < k";
    = Success@k / ranx `hit_rate@k`).
    """
    return 1.0 if ranks and ranks[0] < k else 0.0


def reciprocal_rank_at_k(ranks: Sequence[int], k: int = 10) -> float:
    """RR@k: 1/(r_1 + 1) if r_1 < k else 0 (Voorhees, TREC-8 QA 1999; spec §5 MRR@10)."""
    return 1.0 / (ranks[0] + 1) if ranks and ranks[0] < k else 0.0


def average_precision_at_k(ranks: Sequence[int], gold_count: int, k: int = 10) -> float:
    """AP@k as doc_ohara computes it (spec §5 MAP@10).

    AP@k = Σ_{i: r_i < k} (i+1)/(r_i+1) / min(gold_count, k), i the 0-based index of
    the hit among hits, so (i+1)/(r_i+1) is precision at the i-th hit; 0 when
    gold_count is 0. Differs from ranx/trec_eval `map@k` only in the min(·, k)
    denominator (trec_eval divides by the number of relevant documents).
    """
    if gold_count <= 0:
        return 0.0
    total = sum((i + 1) / (r + 1) for i, r in enumerate(r for r in ranks if r < k))
    return total / min(gold_count, k)


def gold_recall_at_k(ranks: Sequence[int], gold_count: int, k: int = 10) -> float | None:
    """Gold-recall@k = #{i: r_i < k} / gold_count; None (not applicable) when gold_count is 0.

    Spec §5 "gold-recall@10"; Recall@2 / Recall@5 (HippoRAG's MuSiQue protocol,
    Gutiérrez et al. 2024) are the same quantity at k = 2, 5. Equals ranx `recall@k`.
    """
    if gold_count <= 0:
        return None
    return sum(1 for r in ranks if r < k) / gold_count


def ndcg_at_k(hits: Sequence[tuple[int, float]], gains: Sequence[float], k: int = 10) -> float | None:
    """nDCG@k with linear gain (Järvelin & Kekäläinen, TOIS 2002), as trec_eval `ndcg_cut_k` and ranx `ndcg@k`.

    DCG@k = Σ_{(r, g) in hits, r < k} g / log2(r + 2), `hits` the 0-based rank and gain of every
    matched gold id (`matchers.gold_hits`); IDCG@k is the DCG of `gains` (the gains of all relevant
    ids of the query) sorted descending; nDCG@k = DCG@k / IDCG@k. A graded qrel's relevance is its
    gain (relevance 2 counts twice relevance 1; the gain is not 2^rel − 1, which is ranx `ndcg_burges`);
    binary gold has gain 1 each. None (not applicable) when no gain is positive.
    """
    ideal = sorted((g for g in gains if g > 0), reverse=True)[:k]
    if not ideal:
        return None
    idcg = sum(g / math.log2(i + 2) for i, g in enumerate(ideal))
    dcg = sum(g / math.log2(r + 2) for r, g in hits if r < k and g > 0)
    return dcg / idcg


def gains_of(gold_ids: Sequence[str], grades: Mapping[str, float]) -> list[float]:
    """The gain of each gold id: its graded relevance where one is known, else 1 (binary gold)."""
    return [float(grades.get(g, 1)) for g in gold_ids]


def principal_hit(principal: Sequence[RankedItem], matcher: Callable[[RankedItem], str | None]) -> float:
    """Principal-hit: 1 if some Principal item matches gold, else 0 (spec §5).

    For the `no_corroboration` config the caller passes the top-5 results as Principal.
    """
    return 1.0 if any(matcher(item) is not None for item in principal) else 0.0


def abstained(principal: Sequence[RankedItem]) -> float:
    """Null abstention for one null query: 1 if the Principal tier is empty (spec §5)."""
    return 0.0 if principal else 1.0


def doc_hit_at_k(items: Sequence[RankedItem], gold_doc_ids: Sequence[str], k: int = 10) -> float:
    """QASPER doc_hit@k: 1 if any of the top-k items comes from a gold document (spec §5)."""
    gold = set(gold_doc_ids)
    return 1.0 if any(item.doc_id in gold for item in items[:k]) else 0.0


def oracle_rank(
    items: Sequence[RankedItem],
    matcher: Callable[[RankedItem], str | None],
    gold_doc_ids: Sequence[str],
) -> int | None:
    """QASPER oracle rank: index of the first match among the items from the gold paper.

    Restricting the ranking to the gold document conditions paragraph discrimination on
    document retrieval (doc_ohara's decomposition of QASPER Hits@k, spec §5).
    """
    gold = set(gold_doc_ids)
    in_doc = [item for item in items if item.doc_id in gold]
    for i, item in enumerate(in_doc):
        if matcher(item) is not None:
            return i
    return None
