"""`evaluate`: per-query rows and aggregates on tiny datasets, worked out by hand."""
from __future__ import annotations

import pytest

from ohara_lab.errors import UsageError
from ohara_lab.eval.dataset import Dataset, EvalDocument, EvalQuery
from ohara_lab.eval.evaluate import QueryResult, aggregate, evaluate
from ohara_lab.eval.matchers import RankedItem


def _docs(*ids: str) -> list[EvalDocument]:
    return [EvalDocument(id=i, title=i, text=f"# {i}") for i in ids]


def _items(*doc_ids: str) -> list[RankedItem]:
    return [RankedItem(d) for d in doc_ids]


@pytest.fixture
def doc_dataset() -> Dataset:
    return Dataset(
        name="tiny",
        documents=_docs("d1", "d2", "d3"),
        queries=[
            EvalQuery("q1", "?", "inference_query", gold_doc_ids=["d1", "d2"]),
            EvalQuery("q2", "?", "comparison_query", gold_doc_ids=["d3"]),
            EvalQuery("q3", "?", "null_query", unanswerable=True),
        ],
        matcher="doc",
    )


@pytest.fixture
def doc_results() -> dict[str, QueryResult]:
    return {
        # gold d1 first at rank 1, d2 at rank 3 (the repeat of d1 at rank 2 is not a hit)
        "q1": QueryResult(ranked=_items("d3", "d1", "d1", "d2"), principal=_items("d1")),
        "q2": QueryResult(ranked=_items("d1", "d2"), principal=[]),
        "q3": QueryResult(ranked=_items("d1"), principal=[]),
    }


def test_rows_hold_per_query_scores(doc_dataset, doc_results):
    rows = {r["id"]: r for r in evaluate(doc_dataset, doc_results).rows}
    q1 = rows["q1"]
    assert q1["hit_ranks"] == [1, 3] and q1["gold_count"] == 2
    assert q1["hits@4"] == 1.0 and q1["mrr@10"] == pytest.approx(0.5)
    assert q1["map@10"] == pytest.approx((1 / 2 + 2 / 4) / 2)
    assert q1["recall@2"] == pytest.approx(0.5) and q1["recall@5"] == 1.0
    assert q1["principal_hit"] == 1.0 and q1["null_abstention"] is None
    assert rows["q2"]["hits@10"] == 0.0 and rows["q2"]["first_hit_rank"] is None
    q3 = rows["q3"]
    assert q3["is_null"] and q3["null_abstention"] == 1.0
    assert q3["hits@10"] is None and q3["mrr@10"] is None and q3["principal_hit"] is None
    assert q1["doc_hit@10"] is None and q1["oracle_hits@4"] is None  # QASPER-only metrics


def test_aggregate_averages_over_applicable_queries(doc_dataset, doc_results):
    agg = evaluate(doc_dataset, doc_results).aggregate
    assert (agg["n_queries"], agg["n_scored"], agg["n_null"], agg["n_errors"]) == (3, 2, 1, 0)
    assert agg["hits@4"] == 0.5 and agg["hits@10"] == 0.5
    assert agg["mrr@10"] == 0.25
    assert agg["map@10"] == 0.25
    assert agg["recall@2"] == 0.25 and agg["recall@5"] == 0.5 and agg["recall@10"] == 0.5
    assert agg["principal_hit"] == 0.5
    assert agg["null_abstention"] == 1.0
    assert agg["doc_hit@10"] is None and agg["oracle_hits@10"] is None and agg["n_oracle"] == 0


def test_by_type_breakdown(doc_dataset, doc_results):
    by_type = evaluate(doc_dataset, doc_results).by_type
    assert list(by_type) == ["inference_query", "comparison_query", "null_query"]
    assert by_type["inference_query"]["mrr@10"] == 0.5
    assert by_type["inference_query"]["null_abstention"] is None
    assert by_type["null_query"]["hits@4"] is None and by_type["null_query"]["null_abstention"] == 1.0


def test_null_abstention_is_none_without_null_queries(doc_dataset, doc_results):
    doc_dataset.queries = doc_dataset.queries[:2]
    agg = evaluate(doc_dataset, {k: doc_results[k] for k in ("q1", "q2")}).aggregate
    assert agg["null_abstention"] is None


def test_rounding_to_four_places_and_unrounded():
    rows = [{"id": "a", "is_null": False, "mrr@10": 1 / 3}, {"id": "b", "is_null": False, "mrr@10": 0.0}]
    assert aggregate(rows)["mrr@10"] == 0.1667
    assert aggregate(rows, ndigits=None)["mrr@10"] == pytest.approx(1 / 6)


def test_failed_query_is_scored_as_empty_and_counted(doc_dataset, doc_results):
    doc_results["q1"] = QueryResult(ranked=_items("d1"), principal=_items("d1"), error="timeout")
    report = evaluate(doc_dataset, doc_results)
    q1 = report.rows[0]
    assert q1["hits@10"] == 0.0 and q1["principal_count"] == 0
    assert report.aggregate["n_errors"] == 1


def test_results_must_cover_exactly_the_queries(doc_dataset, doc_results):
    with pytest.raises(UsageError, match="without a result"):
        evaluate(doc_dataset, {k: v for k, v in doc_results.items() if k != "q2"})
    with pytest.raises(UsageError, match="unknown"):
        evaluate(doc_dataset, {**doc_results, "q9": QueryResult()})
    report = evaluate(doc_dataset, {"q2": doc_results["q2"]}, query_ids=["q2"])
    assert report.aggregate["n_queries"] == 1


LONG_1 = "The ferry timetable changes in May so that the first boat leaves at ten past seven."
LONG_2 = "Passengers with bicycles must board through the rear ramp from the first of June onward."


def test_paragraph_dataset_doc_hit_and_oracle():
    ds = Dataset(
        name="para",
        documents=_docs("p1", "p2"),
        queries=[
            EvalQuery("a", "?", "qasper", gold_doc_ids=["p1"], gold_evidence=[LONG_1, LONG_2]),
            EvalQuery("b", "?", "qasper", gold_doc_ids=["p2"], gold_evidence=[LONG_2]),
        ],
        matcher="paragraph",
    )
    results = {
        "a": QueryResult(ranked=[
            RankedItem("p2", "Weather report for the islands today."),
            RankedItem("p1", "A completely unrelated paragraph about seabirds."),
            RankedItem("p1", LONG_2),
            RankedItem("p2", LONG_1),  # gold text, found in another paper: still a paragraph hit
        ], principal=[RankedItem("p1", LONG_2)]),
        "b": QueryResult(ranked=[RankedItem("p1", "Nothing relevant at all here.")]),
    }
    report = evaluate(ds, results, oracle_ks=(1, 4))
    a, b = report.rows
    assert a["hit_ranks"] == [2, 3]
    assert a["mrr@10"] == pytest.approx(1 / 3)
    assert a["map@10"] == pytest.approx((1 / 3 + 2 / 4) / 2)
    assert a["recall@2"] == 0.0 and a["recall@5"] == 1.0
    assert a["doc_hit@10"] == 1.0
    assert a["oracle_rank"] == 1  # p1's items: unrelated, LONG_2 -> index 1
    assert a["oracle_hits@1"] == 0.0 and a["oracle_hits@4"] == 1.0
    assert b["doc_hit@10"] == 0.0 and b["oracle_hits@4"] is None
    agg = report.aggregate
    assert agg["doc_hit@10"] == 0.5 and agg["n_oracle"] == 1
    assert agg["oracle_hits@4"] == 1.0 and agg["oracle_hits@1"] == 0.0
    assert agg["principal_hit"] == 0.5
