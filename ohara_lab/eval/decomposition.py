"""Document routing vs within-document ranking (spec §5, QASPER decomposition).

Corpus Hits@10 mixes two skills: finding the right document and ranking the right
paragraph inside it. `doc_hit@10` measures the first (a top-10 node comes from the gold
paper); oracle Hits@k measures the second (rank of the first gold paragraph among the
nodes from the gold paper, over queries whose paper was found). Both come from
`evaluate` for paragraph-matched datasets; this module lays them out per config.
"""
from __future__ import annotations

from typing import Any

from .runner import MatrixRun

COLUMNS: tuple[str, ...] = ("hits@10", "doc_hit@10", "oracle_hits@4", "oracle_hits@10")


def decomposition_rows(run: MatrixRun) -> list[dict[str, Any]]:
    """One row per config: corpus Hits@10, doc-level Hits@10, oracle Hits@4/@10 and their counts.

    On a doc-matched dataset a hit already is a document hit, so doc_hit@10 equals
    Hits@10 there and the oracle columns do not apply (None).
    """
    paragraph = run.dataset.matcher == "paragraph"
    rows = []
    for name, r in run.runs.items():
        agg = r.aggregate
        rows.append({
            "config": name,
            "hits@10": agg.get("hits@10"),
            "doc_hit@10": agg.get("doc_hit@10") if paragraph else agg.get("hits@10"),
            "oracle_hits@4": agg.get("oracle_hits@4") if paragraph else None,
            "oracle_hits@10": agg.get("oracle_hits@10") if paragraph else None,
            "n_scored": agg.get("n_scored"),
            "n_oracle": agg.get("n_oracle") if paragraph else None,
        })
    return rows
