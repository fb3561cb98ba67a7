"""Phase 1c: cross-document expansion over SIMILAR_TO (spec §3.4).

From the documents of the top BM25 nodes, follow SIMILAR_TO up to
`cross_doc_expand_depth` hops; every hop must carry weight > 0.3 or a tag the
query cares about (the original gated only the last hop). In each reached
document take the paragraphs sharing the most seed entities, at most
`cross_doc_limit` per reached document (the original's limit was per seed and
document). Score = weight of the last edge, scaled by the share of seed
entities the paragraph mentions: `w · (0.5 + 0.5·shared/|slugs|)`.
"""
from __future__ import annotations

from typing import Any

from ...settings import Settings
from ...store.protocol import GraphStore
from ..hits import Hit
from ..state import QueryState

MIN_EDGE_WEIGHT = 0.3


def cross_doc(state: QueryState, store: GraphStore, settings: Settings) -> list[Hit]:
    seeds = state.seed_documents()
    if not seeds:
        return []
    links = store.similar_documents(seeds, settings.cross_doc_expand_depth, min_weight=MIN_EDGE_WEIGHT,
                                    tags=state.seed_tags())
    slugs = state.seed_slugs()
    seen = set() if settings.many_angle else state.seen("bm25", "sumo")
    best: dict[str, Hit] = {}
    reached: dict[str, Any] = {}
    for link in sorted(links, key=lambda l: (l.hops, -l.weight, l.document_id)):
        reached.setdefault(link.document_id, link)
    for doc_id, link in reached.items():
        for row in store.document_paragraphs_by_entities(doc_id, slugs, settings.cross_doc_limit + len(seen)):
            if row.id in seen:
                continue
            hit = link_hit(link, row, slugs)
            if row.id not in best or best[row.id].score < hit.score:
                best[row.id] = hit
    by_doc: dict[str, list[Hit]] = {}
    for hit in sorted(best.values(), key=lambda h: (-h.score, h.id)):
        by_doc.setdefault(hit.document_id, []).append(hit)
    return [h for hits in by_doc.values() for h in hits[: settings.cross_doc_limit]]


def link_hit(link: Any, row: Any, slugs: list[str]) -> Hit:
    """A paragraph reached over a SIMILAR_TO link: the link's weight, raised by the seed entities it shares."""
    share = len(set(row.shared)) / len(slugs) if slugs else 0.0
    return Hit(row.id, row.document_id, "cross_doc", link.weight * (0.5 + 0.5 * share),
               {"seed_document": link.seed, "edge_verb": link.verb, "edge_summary": link.summary,
                "hops": link.hops, "shared_entities": row.shared})
