"""The paper's published numbers (spec §5, "Reported results (paper_01)"), for side-by-side tables.

Rates are fractions, as our reports keep them. These are quotations, not results:
nothing here is computed, and no code path compares against them to decide anything.
"""
from __future__ import annotations

from typing import Any

from .dataset import in_family

# MultiHop-RAG: 609 news articles, 500 queries (375 answerable + 125 null), doc-level gold.
MULTIHOP: dict[str, dict[str, float]] = {
    "bm25_only": {"hits@4": .832, "hits@10": .944, "mrr@10": .727, "map@10": .479, "recall@10": .688,
                  "principal_hit": .043, "null_abstention": .968},
    "vector_only": {"hits@4": .936, "hits@10": .984, "mrr@10": .811, "map@10": .538, "recall@10": .760,
                    "principal_hit": .925, "null_abstention": .136},
    "full": {"hits@4": .896, "hits@10": .965, "mrr@10": .791, "map@10": .547, "recall@10": .753,
             "principal_hit": .915, "null_abstention": .456},
    "no_sumo": {"hits@4": .896, "hits@10": .968, "mrr@10": .794, "map@10": .549, "recall@10": .752,
                "principal_hit": .909, "null_abstention": .472},
    "no_crossdoc": {"hits@4": .891, "hits@10": .965, "mrr@10": .792, "map@10": .546, "recall@10": .752,
                    "principal_hit": .909, "null_abstention": .472},
    "no_temporal": {"hits@4": .899, "hits@10": .971, "mrr@10": .796, "map@10": .550, "recall@10": .755,
                    "principal_hit": .917, "null_abstention": .472},
    "no_toc": {"hits@4": .901, "hits@10": .973, "mrr@10": .795, "map@10": .552, "recall@10": .757,
               "principal_hit": .909, "null_abstention": .472},
    "no_corroboration": {"hits@4": .899, "hits@10": .968, "mrr@10": .795, "map@10": .548, "recall@10": .751,
                         "principal_hit": .920, "null_abstention": 0.0},
    "tuned": {"hits@4": .917, "hits@10": .984, "mrr@10": .812, "map@10": .556, "recall@10": .761,
              "principal_hit": .920, "null_abstention": .312},
}

# QASPER: 200 papers / 150 questions, paragraph gold. −SUMO, −Cross-doc and −TOC share one row.
QASPER: dict[str, dict[str, float]] = {
    "bm25_only": {"hits@4": .127, "hits@10": .253, "mrr@10": .102, "map@10": .093, "recall@10": .227,
                  "principal_hit": 0.0},
    "vector_only": {"hits@4": .267, "hits@10": .333, "mrr@10": .175, "map@10": .164, "recall@10": .289,
                    "principal_hit": .247},
    "full": {"hits@4": .220, "hits@10": .300, "mrr@10": .164, "map@10": .150, "recall@10": .260,
             "principal_hit": .227},
    "no_sumo": {"hits@4": .220, "hits@10": .293, "mrr@10": .163, "map@10": .150, "recall@10": .257,
                "principal_hit": .220},
    "no_crossdoc": {"hits@4": .220, "hits@10": .293, "mrr@10": .163, "map@10": .150, "recall@10": .257,
                    "principal_hit": .220},
    "no_toc": {"hits@4": .220, "hits@10": .293, "mrr@10": .163, "map@10": .150, "recall@10": .257,
               "principal_hit": .220},
    "no_corroboration": {"hits@4": .220, "hits@10": .293, "mrr@10": .162, "map@10": .149, "recall@10": .257,
                         "principal_hit": .240},
    "tuned": {"hits@4": .253, "hits@10": .333, "mrr@10": .179, "map@10": .164, "recall@10": .289,
              "principal_hit": .227},
}

# QASPER decomposition: corpus Hits@10 / doc-level Hits@10 / oracle Hits@4 / oracle Hits@10.
QASPER_DECOMPOSITION: dict[str, dict[str, float]] = {
    "bm25_only": {"hits@10": .253, "doc_hit@10": .533, "oracle_hits@4": .413, "oracle_hits@10": .538},
    "vector_only": {"hits@10": .333, "doc_hit@10": .580, "oracle_hits@4": .563, "oracle_hits@10": .644},
    "tuned": {"hits@10": .333, "doc_hit@10": .580, "oracle_hits@4": .540, "oracle_hits@10": .644},
}

# The abstention trade-off: full (default) on MultiHop-RAG, and top-k's 0% abstention.
ABSTENTION_POINT: dict[str, float] = {"null_abstention": .456, "principal_hit": .915}
TOPK_POINT: dict[str, float] = {"null_abstention": 0.0, "principal_hit": .920}

# Generation on 100 answerable MultiHop-RAG queries (Gemini answers + normalised match / LLM judge).
GENERATION: dict[str, dict[str, float]] = {
    "tuned": {"accuracy": .54, "inference": .882, "comparison": .412, "temporal": .313},
    "vector_only": {"accuracy": .57, "inference": .882, "comparison": .441, "temporal": .375},
}

# Grid search on 75 QASPER queries (tuned and reported on overlapping queries).
GRID_SEARCH: dict[str, Any] = {"bm25_weight_from": 1.0, "bm25_weight_to": 0.6, "hits@4": (.253, .280),
                               "mrr@10": (.196, .202)}

# Ingest cost, preliminary 50-document medians (seconds, tokens).
INGEST_MEDIANS: dict[str, dict[str, float]] = {
    "parse": {"seconds": 1.2}, "structuring": {"seconds": 8.4, "tokens": 6100}, "sumo": {"seconds": 0.05},
    "entities": {"seconds": 0.02}, "similarity": {"seconds": 1.8}, "enrichment": {"seconds": 4.1, "tokens": 1900},
    "total": {"seconds": 16.0, "tokens": 8000},
}

TABLES: dict[str, dict[str, dict[str, float]]] = {"multihop-rag": MULTIHOP, "qasper": QASPER}


def paper_table(dataset: str) -> dict[str, dict[str, float]]:
    """The published table for a dataset family (`qasper-leval` -> QASPER); {} when there is none."""
    for family, table in TABLES.items():
        if in_family(dataset, family):
            return table
    return {}
