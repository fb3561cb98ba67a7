"""Knowledge gaps (spec §2.13): entities with RELATED_TO degree below 2, documents without SIMILAR_TO.

The spec flags a document isolated when `similar_to_indegree == 0`; here SIMILAR_TO
points from the newer document to the older, so the newest document of a linked
pair has in-degree 0. A document counts as isolated when no SIMILAR_TO edge
touches it in either direction.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..store.protocol import GraphStore

from ..records import SIMILAR_TO

MIN_DEGREE = 2


def isolated_entities(store: GraphStore, g: Any) -> dict[str, str]:
    """slug -> reason, for every entity with fewer than MIN_DEGREE co-occurring entities."""
    out = {}
    for e in store.get_entities():
        d = g.degree(e.slug) if e.slug in g else 0
        if d < MIN_DEGREE:
            out[e.slug] = "never co-occurs with another entity" if d == 0 else "co-occurs with only one entity"
    return out


def isolated_documents(store: GraphStore) -> dict[str, str]:
    """document id -> reason, for documents no SIMILAR_TO edge reaches or leaves."""
    linked = {i for e in store.edges(relations=[SIMILAR_TO]) for i in (e.from_id, e.to_id)}
    return {d.id: "shares too few entities with any other document" for d in store.list_documents()
            if d.id not in linked}
