"""Stage 7, vectors: which text nodes get a vector and with what text."""
from __future__ import annotations

from typing import Any

from ..records import DocumentGraph, Paragraph, Table
from .annotate import node_text

MIN_EMBED_CHARS = 20
MAX_EMBED_CHARS = 8192


def embeddable(paragraphs: list[Paragraph], tables: list[Table]) -> list[Paragraph | Table]:
    """Nodes that get a vector: text long enough to mean something."""
    nodes: list[Paragraph | Table] = [*paragraphs, *tables]
    return [n for n in nodes if len(node_text(n)) >= MIN_EMBED_CHARS]


def embed_text(node: Paragraph | Table) -> str:
    """What a node's vector is computed from (long nodes are cut, the encoder would truncate anyway)."""
    return node_text(node)[:MAX_EMBED_CHARS]


def embed_graph(graph: DocumentGraph, embedder: Any) -> None:
    """Vectors for the graph's embeddable nodes, keyed by node id, and the model that made them."""
    if embedder is None:
        return
    nodes = embeddable(graph.paragraphs, graph.tables)
    if not nodes:
        return
    vectors = embedder.embed([embed_text(n) for n in nodes], "document")
    graph.vectors = {n.id: v for n, v in zip(nodes, vectors)}
    graph.vector_model = embedder.model
