"""Build the `Ingestor` a store and settings call for (offline or LLM structuring)."""
from __future__ import annotations

from ..settings import Settings
from ..store.protocol import GraphStore
from .pipeline import Ingestor


def make_ingestor(store: GraphStore, settings: Settings) -> Ingestor:
    """Offline structuring unless an LLM provider is configured (`OHARA_LLM`)."""
    llm = _llm_hooks(store, settings)
    if llm is None:
        return Ingestor(store, settings)
    return Ingestor(store, settings, structurer=llm.structurer, structurer_name=llm.name, on_document=llm.on_document,
                    before_write=llm.before_write, budget=llm.budget)


def _llm_hooks(store: GraphStore, settings: Settings):  # type: ignore[no-untyped-def]
    try:
        from ..llm.ingest import llm_ingest_hooks  # noqa: PLC0415
    except ImportError:
        return None
    return llm_ingest_hooks(store, settings)
