"""Phase 1f (spec §3.5): cluster retrieval, for synthesis and exploratory queries, with
`OHARA_CLUSTER_RETRIEVAL` (off by default) and stored analytics (`ohara analyze`).

The paragraph clusters are k-means++ over the paragraph vectors (cosine), each named by
its class-based TF-IDF terms (`ohara_lab.analytics.clusters`). A cluster c matches when
its summary or terms contain query keywords:

    score(c) = |{k ∈ keywords : k occurs in summary(c) ∪ terms(c)}| / |keywords|     top ⌈limit/2⌉ clusters

The original returned the cluster itself as a node; an atlas here has no cluster nodes,
so a matching cluster stands as its `cluster_members` paragraphs nearest the centroid,
each scored score(c), with the cluster's id and terms as provenance. Fusion weight:
`cluster_weight` (0.6) × the mode row (factoid 0.2, synthesis 1.2, exploratory 0.8).
"""
from __future__ import annotations

from ...settings import Settings
from ...store.protocol import GraphStore
from ..hits import Hit
from ..state import QueryState

MODES = ("synthesis", "exploratory")
SHOWN_TERMS = 5


def clusters(state: QueryState, store: GraphStore, settings: Settings) -> list[Hit]:
    if state.query.mode not in MODES:
        state.skipped["cluster"] = f"a {state.query.mode} query (phase 1f serves synthesis and exploratory ones)"
        return []
    analytics = state.analytics
    if analytics is None:
        state.skipped["cluster"] = "no stored analytics (run `ohara analyze`)"
        return []
    matched = analytics.cluster_hits(state.query.keywords, state.limit)
    if not matched:
        state.skipped["cluster"] = "no cluster's terms contain a query keyword"
        return []
    seen = set() if settings.many_angle else state.seen()
    picked: dict[str, tuple[int, float]] = {}
    for cid, score in matched:
        for pid in analytics.cluster_members(cid, settings.cluster_members):
            if pid not in seen and pid not in picked:
                picked[pid] = (cid, score)
    docs = store.get_nodes(list(picked))
    hits = []
    for pid, (cid, score) in picked.items():
        if pid in docs:  # a paragraph deleted since the analytics ran is not offered
            info = analytics.cluster(cid) or {}
            hits.append(Hit(pid, docs[pid].get("document_id", ""), "cluster", score,
                            {"cluster": cid, "cluster_terms": list(info.get("terms", []))[:SHOWN_TERMS],
                             "cluster_size": info.get("size", 0)}))
    return hits
