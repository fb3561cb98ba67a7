"""`map_input_from_atlas`: copy what the space-time map draws out of an atlas's store.

The layout never reads a store (see `ohara_lab.layout.inputs`); this adapter is
the one place that does. It reads through the `GraphStore` protocol only
(`list_documents`, `document_nodes`, `get_entities`, `edges`), so it works for
every backend, and it issues a fixed number of bulk reads per document plus one
per 200 nodes for the edges: a 200-document atlas is a few hundred indexed queries, not
one query per node.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Iterable
from typing import TYPE_CHECKING, Any

from ohara_lab.layout.inputs import (
    DocumentInput,
    EntityInput,
    MapInput,
    SectionInput,
    TextNodeInput,
    text_kind,
)
from ohara_lab.render import shorten
from ohara_lab.store.protocol import GraphStore

if TYPE_CHECKING:
    from ohara_lab.atlas import Atlas

from ..records import CONTRADICTS, HAS_CHILD, MENTIONS, NEXT_PARA, NEXT_SIBLING, PRECEDES, SIMILAR_TO

# Relations worth drawing. BELONGS_TO repeats HAS_CHILD for text nodes and
# RELATED_TO/ADJACENT_TO are dense entity/para cliques that only grey the picture.
MAP_RELATIONS: tuple[str, ...] = (
    HAS_CHILD,
    NEXT_SIBLING,
    MENTIONS,
    SIMILAR_TO,
    CONTRADICTS,
    PRECEDES,
    NEXT_PARA,
)
LABEL_CHARS = 80  # a text node's label: the start of its content
# Source ids per edge read. Small: a store's edge record carries its attributes (a document's
# SIMILAR_TO edges hold ~0.4 KB of them, ~100 edges per document), and a chunk's records all exist at once.
EDGE_CHUNK = 200


def _store(atlas_or_store: Atlas | GraphStore) -> GraphStore:
    """A store as given, or an `Atlas`'s store."""
    return atlas_or_store if isinstance(atlas_or_store, GraphStore) else atlas_or_store.store


def _document_input(doc: Any) -> DocumentInput:
    return DocumentInput(
        id=doc.id,
        title=doc.title or doc.id,
        published_date=doc.published_date,
        coverage_start=doc.temporal_coverage_start,
        sumo_tags=tuple(doc.sumo_tags or ()),
        effective_decay_class=doc.effective_decay_class,
        decay_class=doc.decay_class,
    )


def _dominant(slugs: Iterable[str], communities: dict[str, int]) -> int | None:
    """The community most of a node's entities belong to (ties: the smaller id)."""
    counts = Counter(communities[s] for s in slugs if s in communities)
    return min(counts, key=lambda c: (-counts[c], c)) if counts else None


def _text_input(row: dict[str, Any], position: int, communities: dict[str, int]) -> TextNodeInput:
    content = row.get("content") or row.get("caption") or row.get("markdown_representation") or ""
    return TextNodeInput(
        id=row["id"],
        document_id=row["document_id"],
        section_id=row.get("section_id"),
        kind=text_kind(row.get("node_type", "Paragraph")),
        sumo_tags=tuple(row.get("sumo_tags") or ()),
        doc_position=position,
        label=shorten(content, LABEL_CHARS),
        community=_dominant(row.get("entity_slugs") or (), communities),
    )


def map_input_from_atlas(
    atlas_or_store: Atlas | GraphStore,
    document_ids: Iterable[str] | None = None,
    relations: Collection[str] = MAP_RELATIONS,
) -> MapInput:
    """Snapshot documents, sections, text nodes, entities and edges as a `MapInput`.

    `document_ids` restricts the snapshot (None = every document); entities are
    kept when they occur in a kept document, with their document lists cut to
    the kept ones. Edges are kept when both ends are in the snapshot, so the
    layout never sees a dangling relation. Paragraphs and tables share one
    reading order per document (tables interleave with the paragraphs around
    them), which is the order their disc ring follows.
    """
    store = _store(atlas_or_store)
    docs = store.list_documents()
    if document_ids is not None:
        wanted = set(document_ids)
        unknown = wanted - {d.id for d in docs}
        if unknown:
            raise KeyError(f"documents not in the atlas: {sorted(unknown)[:5]}")
        docs = [d for d in docs if d.id in wanted]

    out = MapInput(documents=[_document_input(d) for d in docs])
    # Entity communities of the last `ohara analyze` (empty before one), for the by_community colours.
    communities = {k: int(v) for k, v in store.get_analytics("entity_community").items()}
    for doc in docs:
        rows = store.document_nodes(doc.id)
        for s in rows.get("sections", ()):
            out.sections.append(
                SectionInput(
                    id=s["id"],
                    document_id=s["document_id"],
                    level=int(s.get("level") or 0),
                    parent_section_id=s.get("parent_section_id"),
                    doc_position=int(s.get("doc_position") or 0),
                    sumo_tags=tuple(s.get("sumo_tags") or ()),
                    title=s.get("title") or "",
                )
            )
        texts = [*rows.get("paragraphs", ()), *rows.get("tables", ())]
        texts.sort(key=lambda r: int(r.get("doc_position") or 0))  # stable: ties keep paragraphs first
        out.text_nodes += [_text_input(r, int(r.get("doc_position") or 0), communities) for r in texts]

    kept_docs = {d.id for d in docs}
    for e in store.get_entities():
        in_view = [d for d in e.document_ids if d in kept_docs]
        if in_view:
            out.entities.append(
                EntityInput(e.id, e.name, tuple(in_view), int(e.mention_count), communities.get(e.slug))
            )

    if relations:
        _read_edges(store, out, list(relations))
    return out


def _read_edges(store: GraphStore, out: MapInput, relations: list[str]) -> None:
    """Add the edges between snapshot nodes to `out.edges`, reading them by `EDGE_CHUNK` source ids.

    The store's edges come as one record (with its attributes) each; read all at once they were the
    map's peak memory (≈ 1 GB for a 118k-paragraph atlas). By chunks of source ids only one chunk's
    records exist at a time, and each edge is read once (by its source). Order: node order, then the store's.
    """
    ordered = [
        *(d.id for d in out.documents),
        *(s.id for s in out.sections),
        *(t.id for t in out.text_nodes),
        *(e.id for e in out.entities),
    ]
    present, wanted = set(ordered), set(relations)
    for start in range(0, len(ordered), EDGE_CHUNK):
        # Relations are filtered here, not in the query: SQLite answers `from_id IN … AND relation IN …`
        # through the relation index (a scan of every edge of those relations, ~40× slower per chunk).
        for edge in store.edges(from_ids=ordered[start : start + EDGE_CHUNK]):
            if edge.relation in wanted and edge.to_id in present:
                out.edges.add(edge.from_id, edge.to_id, edge.relation)
