"""`map_input_from_atlas` on a real atlas built from the shipped samples."""
from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from ohara_lab.layout import build_layout
from ohara_lab.layout import from_atlas
from ohara_lab.layout.from_atlas import MAP_RELATIONS, map_input_from_atlas
from ohara_lab.layout.inputs import EdgeTable


def test_snapshot_holds_every_node_of_the_atlas(atlas) -> None:
    stats = atlas.stats()
    mi = map_input_from_atlas(atlas)
    assert len(mi.documents) == stats["documents"] == 7
    assert len(mi.sections) == stats["sections"]
    assert len(mi.text_nodes) == stats["paragraphs"] + stats["tables"]
    assert len(mi.entities) == stats["entities"]
    kinds = Counter(t.kind for t in mi.text_nodes)
    assert kinds["table"] == stats["tables"] >= 1  # the timeline note has a Markdown table


def test_documents_carry_dates_tags_and_decay_classes(atlas) -> None:
    mi = map_input_from_atlas(atlas)
    by_id = {d.id: d for d in mi.documents}
    assert atlas.documents() and set(by_id) == {d.id for d in atlas.documents()}
    for doc in atlas.documents():
        got = by_id[doc.id]
        assert got.title == doc.title
        assert got.published_date == doc.published_date
        assert got.coverage_start == doc.temporal_coverage_start
        assert list(got.sumo_tags) == doc.sumo_tags
        assert (got.decay_class, got.effective_decay_class) == (doc.decay_class, doc.effective_decay_class)
    assert any(d.sumo_tags for d in mi.documents)


def test_text_nodes_keep_reading_order_section_and_label(atlas) -> None:
    doc = next(d for d in atlas.documents() if d.title.startswith("Apache"))
    mi = map_input_from_atlas(atlas, [doc.id])
    rows = atlas.store.document_nodes(doc.id)
    expected = sorted([*rows["paragraphs"], *rows["tables"]], key=lambda r: r["doc_position"])
    assert [t.id for t in mi.text_nodes] == [r["id"] for r in expected]
    first = mi.text_nodes[0]
    assert first.section_id == expected[0]["section_id"]
    assert first.label and expected[0]["content"].startswith(first.label.rstrip("…"))


def test_edges_only_join_nodes_in_the_snapshot(atlas) -> None:
    mi = map_input_from_atlas(atlas)
    present = ({d.id for d in mi.documents} | {s.id for s in mi.sections} | {t.id for t in mi.text_nodes}
               | {e.id for e in mi.entities})
    assert mi.edges
    assert all(e.from_id in present and e.to_id in present for e in mi.edges)
    relations = Counter(e.relation for e in mi.edges)
    assert set(relations) <= set(MAP_RELATIONS)
    for rel in ("HAS_CHILD", "MENTIONS", "SIMILAR_TO"):
        assert relations[rel] == atlas.stats()["edges"][rel], rel


def test_edges_are_read_by_chunks_into_columns(atlas, monkeypatch) -> None:
    """Chunk boundaries lose and repeat no edge; the snapshot keeps edges as columns, not records."""
    whole = map_input_from_atlas(atlas)
    monkeypatch.setattr(from_atlas, "EDGE_CHUNK", 3)
    chunked = map_input_from_atlas(atlas)
    assert isinstance(chunked.edges, EdgeTable) and chunked.edges.nbytes() == 9 * len(chunked.edges)
    triples = Counter((e.from_id, e.to_id, e.relation) for e in chunked.edges)
    assert triples == Counter((e.from_id, e.to_id, e.relation) for e in whole.edges)
    assert max(triples.values()) == 1
    assert len(chunked.edges) == sum(atlas.stats()["edges"].get(r, 0) for r in MAP_RELATIONS)


def test_a_document_subset_cuts_entities_and_edges(atlas) -> None:
    docs = atlas.documents()
    keep = {docs[0].id, docs[1].id}
    mi = map_input_from_atlas(atlas, keep)
    assert {d.id for d in mi.documents} == keep
    assert {s.document_id for s in mi.sections} <= keep
    assert {t.document_id for t in mi.text_nodes} <= keep
    assert mi.entities and all(set(e.document_ids) <= keep for e in mi.entities)
    full = map_input_from_atlas(atlas)
    assert len(mi.entities) < len(full.entities)
    assert not any(e.relation == "SIMILAR_TO" and not {e.from_id, e.to_id} <= keep for e in mi.edges)


def test_unknown_document_is_an_error(atlas) -> None:
    with pytest.raises(KeyError, match="documents/nope"):
        map_input_from_atlas(atlas, ["documents/nope"])


class CountingStore:
    """Wraps a store and counts the protocol calls the adapter makes."""

    def __init__(self, store: Any):
        self._store = store
        self.calls: Counter[str] = Counter()

    def __getattr__(self, name: str) -> Any:
        target = getattr(self._store, name)
        if not callable(target):
            return target

        def counted(*args: Any, **kwargs: Any) -> Any:
            self.calls[name] += 1
            return target(*args, **kwargs)

        return counted


def test_reads_in_bulk_one_call_per_document_not_per_node(atlas) -> None:
    store = CountingStore(atlas.store)
    mi = map_input_from_atlas(store)
    n_docs = len(mi.documents)
    edge_reads = -(-mi.node_count() // from_atlas.EDGE_CHUNK)  # one per chunk of source ids
    assert store.calls == Counter(list_documents=1, document_nodes=n_docs, get_entities=1, edges=edge_reads,
                                  get_analytics=1)
    assert mi.node_count() > 10 * n_docs  # many nodes, few reads


def test_the_layout_of_the_snapshot_places_every_node(atlas, ontology) -> None:
    mi = map_input_from_atlas(atlas)
    layout = build_layout(mi, ontology)
    assert len(layout) >= mi.node_count()  # + the top SUMO tags
    assert len(layout.discs.document_ids) == len(mi.documents)
    assert layout.timeline.tick_labels  # dated documents give a ruler


def test_by_community_colours_follow_the_stored_communities(atlas, ontology) -> None:
    pytest.importorskip("leidenalg", reason="Leiden (analyze's default) needs the graph extra: pip install -e '.[graph]'")
    pytest.importorskip("igraph", reason="Leiden (analyze's default) needs the graph extra: pip install -e '.[graph]'")
    from ohara_lab.layout.colors import NO_COMMUNITY, community_color, hex_to_rgb

    assert {e.community for e in map_input_from_atlas(atlas).entities} == {None}  # nothing analysed yet
    atlas.analyze()
    mi = map_input_from_atlas(atlas)
    membership = atlas.store.get_analytics("entity_community")
    fsf = next(e for e in mi.entities if e.id == "entities/free-software-foundation")
    assert fsf.community == membership["free-software-foundation"]
    layout = build_layout(mi, ontology, color_mode="by_community")
    assert tuple(layout.colors[layout.index_of(fsf.id)]) == pytest.approx(community_color(fsf.community))
    loose = next(t for t in mi.text_nodes if t.community is None)
    assert tuple(layout.colors[layout.index_of(loose.id)]) == pytest.approx(hex_to_rgb(NO_COMMUNITY))
    tagged = next(t for t in mi.text_nodes if t.community is not None)
    assert tuple(layout.colors[layout.index_of(tagged.id)]) == pytest.approx(community_color(tagged.community))
