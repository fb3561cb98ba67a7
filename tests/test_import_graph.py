"""No import loops between ohara_lab's modules, counting the imports inside functions too: a lazy
import only postpones a loop, it still ties the two modules together."""
from __future__ import annotations

from pathlib import Path

import networkx as nx

import ohara_lab
from benchmarks import code_scan

ROOT = Path(ohara_lab.__file__).parent


def import_graph() -> dict[str, set[str]]:
    """Module -> the modules it imports (`benchmarks/code_scan.py`, the scanner the architecture counts use)."""
    return code_scan.import_graph(ROOT)


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (networkx), each sorted."""
    g = nx.DiGraph()
    g.add_nodes_from(graph)
    g.add_edges_from((a, b) for a, targets in graph.items() for b in targets)
    return sorted(sorted(c) for c in nx.strongly_connected_components(g) if len(c) > 1)


def test_the_checker_finds_a_loop() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_the_package_has_no_import_loops() -> None:
    # The last ones were ingest.pipeline <-> ingest.batching and cli <-> eval.commands.
    assert cycles(import_graph()) == []
