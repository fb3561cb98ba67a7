"""Evaluation harness: datasets, the spec §5 metrics, and paired significance.

    ds = load_dataset("musique", "../shared/datasets")
    ds.write_markdown_corpus("corpus/")            # ingest these; map nodes back to doc ids
    report = evaluate(ds, {qid: QueryResult(ranked, principal), ...})
    compare(report_a.rows, report_b.rows, "mrr@10")
"""
from .dataset import Dataset, DatasetError, EvalDocument, EvalQuery
from .datasets.registry import load_dataset
from .evaluate import EvalReport, QueryResult, evaluate
from .holdout import make_unanswerable
from .matchers import RankedItem
from .significance import Comparison, compare

__all__ = [
    "Comparison", "Dataset", "DatasetError", "EvalDocument", "EvalQuery", "EvalReport", "QueryResult",
    "RankedItem", "compare", "evaluate", "load_dataset", "make_unanswerable",
]
