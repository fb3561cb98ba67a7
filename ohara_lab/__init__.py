"""ohara-lab: auditable retrieval over a Space-Time Graph of documents.

    from ohara_lab import Atlas
    atlas = Atlas.open("./atlas")
    atlas.ingest(["paper.pdf", "notes/"])
    result = atlas.query("proof of work")
    result.tiers.principal        # corroborated nodes, or [] = "not enough evidence"
    print(result.explain(result.results[0].id))
"""
from __future__ import annotations

from importlib import import_module
from typing import Any

from .errors import IngestError, OharaError, ParseError

__version__ = "0.1.0"

__all__ = [
    "Atlas", "Settings", "Document", "DocumentGraph", "Edge", "Entity", "FileOutcome", "IngestReport", "Paragraph",
    "Section", "Table", "OharaError", "IngestError", "ParseError", "__version__",
]


# Imported on first use, so `import ohara_lab` (and `ohara --help`) stays light: Atlas pulls in the
# store and the pipeline, and even the record and settings dataclasses take a while to build.
_RECORDS = (
    "Document", "DocumentGraph", "Edge", "Entity", "FileOutcome", "IngestReport", "Paragraph", "Section", "Table",
)
_LAZY = {"Atlas": ".atlas", "Settings": ".settings", **dict.fromkeys(_RECORDS, ".records")}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(import_module(_LAZY[name], __name__), name)
    raise AttributeError(name)
