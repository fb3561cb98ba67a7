"""ohara-lab: auditable retrieval over a Space-Time Graph of documents.

    from ohara_lab import Atlas
    atlas = Atlas.open("./atlas")
    atlas.ingest(["paper.pdf", "notes/"])
    result = atlas.query("proof of work")
    result.tiers.principal        # corroborated nodes, or [] = "not enough evidence"
    print(result.explain(result.results[0].id))
"""
from __future__ import annotations

from typing import Any

from .errors import IngestError, OharaError, ParseError
from .records import Document, DocumentGraph, Edge, Entity, FileOutcome, IngestReport, Paragraph, Section, Table
from .settings import Settings

__version__ = "0.1.0"

__all__ = [
    "Atlas", "Settings", "Document", "DocumentGraph", "Edge", "Entity", "FileOutcome", "IngestReport", "Paragraph",
    "Section", "Table", "OharaError", "IngestError", "ParseError", "__version__",
]


def __getattr__(name: str) -> Any:
    # Atlas pulls in the store and pipeline; import it on first use so `import ohara_lab` stays light.
    if name == "Atlas":
        from .atlas import Atlas

        return Atlas
    raise AttributeError(name)
