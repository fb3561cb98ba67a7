"""Tiers (spec §3.10): Principal, Integrity, Explorer.

Principal: in fused order, nodes corroborated by at least
`principal_min_families` distinct signal families (phases that actually added
to the score — the original counted contributions, so one phase reaching a node
twice, or the temporal prior, passed), scoring at or above the
`principal_score_pctl` percentile of the fused list, optionally also spanning two
documents or a cross-document edge; at most `principal_limit`. An empty Principal
tier is the engine saying "not enough evidence".

Integrity: Principal plus structural neighbours of Principal nodes and strong
cross-document hits, every item with its provenance; Principal items whose
document a later one supersedes are flagged `contradicted`.

Explorer: from the Principal documents one hop further along SIMILAR_TO than
phase 1c went, (with OHARA_ANSWERS_SAME) the paragraphs answering the same
question as a Principal paragraph (scent 0.4), and (with stored analytics) the
co-cited and same-community paragraphs of `graph_analytics.py`: the documents
whose scent (product of edge weights) lies in [`explorer_stop_weight`, `integrity_weight_min`).
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ..ids import PARAGRAPHS, entity_id, in_collection
from ..records import CONTRADICTS, RELATED_TO
from ..settings import Settings
from ..store.protocol import GraphStore
from .graph import VersionMemo
from .hits import Fused

STRUCTURAL_VERIFY_PER_NODE = 3
ANSWERS_SAME_SCENT = 0.4


@dataclass
class FrontierItem:
    document_id: str
    node_id: str | None
    edge_verb: str | None
    edge_summary: str | None
    score: float
    hops: int
    source: str = "cross_doc"
    seed_document: str | None = None


@dataclass
class IntegrityItem:
    """A node in the Integrity tier: why it is there (`role`) and the phase contributions that put it there.

    `role`: principal | structural_verify (a structural neighbour of a Principal node) | cross_doc
    (strong SIMILAR_TO support) | self_rag_dropped. After-tier checks add their verdicts
    (`llm_verified`, `self_rag`) and flags (`contradicted`, `self_rag_unresponsive`).
    """

    id: str
    role: str
    score: float
    sources: list[str]
    provenance: list[dict[str, Any]]
    document_id: str | None = None  # unknown for structural neighbours until their view is built
    integrity_flags: list[str] = field(default_factory=list)
    contradiction_note: str | None = None
    llm_verified: bool | None = None
    llm_verify_reason: str | None = None
    self_rag: dict[str, Any] | None = None

    def flag(self, name: str) -> None:
        if name not in self.integrity_flags:
            self.integrity_flags.append(name)

    def to_dict(self) -> dict[str, Any]:
        """The JSON contract: fields that are unset (None, no flags) are left out."""
        out = {"id": self.id, "document_id": self.document_id, "score": self.score, "sources": self.sources,
               "role": self.role, "provenance": self.provenance, "integrity_flags": self.integrity_flags,
               "contradiction_note": self.contradiction_note, "llm_verified": self.llm_verified,
               "llm_verify_reason": self.llm_verify_reason, "self_rag": self.self_rag}
        return {k: v for k, v in out.items() if v is not None and not (isinstance(v, list) and not v)}


@dataclass
class Tiers:
    principal: list[Fused] = field(default_factory=list)
    integrity: list[IntegrityItem] = field(default_factory=list)
    explorer: list[FrontierItem] = field(default_factory=list)
    stopped_reason: str | None = None
    knowledge_gaps: list[dict[str, Any]] = field(default_factory=list)
    floor: float = 0.0
    unexpected_connections: list[dict[str, Any]] = field(default_factory=list)  # cross-community RELATED_TO


def score_floor(scores: list[float], pctl: float) -> float:
    """floor = s[min(n−1, max(0, ⌊n·pctl⌋))] over ascending scores (0 when empty)."""
    if not scores:
        return 0.0
    s = sorted(scores)
    n = len(s)
    return s[min(n - 1, max(0, math.floor(n * pctl)))]


def is_corroborated(entry: Fused, settings: Settings) -> bool:
    if len(entry.families) < settings.principal_min_families:
        return False
    if settings.principal_require_multi_doc:
        docs = {c.document_id for c in entry.contributions if c.score > 0}
        return len(docs) >= 2 or "cross_doc" in entry.families
    return True


def qualifying(fused: list[Fused], settings: Settings) -> tuple[list[Fused], float]:
    """Every node meeting the Principal rule (score floor and corroboration), before the limit; and the floor."""
    floor = score_floor([f.score for f in fused], settings.principal_score_pctl)
    return [f for f in fused if f.score >= floor and is_corroborated(f, settings)], floor


def principal(fused: list[Fused], settings: Settings) -> tuple[list[Fused], float]:
    chosen, floor = qualifying(fused, settings)
    return chosen[: settings.principal_limit], floor


def integrity(chosen: list[Fused], fused: list[Fused], store: GraphStore, settings: Settings,
              excluded: frozenset[str] = frozenset()) -> list[IntegrityItem]:
    items = [_item(f, "principal") for f in chosen]
    taken = {f.id for f in chosen}
    seen = {f.id for f in fused}
    neighbours = store.structural_neighbours([f.id for f in chosen], 1) if chosen else []
    per_start: dict[str, int] = {}
    for n in neighbours:
        if n.id in seen or n.id in taken or per_start.get(n.start, 0) >= STRUCTURAL_VERIFY_PER_NODE:
            continue
        per_start[n.start] = per_start.get(n.start, 0) + 1
        taken.add(n.id)
        items.append(IntegrityItem(n.id, "structural_verify", 1.0, ["structural_verify"],
                                   [{"phase": "structural_verify", "score": 1.0, "raw_score": 1.0, "from": n.start,
                                     "relation": n.relation}]))
    for f in fused:
        c = f.best("cross_doc")
        if f.id not in taken and c is not None and c.raw_score >= settings.integrity_weight_min:
            taken.add(f.id)
            items.append(_item(f, "cross_doc"))
    _flag_contradictions(items, chosen, store, excluded)
    return items


def _item(f: Fused, role: str) -> IntegrityItem:
    return IntegrityItem(f.id, role, f.score, f.sources,
                         [{"phase": c.phase, "score": c.score, "raw_score": c.raw_score, "normalised": c.normalised,
                           "weight": c.weight, "document_id": c.document_id, **c.via} for c in f.contributions],
                         document_id=f.document_id)


def _flag_contradictions(items: list[IntegrityItem], chosen: list[Fused], store: GraphStore,
                         excluded: frozenset[str] = frozenset()) -> None:
    """Principal items from a document a later document supersedes or contradicts — a later document an
    "as of" query excludes did not exist yet, so its supersession does not count."""
    docs = {f.document_id for f in chosen}
    notes = {e.to_id: e.attrs.get("contradiction_note") for e in
             store.edges(to_ids=sorted(docs), relations=[CONTRADICTS]) if e.from_id not in excluded} if docs else {}
    by_id = {f.id: f.document_id for f in chosen}
    for item in items:
        doc = by_id.get(item.id)
        if doc in notes:
            item.flag("contradicted")
            item.contradiction_note = notes[doc]


def explorer(chosen: list[Fused], seen: set[str], store: GraphStore, settings: Settings,
             excluded: frozenset[str] = frozenset(), extra: Sequence[FrontierItem] = ()
             ) -> tuple[list[FrontierItem], str]:
    """Frontier documents in the scent band; `extra`: further paragraph candidates (a document's first wins)."""
    if not chosen:
        return [], "no_principal_seeds"
    seeds = list(dict.fromkeys(f.document_id for f in chosen))
    # A path's scent is the product of its edge weights, so no path through an edge weaker than the
    # stop weight can reach the band: gating every hop at that weight prunes the walk without losing any.
    gate = max(0.0, settings.explorer_stop_weight - 1e-9)
    links = store.similar_documents(seeds, settings.cross_doc_expand_depth + 1, min_weight=gate,
                                    min_path_weight=settings.explorer_stop_weight)  # below it: out of the band
    seen_docs = set(seeds) | set(excluded)
    best: dict[str, FrontierItem] = {}
    for link in links:
        if link.document_id in seen_docs:
            continue
        scent = link.path_weight
        item = FrontierItem(link.document_id, None, link.verb, link.summary, scent, link.hops,
                            seed_document=link.seed)
        if link.document_id not in best or best[link.document_id].score < scent:
            best[link.document_id] = item
    if settings.answers_same:  # spec §3.10 (ii): paragraphs answering the same question, scent 0.4
        for row in store.answers_same([f.id for f in chosen if in_collection(f.id, PARAGRAPHS)]):
            if row.id not in seen and row.document_id not in seen_docs and row.document_id not in best:
                best[row.document_id] = FrontierItem(row.document_id, row.id, "answers same question as",
                                                     row.question, ANSWERS_SAME_SCENT, 1, source="answers_same",
                                                     seed_document=None)
    for cand in extra:
        if cand.node_id not in seen and cand.document_id not in seen_docs and cand.document_id not in best:
            best[cand.document_id] = cand
    band = [i for i in best.values() if settings.explorer_stop_weight <= i.score < settings.integrity_weight_min]
    band.sort(key=lambda i: (-i.score, i.document_id))
    if not band:
        return [], "no_candidates_in_band"
    for item in band:
        if item.node_id is None:
            rows = store.document_paragraphs_by_entities(item.document_id, [], 1)
            item.node_id = next((r.id for r in rows if r.id not in seen), None)
    return band, "weight_below_threshold"


# RELATED_TO degree per entity id: read once per atlas version (a degree changes only with the graph)
RELATED_DEGREES: VersionMemo = VersionMemo()


def knowledge_gaps(chosen: list[Fused], store: GraphStore, limit: int = 10) -> list[dict[str, Any]]:
    """Entities of Principal nodes with fewer than two RELATED_TO neighbours (spec §2.13 gaps)."""
    nodes = store.get_nodes([f.id for f in chosen])
    slugs = list(dict.fromkeys(s for n in nodes.values() for s in n.get("entity_slugs") or []))
    if not slugs:
        return []
    degree = RELATED_DEGREES.get_many(store, [entity_id(s) for s in slugs],
                                      lambda ids: store.relation_degrees(ids, RELATED_TO))
    isolated = [s for s in slugs if (degree.get(entity_id(s)) or 0) < 2]
    # names of those only: an entity record carries its document list, long for the common ones
    names = {e.slug: e.name for e in store.get_entities(isolated[:limit])} if isolated else {}
    return [{"type": "knowledge_gap", "entity_name": names.get(slug, slug), "entity_slug": slug,
             "reason": "fewer than two co-occurring entities in the atlas",
             "hint": f"ingest more documents about {names.get(slug, slug)}"} for slug in isolated[:limit]]
