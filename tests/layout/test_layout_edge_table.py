"""`EdgeTable`: a map's edges as integer columns, read back as records and laid out like a list of records."""
from __future__ import annotations

import numpy as np

from ohara_lab.layout import TAG_TETHER, build_layout
from ohara_lab.layout.inputs import EdgeInput, EdgeTable, MapInput
from ohara_lab.layout.synthetic import synthetic_map_input, synthetic_ontology


def test_rows_come_back_in_order_and_ids_are_stored_once() -> None:
    edges = [EdgeInput("a", "b", "HAS_CHILD"), EdgeInput("b", "c", "SIMILAR_TO"), EdgeInput("a", "c", "HAS_CHILD")]
    table = EdgeTable(edges)
    assert list(table) == edges and len(table) == 3
    assert table.node_ids == ["a", "b", "c"] and table.relation_names == ["HAS_CHILD", "SIMILAR_TO"]
    f, t, r = table.columns()
    assert f.tolist() == [0, 1, 0] and t.tolist() == [1, 2, 2] and r.tolist() == [0, 1, 0]
    copy = table.copy()
    copy.add("c", "a", "PRECEDES")
    assert len(table) == 3 and len(copy) == 4  # a copy (a viewer's subset) never writes into the original


def test_a_list_of_records_becomes_a_table() -> None:
    mi = MapInput(edges=[EdgeInput("a", "b", "HAS_CHILD")])
    assert isinstance(mi.edges, EdgeTable) and list(mi.edges) == [EdgeInput("a", "b", "HAS_CHILD")]


def test_layout_edges_from_columns_match_the_record_rule() -> None:
    """Kept: wanted relations whose two ends are drawn, each (from, to, relation) once, first occurrence first."""
    mi = synthetic_map_input(12, seed=3)
    ontology = synthetic_ontology()
    kinds = ("HAS_CHILD", "SIMILAR_TO", "MENTIONS")
    doubled = MapInput(mi.documents, mi.sections, mi.text_nodes, mi.entities, [*mi.edges, *mi.edges])
    layout = build_layout(doubled, ontology, edge_kinds=kinds)
    row = {node_id: i for i, node_id in enumerate(layout.ids)}
    expected = list(dict.fromkeys((row[e.from_id], row[e.to_id], e.relation) for e in mi.edges
                                  if e.relation in kinds and e.from_id in row and e.to_id in row))
    got = [(int(a), int(b), layout.edge_kind_names[k]) for (a, b), k in zip(layout.edges, layout.edge_kinds)]
    assert got == expected
    assert layout.edge_kind_names == kinds
    everything = build_layout(mi, ontology, edge_kinds=None)
    assert TAG_TETHER in everything.edge_kind_names and np.all(everything.edges >= 0)
