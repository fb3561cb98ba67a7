"""`analyze`: compute every analytics kind, store it with the graph version it describes, report counts and times."""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..ids import PARAGRAPHS, in_collection
from ..records import utc_now
from . import adamic_adar, clusters, communities, gaps
from .graph import related_graph

if TYPE_CHECKING:
    from ..store.protocol import GraphStore

# Analytics kinds stored in the atlas (one row per key).
KINDS = ("communities", "entity_community", "surprising", "clusters", "node_cluster", "adamic_adar",
         "isolated_entities", "isolated_documents")
RUN_KEY = "analytics"  # meta key of the last run's info


@dataclass
class AnalyticsReport:
    graph_version: int
    counts: dict[str, int] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)
    params: dict[str, Any] = field(default_factory=dict)
    computed_at: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"graph_version": self.graph_version, "computed_at": self.computed_at, "counts": self.counts,
                "seconds": self.seconds, "params": self.params}


class _Clock:
    def __init__(self, report: AnalyticsReport):
        self.report, self.t = report, time.perf_counter()

    def lap(self, name: str) -> None:
        now = time.perf_counter()
        self.report.seconds[name] = round(now - self.t, 3)
        self.t = now


def analyze(store: GraphStore, *, method: str = "leiden", seed: int = 42,
            vector_model: str | None = None) -> AnalyticsReport:
    """Communities, surprising edges, clusters, Adamic–Adar links and knowledge gaps, stored in the atlas."""
    version = store.get_meta("graph_version", 0) or 0
    report = AnalyticsReport(version, params={"method": method, "seed": seed, "vector_model": vector_model,
                                              "aa_min_score": adamic_adar.MIN_SCORE,
                                              "aa_min_common": adamic_adar.MIN_COMMON})
    clock = _Clock(report)
    g = related_graph(store)
    names = {e.slug: e.name for e in store.get_entities()}
    clock.lap("load")
    _communities(store, g, names, method, seed, report)
    clock.lap("communities")
    _clusters(store, vector_model, seed, report)
    clock.lap("clusters")
    links = adamic_adar.predict(g)
    stored = adamic_adar.by_entity(links)
    store.put_analytics("adamic_adar", stored, {"graph_version": version, "top": adamic_adar.TOP_PER_ENTITY})
    report.counts["adamic_adar_pairs"] = len(links)
    report.counts["adamic_adar_stored"] = sum(len(v) for v in stored.values()) // 2
    clock.lap("adamic_adar")
    ents, docs = gaps.isolated_entities(store, g), gaps.isolated_documents(store)
    store.put_analytics("isolated_entities", ents, {"graph_version": version})
    store.put_analytics("isolated_documents", docs, {"graph_version": version})
    report.counts.update(isolated_entities=len(ents), isolated_documents=len(docs),
                         entities=len(names), related_to=g.number_of_edges())
    clock.lap("gaps")
    report.seconds["total"] = round(sum(report.seconds.values()), 3)
    report.computed_at = utc_now()
    store.set_meta(RUN_KEY, {**report.to_dict(), "vectors_version": store.get_meta("vectors_version", 0)})
    return report


def _communities(store: GraphStore, g: Any, names: dict[str, str], method: str, seed: int,
                 report: AnalyticsReport) -> None:
    parts = communities.detect(g, method, seed=seed)
    found = communities.label(parts, g, names, method)
    membership = {s: c.id for c in found for s in c.members}
    odd = communities.surprising(g, membership)
    version = report.graph_version
    store.put_analytics("communities", {str(c.id): {"id": c.id, "label": c.label, "size": c.size, "members": c.members,
                                                    "top": c.top, "method": method,
                                                    "summary": f"{c.size} entities: {', '.join(c.top[:5])}"}
                                        for c in found}, {"graph_version": version})
    store.put_analytics("entity_community", membership, {"graph_version": version})
    store.put_analytics("surprising", {f"{a}|{b}": {"from": a, "to": b, "count": n,
                                                    "communities": [membership[a], membership[b]]}
                                       for a, b, n in odd}, {"graph_version": version})
    report.counts.update(communities=len(found), community_members=len(membership), surprising_edges=len(odd))
    report.params["modularity"] = round(communities.modularity(g, parts), 4)


def _clusters(store: GraphStore, vector_model: str | None, seed: int, report: AnalyticsReport) -> None:
    """k-means over the paragraph vectors of the atlas's embedding model (skipped without vectors)."""
    models = store.vector_models()
    model = vector_model or (max(models, key=lambda m: (models[m], m)) if models else None)
    ids, matrix = store.vector_matrix(model) if model else ([], None)
    keep = [i for i, nid in enumerate(ids) if in_collection(nid, PARAGRAPHS)]
    version = report.graph_version
    if len(keep) < clusters.MIN_K:
        store.put_analytics("clusters", {}, {"graph_version": version, "skipped": "fewer than 3 embedded paragraphs"})
        store.put_analytics("node_cluster", {}, {"graph_version": version})
        report.counts.update(clusters=0, clustered_paragraphs=0)
        return
    assert matrix is not None  # ids came with it
    para_ids = [ids[i] for i in keep]
    labels, dist = clusters.kmeans(matrix[keep], seed=seed)
    rows = store.get_nodes(para_ids)
    texts = {nid: rows.get(nid, {}).get("content", "") for nid in para_ids}
    lists = {nid: rows.get(nid, {}).get("entity_slugs") or [] for nid in para_ids}
    found = clusters.build(para_ids, labels, dist, texts, lists)
    store.put_analytics("clusters", {str(c.id): {"id": c.id, "size": c.size, "members": c.members, "terms": c.terms,
                                                 "centroid_entity_slugs": c.centroid_entity_slugs,
                                                 "summary": c.summary} for c in found},
                        {"graph_version": version, "model": model, "k": clusters.choose_k(len(para_ids))})
    store.put_analytics("node_cluster", {m: c.id for c in found for m in c.members}, {"graph_version": version})
    report.params["vector_model"] = model
    report.counts.update(clusters=len(found), clustered_paragraphs=len(para_ids),
                         summarised_clusters=sum(1 for c in found if c.size >= clusters.MIN_SUMMARY))


def staleness(store: GraphStore) -> str | None:
    """Why the stored analytics no longer describe the atlas (None when current or never computed)."""
    info = store.get_meta(RUN_KEY)
    if not info:
        return None
    now = store.get_meta("graph_version", 0) or 0
    if info.get("graph_version") != now:
        return f"computed at graph version {info.get('graph_version')}, the atlas is at {now}"
    if info.get("vectors_version") != store.get_meta("vectors_version", 0):
        return "the vectors changed since the clusters were computed"
    return None
