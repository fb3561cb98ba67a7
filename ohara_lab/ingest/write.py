"""Stage 8, the write: the document graph and its cross-document links in one transaction,
then what the atlas records about its builders and any post-write hook (LLM edge enrichment)."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..records import DocumentGraph, Edge
from ..settings import Settings
from ..store.protocol import GraphStore
from ..timing import Timer
from .linking import make_linker
from .writeset import DocumentWriteSet


def write_graph(store: GraphStore, graph: DocumentGraph, replaces: list[str], settings: Settings, timer: Timer, *,
                on_document: Callable[[DocumentGraph], None] | None = None,
                before_write: Callable[[DocumentGraph], None] | None = None, vector_backend: str | None = None) -> None:
    """Write `graph`, replacing `replaces`, timing the SIMILAR_TO pass apart from the rest of the write;
    `before_write` may still add to the graph (LLM paragraph questions), `on_document` runs after the write."""
    if before_write is not None:
        with timer.stage("llm_questions"):
            before_write(graph)
    base = make_linker(settings.similarity_threshold)

    def timed_linker(g: DocumentGraph, ctx: Any) -> list[Edge]:
        with timer.stage("similarity"):
            return base(g, ctx)

    with timer.stage("persist"):
        store.write(DocumentWriteSet(graph, replaces, timed_linker))
        record_builders(store, graph, vector_backend)
    if "similarity" in timer.totals:
        timer.totals["persist"] -= timer.totals["similarity"]
    if on_document is not None:
        with timer.stage("enrich"):
            on_document(graph)


def builders(graph: DocumentGraph, vector_backend: str | None = None) -> dict[str, Any]:
    meta = graph.document.meta
    return {"extractor": meta.get("extractor"), "structurer": meta.get("structurer"),
            "ontology_version": meta.get("ontology_version"), "vector_model": graph.vector_model,
            "vector_backend": vector_backend if graph.vector_model else None}


def record_builders(store: GraphStore, graph: DocumentGraph, vector_backend: str | None = None) -> None:
    """The atlas says which extractor, structurer, ontology, embedder and encoder runtime built it
    (mixed builds listed)."""
    built = store.get_meta("built_with", {}) or {}
    changed = False
    for key, value in builders(graph, vector_backend).items():
        if value is None:
            continue
        seen = built.setdefault(key, [])
        if value not in seen:
            seen.append(value)
            changed = True
    if changed:
        store.set_meta("built_with", built)
