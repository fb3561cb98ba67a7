"""Phase 1e (spec §3.5): paragraphs that answer the same question as the top BM25 nodes.

With `OHARA_ANSWERS_SAME` an LLM asks one or two short questions of every paragraph at
ingest; paragraphs sharing a normalised question are linked by ANSWERS_SAME. From the
top-5 BM25 nodes the phase follows those edges: each linked paragraph scores 0.7
(the spec's constant), at most ⌈limit/2⌉ of them, with the shared question as
provenance. Without the edges (offline ingest) it says so and adds nothing.
"""
from __future__ import annotations

import math

from ...ids import PARAGRAPHS, in_collection
from ...settings import Settings
from ...store.protocol import GraphStore
from ..hits import Hit
from ..state import SEED_COUNT, QueryState

SCORE = 0.7


def answers_same(state: QueryState, store: GraphStore, settings: Settings) -> list[Hit]:
    seeds = [h.id for h in state.hits.get("bm25", [])[:SEED_COUNT] if in_collection(h.id, PARAGRAPHS)]
    rows = store.answers_same(seeds) if seeds else []
    if not rows:
        state.skipped["answers_same"] = ("no ANSWERS_SAME edges from the top BM25 paragraphs (they are made at "
                                         "ingest with OHARA_ANSWERS_SAME=true and an LLM)")
        return []
    seen = set() if settings.many_angle else state.seen()
    best: dict[str, Hit] = {}
    for r in rows:
        if r.id in seen or r.id in best:
            continue
        best[r.id] = Hit(r.id, r.document_id, "answers_same", SCORE,
                         {"shared_query": r.question, "seed": r.seed, "edge_verb": "answers same question as"})
    return sorted(best.values(), key=lambda h: h.id)[: math.ceil(state.limit / 2)]
