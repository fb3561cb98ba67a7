"""Tables about a built atlas: graph statistics, ingest time per stage, LLM token cost.

These are the rows of the paper's ingest-cost table (spec §5 "Cost"): per-stage
medians per document, tokens per document and dollars, here measured on our build.
"""
from __future__ import annotations

import statistics
from collections.abc import Sequence
from typing import Any

from .build import BuildInfo, BuiltAtlas

# Our stage names (the ingest pipeline's Timer stages) next to the paper's ingest-cost rows.
STAGE_LABELS: dict[str, str] = {
    "hash": "hash", "parse": "parse", "structure": "structuring (offline)", "llm_structure": "structuring (LLM)",
    "tag_entities": "SUMO tags + entities", "time": "temporal metadata", "embed": "embeddings",
    "similarity": "similarity (SIMILAR_TO)", "persist": "write (one transaction)", "enrich": "enrichment (LLM)",
    "batched": "batched NER + tags + vectors (per batch)",
}


def graph_rows(stats: dict[str, Any]) -> list[dict[str, Any]]:
    """`atlas.stats()` flattened to (what, count) rows; edges per relation, vectors per model."""
    rows = []
    for key, value in stats.items():
        if key == "llm_usage":
            continue
        if isinstance(value, dict):
            rows += [{"what": f"{key}: {k}", "count": v} for k, v in value.items()]
        else:
            rows.append({"what": key, "count": value})
    return rows


def per_document_rows(stats: dict[str, Any]) -> list[dict[str, Any]]:
    """Sections, paragraphs and entities per document (the paper: 16 sections + 44 paragraphs per paper)."""
    docs = stats.get("documents") or 0
    if not docs:
        return []
    return [{"what": f"{k} per document", "value": round(stats[k] / docs, 2)}
            for k in ("sections", "paragraphs", "tables", "entities") if isinstance(stats.get(k), (int, float))]


def stage_rows(info: BuildInfo) -> list[dict[str, Any]]:
    """Per stage: total seconds over the build and the median milliseconds per document."""
    return [{"stage": STAGE_LABELS.get(stage, stage), "total_s": round(total, 3),
             "median_ms_per_doc": info.stage_median_ms.get(stage),
             "share": round(total / max(sum(info.stage_seconds.values()), 1e-9), 4)}
            for stage, total in sorted(info.stage_seconds.items(), key=lambda kv: -kv[1])]


def token_rows(built: BuiltAtlas) -> list[dict[str, Any]]:
    """LLM tokens and estimated cost: atlas totals and per-document medians; [] when ingest was offline."""
    stats = built.atlas.stats()
    usage = stats.get("llm_usage") or {}
    docs = [d for d in built.atlas.store.list_documents() if getattr(d, "token_usage", None)]
    if not usage and not docs:
        return []
    rows = [{"scope": "atlas total", **{k: usage.get(k) for k in ("prompt", "output", "cached", "total", "calls",
                                                                   "cache_hits", "cost_usd")}}]
    totals: Sequence[float] = [d.token_usage.get("total") or 0 for d in docs]
    if totals:
        rows.append({"scope": "median per document", "total": statistics.median(totals),
                     "cost_usd": _median([d.token_usage.get("cost_usd") for d in docs])})
    return rows


def _median(values: Sequence[Any]) -> float | None:
    known = [v for v in values if isinstance(v, (int, float))]
    return statistics.median(known) if known else None
