"""Our rank metrics against ranx (Bassani, ECIR 2022), the reference IR evaluation library.

Where the definitions agree (each ranked item a distinct document):
    hit_at_k = ranx hit_rate@k; len([r < k]) = ranx hits@k; RR@10 = ranx mrr@10;
    gold-recall@k = ranx recall@k; AP@10 = ranx map@10 when the query has ≤ 10 gold docs;
    nDCG@10 (graded gain) = ranx ndcg@10; principal_hit = ranx hit_rate@|P| of the Principal list;
    doc_hit@10 = ranx hit_rate@10 of the item list's documents (items distinct).
All to 1e-9 (TOL). null_abstention (is the Principal tier empty) has no counterpart in an IR library.
Where they differ (documented in ohara_lab/eval/metrics.py):
    AP@10 with R > 10 gold docs: ours divides by min(R, 10), ranx by R;
    repeated documents: our ranks count items, a ranx run holds each document once.
The first ranx call compiles numba kernels (~35 s once per environment, cached after).
"""
from __future__ import annotations

import numpy as np
import pytest

from ohara_lab.eval import metrics as m
from ohara_lab.eval.matchers import DocMatcher, RankedItem, gold_hits, hit_ranks

ranx = pytest.importorskip("ranx")
# ranx's numba kernels warn about a uint64 -> int64 cast on every call; it is not ours to fix.
pytestmark = pytest.mark.filterwarnings("ignore:unsafe cast")

# query -> (ranked doc ids, gold doc ids); every list has distinct documents
CASES: dict[str, tuple[list[str], list[str]]] = {
    "q01": (["a", "b", "c", "d", "e"], ["a"]),
    "q02": (["x1", "x2", "b", "x3", "c", "x4"], ["b", "c", "z"]),
    "q03": ([f"n{i}" for i in range(12)], ["g1"]),  # miss
    "q04": ([f"n{i}" for i in range(9)] + ["g1", "g2", "n9", "g3"], ["g1", "g2", "g3", "g4"]),
    "q05": (["g2", "n1", "g1"], ["g1", "g2"]),
    "q06": (["n0", "n1", "n2", "g0"], ["g0"]),
    # 12 gold docs, 6 of them in the top 10: the MAP normalisation case
    "q07": ([f"g{i}" if i % 2 == 0 else f"n{i}" for i in range(14)], [f"g{i}" for i in range(0, 24, 2)]),
}
KS = (1, 3, 5, 10)
TOL = 1e-9
# graded relevance for nDCG (ids absent here have grade 1): gains 1..3 on the multi-gold queries
GRADES: dict[str, dict[str, int]] = {"q02": {"b": 1, "c": 3, "z": 2}, "q04": {"g1": 2, "g3": 3}, "q05": {"g1": 2}}


def _grade(qid: str, doc: str) -> int:
    return GRADES.get(qid, {}).get(doc, 1)


@pytest.fixture(scope="module")
def ranx_scores() -> dict[str, dict[str, float]]:
    qrels = ranx.Qrels({q: {d: 1 for d in gold} for q, (_, gold) in CASES.items()})
    run = ranx.Run({q: {d: float(len(ranked) - i) for i, d in enumerate(ranked)} for q, (ranked, _) in CASES.items()})
    names = [f"hit_rate@{k}" for k in KS] + [f"hits@{k}" for k in KS] + [f"recall@{k}" for k in KS]
    names += ["mrr@10", "map@10"]
    scores = ranx.evaluate(qrels, run, names, return_mean=False)
    graded = ranx.Qrels({q: {d: _grade(q, d) for d in gold} for q, (_, gold) in CASES.items()})
    scores["ndcg@10"] = ranx.evaluate(graded, run, "ndcg@10", return_mean=False)
    names.append("ndcg@10")
    order = list(qrels.keys())  # ranx's per-query arrays follow the qrels' query order
    return {q: {name: float(scores[name][i]) for name in names} for i, q in enumerate(order)}


