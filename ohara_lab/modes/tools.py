"""The agentic mode's tools: retrieval phases the agent calls one at a time (spec §4).

Each tool returns engine `Hit` rows under the phase whose family it belongs to, so
the agent's findings are fused, tiered and explained like the engine's, and a node
two tools reach is corroborated by two signal families:

* ``bm25``          phase 1 on the agent's hint (or the question)          -> bm25
* ``entity_pivot``  phase 2 seeded by the BM25 rows found so far, else by
                    the best rows found by any tool                        -> entity_pivot
* ``cross_doc``     one SIMILAR_TO hop from *every* document found so far
                    (phase 1c starts only from the top BM25 documents);
                    score ``w · (0.5 + 0.5·shared/|slugs|)`` as in phase 1c  -> cross_doc
* ``structural``    two structural hops from the best node found so far,
                    score 1/hops as in phase 3                             -> structural

Web search is not offered: ohara-lab runs offline and has no web search client.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..retrieval.hits import Fused, Hit
from ..retrieval.phases.bm25 import bm25
from ..retrieval.phases.crossdoc import MIN_EDGE_WEIGHT, link_hit
from ..retrieval.phases.entity_pivot import entity_pivot
from ..retrieval.query import parse_query
from ..retrieval.state import SEED_COUNT, QueryState
from ..settings import Settings
from ..store.protocol import GraphStore

STRUCTURAL_DEPTH = 2
CROSS_DOC_DEPTH = 1


@dataclass
class ToolContext:
    """What a tool may read: the agent's query state, the store, and the ranking so far."""

    state: QueryState
    store: GraphStore
    ranked: list[Fused] = field(default_factory=list)

    @property
    def settings(self) -> Settings:
        return self.state.settings

    def rows(self, ids: list[str]) -> list[dict[str, Any]]:
        nodes = self.store.get_nodes(ids)
        return [nodes[i] for i in ids if i in nodes]


def bm25_tool(ctx: ToolContext, hint: str | None) -> list[Hit]:
    sub = QueryState(parse_query(hint or ctx.state.query.raw), ctx.settings)
    sub.query.temporal_intent = ctx.state.query.temporal_intent
    sub.query.date_range = ctx.state.query.date_range
    return bm25(sub, ctx.store, ctx.settings)


def entity_pivot_tool(ctx: ToolContext, hint: str | None) -> list[Hit]:
    from_bm25 = [f.id for f in ctx.ranked if "bm25" in f.sources]
    seeds = (from_bm25 or [f.id for f in ctx.ranked])[:SEED_COUNT]
    ctx.state.seeds = ctx.rows(seeds)
    return entity_pivot(ctx.state, ctx.store, ctx.settings)


def cross_doc_tool(ctx: ToolContext, hint: str | None) -> list[Hit]:
    s = ctx.settings
    docs = list(dict.fromkeys(f.document_id for f in ctx.ranked if f.document_id))
    if not docs:
        return []
    ctx.state.seeds = ctx.rows([f.id for f in ctx.ranked[:SEED_COUNT]])
    slugs = ctx.state.seed_slugs()
    links = ctx.store.similar_documents(docs, CROSS_DOC_DEPTH, min_weight=MIN_EDGE_WEIGHT, tags=ctx.state.seed_tags())
    best: dict[str, Hit] = {}
    for link in sorted(links, key=lambda l: (-l.weight, l.document_id, l.seed)):
        if link.document_id in docs:
            continue
        for row in ctx.store.document_paragraphs_by_entities(link.document_id, slugs, s.cross_doc_limit):
            hit = link_hit(link, row, slugs)
            if row.id not in best or best[row.id].score < hit.score:
                best[row.id] = hit
    return sorted(best.values(), key=lambda h: (-h.score, h.id))


def structural_tool(ctx: ToolContext, hint: str | None) -> list[Hit]:
    if not ctx.ranked:
        return []
    start = ctx.ranked[0].id
    rows = ctx.store.structural_neighbours([start], STRUCTURAL_DEPTH)
    docs = {nid: n.get("document_id", "") for nid, n in ctx.store.get_nodes([r.id for r in rows]).items()}
    return [Hit(r.id, docs.get(r.id, ""), "structural", 1.0 / r.hops,
                {"from": r.start, "hops": r.hops, "relation": r.relation, "toc_guided": False}) for r in rows]


Tool = Callable[[ToolContext, "str | None"], list[Hit]]

TOOLS: dict[str, Tool] = {
    "bm25": bm25_tool,
    "entity_pivot": entity_pivot_tool,
    "cross_doc": cross_doc_tool,
    "structural": structural_tool,
}
