"""Evaluation harness: datasets, the spec §5 metrics, and paired significance.

    ds = load_dataset("musique", "../shared/datasets")
    ds.write_markdown_corpus("corpus/")            # ingest these; map nodes back to doc ids
    report = evaluate(ds, {qid: QueryResult(ranked, principal), ...})
    compare(report_a.rows, report_b.rows, "mrr@10")
"""
from __future__ import annotations

from importlib import import_module
from typing import Any

# Loaded on first use, so that `ohara --help` (which registers `ohara eval` from
# `eval.commands`) does not import numpy and the metric stack.
_EXPORTS = {
    "Dataset": ".dataset", "DatasetError": ".dataset", "EvalDocument": ".dataset", "EvalQuery": ".dataset",
    "load_dataset": ".datasets.registry", "EvalReport": ".evaluate", "QueryResult": ".evaluate",
    "evaluate": ".evaluate", "make_unanswerable": ".holdout", "RankedItem": ".matchers",
    "Comparison": ".significance", "compare": ".significance",
}

__all__ = [
    "Comparison", "Dataset", "DatasetError", "EvalDocument", "EvalQuery", "EvalReport", "QueryResult",
    "RankedItem", "compare", "evaluate", "load_dataset", "make_unanswerable",
]


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        return getattr(import_module(_EXPORTS[name], __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
