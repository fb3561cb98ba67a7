"""Phase 2: entity pivot (spec §3.6): nodes mentioning the query's and the top
BM25 nodes' entities, scored |entity_slugs ∩ slugs| / |slugs|.

No self-corroboration: for a node that is itself one of the BM25 seeds, an entity
counts only if the query or another seed supplied it — otherwise a seed would
"confirm" itself with its own entities, which is no second signal at all.

With stored analytics (`ohara analyze`): + 0.2 · max Adamic–Adar link between the
hit's other entities and the slugs (`OHARA_ADAMIC_ADAR`), and each hit names the
communities of the entities it shares (`graph_analytics.py`).
"""
from __future__ import annotations

from ...settings import Settings
from ...store.protocol import GraphStore
from ..graph_analytics import boost_pivot_hits, pivot_communities
from ..hits import Hit
from ..state import QueryState


def entity_pivot(state: QueryState, store: GraphStore, settings: Settings) -> list[Hit]:
    slugs = state.seed_slugs()
    if not slugs:
        return []
    fetch = state.limit if settings.many_angle else state.limit * 3
    rows = store.entity_pivot(slugs, fetch)
    if not settings.many_angle:  # the original scored only nodes no earlier phase had found
        seen = state.seen()
        rows = [r for r in rows if r.id not in seen][: state.limit]
    sources = state.slug_sources()
    hits = []
    for r in rows:
        shared = [s for s in dict.fromkeys(r.shared) if sources.get(s, set()) - {r.id}]
        if shared:
            hits.append(Hit(r.id, r.document_id, "entity_pivot", len(shared) / len(slugs), {"shared_entities": shared}))
    if state.analytics is not None:
        if settings.adamic_adar:
            boost_pivot_hits(hits, slugs, store, state.analytics)
        if settings.community:
            pivot_communities(hits, state.analytics)
    return hits
