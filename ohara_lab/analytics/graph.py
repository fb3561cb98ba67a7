"""The entity co-occurrence graph (RELATED_TO) as networkx sees it, built in a fixed order."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..errors import UsageError
from ..records import RELATED_TO

if TYPE_CHECKING:
    from ..store.protocol import GraphStore


def require(module: str) -> Any:
    """Import an optional analytics library or say which extra installs it."""
    import importlib  # noqa: PLC0415

    try:
        return importlib.import_module(module)
    except ImportError as e:
        raise UsageError(f"graph analytics need {module.split('.')[0]}: pip install 'ohara-lab[graph]'") from e


def related_graph(store: GraphStore) -> Any:
    """Undirected weighted graph: entity slugs, an edge per RELATED_TO pair weighted by its co-occurrence count.

    Nodes and edges are added in sorted order so every algorithm seeded alike
    gives the same answer on every run and backend.
    """
    nx = require("networkx")
    g = nx.Graph()
    pairs = sorted((e.from_id.partition("/")[2], e.to_id.partition("/")[2], int(e.attrs.get("count", 1)))
                   for e in store.edges(relations=[RELATED_TO]))
    g.add_nodes_from(sorted({p for a, b, _ in pairs for p in (a, b)}))
    for a, b, n in pairs:
        if a != b:
            w = g[a][b]["weight"] + n if g.has_edge(a, b) else n
            g.add_edge(a, b, weight=w)
    return g
