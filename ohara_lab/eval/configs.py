"""The evaluation config matrix (spec §5 plus the two baselines the paper lacked).

One table drives both the runner and the error message for unknown names. Each
config is a set of settings overrides applied per query; `principal_topk`
configs read the Principal tier as "the top 5 results" (the paper's
−corroboration row).

Difference from the original: a phase with weight 0 adds nothing and is not a
signal family here, so it cannot corroborate (the original's zero-weight
phases still added zero-valued contributions that counted).

Configs flagged `needs_analytics` read stored graph analytics: the runner runs
`analyze` on the evaluation atlas first when it has none (or stale ones); that
changes no other config's numbers (analytics are read only by what these turn on).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..errors import UsageError

ZERO_ALL: dict[str, Any] = {"sumo_weight": 0.0, "entity_pivot_weight": 0.0, "cross_doc_weight": 0.0,
                            "struct_weight": 0.0, "vector_weight": 0.0, "ppr_weight": 0.0, "bridge_weight": 0.0,
                            "temporal_weight": 0.0, "adaptive_weights": False, "toc_guidance": False}


@dataclass(frozen=True)
class EvalConfig:
    name: str
    overrides: dict[str, Any] = field(default_factory=dict)
    description: str = ""
    needs_vectors: bool = True
    principal_topk: bool = False
    needs_analytics: bool = False  # communities, clusters or Adamic–Adar links (`Atlas.analyze`) must be stored
    skip_for: tuple[str, ...] = ()  # datasets where the config is not run (paper: no_temporal on QASPER)


CONFIGS: dict[str, EvalConfig] = {c.name: c for c in [
    EvalConfig("bm25_only", {**ZERO_ALL, "bm25_weight": 1.0}, "BM25 alone", needs_vectors=False),
    EvalConfig("vector_only", {**ZERO_ALL, "bm25_weight": 0.0, "vector_weight": 1.0}, "dense vectors alone"),
    EvalConfig("rrf", {**ZERO_ALL, "bm25_weight": 1.0, "vector_weight": 1.0, "fusion": "rrf"},
               "reciprocal-rank fusion of BM25 and dense (baseline the paper lacked)"),
    EvalConfig("full", {}, "every phase, default weights"),
    EvalConfig("no_sumo", {"sumo_weight": 0.0}, "full without SUMO expansion"),
    EvalConfig("no_crossdoc", {"cross_doc_weight": 0.0}, "full without SIMILAR_TO expansion"),
    EvalConfig("no_temporal", {"temporal_weight": 0.0}, "full without the temporal prior", skip_for=("qasper",)),
    EvalConfig("no_toc", {"toc_guidance": False}, "full without TOC guidance"),
    EvalConfig("no_corroboration", {"principal_min_families": 0, "principal_score_pctl": 0.0, "principal_limit": 5},
               "full, Principal = top-5 results", principal_topk=True),
    EvalConfig("no_many_angle", {"many_angle": False},
               "full, graph phases skip nodes other phases found (the original; tests H1)"),
    EvalConfig("tuned", {"profile": "original", "bm25_weight": 0.6, "vector_weight": 1.0},
               "the original profile with the paper's tuned weights"),
    # Beyond the paper (issue 10): the default profile's parts, one at a time.
    EvalConfig("original", {"profile": "original"}, "the spec's engine: the `full` row of the paper's tables"),
    EvalConfig("ppr_only", {**ZERO_ALL, "bm25_weight": 0.0, "ppr_weight": 1.0, "normalisation": "minmax"},
               "the graph walk alone (dense-seeded PPR; BM25 and dense only seed it)"),
    EvalConfig("no_ppr", {"ppr_weight": 0.0, "vector_weight": 1.0},
               "the default engine without the graph walk: its seed, dense retrieval, ranks instead"),
    EvalConfig("no_bridge", {"bridge_weight": 0.0}, "the default engine without the bridge hop (its default)"),
    EvalConfig("with_bridge", {"bridge_weight": 0.2}, "the default engine with the bridge hop at weight 0.2"),
    EvalConfig("with_bridge_hops", {"bridge_weight": 0.2, "bridge_hops": 3},
               "with_bridge, iterated up to 3 hops on the query's still-unexplained terms (issue 31.3)"),
    # Issue 16: graph analytics in retrieval. The default profile gives the entity pivot weight 0, so the
    # Adamic–Adar boost is measured on a pivot at 0.2 (as with_bridge), against the same pivot without it.
    EvalConfig("with_entity_pivot", {"entity_pivot_weight": 0.2, "adamic_adar": False},
               "the default engine with the entity pivot (phase 2) at weight 0.2, no Adamic–Adar boost"),
    EvalConfig("communities", {"entity_pivot_weight": 0.2, "adamic_adar": True, "community": True},
               "with_entity_pivot plus the Adamic–Adar boost, community context and Explorer (needs analytics)",
               needs_analytics=True),
    EvalConfig("clusters", {"cluster_retrieval": True},
               "the default engine with cluster retrieval (phase 1f, synthesis/exploratory queries; needs analytics)",
               needs_analytics=True),
    EvalConfig("minmax_dense_bm25", {**ZERO_ALL, "bm25_weight": 0.3, "vector_weight": 0.7, "normalisation": "minmax"},
               "min-max convex combination of BM25 (0.3) and dense (0.7), the two-signal fusion baseline"),
]}


def get_configs(names: str | list[str] | None) -> list[EvalConfig]:
    """Configs by comma-separated names or list (None = all, in the paper's order)."""
    if names is None:
        return list(CONFIGS.values())
    wanted = [n.strip() for n in (names.split(",") if isinstance(names, str) else names) if n.strip()]
    unknown = [n for n in wanted if n not in CONFIGS]
    if unknown:
        raise UsageError(f"unknown config(s) {', '.join(unknown)}; choose from: {', '.join(CONFIGS)}")
    return [CONFIGS[n] for n in wanted]