def _ours(qid: str) -> tuple[list[int], int]:
    ranked, gold = CASES[qid]
    matcher = DocMatcher(gold)
    return hit_ranks([RankedItem(d) for d in ranked], matcher), matcher.gold_count


@pytest.mark.parametrize("qid", sorted(CASES))
def test_hits_mrr_recall_equal_ranx(qid, ranx_scores):
    ranks, gold_count = _ours(qid)
    r = ranx_scores[qid]
    for k in KS:
        assert m.hit_at_k(ranks, k) == pytest.approx(r[f"hit_rate@{k}"], abs=TOL), k
        assert sum(1 for x in ranks if x < k) == pytest.approx(r[f"hits@{k}"], abs=TOL), k
        assert m.gold_recall_at_k(ranks, gold_count, k) == pytest.approx(r[f"recall@{k}"], abs=TOL), k
    assert m.reciprocal_rank_at_k(ranks, 10) == pytest.approx(r["mrr@10"], abs=TOL)


@pytest.mark.parametrize("qid", sorted(CASES))
def test_graded_ndcg_equals_ranx(qid, ranx_scores):
    ranked, gold = CASES[qid]
    hits = [(rank, float(_grade(qid, g))) for rank, g in gold_hits([RankedItem(d) for d in ranked], DocMatcher(gold))]
    ours = m.ndcg_at_k(hits, [float(_grade(qid, g)) for g in gold], 10)
    assert ours == pytest.approx(ranx_scores[qid]["ndcg@10"], abs=TOL)


@pytest.mark.parametrize("qid", sorted(CASES))
def test_principal_hit_and_doc_hit_equal_ranx_hit_rate(qid):
    ranked, gold = CASES[qid]
    qrels = ranx.Qrels({qid: {d: 1 for d in gold}})
    for size in (1, 3, 5):
        principal = ranked[:size]
        run = ranx.Run({qid: {d: float(len(principal) - i) for i, d in enumerate(principal)}})
        theirs = float(np.asarray(ranx.evaluate(qrels, run, f"hit_rate@{size}")))
        assert m.principal_hit([RankedItem(d) for d in principal], DocMatcher(gold)) == pytest.approx(theirs, abs=TOL)
    run = ranx.Run({qid: {d: float(len(ranked) - i) for i, d in enumerate(ranked)}})
    theirs = float(np.asarray(ranx.evaluate(qrels, run, "hit_rate@10")))
    assert m.doc_hit_at_k([RankedItem(d) for d in ranked], gold, 10) == pytest.approx(theirs, abs=TOL)


@pytest.mark.parametrize("qid", sorted(CASES))
def test_map_equals_ranx_up_to_the_min_r_k_denominator(qid, ranx_scores):
    ranks, gold_count = _ours(qid)
    ours = m.average_precision_at_k(ranks, gold_count, 10)
    theirs = ranx_scores[qid]["map@10"]
    if gold_count <= 10:
        assert ours == pytest.approx(theirs, abs=TOL)
    else:
        assert ours == pytest.approx(theirs * gold_count / 10, abs=TOL)
        assert ours > theirs


def test_the_map_case_really_has_more_than_ten_gold():
    ranks, gold_count = _ours("q07")
    assert gold_count == 12 and len([r for r in ranks if r < 10]) == 5


def test_repeated_documents_rank_differently_from_a_ranx_run():
    # Paragraph runs return several items per document: [A, A, B] with gold B.
    ranks = hit_ranks([RankedItem("A"), RankedItem("A"), RankedItem("B")], DocMatcher(["B"]))
    ours = m.reciprocal_rank_at_k(ranks, 10)
    dedup = ranx.evaluate(ranx.Qrels({"q": {"B": 1}}), ranx.Run({"q": {"A": 2.0, "B": 1.0}}), "mrr@10")
    assert ours == pytest.approx(1 / 3)
    assert float(np.asarray(dedup)) == pytest.approx(1 / 2)
