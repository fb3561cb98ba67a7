"""LLM enrichment of a new document's SIMILAR_TO edges (spec §2.10-6/7).

The store writes SIMILAR_TO edges with offline attributes inside the document's
write transaction (`ohara_lab.ingest.linking`). After the write, each edge touching
the new document goes to `enrich_cross_doc_edge` with both documents' titles, tags
and first snippets and the names of their shared entities. The reply replaces the
verb, tags (validated through the ontology), summary and contradiction note;
``temporal_relation`` is derived from the verb (§2.10-7); a supersession or a
contradiction note adds a CONTRADICTS edge, and ``extends``/``supersedes`` between
two dated documents a PRECEDES edge from the earlier to the later.

An edge whose call fails keeps its offline attributes: enrichment improves links,
it never removes them. The relation kept is the stronger of the verb's and the
offline linker's (discusses < extends < supersedes): the linker's rests on dates and
titles and has already written its PRECEDES/CONTRADICTS edges, so a vaguer verb
must not contradict them, while a verb may strengthen the relation.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from ..dates import first_day
from ..errors import LLMError
from ..records import CONTRADICTS, PRECEDES, SIMILAR_TO, Document, DocumentGraph, Edge
from ..store.protocol import GraphStore
from .provider import LLMProvider

log = logging.getLogger(__name__)

EXTENDS_VERBS = ("extends", "builds on", "is based on", "expands on", "derives from", "elaborates on", "continues")
SUPERSEDES_VERBS = ("contradicts", "supersedes", "corrects", "refutes", "disproves", "replaces", "overrides",
                    "disputes")
RELATION_STRENGTH = ("discusses", "extends", "supersedes")
SNIPPETS, SNIPPET_MIN, SNIPPET_CHARS = 3, 50, 300
MAX_TAGS, MAX_SHARED, SUMMARY_CHARS = 4, 10, 300


def temporal_relation(verb: str) -> str:
    """extends | supersedes | discusses from a lower-cased verb (spec §2.10-7)."""
    v = " ".join(verb.lower().split())
    if any(v == w or w in v for w in EXTENDS_VERBS):
        return "extends"
    if any(w in v for w in SUPERSEDES_VERBS):
        return "supersedes"
    return "discusses"


@dataclass
class EnrichOutcome:
    enriched: int = 0
    failed: int = 0
    added: list[Edge] | None = None


class EdgeEnricher:
    """Enriches the SIMILAR_TO edges of one document after its write."""

    def __init__(self, provider: LLMProvider, store: GraphStore, ontology: Any, concurrency: int = 4):
        self.provider = provider
        self.store = store
        self.ontology = ontology
        self.concurrency = concurrency

    def enrich(self, graph: DocumentGraph, scope: str | None = None) -> EnrichOutcome:
        doc_id = graph.document.id
        edges = self.store.edges(from_ids=[doc_id], relations=[SIMILAR_TO]) + \
            self.store.edges(to_ids=[doc_id], relations=[SIMILAR_TO])
        if not edges:
            return EnrichOutcome(added=[])
        docs = self._documents({e.from_id for e in edges} | {e.to_id for e in edges})
        payloads = [self.payload(e, docs) for e in edges]
        replies = self.provider.generate_many([("enrich_cross_doc_edge", p) for p in payloads], self.concurrency,
                                              scope=scope)
        updates: list[Edge] = []
        added: list[Edge] = []
        outcome = EnrichOutcome(added=added)
        for edge, reply in zip(edges, replies):
            if isinstance(reply, LLMError):
                outcome.failed += 1
                log.warning("edge enrichment %s -> %s kept its offline attributes: %s", edge.from_id, edge.to_id,
                            reply.reason)
                continue
            attrs = self.merged_attrs(edge.attrs, reply.data)
            updates.append(Edge(edge.from_id, edge.to_id, SIMILAR_TO, attrs))
            added += derived_edges(edge.from_id, edge.to_id, attrs, docs)
        outcome.enriched = self.store.update_edges(updates) if updates else 0
        if added:
            self.store.add_edges(added)
        return outcome

    # ------------------------------------------------------------------ pieces
    def merged_attrs(self, offline: dict[str, Any], reply: dict[str, Any]) -> dict[str, Any]:
        """Offline attributes overlaid with the reply; tags validated, relation derived from the verb."""
        tags = list(self.ontology.validate_tags(reply.get("tags") or []).tags)[:MAX_TAGS] or list(offline.get("tags") or [])
        # The stronger of the two: the offline relation rests on dates and titles and has already
        # written its PRECEDES/CONTRADICTS edges, which a vaguer verb must not contradict.
        relation = max(temporal_relation(reply["verb"]), offline.get("temporal_relation") or "discusses",
                       key=RELATION_STRENGTH.index)
        note = (reply.get("contradiction_note") or "").strip() or None
        return {**offline, "verb": reply["verb"], "tags": tags, "summary": reply["summary"][:SUMMARY_CHARS],
                "temporal_relation": relation, "contradiction_note": note, "enriched_by": self.provider.name}

    def _documents(self, ids: set[str]) -> dict[str, Document]:
        out = {}
        for doc_id in sorted(ids):
            doc = self.store.get_document(doc_id)
            if doc is not None:
                out[doc_id] = doc
        return out

    def payload(self, edge: Edge, docs: dict[str, Document]) -> dict[str, Any]:
        """`enrich_cross_doc_edge` variables for one edge (spec §2.10-6)."""
        slugs = list(edge.attrs.get("shared_entity_keys") or [])[:MAX_SHARED]
        names = {e.slug: e.name for e in self.store.get_entities(slugs)} if slugs else {}
        return {"doc_a": self._doc_view(edge.from_id, docs), "doc_b": self._doc_view(edge.to_id, docs),
                "shared_entities": [names.get(s, s) for s in slugs]}

    def _doc_view(self, doc_id: str, docs: dict[str, Document]) -> dict[str, Any]:
        doc = docs.get(doc_id)
        paragraphs = self.store.document_nodes(doc_id).get("paragraphs", [])
        snippets = [p["content"][:SNIPPET_CHARS] for p in paragraphs if len(p.get("content") or "") > SNIPPET_MIN]
        return {"title": doc.title if doc else doc_id, "sumo_tags": (doc.sumo_tags if doc else [])[:8],
                "snippets": snippets[:SNIPPETS]}


def derived_edges(from_id: str, to_id: str, attrs: dict[str, Any], docs: dict[str, Document]) -> list[Edge]:
    """CONTRADICTS for a supersession or a contradiction note; PRECEDES earlier -> later when dated apart."""
    out = []
    relation, note = attrs.get("temporal_relation"), attrs.get("contradiction_note")
    if relation == "supersedes" or note:
        out.append(Edge(from_id, to_id, CONTRADICTS, {
            "contradiction_note": note or attrs.get("summary"),
            "source": "conceptual_conflict" if note else "temporal_supersession"}))
    if relation in ("extends", "supersedes"):
        a, b = docs.get(from_id), docs.get(to_id)
        da = first_day(a.published_date) if a else None
        db = first_day(b.published_date) if b else None
        if da and db and da != db:
            earlier, later = (from_id, to_id) if da < db else (to_id, from_id)
            out.append(Edge(earlier, later, PRECEDES, {"derived_from": SIMILAR_TO, "reason": relation}))
    return out

