"""Small hand-built document graphs for the store contract suite (no parser, no NER)."""
from __future__ import annotations

from ohara_lab.ids import node_id, norm_key, slugify
from ohara_lab.records import Document, DocumentGraph, Edge, Entity, Paragraph, Section
from ohara_lab.ingest.writeset import write_document


def make_graph(key: str, paragraphs: list[tuple[str, list[str], list[str]]], *, title: str | None = None,
               published: str | None = None, decay: str = "SCHOLARLY", section_title: str = "Intro",
               entity_types: dict[str, str] | None = None) -> DocumentGraph:
    """One document, one section, paragraphs given as (text, sumo tags, entity names)."""
    entity_types = entity_types or {}
    doc_id = node_id("documents", key)
    doc = Document(id=doc_id, title=title or f"Doc {key}", source_file=f"{key}.md", file_hash=key * 4,
                   origin_path=f"/tmp/{key}.md", published_date=published, decay_class=decay,
                   effective_decay_class=decay)
    sec = Section(id=node_id("sections", f"{key}-00001"), document_id=doc_id, title=section_title, level=1,
                  node_type="Chapter", doc_position=1, sumo_tags=[])
    graph = DocumentGraph(document=doc, sections=[sec])
    graph.edges.append(Edge(doc_id, sec.id, "HAS_CHILD"))
    entities: dict[str, Entity] = {}
    prev = None
    for i, (text, tags, names) in enumerate(paragraphs, start=2):
        pid = node_id("paragraphs", f"{key}-{i:05d}")
        slugs = [slugify(n) for n in names]
        para = Paragraph(id=pid, document_id=doc_id, content=text, section_id=sec.id, doc_position=i,
                         sumo_tags=list(tags), entity_slugs=slugs,
                         entity_types=[entity_types.get(n, "ORG") for n in names])
        graph.paragraphs.append(para)
        graph.edges += [Edge(sec.id, pid, "HAS_CHILD"), Edge(pid, doc_id, "BELONGS_TO")]
        if prev:
            graph.edges.append(Edge(prev, pid, "NEXT_PARA"))
        prev = pid
        for name, slug in zip(names, slugs):
            entities.setdefault(slug, Entity(id=node_id("entities", slug), slug=slug, name=name, norm_key=norm_key(name),
                                             type=entity_types.get(name, "ORG")))
            graph.edges.append(Edge(pid, node_id("entities", slug), "MENTIONS", {"context": text[:200]}))
    graph.entities = list(entities.values())
    doc.entity_slugs = list(entities)
    return graph


# Timestamps a re-ingest renews by design (an entity recreated with its document gets a new first_seen).
VOLATILE = ("first_seen", "upload_time", "ts")


def atlas_state(store, name_keys: set | None = None) -> dict:
    """Everything an atlas holds about documents, nodes, entities and edges, in a comparable form.

    Used to check that `undo` restores an atlas exactly; the curation log itself
    and the version counters in meta are left out (they record history). Entity
    names are read for `name_keys` (default: every name and alias of the current entities).
    """
    import json

    from ohara_lab.entities.derive import name_keys as keys_of

    def clean(d: dict) -> dict:
        return {k: v for k, v in d.items() if k not in VOLATILE}

    docs = sorted(store.list_documents(), key=lambda d: d.id)
    nodes = {d.id: {k: [clean(n) for n in v] for k, v in store.document_nodes(d.id).items()} for d in docs}
    ents = store.get_entities()
    keys = sorted(name_keys if name_keys is not None else {k for e in ents for k in keys_of(e)})
    return {
        "documents": [clean(d.to_dict()) for d in docs],
        "nodes": nodes,
        "entities": [clean(e.to_dict()) for e in ents],
        "names": store.entities_by_names(keys) if keys else {},
        "edges": sorted((e.from_id, e.to_id, e.relation, json.dumps(e.attrs, sort_keys=True)) for e in store.edges()),
    }


def dense_similar_graph(store, seed: int, n: int):
    """`n` one-paragraph documents with random SIMILAR_TO edges between about half of their pairs
    (weights from a few levels, a fifth tagged "Mining"); returns (the seeded rng, the document keys)."""
    import numpy as np

    rng = np.random.default_rng(seed)
    keys = [f"d{i}" for i in range(n)]
    for key in keys:
        write_document(store, make_graph(key, [(f"text {key}", [], [])]))
    edges = [Edge(f"documents/{a}", f"documents/{b}", "SIMILAR_TO",
                  {"weight": float(rng.choice([0.1, 0.2, 0.25, 0.5, 0.6, 0.9, 1.0])), "verb": f"{a}{b}",
                   **({"tags": ["Mining"]} if rng.random() < 0.2 else {})})
             for i, a in enumerate(keys) for b in keys[i + 1:] if rng.random() < 0.5]
    write_document(store, make_graph("host", [("linker host", [], [])]), linker=lambda g, ctx: edges)
    return rng, keys
