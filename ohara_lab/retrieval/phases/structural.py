"""Phase 3: structural neighbours (spec §3.7).

From the top BM25 node, and from each section phase 0b picked, walk the
document's structure (HAS_CHILD, NEXT_SIBLING, BELONGS_TO, NEXT_PARA,
ADJACENT_TO outbound, plus parent sections) up to `depth` hops. A neighbour
scores 1/hops (the original gave every neighbour 1.0). Corrective filter: when
the query has SUMO hints, drop non-TOC neighbours that share none of them.
"""
from __future__ import annotations

from ...settings import Settings
from ...store.protocol import GraphStore
from ..hits import Hit
from ..state import QueryState


def structural(state: QueryState, store: GraphStore, settings: Settings) -> list[Hit]:
    starts: list[tuple[str, bool]] = []
    bm25 = state.hits.get("bm25", [])
    if bm25:
        starts.append((bm25[0].id, False))
    starts += [(s, True) for s in state.toc_sections if not bm25 or s != bm25[0].id]
    if not starts:
        return []
    toc_of = {s: toc for s, toc in starts}
    rows = store.structural_neighbours([s for s, _ in starts], settings.depth)
    seen = set() if settings.many_angle else state.seen()
    best: dict[str, Hit] = {}
    for r in rows:
        if r.id in seen or r.id in toc_of:
            continue
        hit = Hit(r.id, "", "structural", 1.0 / r.hops,
                  {"from": r.start, "hops": r.hops, "relation": r.relation, "toc_guided": toc_of[r.start]})
        if r.id not in best or best[r.id].score < hit.score:
            best[r.id] = hit
    hits = list(best.values())
    nodes = store.get_nodes([h.id for h in hits])
    for h in hits:
        h.document_id = nodes.get(h.id, {}).get("document_id", "")
    if settings.corrective_struct and state.query.sumo_hints:
        hints = set(state.query.sumo_hints)
        hits = [h for h in hits if h.via["toc_guided"] or hints & set(nodes.get(h.id, {}).get("sumo_tags") or [])]
    return sorted(hits, key=lambda h: (-h.score, h.id))
