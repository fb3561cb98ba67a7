"""The WriteSet: everything ingest decides about writing one document, computed in pure Python.

The store hands it what it declares it reads (`KnownState`, then `EntityReads` once the
replaced documents have left) and persists what it returns, in one transaction:

    store.write(DocumentWriteSet(graph, replaces, linker))

Decided here, never in a store: the entity mentions routed through the curation history
(`ohara_lab.entities.intake`), the document's entity rollup (computed once, after curation),
the tag / mention / question rows, the co-occurrence delta and the ANSWERS_SAME edges; the
linker (`ingest.linking`) decides SIMILAR_TO / CONTRADICTS / PRECEDES.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

from ..entities.derive import cooccurrence_of, merge_aliases, name_keys
from ..entities.intake import collect_routes, curate_incoming, keep_records, mention_nodes, records_wanted
from ..records import ANSWERS_SAME, DocumentGraph, Edge, Entity, NodeEntities, Paragraph, Section, Table, utc_now
from ..store.protocol import (
    EntityReads,
    GraphStore,
    KnownReads,
    KnownState,
    Linker,
    QuestionPair,
    Routes,
    WriteRows,
)
from .rollup import rollup_entities


@dataclass
class DocumentWriteSet:
    """One document's write (`store.protocol.WriteSet`): the graph, the documents it replaces, its linker."""

    graph: DocumentGraph
    replaces: list[str] = field(default_factory=list)
    linker: Linker | None = None
    stored: dict[str, Entity] = field(default_factory=dict, init=False, repr=False)  # atlas records of its entities

    def __post_init__(self) -> None:
        self.replaces = [r for r in self.replaces if r]

    def known_state(self, reads: KnownReads) -> KnownState:
        keys = set(self.norm_keys().values())
        prior = reads.slugs_by_key(keys)
        # every route a document with these slugs and norm_keys might take, chains followed
        routes = collect_routes(self.slugs() | reads.slugs_routed_by_key(keys), {}, reads)
        return KnownState(prior, reads.entity_records(self.records_wanted(routes, prior)))

    def slugs(self) -> set[str]:
        return {s for n in mention_nodes(self.graph) for s in n.entity_slugs}

    def norm_keys(self) -> dict[str, str]:
        return {e.slug: e.norm_key for e in self.graph.entities}

    def records_wanted(self, routes: Routes, prior: dict[str, list[str]]) -> set[str]:
        return records_wanted(routes, self.norm_keys(), prior, bool(self.replaces))

    def curate(self, reads: EntityReads, state: KnownState) -> dict[int, list[NodeEntities]]:
        graph = self.graph
        routed = curate_incoming(graph, reads, state.known, state.prior)
        if self.replaces:
            keep_records(graph, state.known, reads.entity_records(set(state.known)))
        rollup_entities(graph.document, [n.entity_slugs for n in mention_nodes(graph)])
        self.stored = reads.entity_records({e.slug for e in graph.entities})
        return routed

    def rows(self) -> WriteRows:
        g = self.graph
        new, merged = entity_writes(g.entities, self.stored)
        names = [(k, e.slug) for e in g.entities for k in name_keys(e)]
        return WriteRows(tag_rows(g), mention_rows(g), question_rows(g), dict(cooccurrence(g)), names, new, merged)

    def answers_same(self, pairs: list[QuestionPair]) -> list[Edge]:
        both = [(a, b, norm, qa) for a, b, norm, qa, _ in pairs] + [(b, a, norm, qb) for a, b, norm, _, qb in pairs]
        return answers_same_edges(both)


def write_document(
    store: GraphStore, graph: DocumentGraph, *, replaces: Iterable[str] = (), linker: Linker | None = None
) -> None:
    """Write `graph` replacing `replaces` (document ids), with `linker`'s links, in one transaction."""
    store.write(DocumentWriteSet(graph, list(replaces), linker))


def entity_writes(entities: list[Entity], stored: dict[str, Entity]) -> tuple[list[Entity], list[Entity]]:
    """(records new to the atlas, first seen now; stored records with the aliases the document brings)."""
    known = dict(stored)
    new: dict[str, Entity] = {}
    merged: dict[str, Entity] = {}
    for ent in entities:
        if ent.slug not in known:
            ent.first_seen = ent.first_seen or utc_now()
            known[ent.slug] = new[ent.slug] = ent
            continue
        existing = known[ent.slug]
        aliases = merge_aliases(existing, ent)
        if aliases != existing.aliases:
            existing.aliases = aliases
            merged[ent.slug] = existing
    return list(new.values()), [e for s, e in merged.items() if s not in new]


def tag_rows(graph: DocumentGraph) -> list[tuple[str, str]]:
    """(node id, SUMO tag) of every section, paragraph and table, each pair once."""
    nodes: list[Section | Paragraph | Table] = [*graph.sections, *graph.paragraphs, *graph.tables]
    return list(dict.fromkeys((n.id, t) for n in nodes for t in n.sumo_tags))


def mention_rows(graph: DocumentGraph) -> list[tuple[str, str, str]]:
    """(node id, entity slug, type) per mention in a paragraph or table; the first type of a repeated slug wins."""
    rows: dict[tuple[str, str], str] = {}
    for n in mention_nodes(graph):
        for i, slug in enumerate(n.entity_slugs):
            rows.setdefault((n.id, slug), n.entity_types[i] if i < len(n.entity_types) else "CONCEPT")
    return [(nid, slug, kind) for (nid, slug), kind in rows.items()]


def cooccurrence(graph: DocumentGraph) -> Counter[tuple[str, str]]:
    """Entity pairs (a < b) co-occurring in a paragraph or table, counted per node."""
    return cooccurrence_of(node.entity_slugs for node in mention_nodes(graph))


def question_rows(graph: DocumentGraph) -> list[tuple[str, str, str]]:
    """(node id, normalised question, question text) of a document's questions, each (node, norm) once."""
    rows: dict[tuple[str, str], str] = {}
    for q in graph.questions:
        if q.norm:
            rows.setdefault((q.node_id, q.norm), q.text)
    return [(nid, norm, text) for (nid, norm), text in rows.items()]


def answers_same_edges(pairs: Iterable[tuple[str, str, str, str]]) -> list[Edge]:
    """ANSWERS_SAME a->b for each (a, b, norm, a's wording); a pair sharing several questions keeps the first."""
    out: dict[tuple[str, str], Edge] = {}
    for a, b, norm, text in pairs:
        if a != b:
            out.setdefault((a, b), Edge(a, b, ANSWERS_SAME, {"shared_query": text, "shared_query_norm": norm}))
    return list(out.values())
